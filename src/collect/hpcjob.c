#include "collect/hpcjob.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A file this young may still change within its mtime's tick: read it again. */
#define SETTLE_NS (2LL * 1000000000LL)

struct slot {
	unsigned int index;
	char *path;
	struct gw_hpcjobs *jobs; /* current; NULL: none */
	/* the file the jobs (or the problem) came from; seen false: read it next poll */
	bool seen, settled;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	/* the problem last reported, so each is reported once */
	bool has_problem;
	struct gw_hpcjob_event problem;
};

struct gw_hpcjob {
	char *dir;
	struct gw_hpcjob_opts o;
	struct slot *slots;
	unsigned int n;
	uint64_t gen, reads;
	bool dir_down;
	int dir_err;
	/* the directory as last listed, and what the listing reported */
	bool listed;
	ino_t dir_ino;
	struct timespec dir_mtime;
	unsigned int ignored;
	char first_ignored[64];
};

void gw_hpcjobs_ref(struct gw_hpcjobs *j)
{
	j->refs++;
}

void gw_hpcjobs_unref(struct gw_hpcjobs *j)
{
	if (j && --j->refs == 0)
		free(j);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Printable UTF-8: no C0 or C1 controls, no DEL, no overlong forms, surrogates or code points past U+10FFFF.
 */
static bool printable_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return false;
			i++;
			continue;
		}
		size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
		if (!len || c > 0xf4 || i + len > n)
			return false;
		uint32_t cp = c & (0x7f >> len);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    (cp >= 0x80 && cp <= 0x9f))
			return false;
		i += len;
	}
	return true;
}

int gw_hpcjob_parse(const char *text, size_t len, uint64_t gen, struct gw_hpcjobs **out,
		    struct gw_hpcjob_event *ev)
{
	*out = NULL;
	ev->too_long = ev->bad_text = ev->over_cap = 0;
	if (len && memchr(text, 0, len))
		return GW_EPARSE;
	const char *id[GW_HPCJOB_MAX_JOBS];
	size_t idlen[GW_HPCJOB_MAX_JOBS];
	unsigned int n = 0;
	size_t bytes = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *a = p, *b = nl ? nl : end;
		p = nl ? nl + 1 : end;
		while (a < b && is_space(*a))
			a++;
		while (b > a && is_space(b[-1]))
			b--;
		size_t l = (size_t)(b - a);
		if (!l)
			continue;
		if (l > GW_HPCJOB_ID_MAX) {
			ev->too_long++;
			continue;
		}
		if (!printable_utf8((const unsigned char *)a, l)) {
			ev->bad_text++;
			continue;
		}
		bool dup = false;
		for (unsigned int k = 0; k < n && !dup; k++)
			dup = idlen[k] == l && memcmp(id[k], a, l) == 0;
		if (dup)
			continue;
		if (n == GW_HPCJOB_MAX_JOBS) {
			ev->over_cap++;
			continue;
		}
		id[n] = a;
		idlen[n++] = l;
		bytes += l + 1;
	}
	if (!n)
		return 0;
	struct gw_hpcjobs *j = malloc(sizeof(*j) + bytes);
	if (!j)
		return GW_ENOMEM;
	j->gen = gen;
	j->refs = 1;
	j->n = n;
	char *w = j->text;
	for (unsigned int k = 0; k < n; k++) {
		memcpy(w, id[k], idlen[k]);
		w[idlen[k]] = '\0';
		j->id[k] = w;
		w += idlen[k] + 1;
	}
	*out = j;
	return 0;
}

