/*
 * test_notify.c - the alert notifier (rules/notify.h) against loopback
 * receivers (http_recv.h) that answer 200, 500, 400 or not at all, and,
 * when it is installed, against a real Alertmanager 0.25.
 */
#include "harness.h"
#include "http_recv.h"

#include "core/buf.h"
#include "export/expfmt.h"
#include "http/curl.h"
#include "rules/notify.h"
#include "rules/notify_int.h"
#include "version.h"

#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define WAIT_MS 10000 /* generous: the machine is shared */

/* The log lines the notifier wrote (its logf has no context argument). */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 16];

__attribute__((format(printf, 2, 3))) static void test_logf(const char *level, const char *fmt, ...)
{
	pthread_mutex_lock(&log_mu);
	size_t n = strlen(log_text);
	if (n < sizeof(log_text) - 1) {
		n += (size_t)snprintf(log_text + n, sizeof(log_text) - n, "level=%s ", level);
		va_list ap;
		va_start(ap, fmt);
		if (n < sizeof(log_text) - 1)
			n += (size_t)vsnprintf(log_text + n, sizeof(log_text) - n, fmt, ap);
		va_end(ap);
		if (n < sizeof(log_text) - 1)
			snprintf(log_text + n, sizeof(log_text) - n, "\n");
	}
	pthread_mutex_unlock(&log_mu);
}

static bool log_has(const char *s)
{
	pthread_mutex_lock(&log_mu);
	bool has = strstr(log_text, s) != NULL;
	pthread_mutex_unlock(&log_mu);
	return has;
}

static void log_clear(void)
{
	pthread_mutex_lock(&log_mu);
	log_text[0] = '\0';
	pthread_mutex_unlock(&log_mu);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t real_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The notifier's metrics as text. */
static void render(struct gw_notifier *n, struct gw_buf *b)
{
	gw_buf_reset(b);
	struct gw_expfmt w;
	gw_expfmt_init(&w, b, GW_EXPFMT_TEXT);
	gw_notifier_render(n, &w);
	CHECK_INT_EQ(gw_expfmt_finish(&w), 0);
}

/* The value of the sample line that starts with series (name and labels), or -1. */
static double metric(struct gw_notifier *n, const char *series)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	render(n, &b);
	double v = -1;
	size_t sl = strlen(series);
	for (const char *l = b.data; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, series, sl) == 0 && l[sl] == ' ')
			v = strtod(l + sl + 1, NULL);
	gw_buf_release(&b);
	return v;
}

static double am_metric(struct gw_notifier *n, const char *family, int port)
{
	char s[256];
	snprintf(s, sizeof(s), "%s{alertmanager=\"http://127.0.0.1:%d/api/v2/alerts\"}", family, port);
	return metric(n, s);
}

/* Wait until an Alertmanager's sample of family reaches want; returns the last value. */
static double wait_am_metric(struct gw_notifier *n, const char *family, int port, double want)
{
	double v = am_metric(n, family, port);
	for (int waited = 0; v < want && waited < WAIT_MS; waited += 10) {
		usleep(10000);
		v = am_metric(n, family, port);
	}
	return v;
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

struct setup {
	char url[64];
	const char *urls[1];
	struct gw_notifier_opts o;
};

static void setup_am(struct setup *s, int port)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d/", port); /* a trailing slash is dropped */
	s->urls[0] = s->url;
	s->o.alertmanagers = s->urls;
	s->o.nalertmanagers = 1;
	s->o.logf = test_logf;
}

static struct gw_notifier *start(const struct gw_notifier_opts *o)
{
	struct gw_notifier *n = NULL;
	struct gw_err err = {0};
	int rc = gw_notifier_new(&n, o, &err);
	if (rc)
		fprintf(stderr, "gw_notifier_new: %s\n", err.msg);
	CHECK_INT_EQ(rc, 0);
	return n;
}

/* Alert i of a numbered series: alertname Load, seq "i". */
struct numbered {
	char seq[16];
	struct gw_lpair l[2];
	struct gw_alert_msg a;
};

static void numbered(struct numbered *x, int i)
{
	snprintf(x->seq, sizeof(x->seq), "%d", i);
	x->l[0] = (struct gw_lpair){"alertname", "Load"};
	x->l[1] = (struct gw_lpair){"seq", x->seq};
	x->a =
	    (struct gw_alert_msg){.labels = {x->l, 2}, .starts_ms = 1796382000123, .ends_ms = 1796382240000};
}

