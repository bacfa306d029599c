/*
 * manager.c - rule groups on their schedule, as Prometheus 2.42's rules
 * manager runs them: every group at its own interval, offset within it by
 * a hash of its file and name (so groups do not all wake at once), rules
 * in file order, recording rules' results written back to the store, and
 * reloads that keep the state of rules that survive them.
 */
#include "rules/manager_int.h"

#include "core/buf.h"
#include "promql/print.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUERY_ARENA_MAX (1u << 30)

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int gw_olabels_make(struct gw_olabels *o, const struct gw_labels *l)
{
	size_t bytes = l->n * sizeof(struct gw_lpair), keylen = 0;
	for (size_t i = 0; i < l->n; i++)
		keylen += strlen(l->p[i].name) + strlen(l->p[i].value) + 2;
	char *block = malloc(bytes + 2 * keylen + 1);
	if (!block)
		return GW_ENOMEM;
	struct gw_lpair *p = (struct gw_lpair *)block;
	char *s = block + bytes, *key = s + keylen;
	size_t k = 0;
	for (size_t i = 0; i < l->n; i++) {
		size_t nl = strlen(l->p[i].name) + 1, vl = strlen(l->p[i].value) + 1;
		memcpy(s, l->p[i].name, nl);
		p[i].name = s;
		s += nl;
		memcpy(s, l->p[i].value, vl);
		p[i].value = s;
		s += vl;
		memcpy(key + k, l->p[i].name, nl - 1);
		key[k + nl - 1] = '\xff';
		k += nl;
		memcpy(key + k, l->p[i].value, vl - 1);
		key[k + vl - 1] = '\xff';
		k += vl;
	}
	key[k] = '\0';
	o->l = (struct gw_labels){p, l->n};
	o->key = key;
	o->keylen = k;
	o->hash = gw_hash_bytes(key, k);
	if (!l->n)
		o->l.p = (const struct gw_lpair *)block; /* keeps the block to free */
	return 0;
}

void gw_olabels_free(struct gw_olabels *o)
{
	free((void *)o->l.p);
	memset(o, 0, sizeof(*o));
}

static void logf_quiet(const char *level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

void gw_rule_state_release(struct gw_rule_state *rs)
{
	for (size_t i = 0; i < rs->nalerts; i++) {
		gw_olabels_free(&rs->alerts[i].labels);
		gw_olabels_free(&rs->alerts[i].annotations);
	}
	free(rs->alerts);
	for (size_t i = 0; i < rs->written.n; i++)
		gw_olabels_free(&rs->written.s[i]);
	free(rs->written.s);
	free(rs->query);
	memset(rs, 0, sizeof(*rs));
}

static void groups_free(struct gw_group_state *gs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < gs[i].g->nrules; k++)
			gw_rule_state_release(&gs[i].rules[k]);
		free(gs[i].rules);
	}
	free(gs);
}

/* Where in its interval a group is evaluated: Prometheus' hash offset, here FNV-1a of file and name. */
static int64_t group_offset(const struct gw_rule_group *g, int64_t interval)
{
	uint64_t h = 1469598103934665603ULL;
	for (int pass = 0; pass < 2; pass++)
		for (const char *s = pass ? g->name : g->file; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (int64_t)(h % (uint64_t)interval);
}

static int groups_build(const struct gw_rules *r, const struct gw_ruleset *set, struct gw_group_state **out)
{
	struct gw_group_state *gs = calloc(set->ngroups ? set->ngroups : 1, sizeof(*gs));
	if (!gs)
		return GW_ENOMEM;
	int64_t now = now_ms();
	for (size_t i = 0; i < set->ngroups; i++) {
		const struct gw_rule_group *g = &set->groups[i];
		gs[i].g = g;
		gs[i].interval_ms = g->interval_ms > 0 ? g->interval_ms : r->o.eval_interval_ms;
		int64_t off = group_offset(g, gs[i].interval_ms);
		gs[i].next_ms = now - ((now - off) % gs[i].interval_ms) + gs[i].interval_ms;
		/* Prometheus restores after the second evaluation, so recording rules have caught up. */
		gs[i].restore_in = r->o.restore && !r->restored_once ? 2 : 0;
		gs[i].rules = calloc(g->nrules ? g->nrules : 1, sizeof(*gs[i].rules));
		if (!gs[i].rules) {
			groups_free(gs, i);
			return GW_ENOMEM;
		}
		for (size_t k = 0; k < g->nrules; k++) {
			struct gw_rule_state *rs = &gs[i].rules[k];
			rs->rule = &g->rules[k];
			rs->restored = !gs[i].restore_in;
			struct gw_buf b;
			gw_buf_init(&b, 1 << 20);
			gw_promql_print(&b, g->rules[k].ast);
			rs->query = strdup(b.data ? b.data : g->rules[k].expr);
			gw_buf_release(&b);
		}
	}
	*out = gs;
	return 0;
}

int gw_rules_new(struct gw_rules **out, const struct gw_rules_opts *o, struct gw_ruleset *set, struct gw_err *err)
{
	struct gw_rules *r = calloc(1, sizeof(*r));
	if (!r)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	r->o = *o;
	if (r->o.eval_interval_ms <= 0)
		r->o.eval_interval_ms = 15000;
	if (r->o.outage_tolerance_ms <= 0)
		r->o.outage_tolerance_ms = 3600 * 1000;
	if (r->o.for_grace_ms <= 0)
		r->o.for_grace_ms = 600 * 1000;
	if (r->o.resend_delay_ms <= 0)
		r->o.resend_delay_ms = 60 * 1000;
	if (!r->o.logf)
		r->o.logf = logf_quiet;
	r->set = *set;
	int rc = groups_build(r, &r->set, &r->groups);
	if (rc) {
		free(r);
		return gw_err_set(err, rc, "out of memory");
	}
	memset(set, 0, sizeof(*set));
	r->ngroups = r->set.ngroups;
	r->restored_once = true;
	pthread_mutex_init(&r->mu, NULL);
	pthread_mutex_init(&r->eval_mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cv, &ca);
	pthread_condattr_destroy(&ca);
	*out = r;
	return 0;
}

void gw_rules_free(struct gw_rules *r)
{
	if (!r)
		return;
	if (r->running) {
		pthread_mutex_lock(&r->mu);
		r->stop = true;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thread, NULL);
	}
	groups_free(r->groups, r->ngroups);
	gw_ruleset_release(&r->set);
	pthread_mutex_destroy(&r->mu);
	pthread_mutex_destroy(&r->eval_mu);
	pthread_cond_destroy(&r->cv);
	free(r);
}

