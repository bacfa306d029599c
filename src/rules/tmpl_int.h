/*
 * tmpl_int.h - the template engine's parts shared by its files: the parse
 * tree (tmpl_parse.c), the values templates compute with (Go's reflect
 * kinds the Prometheus functions use), Go's fmt (tmpl_fmt.c), the
 * function table (tmpl_funcs.c) and the executor (tmpl_exec.c).
 *
 * A parsed template owns one arena holding its tree and strings; an
 * execution allocates its values from an arena of its own, released when
 * it ends. Threading: the tree is read-only once parsed.
 */
#ifndef GW_RULES_TMPL_INT_H
#define GW_RULES_TMPL_INT_H

#include "rules/tmpl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tnode_kind {
	TN_LIST,
	TN_TEXT,
	TN_ACTION,
	TN_IF,
	TN_RANGE,
	TN_WITH,
	TN_BREAK,
	TN_CONTINUE,
	TN_TEMPLATE, /* {{template "s" pipe}} */
	TN_PIPE,
	TN_COMMAND,
	/* operands */
	TN_FIELD, /* .A.B: idents */
	TN_VAR,	  /* $x.A: s is "$x", idents the fields */
	TN_DOT,
	TN_IDENT,  /* a function name */
	TN_STRING, /* s/n the value, src the quoted text */
	TN_NUMBER,
	TN_BOOL,
	TN_NIL,
	TN_CHAIN, /* (pipe).A.B: sub and idents */
};

struct tnode {
	enum tnode_kind k;
	size_t pos; /* byte offset in the text, for error locations */
	int line;
	const char *s; /* text, string value, identifier or variable name */
	size_t n;
	const char *src; /* the token as written (numbers, strings) */
	size_t srclen;
	const char **idents; /* field chain */
	size_t nidents;
	struct tnode **kids; /* list items, pipe commands, command arguments */
	size_t nkids;
	struct tnode **decl; /* a pipe's variables */
	size_t ndecl;
	bool assign; /* "=" rather than ":=" */
	struct tnode *pipe, *list, *elist, *sub;
	bool is_int, is_float, bval;
	int64_t ival;
	double fval;
};

/* A template named by {{define}} or {{block}}. */
struct tdef {
	const char *name;
	size_t n;
	struct tnode *root;
};

struct gw_tmpl {
	struct gw_arena arena;
	char *name;
	char *text;
	struct tnode *root;
	struct tdef *defs;
	size_t ndefs, capdefs;
};

int gw_tmpl__parse_tree(struct gw_tmpl *t, struct gw_err *err);
/* strconv.Unquote of a "..." or '...' literal into o (n bytes at most);
 * -1 where Go says "invalid syntax". */
int gw_tmpl__unquote(const char *s, size_t n, char quote, char *o, size_t *outlen);
/* A number token's values into n; -1 with Go's message in msg. */
int gw_tmpl__number(struct tnode *n, const char *s, size_t len, bool charconst, char *msg, size_t cap);
/* Go's node.String(), as error contexts quote it. */
void gw_tmpl__node_str(struct gw_buf *b, const struct tnode *n);

/* Most bytes one computed string (a printf, an escape, a replacement) may
 * hold: Go has no bound, and a width or precision alone reaches 10 MB; the
 * caller's output buffer is the real limit. */
#define TMPL_VALUE_MAX ((size_t)64 << 20)

/* Values: the Go types templates meet in Prometheus. */
enum tv_kind {
	TV_INVALID, /* no value ("<no value>") */
	TV_NIL,	    /* a nil interface */
	TV_BOOL,
	TV_INT,
	TV_UINT8, /* index of a string */
	TV_FLOAT,
	TV_STRING,
	TV_HTML,   /* html/template.HTML from safeHtml */
	TV_LABELS, /* map[string]string */
	TV_ARGS,   /* map[string]interface{} from args */
	TV_DATA,   /* the alert's template data struct */
	TV_SAMPLE, /* *template.sample */
	TV_RESULT, /* template.queryResult */
	TV_TIME,   /* *time.Time, nanoseconds since the epoch */
};

struct tsample {
	struct gw_labels labels;
	double v;
};

struct tv {
	enum tv_kind k;
	bool int64; /* TV_INT that Go types int64 (a time's Unix...), for type names */
	bool boxed; /* still inside an interface{} (an args value), whose type errors name */
	union {
		bool b;
		int64_t i;
		double f;
		struct {
			const char *p;
			size_t n;
		} s;
		struct gw_labels l;
		struct {
			const struct tv *p; /* arg0, arg1, ... */
			size_t n;
		} a;
		const struct gw_tmpl_data *d;
		const struct tsample *smp; /* NULL: a nil pointer */
		struct {
			const struct tsample **p;
			size_t n;
		} r;
		int64_t ns;
	};
};

static inline struct tv tv_str(const char *p, size_t n)
{
	struct tv v = {.k = TV_STRING};
	v.s.p = p;
	v.s.n = n;
	return v;
}

/* One fmt verb with its flags (Go's fmt.fmtFlags); width, prec -1: none. */
struct tspec {
	bool minus, plus, sharp, space, zero;
	bool plusv, sharpv; /* %+v, %#v */
	int width, prec;
	char verb;
};

