/*
 * scenario.c - the scenario file: INI-like sections of KEY = VALUE lines.
 *
 *   [sim]            seed, host, clock, speed, driver, nvml, cuda, epoch,
 *                    init_error, missing, fleet, fault (every GPU)
 *   include = FILE   (any section) reads FILE first, relative to this file:
 *                    an overlay changes a few keys of a base scenario
 *   [gpu N]          model, workload, load, any key of scenario_keys.c,
 *   [gpu N-M|*]      health keys, process, accounted, fault, unsupported, ret.FUNC
 *
 * '#' starts a comment at the start of a line or after white space. Every
 * error names FILE:LINE. docs/SIMULATOR.md is the user's description.
 */
#include "scenario.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct ctx {
	const char *path;
	int line;
	bool in_sim;
	unsigned int lo, hi; /* GPU selector [lo, hi]; hi == UINT_MAX: all */
	bool all;
	int depth; /* include nesting */
	char *err;
	size_t errlen;
};

#define FAIL(c, ...)                                                                               \
	do {                                                                                       \
		char m_[1400];                                                                       \
		snprintf(m_, sizeof(m_), __VA_ARGS__);                                             \
		snprintf((c)->err, (c)->errlen, "%s:%d: %s", (c)->path, (c)->line, m_);            \
		return -1;                                                                         \
	} while (0)

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* A scenario time: "30", "30s", "5m", "2h", "1d", "200ms"; 0..GWSIM_T_MAX s. */
static int parse_time(const char *v, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || !(x >= 0) || !isfinite(x))
		return -1;
	double mul = 1;
	if (*end == 's')
		end++;
	else if (*end == 'm' && end[1] != 's')
		mul = 60, end++;
	else if (*end == 'h')
		mul = 3600, end++;
	else if (*end == 'd')
		mul = 86400, end++;
	else if (*end == 'm' && end[1] == 's')
		mul = 0.001, end += 2;
	if (*end || x * mul > GWSIM_T_MAX)
		return -1;
	*out = x * mul;
	return 0;
}

