/*
 * sim.c - `gpuwatch sim COMMAND`: tools that only make sense on the
 * simulated fleet (--sim SPEC).
 *
 * `sim record` writes history through the simulator's virtual clock. It
 * puts the clock in manual mode, takes one sample with gw_sampler_tick(),
 * stores the frame exactly as the agent stores it (agent_history_feed: the
 * same series, instance and job labels), moves the virtual clock on by one
 * interval and repeats. Nothing sleeps, so a day of 1 s samples takes
 * seconds, and `gpuwatch agent`, `query` and `export` read the result as if
 * an agent had run through that day. Sample k gets the time stamp
 * START + k x INTERVAL; the sampler's slow fields and process lists follow
 * their cadence in that time, as in the agent.
 *
 * The store refuses samples older than a series' newest. A window reaching
 * into samples already stored for the same instance and job (an agent ran
 * on the store first) is recorded up to the first of them, under a
 * temporary name merged into those series afterwards (sim_backfill.h); a
 * window starting inside them is refused. Other instances do not matter.
 *
 * Threading: the recording runs on the caller's thread, the store's only
 * appender; the store's flusher runs alongside. SIGINT and SIGTERM are
 * blocked and polled, so an interrupt ends the loop between two frames and
 * what was recorded is flushed; a second interrupt kills as usual.
 */
#include "cmd/cmd.h"

#include "api/prom_api.h"
#include "agent/history.h"
#include "cmd/sim_backfill.h"
#include "cmd/sim_tokens.h"
#include "collect/sampler.h"
#include "model/match.h"
#include "store/tsdb.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ME "gpuwatch sim record"
#define MAX_FRAMES 1000000000LL /* 31 years at 1 s: beyond this an argument is a mistake */
#define MIN_INTERVAL_MS 10	/* the sampler's minimum */
/* Frames between flushes: each writes the heads' new samples, sealing the
 * series whose open chunk reached its ~2,600 bytes (256-4096 samples) and
 * leaving the rest as partial rows. */
#define FLUSH_FRAMES 1024

static int sim_record(int argc, char **argv, const struct gw_cli *cli);

static const struct {
	const char *name;
	int (*run)(int argc, char **argv, const struct gw_cli *cli);
	const char *summary;
} sim_commands[] = {
    {"record", sim_record, "write days of simulated history into the store in seconds"},
};