int gw_hpcjob_new(struct gw_hpcjob **out, const char *dir, const unsigned int *index, unsigned int n,
		  const struct gw_hpcjob_opts *opts, struct gw_err *err)
{
	*out = NULL;
	if (!dir || !*dir)
		return gw_err_set(err, GW_EINVAL, "the hpc job mapping directory is empty");
	struct gw_hpcjob *h = calloc(1, sizeof(*h));
	if (!h)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (opts)
		h->o = *opts;
	h->n = n;
	h->dir = strdup(dir);
	h->slots = calloc(n ? n : 1, sizeof(*h->slots));
	bool ok = h->dir && h->slots;
	size_t dl = h->dir ? strlen(h->dir) : 0;
	const char *sep = dl && h->dir[dl - 1] == '/' ? "" : "/";
	for (unsigned int i = 0; ok && i < n; i++) {
		h->slots[i].index = index[i];
		size_t sz = dl + 16;
		h->slots[i].path = malloc(sz);
		ok = h->slots[i].path != NULL;
		if (ok)
			snprintf(h->slots[i].path, sz, "%s%s%u", h->dir, sep, index[i]);
	}
	if (!ok) {
		gw_hpcjob_free(h);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	*out = h;
	return 0;
}

void gw_hpcjob_free(struct gw_hpcjob *h)
{
	if (!h)
		return;
	for (unsigned int i = 0; h->slots && i < h->n; i++) {
		gw_hpcjobs_unref(h->slots[i].jobs);
		free(h->slots[i].path);
	}
	free(h->slots);
	free(h->dir);
	free(h);
}

struct gw_hpcjobs *gw_hpcjob_get(const struct gw_hpcjob *h, unsigned int index)
{
	for (unsigned int i = 0; i < h->n; i++)
		if (h->slots[i].index == index)
			return h->slots[i].jobs;
	return NULL;
}

uint64_t gw_hpcjob_reads(const struct gw_hpcjob *h)
{
	return h->reads;
}

static void report(const struct gw_hpcjob *h, const struct gw_hpcjob_event *e)
{
	if (h->o.log)
		h->o.log(h->o.log_arg, e);
}

static bool same_problem(const struct gw_hpcjob_event *a, const struct gw_hpcjob_event *b)
{
	return a->kind == b->kind && a->err == b->err && a->why == b->why && a->too_long == b->too_long &&
	       a->bad_text == b->bad_text && a->over_cap == b->over_cap;
}

/* Report a problem with a GPU's file unless it is the one last reported. */
static void note_problem(const struct gw_hpcjob *h, struct slot *s, struct gw_hpcjob_event *e)
{
	e->gpu = (int)s->index;
	e->path = s->path;
	if (s->has_problem && same_problem(&s->problem, e))
		return;
	report(h, e);
	s->problem = *e;
	s->has_problem = true;
}

static bool same_jobs(const struct gw_hpcjobs *a, const struct gw_hpcjobs *b)
{
	if (!a || !b)
		return a == b;
	if (a->n != b->n)
		return false;
	for (unsigned int i = 0; i < a->n; i++)
		if (strcmp(a->id[i], b->id[i]) != 0)
			return false;
	return true;
}

/* Publish j (ours to keep or drop) as the GPU's jobs; true when they changed. */
static bool set_jobs(const struct gw_hpcjob *h, struct slot *s, struct gw_hpcjobs *j, bool quiet)
{
	if (same_jobs(s->jobs, j)) {
		gw_hpcjobs_unref(j);
		return false;
	}
	gw_hpcjobs_unref(s->jobs);
	s->jobs = j;
	if (!quiet) {
		struct gw_hpcjob_event e = {
		    .kind = GW_HPCJOB_JOBS, .gpu = (int)s->index, .path = s->path, .jobs = j};
		report(h, &e);
	}
	return true;
}

/* The file is not usable: no jobs for the GPU. */
static bool file_bad(const struct gw_hpcjob *h, struct slot *s, int err, const char *why)
{
	struct gw_hpcjob_event e = {.kind = GW_HPCJOB_FILE_BAD, .err = err, .why = why};
	note_problem(h, s, &e);
	return set_jobs(h, s, NULL, false);
}

static void remember(struct slot *s, const struct stat *st)
{
	s->seen = true;
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	s->size = st->st_size;
	s->mtime = st->st_mtim;
	s->ctime = st->st_ctim;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	long long age =
	    (long long)(now.tv_sec - st->st_mtim.tv_sec) * 1000000000LL + (now.tv_nsec - st->st_mtim.tv_nsec);
	s->settled = age >= SETTLE_NS || age <= -SETTLE_NS;
}

static bool ts_eq(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static bool unchanged(const struct slot *s, const struct stat *st)
{
	return s->seen && s->settled && s->dev == st->st_dev && s->ino == st->st_ino &&
	       s->size == st->st_size && ts_eq(s->mtime, st->st_mtim) && ts_eq(s->ctime, st->st_ctim);
}

#define WHY_TOO_LARGE "larger than 65536 bytes"

/*
 * Read the whole file into *buf (malloc'd, the caller frees), at most
 * GW_HPCJOB_FILE_MAX bytes. Non-blocking: a FIFO swapped in after the
 * stat() opens without waiting and fails the regular-file check.
 */
static int read_file(const char *path, struct stat *st, char **buf, size_t *len, int *err, const char **why)
{
	*buf = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*err = errno;
		*why = "cannot open";
		return -1;
	}
	int rc = -1;
	char *b = NULL;
	if (fstat(fd, st) != 0) {
		*err = errno;
		*why = "cannot stat";
	} else if (!S_ISREG(st->st_mode)) {
		*why = "not a regular file";
	} else if (st->st_size > GW_HPCJOB_FILE_MAX) {
		*why = WHY_TOO_LARGE;
	} else if (!(b = malloc(GW_HPCJOB_FILE_MAX + 1))) {
		*err = ENOMEM;
		*why = "cannot read";
	} else {
		size_t n = 0;
		rc = 0;
		/* Up to one byte past the limit: a file that grew since fstat() is refused too. */
		while (n <= GW_HPCJOB_FILE_MAX) {
			ssize_t r = read(fd, b + n, GW_HPCJOB_FILE_MAX + 1 - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				*err = errno;
				*why = "cannot read";
				rc = -1;
				break;
			}
			if (r == 0)
				break;
			n += (size_t)r;
		}
		if (rc == 0 && n > GW_HPCJOB_FILE_MAX) {
			*why = WHY_TOO_LARGE;
			rc = -1;
		}
		*len = n;
	}
	close(fd);
	if (rc)
		free(b);
	else
		*buf = b;
	return rc;
}

static bool poll_file(struct gw_hpcjob *h, struct slot *s)
{
	struct stat st;
	if (stat(s->path, &st) != 0) {
		if (errno == ENOENT) { /* no file: no jobs, and nothing wrong */
			s->seen = false;
			s->has_problem = false;
			return set_jobs(h, s, NULL, false);
		}
		s->seen = false;
		return file_bad(h, s, errno, "cannot stat"); /* ELOOP, EACCES on the way, ... */
	}
	if (S_ISDIR(st.st_mode)) {
		s->seen = false;
		return file_bad(h, s, 0, "a directory, not a file");
	}
	if (!S_ISREG(st.st_mode)) { /* never open a FIFO, socket or device */
		s->seen = false;
		return file_bad(h, s, 0, "not a regular file");
	}
	if (unchanged(s, &st))
		return false;
	remember(s, &st); /* problems below are kept until the file changes */
	if (st.st_size > GW_HPCJOB_FILE_MAX)
		return file_bad(h, s, 0, WHY_TOO_LARGE);
	char *buf;
	size_t len;
	int err = 0;
	const char *why = NULL;
	h->reads++;
	if (read_file(s->path, &st, &buf, &len, &err, &why) != 0) {
		if (err) /* a failed call may pass (EIO, ENOMEM): try again next poll */
			s->seen = false;
		else
			remember(s, &st);
		return file_bad(h, s, err, why);
	}
	remember(s, &st);
	struct gw_hpcjob_event e = {.kind = GW_HPCJOB_LINES_SKIPPED};
	struct gw_hpcjobs *j;
	int rc = gw_hpcjob_parse(buf, len, ++h->gen, &j, &e);
	free(buf);
	if (rc == GW_EPARSE)
		return file_bad(h, s, 0, "binary (holds a NUL byte)");
	if (rc) {
		s->seen = false;
		return file_bad(h, s, ENOMEM, "cannot read");
	}
	if (e.too_long || e.bad_text || e.over_cap)
		note_problem(h, s, &e);
	else
		s->has_problem = false;
	return set_jobs(h, s, j, false);
}

/* "7" for a GPU of ours: the decimal index, no sign, no leading zero. */
static bool names_gpu(const struct gw_hpcjob *h, const char *name)
{
	size_t l = strlen(name);
	if (!l || l > 9 || (name[0] == '0' && l > 1) || strspn(name, "0123456789") != l)
		return false;
	unsigned int v = (unsigned int)strtoul(name, NULL, 10);
	for (unsigned int i = 0; i < h->n; i++)
		if (h->slots[i].index == v)
			return true;
	return false;
}

/* Report entries that map to no GPU here (MIG GPU.INSTANCE names, UUIDs, other hosts' indexes). */
static void list_dir(struct gw_hpcjob *h)
{
	DIR *d = opendir(h->dir);
	if (!d)
		return;
	unsigned int ignored = 0;
	char first[64] = "";
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    de->d_type == DT_DIR) /* hidden (an editor's or a script's temp) */
			continue;
		if (names_gpu(h, de->d_name))
			continue;
		if (!ignored++) { /* a name may be 255 bytes: the log shows the start */
			size_t l = strnlen(de->d_name, sizeof(first) - 1);
			memcpy(first, de->d_name, l);
			first[l] = '\0';
		}
	}
	closedir(d);
	if (ignored && (ignored != h->ignored || strcmp(first, h->first_ignored) != 0)) {
		struct gw_hpcjob_event e = {.kind = GW_HPCJOB_IGNORED,
					    .gpu = -1,
					    .path = h->dir,
					    .ignored = ignored,
					    .first_ignored = first};
		report(h, &e);
	}
	h->ignored = ignored;
	snprintf(h->first_ignored, sizeof(h->first_ignored), "%s", first);
}