static bool contains(const struct gw_written *w, const struct gw_olabels *o)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->s[i].hash == o->hash && w->s[i].keylen == o->keylen && !memcmp(w->s[i].key, o->key, o->keylen))
			return true;
	return false;
}

int gw_rules_write(struct gw_rules *r, struct gw_rule_state *rs, const struct gw_labels *series, const double *v,
		   size_t n, int64_t t, struct gw_err *err)
{
	struct gw_written now = {calloc(n ? n : 1, sizeof(struct gw_olabels)), 0, n};
	if (!now.s)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if ((rc = gw_olabels_make(&now.s[now.n], &series[i])) != 0)
			break;
		now.n++;
		if (r->o.appender.append)
			rc = r->o.appender.append(r->o.appender.ctx, &series[i], t, v[i], err);
	}
	/* Series written last time and not now end with the staleness marker, as Prometheus writes. */
	for (size_t i = 0; i < rs->written.n && rc == 0; i++)
		if (!contains(&now, &rs->written.s[i]) && r->o.appender.append)
			rc = r->o.appender.append(r->o.appender.ctx, &rs->written.s[i].l, t, gw_stale_nan(), err);
	if (rc) {
		for (size_t i = 0; i < now.n; i++)
			gw_olabels_free(&now.s[i]);
		free(now.s);
		if (rc == GW_ENOMEM)
			gw_err_set(err, rc, "out of memory");
		return rc;
	}
	for (size_t i = 0; i < rs->written.n; i++)
		gw_olabels_free(&rs->written.s[i]);
	free(rs->written.s);
	rs->written = now;
	return 0;
}

