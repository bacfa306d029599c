/*
 * push.c - the Pushgateway protocol's groups (push.h): pushed bodies
 * parsed and checked, PUT / POST / DELETE on the groups they land in,
 * and their exposition. Grouping keys are push_key.c's.
 */
#include "ingest/push.h"

#include "core/arena.h"
#include "core/sort.h"
#include "ingest/import_om.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROUP_ARENA_MAX ((size_t)64 << 20)
#define SAMPLE_LABELS_MAX 64

struct push_sample {
	const char *suffix; /* "", "_sum", "_count": the family's name plus this */
	struct gw_label *l; /* the body's labels, the grouping labels left out */
	size_t n;
	double v;
};

struct push_family {
	const char *name, *help;
	enum gw_metric_type type;
	bool typed;   /* a TYPE line named it */
	bool carried; /* kept by a POST that did not name it */
	struct push_sample *s;
	size_t ns, cap;
};

struct push_group {
	struct gw_arena arena; /* every string and array of the group */
	struct gw_label key[GW_PUSH_KEY_MAX];
	size_t nkey;
	int64_t push_ms, fail_ms;
	struct push_family *f;
	size_t nf, capf;
	size_t nsamples;
};

struct gw_push_store {
	struct push_group **g;
	size_t n;
};

/* Same set of labels, in any order. */
static bool key_equal(const struct push_group *g, const struct gw_push_key *k)
{
	if (g->nkey != k->n)
		return false;
	for (size_t i = 0; i < k->n; i++) {
		bool found = false;
		for (size_t j = 0; j < g->nkey && !found; j++)
			found =
			    !strcmp(g->key[j].name, k->l[i].name) && !strcmp(g->key[j].value, k->l[i].value);
		if (!found)
			return false;
	}
	return true;
}

/* ---- groups -------------------------------------------------------------------------- */

static struct push_group *group_new(const struct gw_push_key *k)
{
	struct push_group *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	gw_arena_init(&g->arena, GROUP_ARENA_MAX);
	for (size_t i = 0; i < k->n; i++)
		g->key[i] = (struct gw_label){gw_arena_strdup(&g->arena, k->l[i].name),
					      gw_arena_strdup(&g->arena, k->l[i].value)};
	g->nkey = k->n;
	if (g->arena.err) {
		gw_arena_release(&g->arena);
		free(g);
		return NULL;
	}
	return g;
}

static void group_free(struct push_group *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nf; i++)
		free(g->f[i].s);
	free(g->f);
	gw_arena_release(&g->arena);
	free(g);
}

static struct push_family *family_find(struct push_group *g, const char *name)
{
	for (size_t i = 0; i < g->nf; i++)
		if (strcmp(g->f[i].name, name) == 0)
			return &g->f[i];
	return NULL;
}

static struct push_family *family_add(struct push_group *g, const char *name)
{
	if (g->nf == g->capf) {
		size_t cap = g->capf ? g->capf * 2 : 8;
		struct push_family *f = realloc(g->f, cap * sizeof(*f));
		if (!f)
			return NULL;
		g->f = f;
		g->capf = cap;
	}
	struct push_family *f = &g->f[g->nf];
	*f = (struct push_family){.name = gw_arena_strdup(&g->arena, name), .type = GW_METRIC_UNTYPED};
	if (!f->name)
		return NULL;
	g->nf++;
	return f;
}

static int sample_add(struct push_family *f, const struct push_sample *s)
{
	if (f->ns == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4;
		struct push_sample *n = realloc(f->s, cap * sizeof(*n));
		if (!n)
			return GW_ENOMEM;
		f->s = n;
		f->cap = cap;
	}
	f->s[f->ns++] = *s;
	return 0;
}

/* ---- bodies ------------------------------------------------------------------------ */

static const struct {
	const char *name;
	enum gw_metric_type type;
} types[] = {{"counter", GW_METRIC_COUNTER},
	     {"gauge", GW_METRIC_GAUGE},
	     {"summary", GW_METRIC_SUMMARY},
	     {"untyped", GW_METRIC_UNTYPED},
	     {"unknown", GW_METRIC_UNTYPED}};