bool gw_hpcjob_poll(struct gw_hpcjob *h)
{
	struct stat st;
	bool changed = false;
	int rc = stat(h->dir, &st);
	if (rc != 0 || !S_ISDIR(st.st_mode)) {
		int e = rc != 0 ? errno : ENOTDIR;
		if (!h->dir_down || h->dir_err != e) {
			struct gw_hpcjob_event ev = {
			    .kind = GW_HPCJOB_DIR_DOWN, .gpu = -1, .path = h->dir, .err = e};
			report(h, &ev);
		}
		h->dir_down = true;
		h->dir_err = e;
		h->listed = false;
		for (unsigned int i = 0; i < h->n; i++) {
			h->slots[i].seen = false;
			h->slots[i].has_problem = false;
			changed |= set_jobs(h, &h->slots[i], NULL, true);
		}
		return changed;
	}
	if (h->dir_down) {
		struct gw_hpcjob_event ev = {.kind = GW_HPCJOB_DIR_UP, .gpu = -1, .path = h->dir};
		report(h, &ev);
		h->dir_down = false;
	}
	if (!h->listed || h->dir_ino != st.st_ino || !ts_eq(h->dir_mtime, st.st_mtim)) {
		list_dir(h);
		h->listed = true;
		h->dir_ino = st.st_ino;
		h->dir_mtime = st.st_mtim;
	}
	for (unsigned int i = 0; i < h->n; i++)
		changed |= poll_file(h, &h->slots[i]);
	return changed;
}