static void send_numbered(struct gw_notifier *n, int from, int count)
{
	struct numbered *x = calloc((size_t)count, sizeof(*x));
	struct gw_alert_msg *a = calloc((size_t)count, sizeof(*a));
	for (int i = 0; i < count; i++) {
		numbered(&x[i], from + i);
		a[i] = x[i].a;
	}
	gw_notifier_send(n, a, (size_t)count);
	free(x);
	free(a);
}

static void test_times(void)
{
	char t[NOTIFY_TIME_MAX];
	notify_time_millis(t, 1796382000123);
	CHECK_STR_EQ(t, "2026-12-04T11:00:00.123Z");
	notify_time_millis(t, 1796382240000);
	CHECK_STR_EQ(t, "2026-12-04T11:04:00.000Z");
	notify_time_rfc3339nano(t, 1796382240000);
	CHECK_STR_EQ(t, "2026-12-04T11:04:00Z");
	notify_time_rfc3339nano(t, 4102444800500);
	CHECK_STR_EQ(t, "2100-01-01T00:00:00.5Z");
	notify_time_rfc3339nano(t, 1577836800250);
	CHECK_STR_EQ(t, "2020-01-01T00:00:00.25Z");
	notify_time_rfc3339nano(t, -1);
	CHECK_STR_EQ(t, "1969-12-31T23:59:59.999Z");
	notify_time_rfc3339nano(t, 0);
	CHECK_STR_EQ(t, "0001-01-01T00:00:00Z");
	notify_time_millis(t, 0);
	CHECK_STR_EQ(t, "0001-01-01T00:00:00.000Z");
}

static void test_fingerprint(void)
{
	/* prometheus/common model's test vectors (signature_test.go) */
	struct gw_lpair p[2] = {{"fear", "love is not enough"}, {"name", "garland, briggs"}};
	struct gw_labels l = {p, 2};
	CHECK_INT_EQ(notify_fingerprint(&l), (long long)5799056148416392346ULL);
	struct gw_labels none = {NULL, 0};
	CHECK(notify_fingerprint(&none) == 14695981039346656037ULL);
}

/* One alert, byte for byte as Prometheus posts it, with external labels and basic auth. */
static void test_one_alert_body(void)
{
	struct recv r;
	CHECK_INT_EQ(recv_start(&r, 200), 0);
	struct setup s;
	setup_am(&s, r.port);
	struct gw_lpair ext[2] = {{"cluster", "c1"}, {"instance", "ext"}};
	s.o.external = (struct gw_labels){ext, 2};
	s.o.basic_user = "alice";
	s.o.basic_password = "s3cret";
	struct gw_notifier *n = start(&s.o);
	struct gw_lpair l[3] = {{"alertname", "GpuHot"}, {"gpu", "0"}, {"instance", "h1"}};
	struct gw_lpair an[1] = {{"summary", "GPU 0 is hot > 90C"}};
	struct gw_alert_msg a = {.labels = {l, 3},
				 .annotations = {an, 1},
				 .starts_ms = 1796382000123,
				 .ends_ms = 1796382240000,
				 .generator_url = "http://h:9400/graph?g0.expr=x"};
	gw_notifier_send(n, &a, 1);
	CHECK_INT_EQ(recv_wait(&r, 1, WAIT_MS), 1);
	CHECK_STR_EQ(r.req[0].path, "/api/v2/alerts");
	CHECK_STR_EQ(r.req[0].content_type, "application/json");
	CHECK_STR_EQ(r.req[0].user_agent, "gpuwatch/" GW_VERSION);
	CHECK_STR_EQ(r.req[0].authorization, "Basic YWxpY2U6czNjcmV0");
	CHECK_STR_EQ(
	    r.req[0].body,
	    "[{\"annotations\":{\"summary\":\"GPU 0 is hot \\u003e 90C\"},"
	    "\"endsAt\":\"2026-12-04T11:04:00.000Z\",\"startsAt\":\"2026-12-04T11:00:00.123Z\","
	    "\"generatorURL\":\"http://h:9400/graph?g0.expr=x\","
	    "\"labels\":{\"alertname\":\"GpuHot\",\"cluster\":\"c1\",\"gpu\":\"0\",\"instance\":\"h1\"}}]");
	wait_am_metric(n, "gpuwatch_notifications_latency_seconds_count", r.port, 1);
	CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_sent_total", r.port), 1, 0);
	CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_errors_total", r.port), 0, 0);
	CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_latency_seconds_count", r.port), 1, 0);
	CHECK(am_metric(n, "gpuwatch_notifications_latency_seconds_sum", r.port) >= 0);
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_queue_length"), 0, 0);
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_queue_capacity"), 10000, 0);
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_dropped_total"), 0, 0);
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_alertmanagers_discovered"), 1, 0);
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	render(n, &b);
	CHECK(strstr(b.data, "# TYPE gpuwatch_notifications_latency_seconds summary\n") != NULL);
	CHECK(strstr(b.data, "# TYPE gpuwatch_notifications_sent_total counter\n") != NULL);
	gw_buf_release(&b);
	gw_notifier_free(n);
	recv_stop(&r);
}