/* "# TYPE name type" / "# HELP name text"; other comments are skipped. */
static int comment_line(struct push_group *g, char *line, size_t lineno, struct gw_err *err)
{
	char *p = line + 1;
	while (*p == ' ')
		p++;
	bool is_type = strncmp(p, "TYPE ", 5) == 0, is_help = strncmp(p, "HELP ", 5) == 0;
	if (!is_type && !is_help)
		return 0;
	p += 5;
	while (*p == ' ')
		p++;
	char *name = p;
	while (*p && *p != ' ')
		p++;
	char *rest = *p ? p + 1 : p;
	*p = '\0';
	struct push_family *f = family_find(g, name);
	if (!f && !(f = family_add(g, name)))
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	if (is_help) {
		char *w = rest; /* unescape \\ and \n in place */
		for (char *r = rest; *r; r++) {
			if (*r == '\\' && (r[1] == '\\' || r[1] == 'n'))
				*w++ = *++r == 'n' ? '\n' : '\\';
			else
				*w++ = *r;
		}
		*w = '\0';
		f->help = gw_arena_strdup(&g->arena, rest);
		return f->help ? 0 : gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(rest, types[i].name) == 0) {
			if (f->ns)
				return gw_err_set(err, GW_EPARSE, "line %zu: TYPE of %s after its samples",
						  lineno, name);
			f->type = types[i].type;
			f->typed = true;
			return 0;
		}
	return gw_err_set(err, GW_EPARSE, "line %zu: type \"%s\" of %s %s", lineno, rest, name,
			  strcmp(rest, "histogram") == 0 ? "is not taken yet (push a summary or gauges)"
							 : "is unknown");
}

/* The family a sample belongs to: its own name, or a summary's name_sum / name_count. */
static struct push_family *sample_family(struct push_group *g, const char *name, const char **suffix)
{
	static const char *const sfx[] = {"_sum", "_count"};
	*suffix = "";
	struct push_family *f = family_find(g, name);
	if (f)
		return f;
	size_t n = strlen(name);
	for (size_t i = 0; i < 2; i++) {
		size_t sl = strlen(sfx[i]);
		if (n > sl && strcmp(name + n - sl, sfx[i]) == 0) {
			char base[256];
			snprintf(base, sizeof(base), "%.*s", (int)(n - sl), name);
			f = family_find(g, base);
			if (f && f->type == GW_METRIC_SUMMARY) {
				*suffix = sfx[i];
				return f;
			}
		}
	}
	return family_add(g, name);
}

/* A third field after the name and value: a time stamp (ms in the text format, s in OpenMetrics). */
static bool has_time_stamp(const char *line)
{
	const char *brace = strrchr(line, '}');
	const char *p = brace ? brace + 1 : line;
	int fields = brace ? 1 : 0; /* the name, with its labels */
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '#')
			break;
		fields++;
		while (*p && *p != ' ')
			p++;
	}
	return fields >= 3;
}

static int sample_line(struct push_group *g, const struct gw_push_key *k, char *line, size_t lineno,
		       struct gw_err *err)
{
	struct gw_lpair l[SAMPLE_LABELS_MAX + 2];
	size_t n;
	double v;
	bool has_t;
	int64_t t;
	const char *why = "bad line";
	if (has_time_stamp(line))
		return gw_err_set(err, GW_EPARSE,
				  "line %zu: pushed samples carry no time stamp (the push's time is theirs)",
				  lineno);
	if (gw_import_om_sample(line, l, SAMPLE_LABELS_MAX, &n, &v, &has_t, &t, &why) != 0)
		return gw_err_set(err, GW_EPARSE, "line %zu: %s", lineno, why);
	if (has_t)
		return gw_err_set(err, GW_EPARSE,
				  "line %zu: pushed samples carry no time stamp (the push's time is theirs)",
				  lineno);
	struct push_sample s = {.v = v};
	struct push_family *f = sample_family(g, l[0].value, &s.suffix);
	if (!f)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	s.l = gw_arena_alloc(&g->arena, (n ? n : 1) * sizeof(*s.l));
	if (!s.l)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 1; i < n; i++) {
		const char *kv = NULL;
		for (size_t j = 0; j < k->n && !kv; j++)
			if (strcmp(k->l[j].name, l[i].name) == 0)
				kv = k->l[j].value;
		if (kv && strcmp(kv, l[i].value) != 0)
			return gw_err_set(err, GW_EINVAL,
					  "line %zu: label %s=\"%s\" differs from the grouping key's \"%s\"",
					  lineno, l[i].name, l[i].value, kv);
		if (!kv) /* the grouping key's own value is added when rendered */
			s.l[s.n++] = (struct gw_label){gw_arena_strdup(&g->arena, l[i].name),
						       gw_arena_strdup(&g->arena, l[i].value)};
	}
	if (g->arena.err)
		return gw_err_set(err, GW_EOVERFLOW, "push too large");
	if (++g->nsamples > GW_PUSH_SAMPLES_MAX)
		return gw_err_set(err, GW_EOVERFLOW, "more than %d samples in one group",
				  GW_PUSH_SAMPLES_MAX);
	return sample_add(f, &s) ? gw_err_set(err, GW_ENOMEM, "out of memory") : 0;
}

