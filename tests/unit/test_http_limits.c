/* What keeps one client from starving the rest: per-address limits, request deadlines, the bounded pool. */
#include "core/err.h"
#include "harness.h"
#include "http/conns.h"
#include "http/workq.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in v4(const char *ip)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(40000)};
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void test_per_ip_limit(void)
{
	struct gw_conns *c;
	struct gw_conns_opts o = {.per_ip = 2};
	CHECK_INT_EQ(gw_conns_new(&c, &o), 0);
	struct sockaddr_in a = v4("10.0.0.1"), b = v4("10.0.0.2");
	struct gw_conn *k1 = gw_conns_add(c, -1, (struct sockaddr *)&a);
	CHECK(gw_conns_admit(c, (struct sockaddr *)&a));
	struct gw_conn *k2 = gw_conns_add(c, -1, (struct sockaddr *)&a);
	CHECK(!gw_conns_admit(c, (struct sockaddr *)&a)); /* the port does not matter, the address does */
	CHECK(gw_conns_admit(c, (struct sockaddr *)&b));
	gw_conns_remove(c, k1);
	CHECK(gw_conns_admit(c, (struct sockaddr *)&a));
	struct gw_conns_stats st;
	gw_conns_stats(c, &st);
	CHECK_INT_EQ(st.open, 1);
	CHECK_INT_EQ(st.rejected, 1);
	gw_conns_remove(c, k2);
	gw_conns_free(c);
}

/* 1: the peer of fd saw it shut down (EOF); 0: still open. */
static int peer_closed(int peer)
{
	char ch;
	ssize_t n = recv(peer, &ch, 1, MSG_DONTWAIT);
	return n == 0 ? 1 : n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
}

static void test_head_deadline(void)
{
	struct gw_conns *c;
	struct gw_conns_opts o = {.head_timeout_ms = 200, .idle_timeout_ms = 60000};
	CHECK_INT_EQ(gw_conns_new(&c, &o), 0);
	int slow[2], served[2], trickle[2]; /* trickle: kept alive between requests */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, slow) == 0);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, served) == 0);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, trickle) == 0);
	struct gw_conn *ks = gw_conns_add(c, slow[0], NULL);
	struct gw_conn *kh = gw_conns_add(c, served[0], NULL);
	struct gw_conn *kt = gw_conns_add(c, trickle[0], NULL);
	gw_conns_mark(c, kh, GW_CONN_HANDLING); /* a request being answered has no deadline */
	/* answered: the next request is due after the idle timeout, not the head timeout */
	gw_conns_mark(c, kt, GW_CONN_IDLE);
	sleep_ms(200 + 800); /* past 200 ms, plus the reaper's period, with room for a loaded machine */
	CHECK_INT_EQ(peer_closed(slow[1]), 1);
	CHECK_INT_EQ(peer_closed(served[1]), 0);
	CHECK_INT_EQ(peer_closed(trickle[1]), 0);
	struct gw_conns_stats st;
	gw_conns_stats(c, &st);
	CHECK_INT_EQ(st.timed_out, 1);
	gw_conns_remove(c, ks);
	gw_conns_remove(c, kh);
	gw_conns_remove(c, kt);
	gw_conns_free(c);
	for (int i = 0; i < 2; i++) {
		close(slow[i]);
		close(served[i]);
		close(trickle[i]);
	}
}

static atomic_int released, ran, dropped;

static void blocker(void *arg, int64_t waited_ms)
{
	(void)arg;
	(void)waited_ms;
	while (!atomic_load(&released))
		sleep_ms(5);
	atomic_fetch_add(&ran, 1);
}

static void job(void *arg, int64_t waited_ms)
{
	(void)arg;
	(void)waited_ms;
	atomic_fetch_add(&ran, 1);
}

static void drop(void *arg)
{
	(void)arg;
	atomic_fetch_add(&dropped, 1);
	atomic_store(&released, 1);
}

static void test_pool_bounds(void)
{
	struct gw_workq *q;
	CHECK_INT_EQ(gw_workq_new(&q, 1, 2), 0);
	CHECK_INT_EQ(gw_workq_push(q, blocker, NULL), 0);
	struct gw_workq_stats st = {0};
	for (int i = 0; i < 200 && st.running != 1; i++) {
		sleep_ms(5);
		gw_workq_stats(q, &st);
	}
	CHECK_INT_EQ(st.running, 1);
	CHECK_INT_EQ(gw_workq_push(q, job, NULL), 0);
	CHECK_INT_EQ(gw_workq_push(q, job, NULL), 0);
	CHECK_INT_EQ(gw_workq_push(q, job, NULL), GW_EOVERFLOW); /* one running, two waiting: full */
	gw_workq_stats(q, &st);
	CHECK_INT_EQ(st.queued, 2);
	CHECK_INT_EQ(st.rejected, 1);
	/* stopping: the waiting jobs are dropped, never run; the running one finishes */
	gw_workq_free(q, drop);
	CHECK_INT_EQ(atomic_load(&dropped), 2);
	CHECK_INT_EQ(atomic_load(&ran), 1);
}

int main(void)
{
	RUN(test_per_ip_limit);
	RUN(test_head_deadline);
	RUN(test_pool_bounds);
	return harness_done();
}