/* 150 alerts sent at once go out as 64 + 64 + 22, in order. */
static void test_batches(void)
{
	struct recv r;
	CHECK_INT_EQ(recv_start(&r, 200), 0);
	struct setup s;
	setup_am(&s, r.port);
	struct gw_notifier *n = start(&s.o);
	send_numbered(n, 0, 150);
	CHECK_INT_EQ(recv_wait(&r, 3, WAIT_MS), 3);
	usleep(100000);
	CHECK_INT_EQ(recv_count(&r), 3);
	CHECK_INT_EQ(count_of(r.req[0].body, "\"labels\""), 64);
	CHECK_INT_EQ(count_of(r.req[1].body, "\"labels\""), 64);
	CHECK_INT_EQ(count_of(r.req[2].body, "\"labels\""), 22);
	CHECK(strstr(r.req[0].body, "\"seq\":\"0\"}") != NULL);
	CHECK(strstr(r.req[1].body, "\"seq\":\"64\"}") != NULL);
	CHECK(strstr(r.req[2].body, "\"seq\":\"149\"}") != NULL);
	wait_am_metric(n, "gpuwatch_notifications_sent_total", r.port, 150);
	CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_sent_total", r.port), 150, 0);
	gw_notifier_free(n);
	recv_stop(&r);
}

/* A 500 is retried with the same body; nothing is lost. */
static void test_retry_after_500(void)
{
	struct recv r;
	CHECK_INT_EQ(recv_start(&r, 200), 0);
	r.script[0] = 500;
	r.nscript = 1;
	struct setup s;
	setup_am(&s, r.port);
	log_clear();
	struct gw_notifier *n = start(&s.o);
	send_numbered(n, 0, 3);
	CHECK_INT_EQ(recv_wait(&r, 2, WAIT_MS), 2);
	CHECK_STR_EQ(r.req[1].body, r.req[0].body);
	CHECK_INT_EQ(count_of(r.req[1].body, "\"labels\""), 3);
	wait_am_metric(n, "gpuwatch_notifications_sent_total", r.port, 6);
	CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_errors_total", r.port), 1, 0);
	CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_sent_total", r.port), 6, 0); /* every attempt */
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_dropped_total"), 0, 0);
	CHECK(log_has("msg=\"error sending alerts; retrying\""));
	CHECK(log_has("err=\"HTTP 500: try later\""));
	send_numbered(n, 3, 1);
	CHECK_INT_EQ(recv_wait(&r, 3, WAIT_MS), 3);
	CHECK(strstr(r.req[2].body, "\"seq\":\"3\"}") != NULL);
	gw_notifier_free(n);
	recv_stop(&r);
}