static int eval_record(struct gw_rules *r, struct gw_group_state *gs, struct gw_rule_state *rs, int64_t t,
		       struct gw_err *err)
{
	const struct gw_rule *rule = rs->rule;
	struct gw_arena a;
	gw_arena_init(&a, QUERY_ARENA_MAX);
	struct gw_pq_result res;
	int rc = gw_promql_instant(rule->ast, &r->o.querier, t, &r->o.pq, &a, &res, err);
	struct gw_labels *ls = NULL;
	double *vs = NULL;
	size_t n = 0;
	if (rc == 0 && res.type == GW_PQ_T_SCALAR) {
		n = 1;
		ls = gw_arena_alloc(&a, sizeof(*ls));
		vs = gw_arena_alloc(&a, sizeof(*vs));
		if (ls && vs) {
			vs[0] = res.scalar;
			*ls = (struct gw_labels){0};
		}
	} else if (rc == 0 && res.type == GW_PQ_T_VECTOR) {
		n = res.vector.n;
		ls = gw_arena_alloc(&a, (n ? n : 1) * sizeof(*ls));
		vs = gw_arena_alloc(&a, (n ? n : 1) * sizeof(*vs));
		for (size_t i = 0; ls && vs && i < n; i++) {
			ls[i] = res.vector.s[i].labels;
			vs[i] = res.vector.s[i].v;
		}
	} else if (rc == 0) {
		rc = gw_err_set(err, GW_EINVAL, "rule result is not a vector or scalar");
	}
	if (rc == 0 && (!ls || !vs))
		rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	/* The record's name and labels override the result's; "" deletes, as labels.Builder does. */
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct gw_lbuilder lb;
		gw_lb_init(&lb, &a, &ls[i]);
		gw_lb_set(&lb, GW_METRIC_NAME, rule->name);
		for (size_t k = 0; k < rule->nlabels; k++)
			gw_lb_set(&lb, rule->labels[k].name, rule->labels[k].value);
		ls[i] = gw_lb_done(&lb);
	}
	if (rc == 0 && a.err)
		rc = gw_err_set(err, GW_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (gw_labels_equal(&ls[i], &ls[j])) {
				rc = gw_err_set(err, GW_EINVAL,
						"vector contains metrics with the same labelset after applying rule labels");
				break;
			}
	if (rc == 0 && gs->g->limit && n > gs->g->limit)
		rc = gw_err_set(err, GW_ERANGE, "exceeded limit of %llu with %zu series",
				(unsigned long long)gs->g->limit, n);
	if (rc == 0) {
		/* The result's labels may borrow the store's strings, which an append may move: copy first. */
		struct gw_olabels *own = calloc(n ? n : 1, sizeof(*own));
		struct gw_labels *ol = calloc(n ? n : 1, sizeof(*ol));
		double *ov = malloc((n ? n : 1) * sizeof(*ov));
		size_t made = 0;
		if (!own || !ol || !ov)
			rc = gw_err_set(err, GW_ENOMEM, "out of memory");
		for (; rc == 0 && made < n; made++) {
			if (gw_olabels_make(&own[made], &ls[made]))
				rc = gw_err_set(err, GW_ENOMEM, "out of memory");
			else {
				ol[made] = own[made].l;
				ov[made] = vs[made];
			}
		}
		gw_arena_release(&a);
		if (rc == 0)
			rc = gw_rules_write(r, rs, ol, ov, n, t, err);
		for (size_t i = 0; i < made; i++)
			gw_olabels_free(&own[i]);
		free(own);
		free(ol);
		free(ov);
		return rc;
	}
	gw_arena_release(&a);
	return rc;
}

static void eval_group(struct gw_rules *r, struct gw_group_state *gs, int64_t t)
{
	double start = mono_s();
	for (size_t i = 0; i < gs->g->nrules; i++) {
		struct gw_rule_state *rs = &gs->rules[i];
		struct gw_err err = {0};
		double rstart = mono_s();
		int rc = rs->rule->kind == GW_RULE_RECORD ? eval_record(r, gs, rs, t, &err)
							 : gw_rules_eval_alert(r, gs, rs, t, &err);
		pthread_mutex_lock(&r->mu);
		rs->eval_seconds = mono_s() - rstart;
		rs->last_eval_ms = t;
		rs->health = rc ? GW_HEALTH_ERR : GW_HEALTH_OK;
		snprintf(rs->last_error, sizeof(rs->last_error), "%s", rc ? err.msg : "");
		gs->evals++;
		r->evals_total++;
		if (rc) {
			gs->failures++;
			r->failures_total++;
		}
		pthread_mutex_unlock(&r->mu);
		if (rc)
			r->o.logf("warn", "msg=\"evaluating rule failed\" group=\"%s\" file=\"%s\" rule=\"%s\" err=\"%s\"",
				  gs->g->name, gs->g->file, rs->rule->name, err.msg);
	}
	if (r->o.appender.commit)
		r->o.appender.commit(r->o.appender.ctx);
	if (gs->restore_in && --gs->restore_in == 0)
		gw_rules_restore(r, gs, t);
	pthread_mutex_lock(&r->mu);
	gs->last_eval_ms = t;
	gs->eval_seconds = mono_s() - start;
	pthread_mutex_unlock(&r->mu);
}

int gw_rules_eval_all(struct gw_rules *r, int64_t t_ms, struct gw_err *err)
{
	(void)err;
	pthread_mutex_lock(&r->eval_mu);
	for (size_t i = 0; i < r->ngroups; i++)
		eval_group(r, &r->groups[i], t_ms);
	pthread_mutex_unlock(&r->eval_mu);
	return 0;
}