static void sim_usage(FILE *out)
{
	fprintf(out, "usage: gpuwatch --sim SPEC sim COMMAND [options]\n\n"
		     "Tools for the simulated fleet (see docs/SIMULATOR.md).\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(sim_commands) / sizeof(sim_commands[0]); i++)
		fprintf(out, "  %-8s %s\n", sim_commands[i].name, sim_commands[i].summary);
	fprintf(out, "\n'gpuwatch sim COMMAND --help' describes a command.\n");
}

int gw_cmd_sim(int argc, char **argv, const struct gw_cli *cli)
{
	if (argc < 2) {
		sim_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
		sim_usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(sim_commands) / sizeof(sim_commands[0]); i++)
		if (strcmp(argv[1], sim_commands[i].name) == 0)
			return sim_commands[i].run(argc - 1, argv + 1, cli);
	fprintf(stderr, "gpuwatch sim: '%s' is not a sim command; see 'gpuwatch sim --help'\n", argv[1]);
	return 2;
}

/* ---- sim record: arguments ------------------------------------------------- */

static void record_usage(FILE *out)
{
	fprintf(out, "usage: gpuwatch --sim SPEC sim record --duration D [options]\n\n"
		     "Write simulated history into the store through the simulator's virtual clock:\n"
		     "one sample per interval from START to END, stored as the agent stores them\n"
		     "(the same series, instance and job labels), as fast as the machine allows.\n"
		     "`gpuwatch agent`, `query` and `export` read the store afterwards.\n\n"
		     "Options:\n"
		     "  -d, --duration D            how much history (24h, 90m, 7d, or seconds)\n"
		     "      --start T | --end T     where the window lies (RFC 3339 or Unix seconds);\n"
		     "                              default: it ends now (rounded down to the interval);\n"
		     "                              --start and --end together need no --duration\n"
		     "      --interval D            sample interval (default 1s, minimum 10ms)\n"
		     "  -c, --collect-interval MS   the same in milliseconds, as the agent takes it\n"
		     "      --slow-interval MS      ECC, retired pages, PCIe throughput (default 10000)\n"
		     "      --process-interval MS   process lists (default 5000)\n"
		     "      --storage.path DIR      data directory (default data/)\n"
		     "      --instance NAME         instance label (default: the host name, as the agent's)\n"
		     "      --job NAME              job label (default gpuwatch, as the agent's)\n"
		     "  -q, --quiet                 no progress, no summary\n"
		     "  -h, --help                  show this help\n\n"
		     "Samples fall at START, START+INTERVAL, ... up to END, both ends included.\n"
		     "Samples already stored for the same instance and job: a window reaching into them\n"
		     "is recorded up to the first of them and merged into their series; one starting\n"
		     "inside them is refused (the store keeps each series in time order).\n"
		     "SIGINT/SIGTERM stop the recording; what was recorded is kept.\n\n"
		     "Example: gpuwatch --sim 8xH200:training sim record --duration 24h\n");
}

struct rec_args {
	const char *path, *instance, *job;
	int64_t duration_ms, interval_ms, start_ms, end_ms;
	bool has_duration, has_start, has_end, quiet;
	bool default_instance; /* instance is the host name: the store renames the old HOST:PORT series */
	struct gw_sampler_opts so;
};

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A bad argument: the message on stderr, exit code 2. */
static int bad(const char *fmt, ...)
{
	fputs(ME ": ", stderr);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int parse_ms_opt(const char *opt, const char *s, unsigned int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < MIN_INTERVAL_MS || v > 86400000)
		return bad("%s wants milliseconds (10..86400000), got \"%s\"", opt, s);
	*out = (unsigned int)v;
	return 0;
}

static bool takes_value(const char *name)
{
	static const char *const valued[] = {"-d",
					     "--duration",
					     "--start",
					     "--end",
					     "--interval",
					     "-c",
					     "--collect-interval",
					     "--slow-interval",
					     "--process-interval",
					     "--storage.path",
					     "--instance",
					     "--job"};
	for (size_t i = 0; i < sizeof(valued) / sizeof(valued[0]); i++)
		if (strcmp(name, valued[i]) == 0)
			return true;
	return false;
}

/* 0: go on; 1: --help was shown; else the exit code. */
static int parse_record_args(int argc, char **argv, struct rec_args *o)
{
	o->path = "data";
	o->job = "gpuwatch";
	o->interval_ms = 1000;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - a : (long)strlen(a)), a);
		const char *val = NULL;
		if (takes_value(name)) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return bad("%s needs a value", name);
		} else if (eq) {
			return bad("%s takes no value; see 'gpuwatch sim record --help'", name);
		}
		if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
			record_usage(stdout);
			return 1;
		} else if (strcmp(name, "-q") == 0 || strcmp(name, "--quiet") == 0) {
			o->quiet = true;
		} else if (strcmp(name, "-d") == 0 || strcmp(name, "--duration") == 0) {
			if (gw_api_parse_duration(val, &o->duration_ms) != 0 || o->duration_ms <= 0)
				return bad("%s wants a positive duration like 24h, 90m, 7d or 3600 "
					   "(seconds), got \"%s\"",
					   name, val);
			o->has_duration = true;
		} else if (strcmp(name, "--interval") == 0) {
			if (gw_api_parse_duration(val, &o->interval_ms) != 0 ||
			    o->interval_ms < MIN_INTERVAL_MS)
				return bad(
				    "%s wants a duration of 10ms or more, like 1s or 250ms, got \"%s\"", name,
				    val);
		} else if (strcmp(name, "-c") == 0 || strcmp(name, "--collect-interval") == 0) {
			unsigned int ms;
			if (parse_ms_opt(name, val, &ms))
				return 2;
			o->interval_ms = ms;
		} else if (strcmp(name, "--slow-interval") == 0) {
			if (parse_ms_opt(name, val, &o->so.slow_interval_ms))
				return 2;
		} else if (strcmp(name, "--process-interval") == 0) {
			if (parse_ms_opt(name, val, &o->so.proc_interval_ms))
				return 2;
		} else if (strcmp(name, "--start") == 0 || strcmp(name, "--end") == 0) {
			bool start = name[2] == 's';
			if (gw_api_parse_time(val, start ? &o->start_ms : &o->end_ms) != 0)
				return bad("%s wants a time (RFC 3339 like 2026-07-03T00:00:00Z, or Unix "
					   "seconds), got \"%s\"",
					   name, val);
			*(start ? &o->has_start : &o->has_end) = true;
		} else if (strcmp(name, "--storage.path") == 0) {
			o->path = val;
		} else if (strcmp(name, "--instance") == 0) {
			o->instance = val;
		} else if (strcmp(name, "--job") == 0) {
			o->job = val;
		} else {
			fprintf(stderr, ME ": unknown argument '%s'; see 'gpuwatch sim record --help'\n", a);
			return 2;
		}
	}
	return 0;
}