/* A 400 is not sent again: an error is counted and logged, and the next batch goes. */
static void test_no_retry_after_400(void)
{
	struct recv r;
	CHECK_INT_EQ(recv_start(&r, 200), 0);
	r.script[0] = 400;
	r.nscript = 1;
	struct setup s;
	setup_am(&s, r.port);
	log_clear();
	struct gw_notifier *n = start(&s.o);
	send_numbered(n, 0, 2);
	CHECK_INT_EQ(recv_wait(&r, 1, WAIT_MS), 1);
	wait_am_metric(n, "gpuwatch_notifications_errors_total", r.port, 1);
	usleep(300000); /* a retry would come after 100 ms */
	CHECK_INT_EQ(recv_count(&r), 1);
	CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_errors_total", r.port), 1, 0);
	CHECK(log_has("level=error msg=\"alerts refused; not sent again\""));
	CHECK(log_has("count=2 err=\"HTTP 400: bad alert\""));
	send_numbered(n, 2, 1);
	CHECK_INT_EQ(recv_wait(&r, 2, WAIT_MS), 2);
	CHECK_INT_EQ(count_of(r.req[1].body, "\"labels\""), 1);
	CHECK(strstr(r.req[1].body, "\"seq\":\"2\"}") != NULL);
	gw_notifier_free(n);
	recv_stop(&r);
}

/* A receiver that never answers: 10000 sends return at once; the queue keeps its bound; free keeps its time.
 */
static void test_stalled_receiver(void)
{
	struct recv r;
	CHECK_INT_EQ(recv_start(&r, RECV_STALL), 0);
	struct setup s;
	setup_am(&s, r.port);
	s.o.queue_capacity = 100;
	s.o.timeout_ms = 500;
	struct gw_notifier *n = start(&s.o);
	send_numbered(n, 0, 1);
	CHECK_INT_EQ(recv_wait(&r, 1, WAIT_MS), 1); /* its batch is in flight, unanswered */
	double t0 = now_s();
	for (int i = 1; i < 10000; i++)
		send_numbered(n, i, 1);
	double took = now_s() - t0;
	CHECK(took < 5.0); /* about 10 ms here; the bound is only against blocking on the receiver */
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_queue_length"), 100, 0);
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_dropped_total"), 10000 - 1 - 100, 0);
	t0 = now_s();
	gw_notifier_free(n);
	took = now_s() - t0;
	CHECK(took < 0.5 + 2.0);
	recv_stop(&r);
}

/* Over capacity the oldest alerts go: after the stall, the batch sent is the newest ten. */
static void test_overflow_drops_oldest(void)
{
	struct recv r;
	CHECK_INT_EQ(recv_start(&r, 200), 0);
	r.script[0] = RECV_STALL;
	r.nscript = 1;
	struct setup s;
	setup_am(&s, r.port);
	s.o.queue_capacity = 10;
	s.o.timeout_ms = 300;
	struct gw_notifier *n = start(&s.o);
	send_numbered(n, 0, 1);
	CHECK_INT_EQ(recv_wait(&r, 1, WAIT_MS), 1);
	send_numbered(n, 1, 25); /* 1..25: 1..15 dropped */
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_dropped_total"), 15, 0);
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_queue_length"), 10, 0);
	/* the stalled request times out and is sent again (200), then the ten queued */
	CHECK_INT_EQ(recv_wait(&r, 3, WAIT_MS), 3);
	CHECK_STR_EQ(r.req[1].body, r.req[0].body);
	CHECK_INT_EQ(count_of(r.req[2].body, "\"labels\""), 10);
	CHECK(strstr(r.req[2].body, "{\"alertname\":\"Load\",\"seq\":\"16\"}") != NULL);
	CHECK(strstr(r.req[2].body, "{\"alertname\":\"Load\",\"seq\":\"25\"}") != NULL);
	CHECK(strstr(r.req[2].body, "\"seq\":\"15\"") == NULL);
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_queue_length"), 0, 0);
	gw_notifier_free(n);
	recv_stop(&r);
}

/* One dead Alertmanager does not hold the live one back. */
static void test_dead_one_does_not_block(void)
{
	struct recv r;
	CHECK_INT_EQ(recv_start(&r, 200), 0);
	int dead_port;
	int dead = recv_bind(&dead_port, false); /* bound, not listening: refused */
	char live[64], gone[64];
	snprintf(live, sizeof(live), "http://127.0.0.1:%d", r.port);
	snprintf(gone, sizeof(gone), "http://127.0.0.1:%d", dead_port);
	const char *urls[2] = {gone, live};
	struct gw_notifier_opts o = {
	    .alertmanagers = urls, .nalertmanagers = 2, .timeout_ms = 300, .logf = test_logf};
	struct gw_notifier *n = start(&o);
	for (int i = 0; i < 3; i++) {
		send_numbered(n, i * 10, 10);
		CHECK_INT_EQ(recv_wait(&r, (size_t)i + 1, WAIT_MS), i + 1);
	}
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_alertmanagers_discovered"), 2, 0);
	CHECK(am_metric(n, "gpuwatch_notifications_errors_total", dead_port) >= 1);
	CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_errors_total", r.port), 0, 0);
	CHECK_DBL_NEAR(metric(n, "gpuwatch_notifications_queue_length"), 20, 0); /* the dead one's */
	double t0 = now_s();
	gw_notifier_free(n);
	CHECK(now_s() - t0 < 0.3 + 2.0);
	close(dead);
	recv_stop(&r);
}

