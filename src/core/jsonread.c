/*
 * jsonread.c - the strict JSON reader: one pass over a private copy of the
 * text, an explicit stack of open containers instead of recursion.
 */
#include "core/jsonread.h"

#include <stdlib.h>
#include <string.h>

struct level {
	uint32_t node; /* the open array or object */
	uint32_t last; /* its newest child; 0: none yet */
};

struct parser {
	char *t;
	size_t len, pos;
	struct gw_jdoc *d;
	uint32_t cap;
	struct level stack[GW_JSON_DEPTH_MAX];
	unsigned int depth, max_depth;
	struct gw_err *err;
};

static int fail(struct parser *p, const char *what)
{
	if (p->pos >= p->len)
		return gw_err_set(p->err, GW_EPARSE, "JSON ends early at byte %zu (truncated?): %s", p->pos, what);
	return gw_err_set(p->err, GW_EPARSE, "bad JSON at byte %zu: %s", p->pos, what);
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len) {
		char c = p->t[p->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return;
		p->pos++;
	}
}

/* A new value linked as the next child of the open container (or the root). */
static int add(struct parser *p, enum gw_jtype type, const char *key, uint32_t *idx)
{
	struct gw_jdoc *d = p->d;
	if (d->n == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 64;
		struct gw_jval *v = realloc(d->v, (size_t)cap * sizeof(*v));
		if (!v)
			return gw_err_set(p->err, GW_ENOMEM, "JSON: out of memory at %u values", d->n);
		d->v = v;
		p->cap = cap;
	}
	uint32_t i = d->n++;
	memset(&d->v[i], 0, sizeof(d->v[i]));
	d->v[i].type = (uint8_t)type;
	d->v[i].key = key;
	if (p->depth) {
		struct level *l = &p->stack[p->depth - 1];
		if (l->last)
			d->v[l->last].next = i;
		else
			d->v[l->node].first = i;
		l->last = i;
		d->v[l->node].n++;
	}
	*idx = i;
	return 0;
}

