/*
 * scrape.h - what a scrape of a Prometheus endpoint (an inference server's
 * /metrics: Triton's :8002, vLLM's, TGI's) turns into: the target named by
 * --scrape ([JOB=]URL[@INTERVAL]), its instance label (the URL's
 * host:port, as Prometheus names a target), and a body in the text format
 * parsed whole into a batch of samples labelled as Prometheus labels them
 * (honor_labels false): job and instance of the target, and the body's own
 * job and instance kept as exported_job and exported_instance.
 *
 * A batch is all or nothing: one line that does not parse fails the
 * scrape, as in Prometheus, so a half-read body never reaches the store.
 * Time stamps in the body are ignored (samples take the scrape's time).
 *
 * Ownership: the caller embeds the batch (_init/_release); its labels
 * point into the body passed to gw_scrape_parse, which is modified in
 * place and must outlive the batch's use. Threading: none.
 */
#ifndef GW_INGEST_SCRAPE_H
#define GW_INGEST_SCRAPE_H

#include "core/err.h"
#include "model/labels.h"

#include <stddef.h>
#include <stdint.h>

#define GW_SCRAPE_JOB_MAX 64
#define GW_SCRAPE_URL_MAX 512
#define GW_SCRAPE_LABELS_MAX 64 /* labels of one sample in a body */

/* One --scrape target. */
struct gw_scrape_target {
	char job[GW_SCRAPE_JOB_MAX];
	char url[GW_SCRAPE_URL_MAX];
	char instance[300]; /* host:port */
	int64_t interval_ms;
	int64_t timeout_ms;
};

/*
 * "vllm=http://127.0.0.1:8000/metrics@5s" -> job vllm, that URL, every 5 s.
 * Without JOB= the job is "scrape"; without @INTERVAL, default_ms. The
 * interval is read by dur (ingest knows no duration syntax; the command
 * passes PromQL's): 0, or non-zero when the text is not a duration. The
 * timeout is the interval, at most 10 s (Prometheus' scrape_timeout).
 * GW_EINVAL with why in err.
 */
typedef int (*gw_scrape_dur_fn)(const char *s, size_t len, int64_t *ms);
int gw_scrape_target_parse(const char *spec, int64_t default_ms, gw_scrape_dur_fn dur,
			   struct gw_scrape_target *t, struct gw_err *err);

/* "http://user@host:8002/metrics" -> "host:8002"; the scheme's port when it gives none. */
int gw_scrape_instance(const char *url, char *buf, size_t len);

struct gw_scrape_sample {
	size_t first, n; /* its labels: l[first .. first+n), __name__ first */
	double v;
};

struct gw_scrape_batch {
	struct gw_lpair *l;
	size_t nl, capl;
	struct gw_scrape_sample *s;
	size_t ns, caps;
	size_t limit; /* most samples a body may hold */
	size_t lines; /* lines read, comments and blanks included */
};

void gw_scrape_batch_init(struct gw_scrape_batch *b, size_t limit);
void gw_scrape_batch_release(struct gw_scrape_batch *b);

/*
 * Parse body[0..len) (modified in place; body[len] must be writable) into
 * b, each sample labelled with t's job and instance. GW_EPARSE ("line 3:
 * bad sample value"), GW_EOVERFLOW (over the limit) or GW_ENOMEM, with
 * why in err; b is then empty.
 */
int gw_scrape_parse(struct gw_scrape_batch *b, char *body, size_t len, const struct gw_scrape_target *t,
		    struct gw_err *err);

#endif