void gw_tmpl__pad(struct gw_buf *b, const struct tspec *sp, const char *s, size_t n, bool zero_ok);
void gw_tmpl__fmt_int(struct gw_buf *b, const struct tspec *sp, int64_t v);
void gw_tmpl__fmt_float(struct gw_buf *b, const struct tspec *sp, double v);
void gw_tmpl__fmt_labels(struct gw_buf *b, const struct gw_labels *l);
void gw_tmpl__fmt_args(struct gw_buf *b, const struct tv *v, int depth);
void gw_tmpl__fmt_sample(struct gw_buf *b, const struct tsample *s, int depth);
void gw_tmpl__fmt_time(struct gw_buf *b, int64_t ns);
/* %v (and %s where it prints the same) of v, depth 0 at the top. */
void gw_tmpl__fmt_v(struct gw_buf *b, const struct tspec *sp, const struct tv *v, int depth);

/* Go's type name of v ("string", "map[string]string", ...). */
const char *gw_tmpl__type_name(const struct tv *v);
/* fmt.Sprint / Sprintln / Sprintf of values, appended to b. */
int gw_tmpl__sprint(struct gw_buf *b, const struct tv *args, size_t n, bool ln);
int gw_tmpl__sprintf(struct gw_buf *b, const char *fmt, size_t fmtlen, const struct tv *args, size_t n);
/* fmt's %v of one value, as text/template prints an action's result. */
int gw_tmpl__print_value(struct gw_buf *b, const struct tv *v);
/* Go's %.4g (with NaN, +Inf, -Inf) and strconv.Quote. */
void gw_tmpl__fmt_g4(struct gw_buf *b, double v);
void gw_tmpl__quote(struct gw_buf *b, const char *s, size_t n);
/* `s` where strconv.CanBackquote allows, else strconv.Quote (%#q, regexp's messages). */
void gw_tmpl__quote_back(struct gw_buf *b, const char *s, size_t n);
/* strconv.QuoteRune: 'x', '\\x00', '\\u200b'. */
void gw_tmpl__quote_rune(struct gw_buf *b, int64_t r);
/* The UTF-8 rune at s (U+FFFD, width 1, where invalid) and unicode.IsPrint. */
uint32_t gw_tmpl__rune(const char *s, size_t n, size_t *width);
bool gw_tmpl__rune_printable(uint32_t r);

/* A call of a template function. */
struct tcall {
	const struct gw_tmpl_data *d;
	struct gw_arena *arena;
	const struct tv *args;
	size_t n;
	struct tv ret;
	char msg[4096]; /* the error, as Go's err.Error() */
};

/* Append rune r as UTF-8 (U+FFFD for a surrogate or past U+10FFFF), as Go's utf8.AppendRune (tmpl_fmt.c). */
void gw_tmpl__put_rune(struct gw_buf *b, uint32_t r);

/* A function call's failure: its message in c->msg, -1 returned (tmpl_funcs.c). */
int gw_tmpl__fail(struct tcall *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A call's string result from a buffer (released here), copied into the call's arena. */
int gw_tmpl__ret_buf(struct tcall *c, struct gw_buf *b);

/* Parameter types, one letter each: s string, v interface{}, S *sample,
 * R queryResult; a '*' after the last one makes it variadic. */
struct tfunc {
	const char *name;
	const char *params;
	int (*fn)(struct tcall *c); /* 0, or -1 with c->msg set */
};

const struct tfunc *gw_tmpl__func_find(const char *name, size_t n);
/* A pcre2_code for Go's regexp syntax, or NULL with Go's message in msg. */
void *gw_tmpl__regex_compile(const char *pat, size_t n, char *msg, size_t cap);
/* A method of time.Time by name; args[0] of its call is the receiver. */
const struct tfunc *gw_tmpl__time_method(const char *name);
/* Prometheus' convertToFloat: float64, int, or a string strconv.ParseFloat reads. */
int gw_tmpl__to_float(struct tcall *c, const struct tv *v, double *out);
int gw_tmpl__fn_humanize_timestamp(struct tcall *c);
int gw_tmpl__fn_to_time(struct tcall *c);
/* Go's truth: false, 0, nil and empty strings, maps and slices are false. */
bool gw_tmpl__truth(const struct tv *v);
/* The comparison builtins (tmpl_compare.c). */
int gw_tmpl__fn_eq(struct tcall *c);
int gw_tmpl__fn_ne(struct tcall *c);
int gw_tmpl__fn_lt(struct tcall *c);
int gw_tmpl__fn_le(struct tcall *c);
int gw_tmpl__fn_gt(struct tcall *c);
int gw_tmpl__fn_ge(struct tcall *c);

/* One execution: its output, arena, variable stack and error location. */
enum { X_BREAK = 1, X_CONTINUE = 2 }; /* walk's signals, above 0 */

struct tvar {
	const char *name;
	struct tv v;
};

struct texec {
	const struct gw_tmpl *t;
	const struct gw_tmpl_data *d;
	struct gw_buf *out;
	struct gw_arena *a;
	struct tvar *vars;
	size_t nvars, capvars;
	const struct tnode *at; /* where an error is reported */
	const char *name;	/* the template executing: the main one or a {{define}}d one */
	int depth;		/* nested {{template}} invocations */
	struct gw_buf scratch;	/* one action's printed value */
	struct gw_buf *full;	/* NULL, or where the whole error message goes */
	struct gw_err *err;
};

int gw_tmpl__xerr(struct texec *x, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int gw_tmpl__push_var(struct texec *x, const char *name, const struct tv *v);
int gw_tmpl__set_var(struct texec *x, const char *name, const struct tv *v);
int gw_tmpl__eval_pipeline(struct texec *x, const struct tv *dot, const struct tnode *pipe, struct tv *out);
/* gw_tmpl_exec, with an error's whole message in full too (gw_err holds 512 bytes). */
int gw_tmpl__exec(const struct gw_tmpl *t, const struct gw_tmpl_data *d, struct gw_buf *out,
		  struct gw_err *err, struct gw_buf *full);

#endif
