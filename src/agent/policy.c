/*
 * policy.c - the agent's policies (--policy FILE, health/policy.h): the
 * health thread checks them after each evaluation and queues what fires;
 * a worker thread of their own runs the actions (log, a program with the
 * GPU and condition in its environment, a webhook POST), so a slow program
 * or an unreachable URL never holds up sampling or the watches. A failing
 * action is logged, never fatal; a full queue drops the firing with a log
 * line.
 */
#include "agent/agent_int.h"

#include "api/json.h"
#include "core/logq.h"
#include "health/report.h"
#include "http/curl.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define EXEC_TIMEOUT_MS 30000
#define WEBHOOK_TIMEOUT_MS 10000

int agent_policy_open(struct gw_agent *a, struct gw_err *err)
{
	struct agent_policy *p = &a->policy;
	if (!a->o.policy_file)
		return 0;
	int rc = gw_policies_load(&p->set, a->o.policy_file, err);
	if (rc == 0)
		rc = gw_policy_state_init(&p->state, a->ngpus);
	if (rc)
		return rc;
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->set_mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->open = true;
	a->o.log("info", "msg=\"policies loaded\" file=%s policies=%zu", a->o.policy_file, p->set.n);
	return 0;
}

/* gw_policies_check's fire: queue it (the health thread must not wait on an action). */
static void enqueue(void *arg, unsigned int g, const struct gw_policy_fire *f)
{
	struct gw_agent *a = arg;
	struct agent_policy *p = &a->policy;
	pthread_mutex_lock(&p->mu);
	if (p->n == AGENT_POLICY_QUEUE) {
		p->dropped++;
		pthread_mutex_unlock(&p->mu);
		a->o.log(
		    "warn",
		    "msg=\"policy firing dropped: the action queue is full\" policy=%s condition=%s gpu=%u",
		    f->policy->name, gw_policy_cond_name(f->cond), a->gpus[g].index);
		return;
	}
	struct agent_policy_job *j = &p->q[(p->head + p->n++) % AGENT_POLICY_QUEUE];
	j->fire = *f;
	j->gpu = g;
	j->t_ms = gw_now_ms();
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void agent_policy_check(struct gw_agent *a, unsigned int g, const struct gw_health_reading *r,
			const struct gw_health_report *rep)
{
	struct agent_policy *p = &a->policy;
	if (!p->open)
		return;
	pthread_mutex_lock(&p->set_mu);
	gw_policies_check(&p->set, &p->state, g, r, rep, enqueue, a);
	pthread_mutex_unlock(&p->set_mu);
}

int agent_policy_reload(struct gw_agent *a, struct gw_err *err)
{
	struct agent_policy *p = &a->policy;
	if (!p->open)
		return 0;
	struct gw_policies next = {0};
	int rc = gw_policies_load(&next, a->o.policy_file, err);
	if (rc)
		return rc;
	struct gw_policies *r = realloc(p->retired, (p->nretired + 1) * sizeof(*r));
	if (!r) {
		gw_policies_release(&next);
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	}
	p->retired = r;
	pthread_mutex_lock(&p->set_mu);
	p->retired[p->nretired++] = p->set;
	p->set = next;
	/* the rate limits are per policy position, which the new file may have reordered: they start
	 * afresh; the event counts stay, so a DBE or XID seen before the reload does not fire again */
	for (unsigned int g = 0; g < p->state.ngpus; g++)
		memset(p->state.gpu[g].fired, 0, sizeof(p->state.gpu[g].fired));
	pthread_mutex_unlock(&p->set_mu);
	return 0;
}

/* Run argv with the firing in its environment; its exit status, or -1 (failed to start, timed out). */
static int run_exec(struct gw_agent *a, char *const *argv, const struct agent_policy_job *j, char *why,
		    size_t n)
{
	const struct gw_gpu *gpu = &a->gpus[j->gpu];
	size_t ne = 0;
	while (environ && environ[ne])
		ne++;
	char **env = calloc(ne + 5, sizeof(*env));
	char v[4][160];
	snprintf(v[0], sizeof(v[0]), "GPUWATCH_GPU_INDEX=%u", gpu->index);
	snprintf(v[1], sizeof(v[1]), "GPUWATCH_GPU_UUID=%s", gpu->uuid);
	snprintf(v[2], sizeof(v[2]), "GPUWATCH_CONDITION=%s", gw_policy_cond_name(j->fire.cond));
	snprintf(v[3], sizeof(v[3]), "GPUWATCH_VALUE=%s", j->fire.value);
	if (!env) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (strncmp(environ[i], "GPUWATCH_GPU_", 13) &&
		    strncmp(environ[i], "GPUWATCH_CONDITION=", 19) &&
		    strncmp(environ[i], "GPUWATCH_VALUE=", 15))
			env[k++] = environ[i];
	for (int i = 0; i < 4; i++)
		env[k++] = v[i];
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, env);
	free(env);
	if (rc != 0) {
		snprintf(why, n, "cannot run it: %s", strerror(rc));
		return -1;
	}
	int status = 0;
	for (int waited = 0;; waited += 20) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(why, n, "waitpid: %s", strerror(errno));
			return -1;
		}
		if (waited >= EXEC_TIMEOUT_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			snprintf(why, n, "killed after %d s", EXEC_TIMEOUT_MS / 1000);
			return -1;
		}
		struct timespec ts = {0, 20 * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (WIFEXITED(status)) {
		snprintf(why, n, "exit status %d", WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	snprintf(why, n, "killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return -1;
}

static size_t discard(char *ptr, size_t size, size_t nmemb, void *ud)
{
	(void)ptr;
	(void)ud;
	return size * nmemb;
}

/* POST the firing as JSON; 0 on a 2xx answer. */
static int run_webhook(struct agent_policy *p, struct gw_agent *a, const char *url,
		       const struct agent_policy_job *j, char *why, size_t n)
{
	struct gw_err err;
	gw_err_clear(&err);
	if (!p->curl_ok && gw_curl_open(&p->curl, &err) != 0) {
		snprintf(why, n, "%.290s", err.msg);
		return -1;
	}
	p->curl_ok = true;
	const struct gw_gpu *gpu = &a->gpus[j->gpu];
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	char t[40];
	gw_health_time(t, sizeof(t), j->t_ms);
	gw_buf_puts(&b, "{\"policy\":");
	gw_json_str(&b, j->fire.policy->name);
	gw_buf_printf(&b, ",\"condition\":\"%s\",\"gpu\":%u,\"uuid\":", gw_policy_cond_name(j->fire.cond),
		      gpu->index);
	gw_json_str(&b, gpu->uuid);
	gw_buf_puts(&b, ",\"value\":");
	gw_json_str(&b, j->fire.value);
	gw_buf_printf(&b, ",\"time\":\"%s\"}\n", t);
	const struct gw_curl *c = &p->curl;
	CURL *h = c->curl_easy_init();
	struct curl_slist *hdr = c->curl_slist_append(NULL, "Content-Type: application/json");
	int rc = -1;
	if (h && hdr && b.data) {
		c->curl_easy_setopt(h, CURLOPT_URL, url);
		c->curl_easy_setopt(h, CURLOPT_POSTFIELDS, b.data);
		c->curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)b.len);
		c->curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		c->curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)WEBHOOK_TIMEOUT_MS);
		c->curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		c->curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
		CURLcode cr = c->curl_easy_perform(h);
		long code = 0;
		c->curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		if (cr != CURLE_OK)
			snprintf(why, n, "%s", c->curl_easy_strerror(cr));
		else if (code < 200 || code > 299)
			snprintf(why, n, "HTTP status %ld", code);
		else
			rc = 0;
	} else {
		snprintf(why, n, "out of memory");
	}
	c->curl_slist_free_all(hdr);
	if (h)
		c->curl_easy_cleanup(h);
	gw_buf_release(&b);
	return rc;
}