/* Unix seconds, or YYYY-MM-DD HH:MM:SS[.ffffff] UTC; 1970 up to GWSIM_EPOCH_MAX_S. */
static int parse_epoch(const char *v, double *us)
{
	double secs;
	if (gwsim_parse_num(v, &secs) == 0) {
		if (!(secs >= 0 && secs < GWSIM_EPOCH_MAX_S))
			return -1;
		*us = secs * 1e6;
		return 0;
	}
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	int used = 0;
	if (sscanf(v, "%4d-%2d-%2d%*1[ T]%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec, &used) != 6 || used == 0)
		return -1;
	double frac = 0, scale = 0.1;
	const char *p = v + used;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
			frac += (*p - '0') * scale;
		if (p == v + used + 1)
			return -1;
	}
	if (*p && strcmp(p, "Z") != 0)
		return -1;
	int year = tm.tm_year, mon = tm.tm_mon, mday = tm.tm_mday;
	if (mon < 1 || mon > 12 || mday < 1 || mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 59)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	double t = (double)timegm(&tm);
	/* timegm() turns 31 February into 3 March: a date that moved was no date */
	if (tm.tm_year != year - 1900 || tm.tm_mon != mon - 1 || tm.tm_mday != mday)
		return -1;
	if (!(t >= 0 && t < GWSIM_EPOCH_MAX_S))
		return -1;
	*us = t * 1e6 + frac * 1e6;
	return 0;
}

/* A number lo..hi for key k, or a FAIL naming key, value and range. */
static int ranged(struct ctx *c, const char *k, const char *v, double lo, double hi, double *out)
{
	char m[GWSIM_ERRLEN];
	if (gwsim_parse_range(k, v, lo, hi, out, m, sizeof(m)) != 0)
		FAIL(c, "%s", m);
	return 0;
}

static int sim_key(struct ctx *c, const char *k, char *v)
{
	double x;
	if (strcmp(k, "seed") == 0) {
		unsigned long long seed;
		char m[GWSIM_ERRLEN];
		if (gwsim_parse_u64("seed", v, &seed, m, sizeof(m)) != 0)
			FAIL(c, "%s", m);
		gwsim.seed = seed;
	} else if (strcmp(k, "host") == 0) {
		char m[GWSIM_ERRLEN];
		if (gwsim_host_set(v, m, sizeof(m)) != 0)
			FAIL(c, "%s", m);
	} else if (strcmp(k, "clock") == 0) {
		if (strcasecmp(v, "manual") == 0 || strcasecmp(v, "frozen") == 0)
			gwsim.clock_mode = GWSIM_CLOCK_MANUAL;
		else if (strcasecmp(v, "real") == 0)
			gwsim.clock_mode = GWSIM_CLOCK_REAL;
		else if (strcasecmp(v, "step") == 0)
			gwsim.clock_mode = GWSIM_CLOCK_STEP;
		else
			FAIL(c, "clock wants real, manual or step, not \"%s\"", v);
	} else if (strcmp(k, "speed") == 0) {
		if (ranged(c, k, v, GWSIM_SPEED_MIN, GWSIM_SPEED_MAX, &x) != 0)
			return -1;
		gwsim.speed = x;
	} else if (strcmp(k, "driver") == 0) {
		snprintf(gwsim.driver, sizeof(gwsim.driver), "%s", v);
	} else if (strcmp(k, "nvml") == 0) {
		snprintf(gwsim.nvml, sizeof(gwsim.nvml), "%s", v);
	} else if (strcmp(k, "cuda") == 0) {
		/* 13.1 or 13010 (what cudaDriverGetVersion answers): major 1..99, minor 0..99 */
		unsigned int a, b;
		int used = 0;
		if (strchr(v, '.')) {
			if (strspn(v, "0123456789.") != strlen(v) || sscanf(v, "%u.%u%n", &a, &b, &used) != 2 || v[used] ||
			    a < 1 || a > 99 || b > 99)
				FAIL(c, "cuda = %s is out of range (1.0..99.99, or 1000..99990)", v);
			gwsim.cuda = (int)(a * 1000 + b * 10);
		} else {
			if (ranged(c, k, v, 1000, 99990, &x) != 0)
				return -1;
			gwsim.cuda = (int)x;
		}
	} else if (strcmp(k, "epoch") == 0) {
		if (parse_epoch(v, &gwsim.epoch_us) != 0)
			FAIL(c, "epoch = %s is not a time from 1970-01-01 00:00:00 to 2199-12-31 23:59:59 "
				"(YYYY-MM-DD HH:MM:SS[.ffffff] UTC, or unix seconds 0..7258118399)", v);
	} else if (strcmp(k, "init_error") == 0) {
		if (gwsim_ret_parse(v, &gwsim.init_error) != 0)
			FAIL(c, "unknown NVML return code \"%s\"", v);
	} else if (strcmp(k, "missing") == 0) {
		for (char *save = NULL, *t = strtok_r(v, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
			if (gwsim.nmissing >= GWSIM_MAX_MISSING)
				FAIL(c, "too many missing functions (max %d)", GWSIM_MAX_MISSING);
			snprintf(gwsim.missing[gwsim.nmissing++], sizeof(gwsim.missing[0]), "%s", t);
		}
	} else if (strcmp(k, "fleet") == 0) {
		char m[GWSIM_ERRLEN];
		if (gwsim_spec_parse(v, m, sizeof(m)) != 0)
			FAIL(c, "%s", m);
	} else {
		return 0;
	}
	return 1;
}

/* "99" or "99,99,-,79": one value per virtual second, "-" for no sample. */
static int parse_pseq(const char *v, struct gwsim_pseq *out)
{
	out->n = 0;
	for (const char *p = v;; p++) {
		size_t len = strcspn(p, ",");
		if (len == 0 || out->n >= GWSIM_SEQ_MAX)
			return -1;
		char word[32];
		double x;
		if (len >= sizeof(word))
			return -1;
		memcpy(word, p, len);
		word[len] = '\0';
		if (strcmp(word, "-") == 0)
			out->v[out->n++] = NAN;
		else if (gwsim_parse_num(word, &x) == 0 && x >= 0 && x <= 100)
			out->v[out->n++] = (float)x;
		else
			return -1;
		p += len;
		if (!*p)
			return 0;
	}
}

static int add_process(struct ctx *c, struct gwsim_gpu *g, char *v)
{
	char *w[16];
	int n = 0;
	for (char *p = v; *p && n < 16;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (*p == '"') {
			w[n++] = ++p;
			p = strchr(p, '"');
			if (!p)
				FAIL(c, "unterminated quote in process");
			*p++ = '\0';
		} else {
			w[n++] = p;
			while (*p && !isspace((unsigned char)*p))
				p++;
			if (*p)
				*p++ = '\0';
		}
	}
	if (n < 4)
		FAIL(c, "process wants PID NAME TYPE MEMORY_MIB [sm=PCT] [mem=PCT] [cgroup=PATH] ...");
	struct gwsim_proc p = {.sm_share = 1.0, .mem_share = 1.0};
	double x;
	/* Linux pids stop at 2^22 (PID_MAX_LIMIT) */
	if (ranged(c, "process pid", w[0], 1, 4194304, &x) != 0)
		return -1;
	p.pid = (unsigned int)x;
	snprintf(p.name, sizeof(p.name), "%s", w[1]);
	if (strcasecmp(w[2], "C") == 0)
		p.type = GWSIM_PROC_COMPUTE;
	else if (strcasecmp(w[2], "G") == 0)
		p.type = GWSIM_PROC_GRAPHICS;
	else if (strcasecmp(w[2], "C+G") == 0 || strcasecmp(w[2], "CG") == 0)
		p.type = GWSIM_PROC_COMPUTE | GWSIM_PROC_GRAPHICS;
	else
		FAIL(c, "process type must be C, G or C+G, not \"%s\"", w[2]);
	if (ranged(c, "process memory (MiB)", w[3], 0, 16777216, &p.mem_mib) != 0)
		return -1;
	for (int i = 4; i < n; i++) {
		char *eq = strchr(w[i], '=');
		if (!eq)
			FAIL(c, "process option \"%s\" wants KEY=VALUE", w[i]);
		*eq++ = '\0';
		int bad = 0;
		if (strcmp(w[i], "cgroup") == 0)
			snprintf(p.cgroup, sizeof(p.cgroup), "%s", eq);
		else if (strcmp(w[i], "sm") == 0)
			bad = parse_pseq(eq, &p.sm);
		else if (strcmp(w[i], "mem") == 0)
			bad = parse_pseq(eq, &p.mem);
		else if (strcmp(w[i], "enc") == 0)
			bad = parse_pseq(eq, &p.enc);
		else if (strcmp(w[i], "dec") == 0)
			bad = parse_pseq(eq, &p.dec);
		else if (strcmp(w[i], "share") == 0) {
			if (ranged(c, "process share", eq, 0, 1, &p.sm_share) != 0)
				return -1;
			p.mem_share = p.sm_share;
		} else if (strcmp(w[i], "leak") == 0) {
			if (ranged(c, "process leak (MiB/s)", eq, 0, 1048576, &p.leak_mib_s) != 0)
				return -1;
		} else if (strcmp(w[i], "gi") == 0 || strcmp(w[i], "ci") == 0) {
			/* the MIG instance it runs in, by id as NVML numbers them */
			if (ranged(c, w[i][0] == 'g' ? "process gi" : "process ci", eq, 0, 14, &x) != 0)
				return -1;
			*(w[i][0] == 'g' ? &p.gi : &p.ci) = (unsigned int)x;
			p.on_mig = true;
		} else if (strcmp(w[i], "start") == 0 || strcmp(w[i], "end") == 0) {
			if (parse_time(eq, w[i][0] == 's' ? &p.start : &p.end) != 0)
				FAIL(c, "process %s = %s is not a time 0..3650d (e.g. 30, 30s, 5m, 2h, 1d)", w[i], eq);
		} else {
			FAIL(c, "unknown process option \"%s\" (cgroup, sm, mem, enc, dec, share, leak, gi, ci, start, end)",
			     w[i]);
		}
		if (bad)
			FAIL(c, "bad value for process option %s = %s (PCT[,PCT|-]..., at most %d, each 0..100)", w[i], eq,
			     GWSIM_SEQ_MAX);
	}
	/* A pid listed again (an overlay) replaces the earlier line in place:
	 * the list's order is the driver's, which --query-compute-apps shows. */
	for (unsigned int i = 0; i < g->nprocs; i++) {
		if (g->procs[i].pid == p.pid) {
			g->procs[i] = p;
			return 0;
		}
	}
	if (g->nprocs >= GWSIM_MAX_PROCS)
		FAIL(c, "too many processes on GPU %u (max %d)", g->index, GWSIM_MAX_PROCS);
	g->procs[g->nprocs++] = p;
	return 0;
}

static int ecc_key(struct ctx *c, struct gwsim_gpu *g, const char *k, const char *v)
{
	static const char *const locs[8] = {"l1", "l2", "dram", "reg", "tex", "shm", "cbu", "sram"};
	char t[8], kind[8], loc[8];
	if (sscanf(k, "ecc.%7[a-z].%7[a-z].%7[a-z0-9]", t, kind, loc) != 3)
		FAIL(c, "ecc keys look like ecc.corr.vol.dram (corr|unc, vol|agg, dram|sram|l1|l2|reg|tex|cbu)");
	int e = strcmp(t, "corr") == 0 ? 0 : strcmp(t, "unc") == 0 ? 1 : -1;
	int ct = strcmp(kind, "vol") == 0 ? 0 : strcmp(kind, "agg") == 0 ? 1 : -1;
	int l = -1;
	for (int i = 0; i < 8; i++)
		if (strcmp(loc, locs[i]) == 0)
			l = i;
	double x;
	if (e < 0 || ct < 0 || l < 0)
		FAIL(c, "bad ecc key \"%s\"", k);
	/* counts stay below 2^53: exact in the double they are parsed into */
	if (ranged(c, k, v, 0, 9007199254740992.0, &x) != 0)
		return -1;
	g->h.ecc[e][ct][l] = (unsigned long long)x;
	return 1;
}

static int health_key(struct ctx *c, struct gwsim_gpu *g, const char *k, char *v)
{
	double x;
	unsigned int b;
	struct gwsim_health *h = &g->h;
	if (strncmp(k, "ecc.", 4) == 0)
		return ecc_key(c, g, k, v);
	if (strcmp(k, "retired.sbe") == 0 || strcmp(k, "retired.dbe") == 0) {
		int cause = k[8] == 'd';
		for (char *save = NULL, *t = strtok_r(v, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
			if (h->retired_n[cause] >= GWSIM_MAX_RETIRED)
				FAIL(c, "too many retired pages");
			char m[GWSIM_ERRLEN];
			if (gwsim_parse_u64(k, t, &h->retired[cause][h->retired_n[cause]], m, sizeof(m)) != 0)
				FAIL(c, "%s", m);
			h->retired_n[cause]++;
		}
		return 1;
	}
	if (strcmp(k, "remap_hist") == 0) {
		char *save = NULL, *t = strtok_r(v, ",", &save);
		for (int i = 0; i < 5; i++, t = strtok_r(NULL, ",", &save)) {
			if (!t)
				FAIL(c, "remap_hist wants MAX,HIGH,PARTIAL,LOW,NONE");
			if (ranged(c, "remap_hist", trim(t), 0, 1000000, &x) != 0)
				return -1;
			h->remap_hist[i] = (unsigned int)x;
		}
		if (t)
			FAIL(c, "remap_hist wants MAX,HIGH,PARTIAL,LOW,NONE (five counts)");
		return 1;
	}
	bool *flag = strcmp(k, "retired_pending") == 0 ? &h->retired_pending
		     : strcmp(k, "remap_pending") == 0 ? &h->remap_pending
		     : strcmp(k, "remap_failure") == 0 ? &h->remap_failure
						       : NULL;
	if (flag) {
		if (gwsim_parse_bool(v, &b) != 0)
			FAIL(c, "%s wants yes or no", k);
		*flag = b;
		return 1;
	}
	unsigned int *num = strcmp(k, "remap_corr") == 0 ? &h->remap_corr
			    : strcmp(k, "remap_unc") == 0 ? &h->remap_unc
			    : strcmp(k, "pcie_replays") == 0 ? &h->pcie_replays
							     : NULL;
	if (num || strcmp(k, "last_xid") == 0) {
		/* XIDs the driver documents are below 200; counters up to a billion */
		if (ranged(c, k, v, 0, num ? 1e9 : 65535, &x) != 0)
			return -1;
		if (num)
			*num = (unsigned int)x;
		else
			h->last_xid = (unsigned long long)x;
		return 1;
	}
	return 0;
}

static int fault_line(struct ctx *c, int gpu, char *v)
{
	char *sp = v + strcspn(v, " \t");
	if (!*sp)
		FAIL(c, "fault wants TIME WHAT (e.g. \"30s xid 79\")");
	*sp++ = '\0';
	double at;
	if (parse_time(v, &at) != 0)
		FAIL(c, "bad fault time \"%s\" (0..3650d, e.g. 30, 30s, 5m, 2h, 1d)", v);
	char m[GWSIM_ERRLEN];
	if (gwsim_fault_parse(trim(sp), gpu, at, m, sizeof(m)) != 0)
		FAIL(c, "%s", m);
	return 0;
}

static int gpu_key(struct ctx *c, struct gwsim_gpu *g, const char *k, char *v)
{
	if (strcmp(k, "workload") == 0) {
		if (gwsim_workload_parse(v, &g->wl) != 0)
			FAIL(c, "unknown workload \"%s\"", v);
		return 0;
	}
	if (strcmp(k, "load") == 0) {
		return ranged(c, k, v, 0, 1, &g->wl_scale);
	}
	if (strcmp(k, "process") == 0)
		return add_process(c, g, v);
	if (strcmp(k, "accounted") == 0) {
		char e[256];
		if (gwsim_acct_parse(g, v, e, sizeof(e)) != 0)
			FAIL(c, "%s", e);
		return 0;
	}
	if (strcmp(k, "fault") == 0)
		return fault_line(c, (int)g->index, v);
	if (strcmp(k, "unsupported") == 0 || strncmp(k, "ret.", 4) == 0) {
		nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;
		if (k[0] == 'r' && gwsim_ret_parse(v, &r) != 0)
			FAIL(c, "unknown NVML return code \"%s\"", v);
		char list[1024];
		snprintf(list, sizeof(list), "%s", k[0] == 'r' ? k + 4 : v);
		for (char *save = NULL, *t = strtok_r(list, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
			char base[64];
			gwsim_base_name(t, base, sizeof(base));
			size_t len = strlen(g->rets);
			if (len + strlen(base) + 8 >= sizeof(g->rets))
				FAIL(c, "too many unsupported functions on GPU %u", g->index);
			snprintf(g->rets + len, sizeof(g->rets) - len, "%s=%d,", base, r);
		}
		return 0;
	}
	char m[GWSIM_ERRLEN];
	if (strcmp(k, "mig") == 0) {
		if (gwsim_mig_set(g, v, m, sizeof(m)) != 0)
			FAIL(c, "%s", m);
		return 0;
	}
	int rc = gwsim_mig_key(g, k, v, m, sizeof(m));
	if (rc < 0)
		FAIL(c, "%s", m);
	if (rc > 0)
		return 0;
	rc = gwsim_key_set(g, k, v, m, sizeof(m));
	if (rc < 0)
		FAIL(c, "%s", m);
	if (rc > 0)
		return 0;
	rc = health_key(c, g, k, v);
	if (rc < 0)
		return -1;
	if (rc == 0)
		FAIL(c, "unknown key \"%s\" (see docs/SIMULATOR.md)", k);
	return 0;
}

static int section(struct ctx *c, char *s)
{
	char *end = strchr(s, ']');
	if (!end || end[1])
		FAIL(c, "bad section header (want [sim] or [gpu N], [gpu N-M], [gpu *])");
	*end = '\0';
	s = trim(s + 1);
	c->in_sim = strcmp(s, "sim") == 0;
	if (c->in_sim)
		return 0;
	if (strncmp(s, "gpu", 3) != 0)
		FAIL(c, "unknown section [%s] (want [sim] or [gpu N])", s);
	s = trim(s + 3);
	c->all = strcmp(s, "*") == 0;
	if (c->all)
		return 0;
	int used = 0;
	if (strspn(s, "0123456789-") == strlen(s) && sscanf(s, "%u-%u%n", &c->lo, &c->hi, &used) == 2 && !s[used] &&
	    c->lo <= c->hi && c->hi < GWSIM_MAX_GPUS)
		return 0;
	char *e;
	unsigned long n = strtoul(s, &e, 10);
	if (!*s || *e || n >= GWSIM_MAX_GPUS)
		FAIL(c, "bad GPU selector \"%s\" (N, N-M or *, GPUs 0..%d)", s, GWSIM_MAX_GPUS - 1);
	c->lo = c->hi = (unsigned int)n;
	return 0;
}

static int apply_gpus(struct ctx *c, const char *k, char *v)
{
	unsigned int lo = c->all ? 0 : c->lo, hi = c->all ? gwsim.ngpus - 1 : c->hi;
	if (c->all && gwsim.ngpus == 0)
		FAIL(c, "[gpu *] before any GPU exists (set fleet = in [sim] first)");
	for (unsigned int i = lo; i <= hi; i++) {
		if (strcmp(k, "model") == 0) {
			char m[GWSIM_ERRLEN];
			if (i < gwsim.ngpus)
				FAIL(c, "GPU %u already has a model (model must come first, once)", i);
			if (i > gwsim.ngpus)
				FAIL(c, "GPU %u defined before GPU %u", i, gwsim.ngpus);
			if (gwsim_fleet_add(v, NULL, 1, m, sizeof(m)) != 0)
				FAIL(c, "%s", m);
			continue;
		}
		if (i >= gwsim.ngpus)
			FAIL(c, "GPU %u has no model (set model = first, or fleet = in [sim])", i);
		/* keys may be consumed destructively (lists): work on a copy */
		char copy[1024];
		snprintf(copy, sizeof(copy), "%s", v);
		if (gpu_key(c, &gwsim.gpus[i], k, copy) != 0)
			return -1;
	}
	return 0;
}

static int load(const char *path, int depth, char *err, size_t errlen);

/* FILE relative to the including file's directory; its sections do not
 * leak: the includer's current section is restored afterwards. */
static int include(struct ctx *c, const char *v)
{
	if (c->depth >= 4)
		FAIL(c, "includes nest too deep (max 4)");
	char path[PATH_MAX];
	const char *slash = strrchr(c->path, '/');
	int n = v[0] == '/' || !slash ? snprintf(path, sizeof(path), "%s", v)
				       : snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - c->path), c->path, v);
	if (n < 0 || (size_t)n >= sizeof(path))
		FAIL(c, "include path too long");
	char m[GWSIM_ERRLEN];
	if (load(path, c->depth + 1, m, sizeof(m)) != 0)
		FAIL(c, "%s", m);
	return 0;
}

static int line(struct ctx *c, char *s)
{
	for (char *h = s; (h = strchr(h, '#')); h++) {
		if (h == s || isspace((unsigned char)h[-1])) {
			*h = '\0';
			break;
		}
	}
	s = trim(s);
	if (!*s)
		return 0;
	if (*s == '[')
		return section(c, s);
	char *eq = strchr(s, '=');
	if (!eq)
		FAIL(c, "expected KEY = VALUE");
	*eq = '\0';
	char *k = trim(s), *v = trim(eq + 1);
	if (strcmp(k, "include") == 0)
		return include(c, v);
	if (c->in_sim) {
		if (strcmp(k, "fault") == 0)
			return fault_line(c, -1, v);
		int rc = sim_key(c, k, v);
		if (rc < 0)
			return -1;
		if (rc == 0)
			FAIL(c, "unknown [sim] key \"%s\"", k);
		return 0;
	}
	if (!c->all && c->lo == UINT32_MAX)
		FAIL(c, "key outside a section (start with [sim] or [gpu N])");
	return apply_gpus(c, k, v);
}

static int load(const char *path, int depth, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot open scenario file %s", path);
		return -1;
	}
	struct ctx c = {.path = path, .depth = depth, .lo = UINT32_MAX, .hi = UINT32_MAX, .err = err, .errlen = errlen};
	char buf[2048];
	int rc = 0;
	while (rc == 0 && fgets(buf, sizeof(buf), f)) {
		c.line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line too long", path, c.line);
			rc = -1;
			break;
		}
		rc = line(&c, buf);
	}
	fclose(f);
	return rc;
}

int gwsim_scenario_load(const char *path, char *err, size_t errlen)
{
	return load(path, 0, err, errlen);
}
