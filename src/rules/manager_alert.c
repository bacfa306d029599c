/*
 * manager_alert.c - alerting rules as Prometheus 2.42 evaluates them
 * (rules/alerting.go): the expression's samples become alerts keyed by
 * their labels after the rule's (templated) labels and alertname are
 * applied; new ones start pending, pending ones fire once `for` has
 * passed, ones that vanish resolve (or keep firing for keep_firing_for)
 * and are kept 15 minutes to be sent as resolved. ALERTS and
 * ALERTS_FOR_STATE are written once the rule's state is restored; alerts
 * go to the notifier as Prometheus' sendAlerts hands them over. After a
 * restart, `for` state comes back from ALERTS_FOR_STATE as
 * RestoreForState computes it.
 */
#include "rules/manager_int.h"

#include "core/buf.h"
#include "rules/tmpl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESOLVED_RETENTION_MS (15 * 60 * 1000)
#define ALERT_ARENA_MAX (1u << 30)
#define TMPL_OUT_MAX (1u << 20)

/* What the template's `query` evaluates against. */
struct query_ctx {
	struct gw_rules *r;
	int64_t t;
};

static int tmpl_query(void *ctx, const char *expr, struct gw_arena *arena, struct gw_vector *out, struct gw_err *err)
{
	struct query_ctx *q = ctx;
	struct gw_pq_node *ast;
	int rc = gw_promql_parse(expr, &ast, err);
	if (rc)
		return rc;
	struct gw_pq_result res;
	rc = gw_promql_instant(ast, &q->r->o.querier, q->t, &q->r->o.pq, arena, &res, err);
	gw_promql_free(ast);
	if (rc)
		return rc;
	if (res.type == GW_PQ_T_VECTOR) {
		*out = res.vector;
		return 0;
	}
	if (res.type == GW_PQ_T_SCALAR) {
		struct gw_vsample *s = gw_arena_alloc(arena, sizeof(*s));
		if (!s)
			return gw_err_set(err, GW_ENOMEM, "out of memory");
		*s = (struct gw_vsample){.t = q->t, .v = res.scalar};
		*out = (struct gw_vector){s, 1};
		return 0;
	}
	return gw_err_set(err, GW_EINVAL, "rule result is not a vector or scalar");
}

static const char *expand(struct gw_rules *r, const struct gw_rule *rule, const struct gw_tmpl_data *d,
			  const char *text, struct gw_arena *a)
{
	struct gw_buf b;
	gw_buf_init(&b, TMPL_OUT_MAX);
	struct gw_err e = {0};
	if (gw_tmpl_expand_alert(rule->name, text, d, &b, &e))
		r->o.logf("warn", "msg=\"expanding alert template failed\" rule=\"%s\" err=\"%s\"", rule->name, e.msg);
	const char *out = gw_arena_strndup(a, b.data ? b.data : "", b.len);
	gw_buf_release(&b);
	return out;
}

static void alert_release(struct gw_alert *al)
{
	gw_olabels_free(&al->labels);
	gw_olabels_free(&al->annotations);
}

static bool same_labels(const struct gw_olabels *x, const struct gw_olabels *y)
{
	return x->hash == y->hash && x->keylen == y->keylen && !memcmp(x->key, y->key, x->keylen);
}

