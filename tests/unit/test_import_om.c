/* Importing OpenMetrics text: time stamps in range, each label once. */
#include "harness.h"
#include "ingest/import_om.h"

#include <math.h>

static int parse(const char *text, size_t *n, int64_t *t, const char **why)
{
	static char buf[512];
	struct gw_lpair labels[8];
	double v;
	snprintf(buf, sizeof(buf), "%s", text);
	*why = "";
	return gw_import_om_line(buf, labels, 6, n, &v, t, why);
}

static void test_time_stamps(void)
{
	size_t n;
	int64_t t;
	const char *why;
	CHECK_INT_EQ(parse("up{gpu=\"0\"} 1 1783116669.763", &n, &t, &why), 0);
	CHECK_INT_EQ(t, 1783116669763LL);
	CHECK_INT_EQ(n, 2);
	/* 1e300 s once went through llround() into an undefined time; -1 and the
	 * year 2200 are no log's time either */
	static const char *const bad[] = {"up 1 1e300", "up 1 -1", "up 1 7258118400", "up 1 inf", "up 1 nan",
					  "up 1 -0.001"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT_EQ(parse(bad[i], &n, &t, &why), GW_EPARSE);
		CHECK(strstr(why, "bad time stamp (want seconds since 1970, before 2200)") != NULL);
	}
	CHECK_INT_EQ(parse("up 1 0", &n, &t, &why), 0);
	CHECK_INT_EQ(t, 0);
	CHECK_INT_EQ(parse("up 1 7258118399.999", &n, &t, &why), 0);
	CHECK_INT_EQ(t, 7258118399999LL);
}

static void test_labels(void)
{
	size_t n;
	int64_t t;
	const char *why;
	/* The store takes each label name once: a repeated name is a bad line. */
	CHECK_INT_EQ(parse("up{gpu=\"0\",gpu=\"1\"} 1 1", &n, &t, &why), GW_EPARSE);
	CHECK(strcmp(why, "a label given twice") == 0);
	CHECK_INT_EQ(parse("up{__name__=\"down\"} 1 1", &n, &t, &why), GW_EPARSE);
	CHECK(strstr(why, "__name__") != NULL);
	/* More labels than the caller has room for stops at the limit. */
	CHECK_INT_EQ(parse("up{a=\"1\",b=\"2\",c=\"3\",d=\"4\",e=\"5\",f=\"6\"} 1 1", &n, &t, &why), GW_EPARSE);
	CHECK(strcmp(why, "too many labels") == 0);
	CHECK_INT_EQ(parse("up{a=\"1\",b=\"2\",c=\"3\",d=\"4\"} 1 1", &n, &t, &why), 0);
	CHECK_INT_EQ(n, 5);
}

/* The whole file: bad lines reported with their numbers, the rest kept. */
struct seen {
	size_t samples, bad, lines[8];
};

static int count(void *ctx, const struct gw_lpair *l, size_t n, int64_t t, double v)
{
	(void)l, (void)n, (void)t, (void)v;
	((struct seen *)ctx)->samples++;
	return 0;
}

static void on_bad(void *ctx, size_t line, const char *why)
{
	struct seen *s = ctx;
	(void)why;
	if (s->bad < 8)
		s->lines[s->bad] = line;
	s->bad++;
}

static void test_file(void)
{
	const char *text = "# TYPE up gauge\n"
			   "up{gpu=\"0\"} 1 1783116669\n"
			   "up{gpu=\"0\"} 1 1e300\n"
			   "up{gpu=\"0\",gpu=\"1\"} 1 1783116670\n"
			   "up{gpu=\"1\"} 1 1783116670\n"
			   "# EOF\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct seen s = {0};
	struct gw_import_opts o = {.emit = count, .ctx = &s, .on_bad_line = on_bad};
	struct gw_import_stats st;
	struct gw_err err;
	CHECK_INT_EQ(gw_import_om(f, &o, &st, &err), 0);
	fclose(f);
	CHECK_INT_EQ(s.samples, 2);
	CHECK_INT_EQ(st.bad_lines, 2);
	CHECK_INT_EQ(s.lines[0], 3);
	CHECK_INT_EQ(s.lines[1], 4);
	CHECK_INT_EQ(st.skipped_lines, 2);
}

int main(void)
{
	RUN(test_time_stamps);
	RUN(test_labels);
	RUN(test_file);
	return harness_done();
}
