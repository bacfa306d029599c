/*
 * collect/hpcjob: parsing mapping files, and watching a fixture directory
 * (mkdtemp) as prolog/epilog scripts change it: new, rewritten and removed
 * files, a directory that goes away, garbage of every kind, and each problem
 * reported once.
 */
#include "collect/hpcjob.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static char dir[256];

/* The events a watcher reported, by kind, and the latest one's details. */
struct seen {
	unsigned int n[GW_HPCJOB_IGNORED + 1];
	struct gw_hpcjob_event last[GW_HPCJOB_IGNORED + 1];
	char first_ignored[64];
};

static void on_event(void *arg, const struct gw_hpcjob_event *e)
{
	struct seen *s = arg;
	s->n[e->kind]++;
	s->last[e->kind] = *e;
	if (e->kind == GW_HPCJOB_IGNORED)
		snprintf(s->first_ignored, sizeof(s->first_ignored), "%s", e->first_ignored);
}

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static void put(const char *name, const char *text, size_t len)
{
	char p[512];
	path_of(p, sizeof(p), name);
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT_EQ(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void puts_(const char *name, const char *text)
{
	put(name, text, strlen(text));
}

/* Age a file: an old mtime is "settled", so an unchanged stat means unchanged content. */
static void age(const char *name, time_t secs_ago)
{
	char p[512];
	path_of(p, sizeof(p), name);
	struct timeval tv[2];
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= secs_ago;
	tv[1] = tv[0];
	CHECK_INT_EQ(utimes(p, tv), 0);
}

static void rm(const char *name)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", dir, name);
	CHECK_INT_EQ(system(cmd), 0);
}

static void clean(void)
{
	char cmd[900];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && rm -rf '%s'/* '%s'/.[!.]*", dir, dir, dir);
	CHECK_INT_EQ(system(cmd), 0);
}

static struct gw_hpcjob *watch(struct seen *s)
{
	static const unsigned int idx[] = {0, 1, 2};
	struct gw_hpcjob *h = NULL;
	struct gw_hpcjob_opts o = {.log = on_event, .log_arg = s};
	memset(s, 0, sizeof(*s));
	CHECK_INT_EQ(gw_hpcjob_new(&h, dir, idx, 3, &o, NULL), 0);
	return h;
}

/* The jobs of GPU index as "a,b", "" for none. */
static const char *jobs_of(struct gw_hpcjob *h, unsigned int index)
{
	static char out[4096];
	out[0] = '\0';
	const struct gw_hpcjobs *j = gw_hpcjob_get(h, index);
	for (unsigned int i = 0; j && i < j->n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "", j->id[i]);
	return out;
}

static const char *parsed(const char *text, size_t len, struct gw_hpcjob_event *ev)
{
	static char out[4096];
	struct gw_hpcjobs *j = NULL;
	out[0] = '\0';
	int rc = gw_hpcjob_parse(text, len, 1, &j, ev);
	if (rc)
		snprintf(out, sizeof(out), "rc=%d", rc);
	for (unsigned int i = 0; j && i < j->n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "", j->id[i]);
	gw_hpcjobs_unref(j);
	return out;
}

#define PARSE(s, ev) parsed((s), sizeof(s) - 1, (ev))

static void test_parse(void)
{
	struct gw_hpcjob_event ev;
	CHECK_STR_EQ(PARSE("1234\n", &ev), "1234");
	/* trimmed, blank lines skipped, CRLF, no final newline, repeats once in first-seen order */
	CHECK_STR_EQ(PARSE("  job2 \r\n\n\t\njob1\r\njob2\n \njob3\njob1", &ev), "job2,job1,job3");
	CHECK_INT_EQ(ev.too_long + ev.bad_text + ev.over_cap, 0);
	CHECK_STR_EQ(PARSE("", &ev), "");
	CHECK_STR_EQ(PARSE(" \n\n\r\n", &ev), "");
	/* interior space kept (a label value may hold one); UTF-8 kept; quotes kept (escaped when written) */
	CHECK_STR_EQ(PARSE("array 17\nj\xc3\xb6"
			   "b\n\"q\"\n",
			   &ev),
		     "array 17,j\xc3\xb6"
		     "b,\"q\"");
	/* 64 bytes kept, 65 skipped */
	CHECK_STR_EQ(PARSE("1234567890123456789012345678901234567890123456789012345678901234\n"
			   "12345678901234567890123456789012345678901234567890123456789012345\n",
			   &ev),
		     "1234567890123456789012345678901234567890123456789012345678901234");
	CHECK_INT_EQ(ev.too_long, 1);
	/* control characters, invalid UTF-8 (bad byte, overlong, surrogate, truncated, C1) skipped */
	CHECK_STR_EQ(PARSE("a\x01"
			   "b\nok\n\xff\n\xc0\xaf\n\xed\xa0\x80\n\xe2\x82\nx\x7fy\n\xc2\x85\n",
			   &ev),
		     "ok");
	CHECK_INT_EQ(ev.bad_text, 7);
	/* a NUL byte: the whole file is binary */
	CHECK_STR_EQ(PARSE("123\n\0"
			   "456\n",
			   &ev),
		     "rc=-7");
	/* at most GW_HPCJOB_MAX_JOBS distinct ids; repeats of kept ones are not over the cap */
	char many[2048] = "";
	for (int i = 0; i < GW_HPCJOB_MAX_JOBS + 5; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%d\n0\n", i);
	struct gw_hpcjobs *j = NULL;
	CHECK_INT_EQ(gw_hpcjob_parse(many, strlen(many), 7, &j, &ev), 0);
	CHECK(j != NULL);
	if (j) {
		CHECK_INT_EQ(j->n, GW_HPCJOB_MAX_JOBS);
		CHECK_INT_EQ(j->gen, 7);
		CHECK_STR_EQ(j->id[GW_HPCJOB_MAX_JOBS - 1], "31");
	}
	CHECK_INT_EQ(ev.over_cap, 5);
	gw_hpcjobs_unref(j);
}

static void test_watch_changes(void)
{
	clean();
	struct seen s;
	struct gw_hpcjob *h = watch(&s);
	if (!h)
		return;
	CHECK(!gw_hpcjob_poll(h)); /* empty directory: nothing, nothing wrong */
	CHECK_STR_EQ(jobs_of(h, 0), "");
	CHECK_INT_EQ(s.n[GW_HPCJOB_DIR_DOWN] + s.n[GW_HPCJOB_FILE_BAD] + s.n[GW_HPCJOB_JOBS], 0);

	puts_("0", "100\n200\n");
	puts_("1", "");
	CHECK(gw_hpcjob_poll(h));
	CHECK_STR_EQ(jobs_of(h, 0), "100,200");
	CHECK_STR_EQ(jobs_of(h, 1), ""); /* empty file: no label */
	CHECK_STR_EQ(jobs_of(h, 9), ""); /* not a GPU of ours */
	CHECK_INT_EQ(s.n[GW_HPCJOB_JOBS], 1);
	CHECK_INT_EQ(s.last[GW_HPCJOB_JOBS].gpu, 0);

	/* a list handed out stays valid after the file changes (frames keep theirs) */
	struct gw_hpcjobs *held = gw_hpcjob_get(h, 0);
	gw_hpcjobs_ref(held);
	uint64_t gen = held->gen;

	/* rewritten in place, same size: picked up (the fresh mtime keeps it being read) */
	puts_("0", "300\n400\n");
	CHECK(gw_hpcjob_poll(h));
	CHECK_STR_EQ(jobs_of(h, 0), "300,400");
	CHECK(gw_hpcjob_get(h, 0)->gen != gen);
	CHECK_STR_EQ(held->id[1], "200");
	gw_hpcjobs_unref(held);

	/* replaced by rename (a new inode), as careful scripts do */
	puts_(".tmp", "500\n");
	char from[512], to[512];
	path_of(from, sizeof(from), ".tmp");
	path_of(to, sizeof(to), "1");
	CHECK_INT_EQ(rename(from, to), 0);
	CHECK(gw_hpcjob_poll(h));
	CHECK_STR_EQ(jobs_of(h, 1), "500");
	CHECK_STR_EQ(jobs_of(h, 0), "300,400");

	/* a rewrite with the same ids is no change */
	puts_("1", "500\n\n");
	CHECK(!gw_hpcjob_poll(h));

	/* removed (the epilog): the label goes */
	rm("0");
	CHECK(gw_hpcjob_poll(h));
	CHECK_STR_EQ(jobs_of(h, 0), "");
	CHECK(s.last[GW_HPCJOB_JOBS].gpu == 0 && s.last[GW_HPCJOB_JOBS].jobs == NULL);
	/* emptied (the other epilog style) */
	puts_("1", "");
	CHECK(gw_hpcjob_poll(h));
	CHECK_STR_EQ(jobs_of(h, 1), "");
	CHECK_INT_EQ(s.n[GW_HPCJOB_FILE_BAD] + s.n[GW_HPCJOB_LINES_SKIPPED], 0);
	gw_hpcjob_free(h);
}

static void test_cheap_when_unchanged(void)
{
	clean();
	struct seen s;
	struct gw_hpcjob *h = watch(&s);
	if (!h)
		return;
	puts_("0", "7\n");
	gw_hpcjob_poll(h);
	uint64_t r = gw_hpcjob_reads(h);
	CHECK(r >= 1);
	/* young: read again on each poll, in case a same-size rewrite kept its times */
	gw_hpcjob_poll(h);
	CHECK_INT_EQ(gw_hpcjob_reads(h), r + 1);
	/* old: read once more (its ctime moved), then never while nothing changes */
	age("0", 60);
	gw_hpcjob_poll(h);
	r = gw_hpcjob_reads(h);
	for (int i = 0; i < 5; i++)
		CHECK(!gw_hpcjob_poll(h));
	CHECK_INT_EQ(gw_hpcjob_reads(h), r);
	/* a rewrite that restores the old mtime still changes ctime: seen */
	struct stat st;
	char p[512];
	path_of(p, sizeof(p), "0");
	CHECK_INT_EQ(stat(p, &st), 0);
	puts_("0", "8\n");
	struct timespec ts[2] = {st.st_mtim, st.st_mtim};
	CHECK_INT_EQ(utimensat(AT_FDCWD, p, ts, 0), 0);
	CHECK(gw_hpcjob_poll(h));
	CHECK_STR_EQ(jobs_of(h, 0), "8");
	gw_hpcjob_free(h);
}

static void test_garbage(void)
{
	clean();
	struct seen s;
	struct gw_hpcjob *h = watch(&s);
	if (!h)
		return;
	/* binary */
	put("0", "12\0\x01\x02", 5);
	age("0", 60);
	gw_hpcjob_poll(h);
	CHECK_STR_EQ(jobs_of(h, 0), "");
	CHECK_INT_EQ(s.n[GW_HPCJOB_FILE_BAD], 1);
	CHECK_STR_EQ(s.last[GW_HPCJOB_FILE_BAD].why, "binary (holds a NUL byte)");
	CHECK_INT_EQ(s.last[GW_HPCJOB_FILE_BAD].gpu, 0);
	/* too large: refused without reading it */
	static char big[GW_HPCJOB_FILE_MAX + 2];
	memset(big, '1', sizeof(big));
	big[10] = '\n';
	uint64_t r = gw_hpcjob_reads(h);
	put("1", big, sizeof(big));
	gw_hpcjob_poll(h);
	CHECK_STR_EQ(jobs_of(h, 1), "");
	CHECK_INT_EQ(gw_hpcjob_reads(h), r);
	CHECK_INT_EQ(s.n[GW_HPCJOB_FILE_BAD], 2);
	CHECK_STR_EQ(s.last[GW_HPCJOB_FILE_BAD].why, "larger than 65536 bytes");
	/* a FIFO: never opened (the poll would hang here), a symlink loop, a directory */
	char p[512], q[512];
	path_of(p, sizeof(p), "2");
	CHECK_INT_EQ(mkfifo(p, 0600), 0);
	gw_hpcjob_poll(h);
	CHECK_STR_EQ(s.last[GW_HPCJOB_FILE_BAD].why, "not a regular file");
	CHECK_INT_EQ(s.last[GW_HPCJOB_FILE_BAD].gpu, 2);
	rm("2");
	path_of(q, sizeof(q), "loop");
	CHECK_INT_EQ(symlink(q, p), 0);
	CHECK_INT_EQ(symlink(p, q), 0);
	gw_hpcjob_poll(h);
	CHECK_INT_EQ(s.last[GW_HPCJOB_FILE_BAD].err, ELOOP);
	CHECK_INT_EQ(s.last[GW_HPCJOB_FILE_BAD].gpu, 2);
	unsigned int bad = s.n[GW_HPCJOB_FILE_BAD];
	CHECK_INT_EQ(bad, 4);
	/* each problem once, however many polls see it */
	for (int i = 0; i < 5; i++)
		gw_hpcjob_poll(h);
	CHECK_INT_EQ(s.n[GW_HPCJOB_FILE_BAD], bad);
	rm("2");
	rm("loop");
	path_of(p, sizeof(p), "2");
	CHECK_INT_EQ(mkdir(p, 0700), 0);
	gw_hpcjob_poll(h);
	CHECK_STR_EQ(s.last[GW_HPCJOB_FILE_BAD].why, "a directory, not a file");
	rm("2");

	/* some lines bad: the good ones count, the skipped ones are reported once */
	puts_("0",
	      "ok1\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nb\x02"
	      "d\nok2\n");
	gw_hpcjob_poll(h);
	CHECK_STR_EQ(jobs_of(h, 0), "ok1,ok2");
	CHECK_INT_EQ(s.n[GW_HPCJOB_LINES_SKIPPED], 1);
	CHECK_INT_EQ(s.last[GW_HPCJOB_LINES_SKIPPED].too_long, 1);
	CHECK_INT_EQ(s.last[GW_HPCJOB_LINES_SKIPPED].bad_text, 1);
	gw_hpcjob_poll(h); /* young: read again, same problem: not reported again */
	CHECK_INT_EQ(s.n[GW_HPCJOB_LINES_SKIPPED], 1);
	/* fixed, then broken the same way: reported again */
	puts_("0", "ok1\n");
	gw_hpcjob_poll(h);
	puts_("0", "ok1\nb\x02"
		   "d\n");
	gw_hpcjob_poll(h);
	CHECK_INT_EQ(s.n[GW_HPCJOB_LINES_SKIPPED], 2);

	/* unreadable: a permission the agent lacks (root reads everything: checked as a user only) */
	if (geteuid() != 0) {
		puts_("1", "9\n");
		path_of(p, sizeof(p), "1");
		CHECK_INT_EQ(chmod(p, 0), 0);
		gw_hpcjob_poll(h);
		CHECK_STR_EQ(jobs_of(h, 1), "");
		CHECK_INT_EQ(s.last[GW_HPCJOB_FILE_BAD].err, EACCES);
		CHECK_INT_EQ(chmod(p, 0600), 0);
		gw_hpcjob_poll(h);
		CHECK_STR_EQ(jobs_of(h, 1), "9");
	}
	gw_hpcjob_free(h);
}

static void test_directory(void)
{
	clean();
	char gone[300];
	snprintf(gone, sizeof(gone), "%s/later", dir);
	static const unsigned int idx[] = {0, 1};
	struct seen s = {0};
	struct gw_hpcjob_opts o = {.log = on_event, .log_arg = &s};
	struct gw_hpcjob *h = NULL;
	CHECK_INT_EQ(gw_hpcjob_new(&h, gone, idx, 2, &o, NULL), 0);
	if (!h)
		return;
	/* missing at start: reported once, no labels, no failure */
	for (int i = 0; i < 3; i++)
		CHECK(!gw_hpcjob_poll(h));
	CHECK_INT_EQ(s.n[GW_HPCJOB_DIR_DOWN], 1);
	CHECK_INT_EQ(s.last[GW_HPCJOB_DIR_DOWN].err, ENOENT);
	/* created: picked up */
	CHECK_INT_EQ(mkdir(gone, 0700), 0);
	puts_("later/1", "77\n");
	CHECK(gw_hpcjob_poll(h));
	CHECK_INT_EQ(s.n[GW_HPCJOB_DIR_UP], 1);
	CHECK_STR_EQ(jobs_of(h, 1), "77");
	/* removed with its files: every label goes, reported once */
	rm("later");
	CHECK(gw_hpcjob_poll(h));
	CHECK(!gw_hpcjob_poll(h));
	CHECK_STR_EQ(jobs_of(h, 1), "");
	CHECK_INT_EQ(s.n[GW_HPCJOB_DIR_DOWN], 2);
	/* a file where the directory should be */
	puts_("later", "1\n");
	gw_hpcjob_poll(h);
	CHECK_INT_EQ(s.n[GW_HPCJOB_DIR_DOWN], 3);
	CHECK_INT_EQ(s.last[GW_HPCJOB_DIR_DOWN].err, ENOTDIR);
	gw_hpcjob_free(h);
	rm("later");

	CHECK_INT_EQ(gw_hpcjob_new(&h, "", idx, 2, &o, NULL), GW_EINVAL);
	gw_hpcjob_free(NULL);
}

static void test_ignored_names(void)
{
	clean();
	struct seen s;
	struct gw_hpcjob *h = watch(&s);
	if (!h)
		return;
	/* dcgm-exporter's MIG names, a UUID, a padded index, another host's GPU; hidden files are not counted
	 */
	puts_("3.0", "1\n");
	gw_hpcjob_poll(h);
	CHECK_INT_EQ(s.n[GW_HPCJOB_IGNORED], 1);
	CHECK_INT_EQ(s.last[GW_HPCJOB_IGNORED].ignored, 1);
	CHECK_STR_EQ(s.first_ignored, "3.0");
	puts_("GPU-1fb33c68", "1\n");
	puts_("00", "1\n");
	puts_("7", "1\n");
	puts_(".swp", "1\n");
	puts_("0", "5\n");
	gw_hpcjob_poll(h);
	CHECK_INT_EQ(s.n[GW_HPCJOB_IGNORED], 2);
	CHECK_INT_EQ(s.last[GW_HPCJOB_IGNORED].ignored, 4);
	CHECK_STR_EQ(jobs_of(h, 0), "5"); /* only "0" maps to GPU 0 */
	gw_hpcjob_poll(h);
	CHECK_INT_EQ(s.n[GW_HPCJOB_IGNORED], 2);
	gw_hpcjob_free(h);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/gw-hpcjob-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	alarm(60); /* a poll that blocks (on a FIFO) fails the test instead of hanging it */
	RUN(test_parse);
	RUN(test_watch_changes);
	RUN(test_cheap_when_unchanged);
	RUN(test_garbage);
	RUN(test_directory);
	RUN(test_ignored_names);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return harness_done();
}