/* Fix START and END from what was given; 0 or the exit code. */
static int resolve_window(struct rec_args *o)
{
	int given = o->has_duration + o->has_start + o->has_end;
	if (given == 3) {
		fprintf(stderr, ME ": give two of --start, --end and --duration, not all three\n");
		return 2;
	}
	if (!o->has_duration && !(o->has_start && o->has_end)) {
		fprintf(stderr, ME
			": how much history? give --duration (e.g. --duration 24h), or --start and --end\n");
		return 2;
	}
	if (o->has_start && o->has_end) {
		o->duration_ms = o->end_ms - o->start_ms;
		if (o->duration_ms <= 0) {
			fprintf(stderr, ME ": --end must be after --start\n");
			return 2;
		}
	} else if (o->has_start) {
		o->end_ms = o->start_ms + o->duration_ms;
	} else {
		if (!o->has_end) /* as the agent aligns its ticks: to multiples of the interval */
			o->end_ms = gw_now_ms() / o->interval_ms * o->interval_ms;
		o->start_ms = o->end_ms - o->duration_ms;
	}
	if (o->duration_ms < o->interval_ms) {
		fprintf(stderr, ME ": the window (%lld ms) is shorter than the interval (%lld ms)\n",
			(long long)o->duration_ms, (long long)o->interval_ms);
		return 2;
	}
	if (o->duration_ms / o->interval_ms >= MAX_FRAMES) {
		fprintf(stderr, ME ": %lld samples per series is too many; use a longer --interval\n",
			(long long)(o->duration_ms / o->interval_ms + 1));
		return 2;
	}
	return 0;
}

/* ---- sim record: helpers --------------------------------------------------- */

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* "2026-07-03T10:00:00Z", with ".250" when the time has milliseconds. */
static const char *fmt_time(int64_t ms, char *buf, size_t len)
{
	time_t s = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	int frac = (int)(ms - (int64_t)s * 1000);
	struct tm tm;
	gmtime_r(&s, &tm);
	char base[32];
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	if (frac)
		snprintf(buf, len, "%s.%03dZ", base, frac);
	else
		snprintf(buf, len, "%sZ", base);
	return buf;
}

