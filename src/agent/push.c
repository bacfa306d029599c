/*
 * push.c - the agent as a Pushgateway (--web.enable-push): PUT, POST and
 * DELETE on /metrics/job/NAME{/LABEL/VALUE} (ingest/push.h), so a
 * training job pushes its throughput and step time where its GPUs are
 * watched (live MFU). Pushed groups are served on /metrics from the next
 * frame on, as a Pushgateway serves them, and each push's samples go into
 * the history at the push's time, with the group's job label (not the
 * agent's) and the agent's instance unless the group names one. A
 * group with a token counter gives live efficiency families (train.c).
 *
 * The store is guarded by mu: pushes run on HTTP threads, renders on
 * whichever thread renders a frame's exposition.
 */
#include "agent/agent_int.h"

#include "api/json.h"

#include <stdlib.h>
#include <string.h>

int agent_push_open(struct gw_agent *a, struct gw_err *err)
{
	struct agent_push *p = &a->push;
	if (!a->o.enable_push)
		return 0;
	if (gw_push_store_new(&p->store) != 0)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int rc = agent_train_open(a, err);
	if (rc) {
		gw_push_store_free(p->store);
		return rc;
	}
	pthread_mutex_init(&p->mu, NULL);
	p->open = true;
	return 0;
}

void agent_push_close(struct gw_agent *a)
{
	struct agent_push *p = &a->push;
	if (!p->open)
		return;
	agent_train_close(a);
	gw_push_store_free(p->store);
	pthread_mutex_destroy(&p->mu);
	p->open = false;
}

void agent_push_render(struct gw_agent *a, struct gw_expfmt *w)
{
	struct agent_push *p = &a->push;
	if (!p->open)
		return;
	pthread_mutex_lock(&p->mu);
	gw_push_render(p->store, w);
	agent_train_render(a, w, gw_now_ms());
	pthread_mutex_unlock(&p->mu);
}

struct push_append {
	struct agent_history *h;
	int64_t t;
	bool has_instance;
	uint64_t refused;
};

/* One pushed sample into the store, the agent's instance added unless the group has one. */
static int append(void *ctx, const struct gw_lpair *labels, size_t n, double v)
{
	struct push_append *pa = ctx;
	struct gw_lpair l[GW_PUSH_KEY_MAX + 72];
	if (n + 1 > sizeof(l) / sizeof(l[0]))
		return 0;
	memcpy(l, labels, n * sizeof(*l));
	if (!pa->has_instance)
		l[n++] = (struct gw_lpair){"instance", pa->h->instance};
	uint64_t ref;
	if (gw_tsdb_series(pa->h->db, l, n, &ref) != 0 || gw_tsdb_append(pa->h->db, ref, pa->t, v) != 0)
		pa->refused++;
	return 0;
}

static void reply_error(struct gw_http_response *resp, int status, const char *msg)
{
	gw_http_reply_text(resp, status, msg);
	gw_buf_putc(&resp->body, '\n');
}

static void h_push(void *ctx, const struct gw_http_request *req, struct gw_http_response *resp)
{
	struct gw_agent *a = ctx;
	struct agent_push *p = &a->push;
	struct gw_push_key k;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_push_key_parse(req->path, &k, &err) != 0) {
		reply_error(resp, 400, err.msg);
		return;
	}
	const char *ct = gw_http_header(req, "Content-Type");
	if (ct &&
	    strstr(ct, "protobuf")) { /* Go's push client sends delimited protobuf unless told otherwise */
		reply_error(resp, 415,
			    "protobuf pushes are not taken: push the text format (Go: "
			    "push.New(...).Format(expfmt.NewFormat(expfmt.TypeTextPlain)))");
		return;
	}
	enum gw_push_method m = strcmp(req->method, "PUT") == 0	   ? GW_PUSH_PUT
				: strcmp(req->method, "POST") == 0 ? GW_PUSH_POST
								   : GW_PUSH_DELETE;
	int64_t now = gw_now_ms();
	pthread_mutex_lock(&p->mu);
	int rc = gw_push_apply(p->store, m, &k, req->body ? req->body : "", req->body_len, now, &err);
	if (rc == 0 && m != GW_PUSH_DELETE && a->history.db) {
		struct push_append pa = {&a->history, now, false, 0};
		for (size_t i = 0; i < k.n; i++)
			pa.has_instance |= strcmp(k.l[i].name, "instance") == 0;
		pthread_mutex_lock(&a->history.append_mu);
		gw_push_group_each(p->store, &k, append, &pa);
		pthread_mutex_unlock(&a->history.append_mu);
		p->store_refused += pa.refused;
	}
	if (rc == 0)
		agent_train_push(a, m, &k, now);
	p->pushes++;
	p->refused += rc != 0;
	pthread_mutex_unlock(&p->mu);
	if (rc) {
		reply_error(resp, rc == GW_ENOMEM ? 500 : 400, err.msg);
		return;
	}
	/* as the Pushgateway answers: 200 for a push, 202 for a delete */
	resp->status = m == GW_PUSH_DELETE ? 202 : 200;
}

const struct gw_http_route agent_push_route = {"/metrics/job", GW_HTTP_PUT | GW_HTTP_POST | GW_HTTP_DELETE,
					       true, h_push, NULL};