static void *run(void *arg)
{
	struct gw_rules *r = arg;
	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		int64_t now = now_ms(), next = INT64_MAX;
		for (size_t i = 0; i < r->ngroups; i++)
			if (r->groups[i].next_ms < next)
				next = r->groups[i].next_ms;
		if (r->ngroups && next <= now) {
			pthread_mutex_unlock(&r->mu);
			pthread_mutex_lock(&r->eval_mu);
			for (size_t i = 0; i < r->ngroups; i++) {
				struct gw_group_state *gs = &r->groups[i];
				if (gs->next_ms > now)
					continue;
				int64_t slot = gs->next_ms;
				/* Slots that passed while an evaluation ran late are missed, not caught up. */
				int64_t behind = (now - slot) / gs->interval_ms;
				slot += behind * gs->interval_ms;
				eval_group(r, gs, slot);
				pthread_mutex_lock(&r->mu);
				gs->missed += (uint64_t)behind;
				gs->next_ms = slot + gs->interval_ms;
				pthread_mutex_unlock(&r->mu);
			}
			pthread_mutex_unlock(&r->eval_mu);
			pthread_mutex_lock(&r->mu);
			continue;
		}
		/* Wait on the monotonic clock for the wall-clock gap to the next slot (at most 1 s, so a
		 * reload's new schedule and clock jumps are noticed). */
		int64_t wait = next == INT64_MAX ? 1000 : next - now;
		if (wait > 1000)
			wait = 1000;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += wait / 1000;
		ts.tv_nsec += (wait % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&r->cv, &r->mu, &ts);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int gw_rules_start(struct gw_rules *r, struct gw_err *err)
{
	int e = pthread_create(&r->thread, NULL, run, r);
	if (e)
		return gw_err_set(err, GW_ENOMEM, "start the rule evaluator: %s", strerror(e));
	r->running = true;
	return 0;
}

static bool same_kvs(const struct gw_rule_kv *a, size_t na, const struct gw_rule_kv *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		size_t k = 0;
		while (k < nb && (strcmp(a[i].name, b[k].name) != 0 || strcmp(a[i].value, b[k].value) != 0))
			k++;
		if (k == nb)
			return false;
	}
	return true;
}

/* Prometheus keys a rule across reloads by its name and labels. */
static bool same_rule(const struct gw_rule *a, const struct gw_rule *b)
{
	return a->kind == b->kind && !strcmp(a->name, b->name) && same_kvs(a->labels, a->nlabels, b->labels, b->nlabels);
}

/* Move the state of rules that survive a reload: same group (file, name), then rules by name and labels. */
static void carry_state(struct gw_group_state *old, size_t nold, struct gw_group_state *neu, size_t nnew)
{
	for (size_t i = 0; i < nnew; i++) {
		struct gw_group_state *ng = &neu[i];
		struct gw_group_state *og = NULL;
		for (size_t k = 0; k < nold && !og; k++)
			if (!strcmp(old[k].g->name, ng->g->name) && !strcmp(old[k].g->file, ng->g->file))
				og = &old[k];
		if (!og)
			continue;
		if (og->interval_ms == ng->interval_ms)
			ng->next_ms = og->next_ms;
		ng->restore_in = og->restore_in;
		ng->evals = og->evals;
		ng->failures = og->failures;
		ng->missed = og->missed;
		ng->last_eval_ms = og->last_eval_ms;
		/* Prometheus' copyState: each new rule takes the alerts and written series of the first
		 * old rule not yet taken with its name and labels; health and timings start afresh. */
		for (size_t k = 0; k < ng->g->nrules; k++) {
			struct gw_rule_state *nr = &ng->rules[k];
			for (size_t j = 0; j < og->g->nrules; j++) {
				struct gw_rule_state *or = &og->rules[j];
				if (or->taken || !same_rule(or->rule, nr->rule))
					continue;
				nr->alerts = or->alerts;
				nr->nalerts = or->nalerts;
				nr->cap = or->cap;
				nr->written = or->written;
				nr->restored = or->restored;
				or->alerts = NULL;
				or->nalerts = or->cap = 0;
				or->written = (struct gw_written){0};
				or->taken = true;
				break;
			}
		}
	}
}

int gw_rules_reload(struct gw_rules *r, struct gw_ruleset *set, struct gw_err *err)
{
	struct gw_group_state *gs;
	int rc = groups_build(r, set, &gs);
	if (rc)
		return gw_err_set(err, rc, "out of memory");
	pthread_mutex_lock(&r->eval_mu);
	pthread_mutex_lock(&r->mu);
	carry_state(r->groups, r->ngroups, gs, set->ngroups);
	struct gw_group_state *old = r->groups;
	size_t nold = r->ngroups;
	struct gw_ruleset oldset = r->set;
	r->set = *set;
	/* the states point into the set they were built from, which moved into r->set */
	for (size_t i = 0; i < r->set.ngroups; i++) {
		gs[i].g = &r->set.groups[i];
		for (size_t k = 0; k < gs[i].g->nrules; k++)
			gs[i].rules[k].rule = &gs[i].g->rules[k];
	}
	r->groups = gs;
	r->ngroups = r->set.ngroups;
	memset(set, 0, sizeof(*set));
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_mutex_unlock(&r->eval_mu);
	groups_free(old, nold);
	gw_ruleset_release(&oldset);
	return 0;
}