/* The alerts the expression's samples stand for at t, as new pending alerts (owned). */
static int fresh_alerts(struct gw_rules *r, const struct gw_rule *rule, const struct gw_vector *vec, int64_t t,
			struct gw_arena *a, struct gw_alert **out, size_t *nout, struct gw_err *err)
{
	struct gw_alert *fresh = calloc(vec->n ? vec->n : 1, sizeof(*fresh));
	if (!fresh)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	struct query_ctx qc = {r, t};
	size_t n = 0;
	int rc = 0;
	for (size_t i = 0; i < vec->n && rc == 0; i++) {
		const struct gw_vsample *s = &vec->s[i];
		struct gw_tmpl_data d = {.labels = s->labels,
					 .value = s->v,
					 .external = r->o.external,
					 .external_url = r->o.external_url ? r->o.external_url : "",
					 .t_ms = t,
					 .query = tmpl_query,
					 .query_ctx = &qc};
		struct gw_lbuilder lb;
		gw_lb_init(&lb, a, &s->labels);
		gw_lb_del(&lb, GW_METRIC_NAME);
		for (size_t k = 0; k < rule->nlabels; k++) {
			const char *v = expand(r, rule, &d, rule->labels[k].value, a);
			gw_lb_set(&lb, rule->labels[k].name, v ? v : "");
		}
		gw_lb_set(&lb, "alertname", rule->name);
		struct gw_labels labels = gw_lb_done(&lb);
		struct gw_lpair *ann = gw_arena_alloc(a, (rule->nannotations + 1) * sizeof(*ann));
		for (size_t k = 0; ann && k < rule->nannotations; k++) {
			const char *v = expand(r, rule, &d, rule->annotations[k].value, a);
			ann[k] = (struct gw_lpair){rule->annotations[k].name, v ? v : ""};
		}
		struct gw_labels annotations = ann ? gw_labels_from(a, ann, rule->nannotations) : (struct gw_labels){0};
		if (a->err) {
			rc = gw_err_set(err, GW_ENOMEM, "out of memory");
			break;
		}
		struct gw_alert *al = &fresh[n];
		if (gw_olabels_make(&al->labels, &labels) || gw_olabels_make(&al->annotations, &annotations)) {
			alert_release(al);
			rc = gw_err_set(err, GW_ENOMEM, "out of memory");
			break;
		}
		n++;
		for (size_t k = 0; k + 1 < n; k++)
			if (same_labels(&fresh[k].labels, &al->labels)) {
				rc = gw_err_set(err, GW_EINVAL,
						"vector contains metrics with the same labelset after applying alert labels");
				break;
			}
		al->state = GW_ALERT_PENDING;
		al->value = s->v;
		al->active_ms = t;
		al->fired_ms = al->resolved_ms = al->last_sent_ms = al->valid_until_ms = al->keep_since_ms =
			GW_RULES_NEVER;
		al->seen = true;
	}
	if (rc) {
		for (size_t i = 0; i < n; i++)
			alert_release(&fresh[i]);
		free(fresh);
		return rc;
	}
	*out = fresh;
	*nout = n;
	return 0;
}

/* Fold the fresh alerts into the rule's: a known alert not inactive takes the new value and annotations. */
static int merge(struct gw_rule_state *rs, struct gw_alert *fresh, size_t n)
{
	if (rs->nalerts + n > rs->cap) {
		size_t cap = rs->cap ? rs->cap : 8;
		while (cap < rs->nalerts + n)
			cap *= 2;
		struct gw_alert *p = realloc(rs->alerts, cap * sizeof(*p));
		if (!p)
			return GW_ENOMEM;
		rs->alerts = p;
		rs->cap = cap;
	}
	for (size_t i = 0; i < rs->nalerts; i++)
		rs->alerts[i].seen = false;
	for (size_t i = 0; i < n; i++) {
		struct gw_alert *known = NULL;
		for (size_t k = 0; k < rs->nalerts && !known; k++)
			if (same_labels(&rs->alerts[k].labels, &fresh[i].labels))
				known = &rs->alerts[k];
		if (known && known->state != GW_ALERT_INACTIVE) {
			known->value = fresh[i].value;
			gw_olabels_free(&known->annotations);
			known->annotations = fresh[i].annotations;
			known->seen = true;
			gw_olabels_free(&fresh[i].labels);
		} else if (known) {
			alert_release(known);
			*known = fresh[i];
		} else {
			rs->alerts[rs->nalerts++] = fresh[i];
		}
	}
	return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* ALERTS{..., alertstate} 1 and ALERTS_FOR_STATE{...} activeAt (Unix seconds), as alerting.go samples them. */
static int alert_series(struct gw_arena *a, const struct gw_alert *al, struct gw_labels *ls, double *vs)
{
	for (int k = 0; k < 2; k++) {
		struct gw_lbuilder lb;
		gw_lb_init(&lb, a, &al->labels.l);
		gw_lb_set(&lb, GW_METRIC_NAME, k ? "ALERTS_FOR_STATE" : "ALERTS");
		if (!k)
			gw_lb_set(&lb, "alertstate", al->state == GW_ALERT_FIRING ? "firing" : "pending");
		ls[k] = gw_lb_done(&lb);
	}
	vs[0] = 1;
	vs[1] = (double)floor_div(al->active_ms, 1000);
	return a->err ? GW_ENOMEM : 0;
}

/* Go's url.QueryEscape. */
static void query_escape(struct gw_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    c == '.' || c == '~')
			gw_buf_putc(b, (char)c);
		else if (c == ' ')
			gw_buf_putc(b, '+');
		else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			gw_buf_append(b, e, 3);
		}
	}
}

