#include "cmd/smi_util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "00000000:83:00.0" and "0000:83:00.0" and "83:00.0" name the same GPU. */
static bool bus_id_matches(const char *have, const char *want)
{
	const char *h = strchr(have, ':');
	const char *w = want;
	size_t colons = 0;
	for (const char *p = want; *p; p++)
		colons += *p == ':';
	if (colons == 2)
		w = strchr(want, ':') + 1;
	if (!h)
		return strcasecmp(have, want) == 0;
	return strcasecmp(h + 1, w) == 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int match_one(const struct gw_gpu *gpus, unsigned int n, const char *tok)
{
	for (unsigned int i = 0; i < n; i++) {
		if (all_digits(tok)) {
			if (strtoul(tok, NULL, 10) == gpus[i].index)
				return (int)i;
		} else if (strncasecmp(tok, "GPU-", 4) == 0 || strncasecmp(tok, "MIG-", 4) == 0) {
			if (strcasecmp(tok, gpus[i].uuid) == 0)
				return (int)i;
		} else if (strchr(tok, ':') && gpus[i].bus_id[0] && bus_id_matches(gpus[i].bus_id, tok)) {
			return (int)i;
		}
	}
	return -1;
}

int gw_smi_select(const struct gw_gpu *gpus, unsigned int n, const char *spec, bool *sel)
{
	for (unsigned int i = 0; i < n; i++)
		sel[i] = false;
	char tok[128];
	const char *p = spec;
	int count = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(tok))
			return -1;
		memcpy(tok, p, len);
		tok[len] = '\0';
		int at = match_one(gpus, n, tok);
		if (at < 0)
			return -1;
		if (!sel[at])
			count++;
		sel[at] = true;
		if (!p[len])
			break;
		p += len + 1;
	}
	return count;
}

void gw_smi_loop_begin(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

bool gw_smi_wait_ms(long ms)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ts.tv_sec;
	end.tv_nsec += ts.tv_nsec;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		if (sigtimedwait(&set, NULL, &ts) == SIGINT)
			return true;
		if (errno != EINTR)
			return false;
		/* another signal interrupted us: wait for the rest */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long left = (end.tv_sec - now.tv_sec) * 1000000000LL + (end.tv_nsec - now.tv_nsec);
		if (left <= 0)
			return false;
		ts.tv_sec = (time_t)(left / 1000000000LL);
		ts.tv_nsec = (long)(left % 1000000000LL);
	}
}

bool gw_smi_parse_uint(const char *s, unsigned long *out)
{
	if (!s || !all_digits(s))
		return false;
	errno = 0;
	unsigned long v = strtoul(s, NULL, 10);
	if (errno == ERANGE || v > INT_MAX)
		return false;
	*out = v;
	return true;
}

struct tm gw_smi_localtime(const struct timespec *ts)
{
	struct tm tm;
	time_t t = ts->tv_sec;
	if (!localtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	return tm;
}