static int parse_body(struct push_group *g, const struct gw_push_key *k, const char *body, size_t len,
		      struct gw_err *err)
{
	char *text = malloc(len + 1);
	if (!text)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	gw_memcpy(text, body, len);
	text[len] = '\0';
	int rc = 0;
	size_t lineno = 0;
	for (char *line = text, *next; line && rc == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		size_t n = strlen(line);
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
			line[--n] = '\0';
		if (n == 0)
			continue;
		rc = line[0] == '#' ? comment_line(g, line, lineno, err)
				    : sample_line(g, k, line, lineno, err);
	}
	free(text);
	return rc;
}

/* ---- the store ------------------------------------------------------------------------ */

int gw_push_store_new(struct gw_push_store **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : GW_ENOMEM;
}

void gw_push_store_free(struct gw_push_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		group_free(s->g[i]);
	free(s->g);
	free(s);
}

static long group_index(const struct gw_push_store *s, const struct gw_push_key *k)
{
	for (size_t i = 0; i < s->n; i++)
		if (key_equal(s->g[i], k))
			return (long)i;
	return -1;
}

/* A family's type must agree with the same family's in every other group. */
static int check_types(const struct gw_push_store *s, const struct push_group *g, long self,
		       struct gw_err *err)
{
	for (size_t i = 0; i < g->nf; i++)
		for (size_t j = 0; j < s->n; j++) {
			if ((long)j == self)
				continue;
			const struct push_family *o = family_find(s->g[j], g->f[i].name);
			/* a family without a TYPE line goes with the type it has elsewhere */
			if (o && o->typed && g->f[i].typed && o->type != g->f[i].type)
				return gw_err_set(err, GW_EINVAL,
						  "%s is typed differently in another group (job \"%s\")",
						  g->f[i].name, s->g[j]->key[0].value);
		}
	return 0;
}

/* POST: the old group's families that the push does not name, copied over. */
static int keep_unnamed(struct push_group *g, const struct push_group *old, struct gw_err *err)
{
	for (size_t i = 0; i < old->nf; i++) {
		const struct push_family *of = &old->f[i];
		if (family_find(g, of->name))
			continue;
		struct push_family *f = family_add(g, of->name);
		if (!f)
			return gw_err_set(err, GW_ENOMEM, "out of memory");
		f->type = of->type;
		f->typed = of->typed;
		f->carried = true;
		f->help = of->help ? gw_arena_strdup(&g->arena, of->help) : NULL;
		for (size_t j = 0; j < of->ns; j++) {
			struct push_sample s = {.suffix = of->s[j].suffix, .v = of->s[j].v, .n = of->s[j].n};
			s.l = gw_arena_alloc(&g->arena, (s.n ? s.n : 1) * sizeof(*s.l));
			for (size_t m = 0; s.l && m < s.n; m++)
				s.l[m] = (struct gw_label){gw_arena_strdup(&g->arena, of->s[j].l[m].name),
							   gw_arena_strdup(&g->arena, of->s[j].l[m].value)};
			if (g->arena.err || !s.l || sample_add(f, &s) != 0)
				return gw_err_set(err, GW_ENOMEM, "out of memory");
			g->nsamples++;
		}
	}
	return 0;
}

int gw_push_apply(struct gw_push_store *s, enum gw_push_method m, const struct gw_push_key *k,
		  const char *body, size_t len, int64_t now_ms, struct gw_err *err)
{
	long at = group_index(s, k);
	if (m == GW_PUSH_DELETE) {
		if (at >= 0) {
			group_free(s->g[at]);
			s->g[at] = s->g[--s->n];
		}
		return 0;
	}
	struct push_group *g = group_new(k);
	if (!g)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int rc = parse_body(g, k, body, len, err);
	if (rc == 0 && m == GW_PUSH_POST && at >= 0)
		rc = keep_unnamed(g, s->g[at], err);
	if (rc == 0)
		rc = check_types(s, g, at, err);
	if (rc == 0 && at < 0 && s->n == GW_PUSH_GROUPS_MAX)
		rc =
		    gw_err_set(err, GW_EOVERFLOW, "%d groups already: delete some first", GW_PUSH_GROUPS_MAX);
	if (rc == 0 && at < 0) {
		struct push_group **ng = realloc(s->g, (s->n + 1) * sizeof(*ng));
		if (!ng)
			rc = gw_err_set(err, GW_ENOMEM, "out of memory");
		else
			s->g = ng;
	}
	if (rc) {
		if (at >= 0)
			s->g[at]->fail_ms = now_ms;
		group_free(g);
		return rc;
	}
	g->push_ms = now_ms;
	if (at >= 0) {
		g->fail_ms = s->g[at]->fail_ms;
		group_free(s->g[at]);
		s->g[at] = g;
	} else {
		s->g[s->n++] = g;
	}
	return 0;
}