/* A dead receiver: free gives the queue its timeout, then returns. */
static void test_free_with_dead_receiver(void)
{
	int port;
	int fd = recv_bind(&port, false);
	struct setup s;
	setup_am(&s, port);
	s.o.timeout_ms = 400;
	log_clear();
	struct gw_notifier *n = start(&s.o);
	send_numbered(n, 0, 5);
	usleep(50000);
	double t0 = now_s();
	gw_notifier_free(n);
	double took = now_s() - t0;
	CHECK(took >= 0.3);
	CHECK(took < 0.4 + 2.0);
	CHECK(log_has("level=warn msg=\"alerts not delivered at shutdown\""));
	close(fd);
}

/* Webhooks get Alertmanager's webhook message, version 4. */
static void test_webhook_payload(void)
{
	struct recv r;
	CHECK_INT_EQ(recv_start(&r, 200), 0);
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", r.port);
	const char *urls[1] = {url};
	struct gw_notifier_opts o = {.webhooks = urls, .nwebhooks = 1, .logf = test_logf};
	struct gw_notifier *n = start(&o);
	struct gw_lpair l0[3] = {{"alertname", "A"}, {"gpu", "0"}, {"job", "gw"}};
	struct gw_lpair l1[3] = {{"alertname", "A"}, {"gpu", "1"}, {"job", "gw"}};
	struct gw_lpair a0[2] = {{"runbook", "r"}, {"summary", "s"}};
	struct gw_lpair a1[2] = {{"desc", "d"}, {"summary", "s"}};
	struct gw_alert_msg a[2] = {
	    {.labels = {l0, 3},
	     .annotations = {a0, 2},
	     .starts_ms = 1796382000123,
	     .ends_ms = 4102444800500,
	     .generator_url = "http://h/g"},
	    {.labels = {l1, 3}, .annotations = {a1, 2}, .starts_ms = 1577836800000, .ends_ms = 1577836800250},
	};
	gw_notifier_send(n, a, 2);
	CHECK_INT_EQ(recv_wait(&r, 1, WAIT_MS), 1);
	CHECK_STR_EQ(r.req[0].path, "/hook");
	CHECK_STR_EQ(r.req[0].content_type, "application/json");
	CHECK_STR_EQ(
	    r.req[0].body,
	    "{\"receiver\":\"gpuwatch\",\"status\":\"firing\",\"alerts\":["
	    "{\"status\":\"firing\",\"labels\":{\"alertname\":\"A\",\"gpu\":\"0\",\"job\":\"gw\"},"
	    "\"annotations\":{\"runbook\":\"r\",\"summary\":\"s\"},\"startsAt\":\"2026-12-04T11:00:00.123Z\","
	    "\"endsAt\":\"2100-01-01T00:00:00.5Z\",\"generatorURL\":\"http://h/"
	    "g\",\"fingerprint\":\"be8fb160e5d423e0\"},"
	    "{\"status\":\"resolved\",\"labels\":{\"alertname\":\"A\",\"gpu\":\"1\",\"job\":\"gw\"},"
	    "\"annotations\":{\"desc\":\"d\",\"summary\":\"s\"},\"startsAt\":\"2020-01-01T00:00:00Z\","
	    "\"endsAt\":\"2020-01-01T00:00:00.25Z\",\"generatorURL\":\"\",\"fingerprint\":"
	    "\"55644a105d903983\"}],"
	    "\"groupLabels\":{},\"commonLabels\":{\"alertname\":\"A\",\"job\":\"gw\"},"
	    "\"commonAnnotations\":{\"summary\":\"s\"},\"externalURL\":\"\",\"version\":\"4\","
	    "\"groupKey\":\"{}:{}\",\"truncatedAlerts\":0}");
	/* a batch of resolved alerts alone is resolved */
	gw_notifier_send(n, &a[1], 1);
	CHECK_INT_EQ(recv_wait(&r, 2, WAIT_MS), 2);
	CHECK(strncmp(r.req[1].body, "{\"receiver\":\"gpuwatch\",\"status\":\"resolved\",", 43) == 0);
	gw_notifier_free(n);
	recv_stop(&r);
}

