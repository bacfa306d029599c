/*
 * clock.c - the virtual clock and its control API.
 *
 * Virtual time t (seconds since gwsim_configure) drives everything. In real
 * mode t = (monotonic now - start) * speed + offset, so `smi -l 1` sees values
 * move; in manual mode t moves only through gwsim_clock_advance(), so tests
 * can produce days of history in milliseconds; in step mode t is whole
 * seconds counted in polls (sim.h), so a dmon loop reads one virtual second
 * per line deterministically. Time never runs backwards for
 * a GPU: physics.c ignores an earlier t.
 */
#include "sim.h"
#include "gwsim.h"

#include <time.h>

double gwsim_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double gwsim_now_t(void)
{
	if (gwsim.clock_mode != GWSIM_CLOCK_REAL)
		return gwsim.t_manual;
	return (gwsim_mono() - gwsim.mono0) * gwsim.speed + gwsim.t_offset;
}

void gwsim_clock_poll(void)
{
	if (gwsim.clock_mode != GWSIM_CLOCK_STEP)
		return;
	double now = gwsim_mono();
	if (now - gwsim.last_call >= GWSIM_STEP_GAP) {
		gwsim.t_manual += 1.0;
		gwsim_wake_waiters();
	}
	gwsim.last_call = now;
}

unsigned long long gwsim_t_to_us(double t)
{
	return (unsigned long long)(gwsim.epoch_us + t * 1e6);
}

GWSIM_EXPORT int gwsim_clock_advance(double seconds)
{
	if (!(seconds >= 0))
		return -1;
	pthread_mutex_lock(&gwsim.lock);
	if (gwsim.clock_mode != GWSIM_CLOCK_REAL)
		gwsim.t_manual += seconds;
	else
		gwsim.t_offset += seconds;
	gwsim_wake_waiters();
	pthread_mutex_unlock(&gwsim.lock);
	return 0;
}

GWSIM_EXPORT unsigned long long gwsim_clock_now_ns(void)
{
	pthread_mutex_lock(&gwsim.lock);
	double t = gwsim.configured ? gwsim_now_t() : 0;
	pthread_mutex_unlock(&gwsim.lock);
	return (unsigned long long)(t * 1e9 + 0.5);
}

GWSIM_EXPORT int gwsim_clock_set_manual(int manual)
{
	pthread_mutex_lock(&gwsim.lock);
	double t = gwsim_now_t();
	if (manual) {
		gwsim.clock_mode = GWSIM_CLOCK_MANUAL;
		gwsim.t_manual = t;
	} else {
		gwsim.clock_mode = GWSIM_CLOCK_REAL;
		gwsim.t_offset = t - (gwsim_mono() - gwsim.mono0) * gwsim.speed;
	}
	gwsim_wake_waiters();
	pthread_mutex_unlock(&gwsim.lock);
	return 0;
}

GWSIM_EXPORT int gwsim_clock_set_speed(double speed)
{
	if (!(speed >= GWSIM_SPEED_MIN && speed <= GWSIM_SPEED_MAX))
		return -1;
	pthread_mutex_lock(&gwsim.lock);
	double t = gwsim_now_t();
	gwsim.speed = speed;
	if (gwsim.clock_mode == GWSIM_CLOCK_REAL)
		gwsim.t_offset = t - (gwsim_mono() - gwsim.mono0) * speed;
	gwsim_wake_waiters();
	pthread_mutex_unlock(&gwsim.lock);
	return 0;
}

GWSIM_EXPORT unsigned long long gwsim_clock_epoch_us(void)
{
	pthread_mutex_lock(&gwsim.lock);
	unsigned long long e = gwsim.epoch_us > 0 ? (unsigned long long)gwsim.epoch_us : 0;
	pthread_mutex_unlock(&gwsim.lock);
	return e;
}