/* ---- rendering --------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One sample with its group's labels after its own. */
static void render_sample(struct gw_expfmt *w, const struct push_group *g, const struct push_sample *s)
{
	struct gw_label l[SAMPLE_LABELS_MAX + GW_PUSH_KEY_MAX];
	size_t n = 0;
	for (size_t i = 0; i < s->n && n < SAMPLE_LABELS_MAX; i++)
		l[n++] = s->l[i];
	for (size_t i = 0; i < g->nkey; i++)
		if (*g->key[i].value) /* an empty label is no label */
			l[n++] = g->key[i];
	if (*s->suffix)
		gw_expfmt_sample_suffix(w, s->suffix, l, n, s->v);
	else
		gw_expfmt_sample(w, l, n, s->v);
}

static void render_times(const struct gw_push_store *s, struct gw_expfmt *w, bool failure)
{
	gw_expfmt_family(w, failure ? "push_failure_time_seconds" : "push_time_seconds",
			 failure ? "Last Unix time when changing this group in the Pushgateway failed."
				 : "Last Unix time when changing this group in the Pushgateway succeeded.",
			 GW_METRIC_GAUGE);
	for (size_t i = 0; i < s->n; i++) {
		const struct push_group *g = s->g[i];
		struct gw_label l[GW_PUSH_KEY_MAX];
		size_t n = 0;
		for (size_t k = 0; k < g->nkey; k++)
			if (*g->key[k].value)
				l[n++] = g->key[k];
		gw_expfmt_sample(w, l, n, (double)(failure ? g->fail_ms : g->push_ms) / 1000.0);
	}
}

void gw_push_render(const struct gw_push_store *s, struct gw_expfmt *w)
{
	if (!s || !s->n)
		return;
	size_t total = 0;
	for (size_t i = 0; i < s->n; i++)
		total += s->g[i]->nf;
	const char **names = malloc((total ? total : 1) * sizeof(*names));
	if (!names) {
		w->err = GW_ENOMEM;
		return;
	}
	size_t nn = 0;
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->g[i]->nf; j++)
			names[nn++] = s->g[i]->f[j].name;
	gw_qsort(names, nn, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nn; i++) {
		if (i && strcmp(names[i], names[i - 1]) == 0)
			continue;
		const struct push_family *head =
		    NULL; /* its type and help: the first group's that names a type */
		for (size_t j = 0; j < s->n; j++) {
			const struct push_family *f = family_find(s->g[j], names[i]);
			if (f && f->ns && (!head || (!head->typed && f->typed)))
				head = f;
		}
		if (!head)
			continue;
		gw_expfmt_family(w, head->name, head->help ? head->help : "", head->type);
		for (size_t j = 0; j < s->n; j++) {
			const struct push_family *f = family_find(s->g[j], names[i]);
			for (size_t k = 0; f && k < f->ns; k++)
				render_sample(w, s->g[j], &f->s[k]);
		}
	}
	free(names);
	render_times(s, w, false);
	render_times(s, w, true);
}

bool gw_push_family_pushed(const struct gw_push_store *s, const struct gw_push_key *k, const char *name)
{
	long at = group_index(s, k);
	const struct push_family *f = at < 0 ? NULL : family_find(s->g[at], name);
	return f && f->ns && !f->carried;
}

void gw_push_count(const struct gw_push_store *s, size_t *groups, size_t *samples)
{
	*groups = s->n;
	*samples = 0;
	for (size_t i = 0; i < s->n; i++)
		*samples += s->g[i]->nsamples;
}

int gw_push_group_each(const struct gw_push_store *s, const struct gw_push_key *k, gw_push_sample_fn fn,
		       void *ctx)
{
	long at = group_index(s, k);
	if (at < 0)
		return 0;
	const struct push_group *g = s->g[at];
	for (size_t i = 0; i < g->nf; i++) {
		const struct push_family *f = &g->f[i];
		for (size_t j = 0; j < f->ns; j++) {
			const struct push_sample *sm = &f->s[j];
			char name[512];
			snprintf(name, sizeof(name), "%s%s", f->name, sm->suffix);
			struct gw_lpair l[SAMPLE_LABELS_MAX + GW_PUSH_KEY_MAX + 1];
			size_t n = 0;
			l[n++] = (struct gw_lpair){GW_METRIC_NAME, name};
			for (size_t m = 0; m < sm->n && m < SAMPLE_LABELS_MAX; m++)
				l[n++] = (struct gw_lpair){sm->l[m].name, sm->l[m].value};
			for (size_t m = 0; m < g->nkey; m++)
				if (*g->key[m].value)
					l[n++] = (struct gw_lpair){g->key[m].name, g->key[m].value};
			int rc = fn(ctx, l, n, sm->v);
			if (rc)
				return rc;
		}
	}
	return 0;
}