/* The log sink: one key=value line per alert, needing no libcurl. */
static void test_log_lines(void)
{
	log_clear();
	struct gw_notifier_opts o = {.log = true, .logf = test_logf};
	struct gw_notifier *n = start(&o);
	struct gw_lpair l[2] = {{"alertname", "GpuHot"}, {"gpu", "0"}};
	struct gw_lpair an[1] = {{"summary", "say \"hi\""}};
	struct gw_alert_msg a = {.labels = {l, 2},
				 .annotations = {an, 1},
				 .starts_ms = 1796382000123,
				 .ends_ms = real_ms() + 3600000,
				 .generator_url = "http://h/g"};
	gw_notifier_send(n, &a, 1);
	gw_notifier_free(n); /* drains the log too */
	CHECK(log_has("level=info msg=\"alert\" status=firing alertname=\"GpuHot\" "
		      "labels=\"{alertname=\\\"GpuHot\\\", gpu=\\\"0\\\"}\" "
		      "annotations=\"{summary=\\\"say \\\\\\\"hi\\\\\\\"\\\"}\" "
		      "starts_at=2026-12-04T11:00:00.123Z ends_at="));
	CHECK(log_has(" generator_url=\"http://h/g\"\n"));
}

static void test_bad_urls(void)
{
	const char *urls[1] = {"am:9093"};
	struct gw_notifier_opts o = {.alertmanagers = urls, .nalertmanagers = 1};
	struct gw_notifier *n = NULL;
	struct gw_err err = {0};
	CHECK_INT_EQ(gw_notifier_new(&n, &o, &err), GW_EINVAL);
	CHECK(n == NULL);
	CHECK_STR_EQ(err.msg, "alertmanager URL \"am:9093\" is not http:// or https://");
	gw_notifier_free(NULL);
}

/*
 * The real Alertmanager 0.25, on a free loopback port, clustering off,
 * routing everything to a receiver that sends nothing: the alerts it lists
 * afterwards are the ones it took. Killed at the end whatever happened,
 * and by the kernel if this process dies first.
 */
#define AM_BIN "/usr/bin/prometheus-alertmanager"

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	gw_buf_append(ctx, data, size * n);
	return size * n;
}

static long http_get(const struct gw_curl *c, const char *url, struct gw_buf *out)
{
	gw_buf_reset(out);
	CURL *e = c->curl_easy_init();
	c->curl_easy_setopt(e, CURLOPT_URL, url);
	c->curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	c->curl_easy_setopt(e, CURLOPT_WRITEDATA, out);
	c->curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	c->curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 2000L);
	long status = 0;
	if (c->curl_easy_perform(e) == CURLE_OK)
		c->curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	c->curl_easy_cleanup(e);
	gw_buf_putc(out, '\0');
	return status;
}