static bool needs_sending(const struct gw_alert *al, int64_t t, int64_t resend)
{
	if (al->state == GW_ALERT_PENDING)
		return false;
	if (al->resolved_ms != GW_RULES_NEVER && (al->last_sent_ms == GW_RULES_NEVER || al->resolved_ms > al->last_sent_ms))
		return true;
	return al->last_sent_ms == GW_RULES_NEVER || al->last_sent_ms + resend < t;
}

/* sendAlerts: firing alerts every resend delay, resolved ones as they resolve and then while kept. */
static void send_alerts(struct gw_rules *r, struct gw_group_state *gs, struct gw_rule_state *rs, int64_t t)
{
	int64_t resend = r->o.resend_delay_ms;
	int64_t delta = gs->interval_ms > resend ? gs->interval_ms : resend;
	struct gw_alert_msg *msgs = NULL;
	size_t n = 0;
	struct gw_buf url;
	gw_buf_init(&url, 1 << 20);
	for (size_t i = 0; i < rs->nalerts; i++) {
		struct gw_alert *al = &rs->alerts[i];
		if (!needs_sending(al, t, resend))
			continue;
		al->last_sent_ms = t;
		al->valid_until_ms = t + 4 * delta;
		if (!r->o.notifier)
			continue;
		if (!msgs && !(msgs = calloc(rs->nalerts, sizeof(*msgs))))
			break;
		msgs[n++] = (struct gw_alert_msg){
			.labels = al->labels.l,
			.annotations = al->annotations.l,
			.starts_ms = al->fired_ms,
			.ends_ms = al->resolved_ms != GW_RULES_NEVER ? al->resolved_ms : al->valid_until_ms,
		};
	}
	if (n) {
		gw_buf_puts(&url, r->o.external_url ? r->o.external_url : "");
		gw_buf_puts(&url, "/graph?g0.expr=");
		query_escape(&url, rs->query);
		gw_buf_puts(&url, "&g0.tab=1");
		for (size_t i = 0; i < n; i++)
			msgs[i].generator_url = url.data;
		gw_notifier_send(r->o.notifier, msgs, n);
	}
	free(msgs);
	gw_buf_release(&url);
}

/*
 * The state machine of alerting.go's Eval over the rule's alerts, under
 * r->mu. Fills ls/vs (room for 2 per alert) with ALERTS samples when the
 * rule is restored; returns the number of alerts pending or firing.
 */