/* "1d2h", "90s" -> "1m30s", "250ms": the largest units that are exact. */
static const char *fmt_dur(int64_t ms, char *buf, size_t len)
{
	static const struct {
		const char *u;
		int64_t ms;
	} units[] = {{"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1}};
	size_t w = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && ms > 0 && w < len; i++) {
		if (ms < units[i].ms)
			continue;
		int n = snprintf(buf + w, len - w, "%lld%s", (long long)(ms / units[i].ms), units[i].u);
		w += n > 0 ? (size_t)n : 0;
		ms %= units[i].ms;
	}
	if (!buf[0])
		snprintf(buf, len, "0s");
	return buf;
}

static uint64_t file_bytes(const char *dir)
{
	char p[4096];
	uint64_t total = 0;
	static const char *const files[] = {GW_TSDB_FILE, GW_TSDB_FILE "-wal"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct stat sb;
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		if (stat(p, &sb) == 0)
			total += (uint64_t)sb.st_size;
	}
	return total;
}

/* Series of this instance and job with samples in [mint, maxt]; -1 on error. */
static long count_series(struct gw_tsdb *db, const char *instance, const char *job, int64_t mint, int64_t maxt,
			 int64_t *newest, struct gw_err *err)
{
	struct gw_matcher m[2];
	if (gw_matcher_init(&m[0], "instance", instance, GW_MATCH_EQ, err) != 0)
		return -1;
	if (gw_matcher_init(&m[1], "job", job, GW_MATCH_EQ, err) != 0) {
		gw_matcher_release(&m[0]);
		return -1;
	}
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_arena a;
	gw_arena_init(&a, (size_t)1 << 30);
	struct gw_series_set set = {NULL, 0};
	long n = q.series(q.ctx, m, 2, mint, maxt, &a, &set, err) == 0 ? (long)set.n : -1;
	if (n > 0 && newest) {
		/* The agent stores every series of a frame at once: one series tells the newest time. */
		struct gw_matcher one[16];
		size_t nm = 0;
		int rc = 0;
		for (size_t i = 0; i < set.s[0].labels.n && nm < 16 && !rc; i++)
			if ((rc = gw_matcher_init(&one[nm], set.s[0].labels.p[i].name,
						  set.s[0].labels.p[i].value, GW_MATCH_EQ, err)) == 0)
				nm++;
		struct gw_series_set got = {NULL, 0};
		if (!rc && q.select(q.ctx, one, nm, mint, maxt, &a, &got, err) == 0 && got.n && got.s[0].n)
			*newest = got.s[0].t[got.s[0].n - 1];
		for (size_t i = 0; i < nm; i++)
			gw_matcher_release(&one[i]);
	}
	gw_arena_release(&a);
	gw_matcher_release(&m[0]);
	gw_matcher_release(&m[1]);
	return n;
}

/* ---- sim record: the recording ----------------------------------------------- */

/*
 * One thread does everything: sampling, storing and flushing. A second
 * thread (the store's timed flusher, or a feeder beside the sampler) made
 * every mutex in the process, the simulator's included, a real atomic
 * operation and cost more than it gained on a 2-core machine: 1.2-1.7x
 * slower, measured.
 */
struct rec {
	struct rec_args *o; /* end_ms moves earlier when recording before stored samples */
	struct gw_sampler *sampler;
	struct agent_history h;
	struct sim_tokens tok; /* the training job's tokens, as it would push them */
	int (*advance)(double seconds); /* gwsim_clock_advance */
	int64_t frames, done;
	unsigned int ngpus;
	bool tty;
	int signo; /* the signal that stopped the recording, or 0 */
	double t0;
	bool shown; /* a progress line is on the terminal */
	/* recording before samples the store already holds: under this
	 * instance name, merged into o->instance afterwards (sim_backfill.h) */
	bool backfill;
	char rec_instance[320];
};

/* An interrupt, consumed; afterwards a second one acts as usual. */
static int take_signal(const sigset_t *set)
{
	sigset_t pending;
	if (sigpending(&pending) != 0 || (!sigismember(&pending, SIGINT) && !sigismember(&pending, SIGTERM)))
		return 0;
	struct timespec zero = {0, 0};
	int sig = sigtimedwait(set, NULL, &zero);
	pthread_sigmask(SIG_UNBLOCK, set, NULL);
	return sig > 0 ? sig : SIGINT;
}

static void progress(struct rec *r, bool last)
{
	if (r->o->quiet)
		return;
	if (last) {
		if (r->shown)
			fputs("\r\033[K", stderr);
		r->shown = false;
		return;
	}
	double el = mono_s() - r->t0;
	double rate = el > 0 ? (double)r->done / el : 0;
	double eta = rate > 0 ? (double)(r->frames - r->done) / rate : 0;
	int pct = (int)(100 * r->done / r->frames);
	char at[40], span[40];
	fmt_time(r->o->start_ms + (r->done - 1) * r->o->interval_ms, at, sizeof(at));
	if (r->tty) {
		fprintf(stderr, "\r\033[K%3d%%  %s recorded, up to %s  %.0f frames/s  %.0f s left", pct,
			fmt_dur((r->done - 1) * r->o->interval_ms, span, sizeof(span)), at, rate, eta);
		r->shown = true;
	} else {
		fprintf(stderr, ME ": %d%% (%lld of %lld frames, up to %s), %.0f frames/s, %.0f s left\n",
			pct, (long long)r->done, (long long)r->frames, at, rate, eta);
	}
	fflush(stderr);
}

static int record_loop(struct rec *r, const sigset_t *sigs)
{
	const double report_s = r->tty ? 0.25 : 5.0, poll_s = 0.05;
	double now = mono_s(), next_poll = now + poll_s, next_report = now + report_s;
	r->t0 = now;
	for (int64_t k = 0; k < r->frames; k++) {
		if (k && r->advance((double)r->o->interval_ms / 1000.0) != 0) {
			fprintf(stderr, ME ": the simulator refused to move its clock\n");
			return 1;
		}
		int rc = gw_sampler_tick(r->sampler, r->o->start_ms + k * r->o->interval_ms);
		if (rc) {
			fprintf(stderr, ME ": sampling failed: %s\n", gw_strerror(rc));
			return 1;
		}
		const struct gw_frame *f = gw_sampler_acquire(r->sampler);
		agent_history_feed(&r->h, f);
		gw_sampler_release(r->sampler, f);
		sim_tokens_feed(&r->tok, r->h.db, r->o->start_ms + k * r->o->interval_ms);
		r->done = k + 1;
		if (r->done % FLUSH_FRAMES == 0) {
			struct gw_err err;
			gw_err_clear(&err);
			if (gw_tsdb_flush(r->h.db, &err) != 0) {
				/* Disk full or gone: stop rather than fill memory; what was flushed stays. */
				progress(r, true);
				fprintf(stderr, ME ": writing the store in %s: %s\n", r->o->path, err.msg);
				return 1;
			}
		}
		if ((k & 15) != 0)
			continue;
		now = mono_s();
		if (now < next_poll)
			continue;
		next_poll = now + poll_s;
		if ((r->signo = take_signal(sigs)) != 0)
			break;
		if (now >= next_report) {
			next_report = now + report_s;
			progress(r, false);
		}
	}
	progress(r, true);
	return 0;
}

static void summary(const struct rec *r, long nseries, uint64_t samples, uint64_t bytes_before,
		    uint64_t bytes_after, double secs)
{
	const struct rec_args *o = r->o;
	char a[40], b[40], iv[40], span[40];
	int64_t last = o->start_ms + (r->done ? r->done - 1 : 0) * o->interval_ms;
	if (r->signo)
		printf("interrupted (%s) after %lld of %lld frames; what was recorded is stored\n",
		       r->signo == SIGTERM ? "SIGTERM" : "SIGINT", (long long)r->done, (long long)r->frames);
	printf("recorded %s of %u GPUs every %s: %s to %s, %lld frames\n",
	       fmt_dur(last - o->start_ms, span, sizeof(span)), r->ngpus,
	       fmt_dur(o->interval_ms, iv, sizeof(iv)), fmt_time(o->start_ms, a, sizeof(a)),
	       fmt_time(last, b, sizeof(b)), (long long)r->done);
	printf("%llu samples in %ld series {instance=\"%s\", job=\"%s\"} in %s/\n",
	       (unsigned long long)samples, nseries, o->instance, o->job, o->path);
	uint64_t grown = bytes_after > bytes_before ? bytes_after - bytes_before : 0;
	printf("store %.1f MiB on disk (+%.1f MiB, %.2f bytes per sample); %.1f s, %.0f samples/s, %.0f "
	       "frames/s\n",
	       (double)bytes_after / 1048576.0, (double)grown / 1048576.0,
	       samples ? (double)grown / (double)samples : 0.0, secs, secs > 0 ? (double)samples / secs : 0.0,
	       secs > 0 ? (double)r->done / secs : 0.0);
}

/* The store as the agent writes it, storing as `instance` (NULL: the host name); 0 or the exit code. */
static int open_history(struct rec *r, struct gw_nvml *nv, const char *instance)
{
	const struct rec_args *o = r->o;
	/* No flusher thread: record_loop flushes every FLUSH_FRAMES frames (see struct rec). */
	/* What an agent with the default counters keeps. */
	struct gw_counters dc;
	if (gw_counters_default(&dc) != 0) {
		fprintf(stderr, ME ": out of memory\n");
		return 1;
	}
	struct agent_history_opts ho = {.path = o->path,
					.flush_interval_ms = -1,
					.instance = instance,
					.job = o->job,
					.counters = &dc,
					.holder = "sim record"};
	struct gw_err err;
	gw_err_clear(&err);
	int orc = agent_history_open(&r->h, &ho, nv, r->ngpus, &err);
	gw_counters_release(&dc);
	if (orc != 0) {
		fprintf(stderr, ME ": cannot open the store in %s: %s\n", o->path, err.msg);
		return 1;
	}
	struct gw_tsdb_status st;
	gw_tsdb_status(r->h.db, &st);
	if (st.last_error) {
		fprintf(stderr, ME ": cannot write the store in %s: %s\n", o->path, st.last_error_msg);
		return 1;
	}
	return 0;
}

/*
 * Open the store and fit the window to what it holds; 0 or the exit code.
 * Samples of this instance and job inside the window (an agent ran on the
 * store first) move its end before the first of them, and the recording
 * goes under a temporary name merged afterwards (sim_backfill.h); a window
 * with no room before them is refused.
 */
static int open_store(struct rec *r, struct gw_nvml *nv)
{
	struct rec_args *o = r->o;
	int rc = open_history(r, nv, o->default_instance ? NULL : o->instance);
	if (rc)
		return rc;
	int64_t newest = INT64_MIN, first = INT64_MAX;
	struct gw_err err;
	gw_err_clear(&err);
	long n = count_series(r->h.db, o->instance, o->job, o->start_ms, INT64_MAX / 4, &newest, &err);
	if (n > 0 && sim_backfill_first(r->h.db, o->instance, o->job, o->start_ms, &first, &err) != 0)
		n = -1;
	if (n < 0) {
		fprintf(stderr, ME ": reading the store in %s: %s\n", o->path, err.msg);
		return 1;
	}
	if (n > 0 && first != INT64_MAX && first > o->start_ms) {
		/* the last sample time START + k x INTERVAL before the first stored one */
		int64_t end = o->start_ms + (first - 1 - o->start_ms) / o->interval_ms * o->interval_ms;
		char a[40], b[40], c[40], e[40];
		if (!o->quiet)
			fprintf(stderr,
				ME ": %s already holds samples of instance \"%s\", job \"%s\" from %s (up to %s);\n"
				   "recording %s to %s, before them, and merging it into those series\n",
				o->path, o->instance, o->job, fmt_time(first, a, sizeof(a)),
				fmt_time(newest, b, sizeof(b)), fmt_time(o->start_ms, c, sizeof(c)),
				fmt_time(end, e, sizeof(e)));
		o->end_ms = end;
		r->frames = (end - o->start_ms) / o->interval_ms + 1;
		r->backfill = true;
		snprintf(r->rec_instance, sizeof(r->rec_instance), "%s" SIM_BACKFILL_SUFFIX, o->instance);
		agent_history_close(&r->h);
		return open_history(r, nv, r->rec_instance);
	}
	if (n > 0) {
		char a[40], b[40];
		fprintf(
		    stderr,
		    ME
		    ": %s already holds samples of instance \"%s\", job \"%s\" up to %s, not before the\n"
		    "requested start %s; the store keeps each series in time order and would refuse them.\n"
		    "Record a window starting after %s (--start), into another --storage.path, or under\n"
		    "another --instance or --job.\n",
		    o->path, o->instance, o->job, newest != INT64_MIN ? fmt_time(newest, a, sizeof(a)) : "?",
		    fmt_time(o->start_ms, b, sizeof(b)), newest != INT64_MIN ? a : "that");
		return 1;
	}
	return 0;
}

static int record(struct rec *r, struct gw_nvml *nv, struct gw_gpu *gpus, const sigset_t *sigs)
{
	const struct rec_args *o = r->o;
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_sampler_opts so = o->so;
	so.interval_ms = (unsigned int)o->interval_ms;
	so.no_events = true; /* events are not stored; faults still show in the fields */
	/* the processes' owners as the simulator's cgroups give them (container, pod, Slurm job), as an agent has them */
	struct gw_cgroup_src attr = {.root = "/", .read_proc = false};
	*(void **)&attr.sim_cgroup = dlsym(nv->lib, "gwsim_process_cgroup");
	so.attr = &attr;
	if (gw_sampler_new(&r->sampler, nv, gpus, r->ngpus, &so, &err) != 0) {
		fprintf(stderr, ME ": %s\n", err.msg);
		return 1;
	}
	uint64_t before = file_bytes(o->path);
	int rc = open_store(r, nv);
	if (rc) {
		if (r->h.db)
			agent_history_close(&r->h);
		return rc;
	}
	if (sim_tokens_open(&r->tok, nv->lib, r->ngpus, r->h.db, r->h.instance) != 0) {
		fprintf(stderr, ME ": out of memory\n");
		sim_tokens_close(&r->tok);
		agent_history_close(&r->h);
		return 1;
	}
	if (!o->quiet && o->end_ms > gw_now_ms() + o->interval_ms)
		fprintf(stderr,
			ME ": note: the window ends in the future; an agent storing as instance \"%s\" "
			   "here will have its samples refused until then\n",
			o->instance);
	double t0 = mono_s();
	rc = record_loop(r, sigs);
	if (gw_tsdb_flush(r->h.db, &err) != 0 && rc == 0) {
		fprintf(stderr, ME ": writing the store in %s: %s\n", o->path, err.msg);
		rc = 1;
	}
	struct gw_tsdb_status st;
	gw_tsdb_status(r->h.db, &st);
	if (r->h.append_errors || st.dropped || r->tok.refused) {
		fprintf(stderr, ME ": the store refused %llu samples (%s)\n",
			(unsigned long long)(r->h.append_errors + st.dropped + r->tok.refused),
			st.last_error_msg[0] ? st.last_error_msg : "out of order or out of memory");
		rc = 1;
	}
	gw_err_clear(&err);
	long nseries = count_series(r->h.db, r->h.instance, o->job, o->start_ms, o->end_ms, NULL, &err);
	sim_tokens_close(&r->tok);
	agent_history_close(&r->h);
	uint64_t merged = 0;
	if (r->backfill && sim_backfill_merge(o->path, r->rec_instance, o->instance, &merged, &err) != 0) {
		fprintf(stderr, ME ": merging the recording into the stored series in %s: %s\n", o->path, err.msg);
		rc = 1;
	}
	double secs = mono_s() - t0;
	if (!o->quiet)
		summary(r, nseries, st.appended, before, file_bytes(o->path), secs);
	if (rc == 0 && r->signo)
		rc = 128 + r->signo;
	return rc;
}

static int sim_record(int argc, char **argv, const struct gw_cli *cli)
{
	struct rec_args o = {0};
	int rc = parse_record_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!cli->sim) {
		fprintf(stderr, ME ": recording needs the simulator: give --sim SPEC before the command,\n"
				   "e.g. gpuwatch --sim 8xH200:training sim record --duration 24h\n");
		return 2;
	}
	if ((rc = resolve_window(&o)) != 0)
		return rc;
	char host[256];
	o.default_instance = !o.instance;
	if (o.default_instance) {
		/* The agent's default, the host name, so its live series continue these. */
		agent_history_host(host, sizeof(host));
		o.instance = host;
	}
	/* Before any thread starts (the store's flusher), so the signals wait for record_loop. */
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);

	struct gw_nvml *nv = NULL;
	rc = gw_cli_open_nvml(cli, &nv);
	if (rc) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return rc;
	}
	struct rec r = {.o = &o, .tty = isatty(STDERR_FILENO) == 1};
	int (*set_manual)(int);
	*(void **)&set_manual = dlsym(nv->lib, "gwsim_clock_set_manual");
	*(void **)&r.advance = dlsym(nv->lib, "gwsim_clock_advance");
	struct gw_gpu *gpus = NULL;
	struct gw_err err;
	gw_err_clear(&err);
	if (!set_manual || !r.advance) {
		fprintf(stderr, ME ": %s has no virtual clock control (not the gpuwatch simulator?)\n",
			nv->path);
		rc = 1;
	} else if (gw_nvml_gpus_list(nv, &gpus, &r.ngpus, &err) != 0) {
		fprintf(stderr, ME ": %s\n", err.msg);
		rc = 1;
	} else if (r.ngpus == 0) {
		fprintf(stderr, ME ": the simulated fleet has no GPUs\n");
		rc = 1;
	} else {
		set_manual(1); /* from now on virtual time moves only when we say */
		r.frames = o.duration_ms / o.interval_ms + 1;
		rc = record(&r, nv, gpus, &sigs);
		gw_sampler_free(r.sampler);
	}
	free(gpus);
	gw_nvml_close(nv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	int out = gw_cli_finish_stdout();
	return rc ? rc : out;
}