static pid_t am_start(const char *dir, int port)
{
	char cfg[512], storage[512], logp[512], a1[600], a2[600], a3[64];
	snprintf(cfg, sizeof(cfg), "%s/alertmanager.yml", dir);
	snprintf(storage, sizeof(storage), "%s/data", dir);
	snprintf(logp, sizeof(logp), "%s/alertmanager.log", dir);
	FILE *f = fopen(cfg, "w");
	if (!f)
		return -1;
	fputs("route:\n  receiver: \"null\"\nreceivers:\n  - name: \"null\"\n", f);
	fclose(f);
	snprintf(a1, sizeof(a1), "--config.file=%s", cfg);
	snprintf(a2, sizeof(a2), "--storage.path=%s", storage);
	snprintf(a3, sizeof(a3), "--web.listen-address=127.0.0.1:%d", port);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		FILE *l = freopen(logp, "w", stdout);
		if (l)
			dup2(fileno(l), 2);
		execl(AM_BIN, AM_BIN, a1, a2, a3, "--cluster.listen-address=", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void test_real_alertmanager(void)
{
	if (access(AM_BIN, X_OK) != 0) {
		printf("skip test_real_alertmanager: %s is not installed\n", AM_BIN);
		return;
	}
	struct gw_curl c;
	struct gw_err err = {0};
	if (gw_curl_open(&c, &err) != 0) {
		printf("skip test_real_alertmanager: %s\n", err.msg);
		return;
	}
	char dir[] = "/tmp/gw-notify-am-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int port;
	int fd = recv_bind(&port, false);
	close(fd);
	pid_t pid = am_start(dir, port);
	CHECK(pid > 0);
	char url[128], ready[160], list[160];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	snprintf(ready, sizeof(ready), "%s/-/ready", url);
	snprintf(list, sizeof(list), "%s/api/v2/alerts", url);
	int failed_before = harness_failed_checks;
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	bool up = false;
	for (int i = 0; pid > 0 && i < 300 && !up; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			pid = -1;
			break;
		}
		up = http_get(&c, ready, &b) == 200;
		if (!up)
			usleep(50000);
	}
	CHECK(up);
	if (up) {
		const char *urls[1] = {url};
		struct gw_lpair ext[1] = {{"cluster", "c1"}};
		struct gw_notifier_opts o = {
		    .alertmanagers = urls, .nalertmanagers = 1, .logf = test_logf, .external = {ext, 1}};
		struct gw_notifier *n = start(&o);
		int64_t now = real_ms();
		struct gw_lpair l1[2] = {{"alertname", "GwTestOne"}, {"gpu", "0"}};
		struct gw_lpair l2[2] = {{"alertname", "GwTestTwo"}, {"gpu", "1"}};
		struct gw_lpair an1[1] = {{"summary", "first <one>"}};
		struct gw_lpair an2[1] = {{"summary", "second"}};
		struct gw_alert_msg a[2] = {
		    {.labels = {l1, 2},
		     .annotations = {an1, 1},
		     .starts_ms = now - 60000,
		     .ends_ms = now + 3600000,
		     .generator_url = "http://h:9400/graph"},
		    {.labels = {l2, 2},
		     .annotations = {an2, 1},
		     .starts_ms = now - 60000,
		     .ends_ms = now + 3600000},
		};
		gw_notifier_send(n, a, 2);
		CHECK_DBL_NEAR(wait_am_metric(n, "gpuwatch_notifications_sent_total", port, 2), 2, 0);
		CHECK_DBL_NEAR(am_metric(n, "gpuwatch_notifications_errors_total", port), 0, 0);
		gw_notifier_free(n);
		CHECK_INT_EQ(http_get(&c, list, &b), 200);
		const char *body = b.data ? b.data : "";
		CHECK(strstr(body, "\"alertname\":\"GwTestOne\"") != NULL);
		CHECK(strstr(body, "\"alertname\":\"GwTestTwo\"") != NULL);
		CHECK(strstr(body, "\"summary\":\"first \\u003cone\\u003e\"") != NULL);
		CHECK(strstr(body, "\"summary\":\"second\"") != NULL);
		CHECK(strstr(body, "\"generatorURL\":\"http://h:9400/graph\"") != NULL);
		CHECK_INT_EQ(count_of(body, "\"cluster\":\"c1\""), 2);
		/* its fingerprints are ours */
		for (int i = 0; i < 2; i++) {
			struct notify_alert *q = notify_alert_copy(&a[i], &o.external);
			char fp[64];
			snprintf(fp, sizeof(fp), "\"fingerprint\":\"%016llx\"",
				 (unsigned long long)notify_fingerprint(&q->labels));
			CHECK(strstr(body, fp) != NULL);
			free(q);
		}
		if (harness_failed_checks > failed_before)
			fprintf(stderr, "alertmanager's alerts: %s\n", body);
	}
	gw_buf_release(&b);
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	RUN(test_times);
	RUN(test_fingerprint);
	RUN(test_one_alert_body);
	RUN(test_batches);
	RUN(test_retry_after_500);
	RUN(test_no_retry_after_400);
	RUN(test_stalled_receiver);
	RUN(test_overflow_drops_oldest);
	RUN(test_dead_one_does_not_block);
	RUN(test_free_with_dead_receiver);
	RUN(test_webhook_payload);
	RUN(test_log_lines);
	RUN(test_bad_urls);
	RUN(test_real_alertmanager);
	return harness_done();
}