static size_t advance(struct gw_rule_state *rs, int64_t t, struct gw_arena *a, struct gw_labels *ls, double *vs,
		      size_t *nseries)
{
	const struct gw_rule *rule = rs->rule;
	size_t w = 0, active = 0;
	*nseries = 0;
	for (size_t i = 0; i < rs->nalerts; i++) {
		struct gw_alert al = rs->alerts[i];
		if (!al.seen) {
			bool keep_firing = false;
			if (al.state == GW_ALERT_FIRING && rule->keep_firing_for_ms > 0) {
				if (al.keep_since_ms == GW_RULES_NEVER)
					al.keep_since_ms = t;
				keep_firing = t - al.keep_since_ms < rule->keep_firing_for_ms;
			}
			bool drop = al.state == GW_ALERT_PENDING ||
				    (al.resolved_ms != GW_RULES_NEVER && t - al.resolved_ms > RESOLVED_RETENTION_MS);
			if (al.state != GW_ALERT_INACTIVE && !keep_firing) {
				al.state = GW_ALERT_INACTIVE;
				al.resolved_ms = t;
			}
			if (!keep_firing) {
				if (drop)
					alert_release(&al);
				else
					rs->alerts[w++] = al;
				continue;
			}
		} else {
			al.keep_since_ms = GW_RULES_NEVER;
		}
		active++;
		if (al.state == GW_ALERT_PENDING && t - al.active_ms >= rule->for_ms) {
			al.state = GW_ALERT_FIRING;
			al.fired_ms = t;
		}
		if (rs->restored && alert_series(a, &al, &ls[*nseries], &vs[*nseries]) == 0)
			*nseries += 2;
		rs->alerts[w++] = al;
	}
	rs->nalerts = w;
	return active;
}

int gw_rules_eval_alert(struct gw_rules *r, struct gw_group_state *gs, struct gw_rule_state *rs, int64_t t,
			struct gw_err *err)
{
	struct gw_arena a;
	gw_arena_init(&a, ALERT_ARENA_MAX);
	struct gw_pq_result res;
	struct gw_vector vec = {0};
	int rc = gw_promql_instant(rs->rule->ast, &r->o.querier, t, &r->o.pq, &a, &res, err);
	if (rc == 0 && res.type == GW_PQ_T_VECTOR) {
		vec = res.vector;
	} else if (rc == 0 && res.type == GW_PQ_T_SCALAR) {
		struct gw_vsample *s = gw_arena_alloc(&a, sizeof(*s));
		if (!s)
			rc = gw_err_set(err, GW_ENOMEM, "out of memory");
		else {
			*s = (struct gw_vsample){.t = t, .v = res.scalar};
			vec = (struct gw_vector){s, 1};
		}
	} else if (rc == 0) {
		rc = gw_err_set(err, GW_EINVAL, "rule result is not a vector or scalar");
	}
	struct gw_alert *fresh = NULL;
	size_t nfresh = 0;
	if (rc == 0)
		rc = fresh_alerts(r, rs->rule, &vec, t, &a, &fresh, &nfresh, err);
	gw_arena_release(&a);
	if (rc)
		return rc;