static int hex4(struct parser *p, unsigned int *out)
{
	unsigned int v = 0;
	for (int k = 0; k < 4; k++, p->pos++) {
		if (p->pos >= p->len)
			return fail(p, "short \\u escape");
		char c = p->t[p->pos];
		unsigned int h = c >= '0' && c <= '9' ? (unsigned int)(c - '0')
				 : c >= 'a' && c <= 'f' ? (unsigned int)(c - 'a' + 10)
				 : c >= 'A' && c <= 'F' ? (unsigned int)(c - 'A' + 10)
							: 16;
		if (h == 16)
			return fail(p, "bad hex digit in \\u escape");
		v = v * 16 + h;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *w, unsigned int cp)
{
	if (cp < 0x80) {
		w[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		w[0] = (char)(0xC0 | (cp >> 6));
		w[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		w[0] = (char)(0xE0 | (cp >> 12));
		w[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		w[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	w[0] = (char)(0xF0 | (cp >> 18));
	w[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	w[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	w[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

static int escape(struct parser *p, char **w)
{
	char c = p->t[p->pos++];
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = c ? strchr(from, c) : NULL;
	if (k) {
		*(*w)++ = to[k - from];
		return 0;
	}
	if (c != 'u') {
		p->pos--;
		return fail(p, "unknown escape");
	}
	unsigned int cp, lo;
	int rc = hex4(p, &cp);
	if (rc)
		return rc;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return fail(p, "lone low surrogate");
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (p->pos + 2 > p->len || p->t[p->pos] != '\\' || p->t[p->pos + 1] != 'u')
			return fail(p, "high surrogate without its low half");
		p->pos += 2;
		if ((rc = hex4(p, &lo)) != 0)
			return rc;
		if (lo < 0xDC00 || lo > 0xDFFF)
			return fail(p, "high surrogate without its low half");
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	*w += put_utf8(*w, cp);
	return 0;
}

/* Bytes in the UTF-8 sequence led by c; 0 when c cannot lead one. */
static int utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
}

/* The string at p->pos (on its opening quote), decoded in place. */
static int string(struct parser *p, const char **s, size_t *len)
{
	char *w = p->t + ++p->pos;
	*s = w;
	while (p->pos < p->len) {
		unsigned char c = (unsigned char)p->t[p->pos];
		if (c == '"') {
			*len = (size_t)(w - *s);
			*w = '\0'; /* at or before the quote just read */
			p->pos++;
			return 0;
		}
		if (c < 0x20)
			return fail(p, "control character in a string");
		if (c == '\\') {
			p->pos++;
			if (p->pos >= p->len)
				break;
			int rc = escape(p, &w);
			if (rc)
				return rc;
			continue;
		}
		int n = utf8_len(c);
		if (n == 0 || p->pos + (size_t)n > p->len)
			return fail(p, "invalid UTF-8 in a string");
		for (int k = 1; k < n; k++)
			if (((unsigned char)p->t[p->pos + (size_t)k] & 0xC0) != 0x80)
				return fail(p, "invalid UTF-8 in a string");
		memmove(w, p->t + p->pos, (size_t)n);
		w += n;
		p->pos += (size_t)n;
	}
	return fail(p, "unterminated string");
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of the JSON number at s (max n bytes); 0 when there is none. */
static size_t number_len(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (i < n && is_digit(s[i]))
		while (i < n && is_digit(s[i]))
			i++;
	else
		return 0;
	if (i < n && s[i] == '.') {
		if (++i >= n || !is_digit(s[i]))
			return 0;
		while (i < n && is_digit(s[i]))
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n || !is_digit(s[i]))
			return 0;
		while (i < n && is_digit(s[i]))
			i++;
	}
	return i;
}

/* Powers of ten a double holds exactly. */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static double scale10(double m, long e)
{
	/* m < 2^53 and |e| <= 22: one correctly rounded operation */
	while (e > 22) {
		m *= 1e22;
		e -= 22;
	}
	while (e < -22) {
		m /= 1e22;
		e += 22;
	}
	return e >= 0 ? m * pow10_exact[e] : m / pow10_exact[-e];
}

int gw_jsonread_number(const char *s, size_t len, double *out)
{
	static const struct {
		const char *word;
		double v;
	} words[] = {{"NaN", __builtin_nan("")}, {"+Inf", __builtin_inf()}, {"Inf", __builtin_inf()},
		     {"-Inf", -__builtin_inf()}};
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (strlen(words[k].word) == len && memcmp(s, words[k].word, len) == 0) {
			*out = words[k].v;
			return 0;
		}
	if (len == 0 || number_len(s, len) != len)
		return GW_EPARSE;
	size_t i = 0;
	bool neg = s[0] == '-';
	i += neg;
	uint64_t m = 0;
	long e = 0;
	int digits = 0;
	bool frac = false;
	for (; i < len && (is_digit(s[i]) || s[i] == '.'); i++) {
		if (s[i] == '.') {
			frac = true;
			continue;
		}
		if (digits < 19) {
			m = m * 10 + (uint64_t)(s[i] - '0');
			digits += m > 0;
			e -= frac;
		} else if (!frac) {
			e++; /* a digit past what a uint64 holds: only its magnitude counts */
		}
	}
	if (i < len) { /* exponent */
		i++;
		bool eneg = s[i] == '-';
		i += s[i] == '-' || s[i] == '+';
		long x = 0;
		for (; i < len; i++)
			if (x < 100000)
				x = x * 10 + (s[i] - '0');
		e += eneg ? -x : x;
	}
	double v = m == 0 ? 0.0 : scale10((double)m, e);
	*out = neg ? -v : v;
	return 0;
}

static int literal(struct parser *p, const char *word, enum gw_jtype type, const char *key)
{
	size_t n = strlen(word);
	if (p->pos + n > p->len && memcmp(p->t + p->pos, word, p->len - p->pos) == 0) {
		p->pos = p->len; /* "tru": cut short, not wrong */
		return fail(p, "expected a value");
	}
	if (p->pos + n > p->len || memcmp(p->t + p->pos, word, n) != 0)
		return fail(p, "expected a value");
	p->pos += n;
	uint32_t idx;
	return add(p, type, key, &idx);
}

/* One value at p->pos; containers are opened (pushed), not read whole. */
static int value(struct parser *p, const char *key, bool *opened)
{
	*opened = false;
	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, "expected a value");
	char c = p->t[p->pos];
	uint32_t idx;
	int rc;
	switch (c) {
	case '{':
	case '[':
		if (p->depth >= p->max_depth)
			return gw_err_set(p->err, GW_ERANGE, "JSON nested deeper than %u at byte %zu", p->max_depth,
					  p->pos);
		if ((rc = add(p, c == '{' ? GW_JOBJ : GW_JARR, key, &idx)) != 0)
			return rc;
		p->stack[p->depth++] = (struct level){idx, 0};
		p->pos++;
		*opened = true;
		return 0;
	case '"': {
		const char *s;
		size_t len;
		if ((rc = string(p, &s, &len)) != 0)
			return rc;
		if ((rc = add(p, GW_JSTR, key, &idx)) != 0)
			return rc;
		p->d->v[idx].s = s;
		p->d->v[idx].len = len;
		return 0;
	}
	case 't': return literal(p, "true", GW_JTRUE, key);
	case 'f': return literal(p, "false", GW_JFALSE, key);
	case 'n': return literal(p, "null", GW_JNULL, key);
	default: {
		size_t n = number_len(p->t + p->pos, p->len - p->pos);
		if (n == 0) {
			/* "1." or "-" at the very end: cut short, not wrong */
			size_t i = p->pos;
			while (i < p->len && p->t[i] && strchr("0123456789+-.eE", p->t[i]))
				i++;
			if (i == p->len && i > p->pos)
				p->pos = p->len;
			return fail(p, "expected a value");
		}
		if ((rc = add(p, GW_JNUM, key, &idx)) != 0)
			return rc;
		gw_jsonread_number(p->t + p->pos, n, &p->d->v[idx].num);
		p->pos += n;
		return 0;
	}
	}
}

/* After '{' or ',' in an object: the member name and its colon. */
static int member_key(struct parser *p, const char **key)
{
	size_t len;
	skip_ws(p);
	if (p->pos >= p->len || p->t[p->pos] != '"')
		return fail(p, "expected a member name");
	int rc = string(p, key, &len);
	if (rc)
		return rc;
	skip_ws(p);
	if (p->pos >= p->len || p->t[p->pos] != ':')
		return fail(p, "expected ':' after a member name");
	p->pos++;
	return 0;
}

static int parse(struct parser *p)
{
	bool opened;
	int rc = value(p, NULL, &opened);
	while (rc == 0 && p->depth) {
		struct level *l = &p->stack[p->depth - 1];
		bool obj = p->d->v[l->node].type == GW_JOBJ;
		char close = obj ? '}' : ']';
		skip_ws(p);
		if (p->pos >= p->len)
			return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		char c = p->t[p->pos];
		if (c == close && (opened || l->last)) { /* empty, or after a value */
			p->pos++;
			p->depth--;
			opened = false;
			continue;
		}
		if (!opened) {
			if (c != ',')
				return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
			p->pos++;
		}
		const char *key = NULL;
		if (obj && (rc = member_key(p, &key)) != 0)
			return rc;
		rc = value(p, key, &opened);
	}
	if (rc)
		return rc;
	skip_ws(p);
	if (p->pos != p->len)
		return fail(p, "text after the value");
	return 0;
}

int gw_jsonread_parse(struct gw_jdoc **out, const char *text, size_t len, const struct gw_json_limits *lim,
		      struct gw_err *err)
{
	*out = NULL;
	size_t max_bytes = lim && lim->max_bytes ? lim->max_bytes : GW_JSON_SIZE_MAX;
	unsigned int max_depth = lim && lim->max_depth ? lim->max_depth : GW_JSON_DEPTH_MAX;
	if (max_depth > GW_JSON_DEPTH_MAX)
		max_depth = GW_JSON_DEPTH_MAX;
	if (len > max_bytes || len >= UINT32_MAX)
		return gw_err_set(err, GW_ERANGE, "JSON text of %zu bytes is over the limit of %zu", len, max_bytes);
	struct gw_jdoc *d = calloc(1, sizeof(*d));
	char *t = malloc(len + 1);
	if (!d || !t) {
		free(d);
		free(t);
		return gw_err_set(err, GW_ENOMEM, "JSON: out of memory for %zu bytes", len);
	}
	if (len)
		memcpy(t, text, len);
	t[len] = '\0';
	d->text = t;
	struct parser p = {.t = t, .len = len, .d = d, .max_depth = max_depth, .err = err};
	int rc = parse(&p);
	if (rc) {
		gw_jsonread_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void gw_jsonread_free(struct gw_jdoc *d)
{
	if (!d)
		return;
	free(d->v);
	free(d->text);
	free(d);
}

const struct gw_jval *gw_jsonread_get(const struct gw_jdoc *d, const struct gw_jval *o, const char *key)
{
	if (!o || o->type != GW_JOBJ)
		return NULL;
	for (const struct gw_jval *c = gw_jsonread_first(d, o); c; c = gw_jsonread_next(d, c))
		if (strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

const struct gw_jval *gw_jsonread_at(const struct gw_jdoc *d, const struct gw_jval *a, uint32_t i)
{
	if (!a || (a->type != GW_JARR && a->type != GW_JOBJ) || i >= a->n)
		return NULL;
	const struct gw_jval *c = gw_jsonread_first(d, a);
	while (c && i--)
		c = gw_jsonread_next(d, c);
	return c;
}

const char *gw_jsonread_str(const struct gw_jval *v)
{
	return v && v->type == GW_JSTR ? v->s : NULL;
}