static void run_job(struct gw_agent *a, const struct agent_policy_job *j)
{
	const struct gw_policy *q = j->fire.policy;
	const struct gw_gpu *gpu = &a->gpus[j->gpu];
	const char *cond = gw_policy_cond_name(j->fire.cond);
	for (size_t i = 0; i < q->nactions; i++) {
		const struct gw_policy_action *ac = &q->actions[i];
		char why[300] = "", what[600];
		int rc = 0;
		if (ac->kind == GW_PA_LOG) {
			a->o.log("warn",
				 "msg=\"policy fired\" policy=%s condition=%s gpu=%u uuid=%s value=%s",
				 q->name, cond, gpu->index, gpu->uuid, j->fire.value);
			continue;
		}
		if (ac->kind == GW_PA_EXEC) {
			rc = run_exec(a, ac->argv, j, why, sizeof(why));
			gw_logq(what, sizeof(what), ac->argv[0]);
		} else {
			rc = run_webhook(&a->policy, a, ac->url, j, why, sizeof(why));
			gw_logq(what, sizeof(what), ac->url);
		}
		char q2[400];
		gw_logq(q2, sizeof(q2), why);
		if (rc == 0)
			a->o.log("info",
				 "msg=\"policy action done\" policy=%s condition=%s gpu=%u action=%s "
				 "target=\"%s\"",
				 q->name, cond, gpu->index, ac->kind == GW_PA_EXEC ? "exec" : "webhook",
				 what);
		else
			a->o.log("warn",
				 "msg=\"policy action failed\" policy=%s condition=%s gpu=%u action=%s "
				 "target=\"%s\" "
				 "err=\"%s\"",
				 q->name, cond, gpu->index, ac->kind == GW_PA_EXEC ? "exec" : "webhook", what,
				 q2);
	}
}

static void *worker(void *arg)
{
	struct gw_agent *a = arg;
	struct agent_policy *p = &a->policy;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->n && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->n && p->stop)
			break;
		struct agent_policy_job j = p->q[p->head];
		p->head = (p->head + 1) % AGENT_POLICY_QUEUE;
		p->n--;
		pthread_mutex_unlock(&p->mu);
		run_job(a, &j);
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int agent_policy_start(struct gw_agent *a, struct gw_err *err)
{
	struct agent_policy *p = &a->policy;
	if (!p->open)
		return 0;
	if (pthread_create(&p->thread, NULL, worker, a) != 0)
		return gw_err_set(err, GW_ENOMEM, "cannot start the policy actions' thread");
	p->running = true;
	return 0;
}

/* After the health thread has stopped: the queued actions run, then the worker ends. */
void agent_policy_close(struct gw_agent *a)
{
	struct agent_policy *p = &a->policy;
	if (p->running) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
		p->running = false;
	}
	if (p->open) {
		pthread_mutex_destroy(&p->mu);
		pthread_mutex_destroy(&p->set_mu);
		pthread_cond_destroy(&p->cv);
		p->open = false;
	}
	for (size_t i = 0; i < p->nretired; i++)
		gw_policies_release(&p->retired[i]);
	free(p->retired);
	p->retired = NULL;
	p->nretired = 0;
	gw_policies_release(&p->set);
	gw_policy_state_release(&p->state);
}