	pthread_mutex_lock(&r->mu);
	if (merge(rs, fresh, nfresh)) {
		pthread_mutex_unlock(&r->mu);
		for (size_t i = 0; i < nfresh; i++)
			alert_release(&fresh[i]);
		free(fresh);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	free(fresh);
	gw_arena_init(&a, ALERT_ARENA_MAX);
	struct gw_labels *ls = gw_arena_alloc(&a, (2 * rs->nalerts + 1) * sizeof(*ls));
	double *vs = gw_arena_alloc(&a, (2 * rs->nalerts + 1) * sizeof(*vs));
	if (!ls || !vs) {
		pthread_mutex_unlock(&r->mu);
		gw_arena_release(&a);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	size_t nseries;
	size_t active = advance(rs, t, &a, ls, vs, &nseries);
	uint64_t limit = gs->g->limit;
	if (limit && active > limit) {
		for (size_t i = 0; i < rs->nalerts; i++)
			alert_release(&rs->alerts[i]);
		rs->nalerts = 0;
		pthread_mutex_unlock(&r->mu);
		gw_arena_release(&a);
		return gw_err_set(err, GW_ERANGE, "exceeded limit of %llu with %zu alerts", (unsigned long long)limit,
				  active);
	}
	pthread_mutex_unlock(&r->mu);
	/* the evaluator alone changes alerts, so it reads them without the lock */
	send_alerts(r, gs, rs, t);
	rc = gw_rules_write(r, rs, ls, vs, nseries, t, err);
	gw_arena_release(&a);
	return rc;
}

/* The last ALERTS_FOR_STATE sample of an alert within the outage tolerance; false if none or stale. */
static bool for_state(struct gw_rules *r, const struct gw_alert *al, int64_t t, int64_t *t_last, double *v)
{
	struct gw_arena a;
	gw_arena_init(&a, ALERT_ARENA_MAX);
	struct gw_labels want[2];
	double ignored[2];
	bool found = false;
	struct gw_alert copy = *al;
	if (alert_series(&a, &copy, want, ignored)) {
		gw_arena_release(&a);
		return false;
	}
	const struct gw_labels *l = &want[1];
	struct gw_matcher *m = gw_arena_alloc(&a, (l->n + 1) * sizeof(*m));
	size_t nm = 0;
	struct gw_err err = {0};
	for (size_t i = 0; m && i < l->n; i++, nm++)
		if (gw_matcher_init(&m[i], l->p[i].name, l->p[i].value, GW_MATCH_EQ, &err))
			break;
	struct gw_series_set set = {0};
	if (m && nm == l->n &&
	    r->o.querier.select(r->o.querier.ctx, m, nm, t - r->o.outage_tolerance_ms, t, &a, &set, &err) == 0) {
		/* the matchers ask for each label; as many labels means the same set */
		for (size_t i = 0; i < set.n && !found; i++) {
			const struct gw_series *s = &set.s[i];
			if (s->labels.n != l->n || !s->n)
				continue;
			*t_last = s->t[s->n - 1];
			*v = s->v[s->n - 1];
			found = !gw_is_stale_nan(*v);
		}
	}
	for (size_t i = 0; i < nm; i++)
		gw_matcher_release(&m[i]);
	gw_arena_release(&a);
	return found;
}

void gw_rules_restore(struct gw_rules *r, struct gw_group_state *gs, int64_t t)
{
	for (size_t k = 0; k < gs->g->nrules; k++) {
		struct gw_rule_state *rs = &gs->rules[k];
		if (rs->rule->kind != GW_RULE_ALERT)
			continue;
		int64_t hold = rs->rule->for_ms, grace = r->o.for_grace_ms;
		/* A `for` shorter than the grace period waits its own length afresh rather than the grace. */
		for (size_t i = 0; hold >= grace && i < rs->nalerts; i++) {
			struct gw_alert *al = &rs->alerts[i];
			int64_t t_last;
			double v;
			if (!for_state(r, al, t, &t_last, &v) || !isfinite(v))
				continue;
			int64_t down_s = floor_div(t_last, 1000);
			int64_t active_s = (int64_t)v;
			int64_t remaining = hold - (down_s - active_s) * 1000;
			int64_t active_ms = active_s * 1000;
			if (remaining <= 0) {
				/* it was firing when the agent stopped: the next evaluation fires it again */
			} else if (remaining < grace) {
				active_ms = t + grace - hold;
			} else {
				active_ms += t - down_s * 1000;
			}
			pthread_mutex_lock(&r->mu);
			al->active_ms = active_ms;
			pthread_mutex_unlock(&r->mu);
			r->o.logf("debug", "msg=\"'for' state restored\" alertname=\"%s\" restored_time_ms=%lld",
				  rs->rule->name, (long long)active_ms);
		}
		pthread_mutex_lock(&r->mu);
		rs->restored = true;
		pthread_mutex_unlock(&r->mu);
	}
}
