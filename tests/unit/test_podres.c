/*
 * collect/grpc and collect/podres: gRPC's message framing, a
 * ListPodResourcesResponse decoded from recorded bytes (as the fake
 * kubelet of tests/tools/fake_kubelet.py sends them), which container each
 * GPU, MIG device and process is credited to, and the call's failures
 * against sockets that are missing, hang up, or never answer.
 */
#include "collect/grpc.h"
#include "collect/podres.h"
#include "collect/procs.h"
#include "collect/sampler.h"
#include "harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * One reply body: the 5-byte prefix, then pods train-0/ml (container
 * trainer: nvidia.com/gpu GPU-aaaa and GPU-bbbb::3, example.com/nic eth1,
 * cpu_ids 2 3) and mig-pod/ml (container w: nvidia.com/mig-1g.18gb
 * MIG-cccc and nvidia2/gi5).
 */
static const uint8_t reply[] =
    "\x00\x00\x00\x00\xa9\x0a\x5e\x0a\x07\x74\x72\x61\x69\x6e\x2d\x30\x12\x02\x6d\x6c\x1a\x4f\x0a\x07"
    "\x74\x72\x61\x69\x6e\x65\x72\x12\x27\x0a\x0e\x6e\x76\x69\x64\x69\x61\x2e\x63\x6f\x6d\x2f\x67\x70"
    "\x75\x12\x08\x47\x50\x55\x2d\x61\x61\x61\x61\x12\x0b\x47\x50\x55\x2d\x62\x62\x62\x62\x3a\x3a\x33"
    "\x12\x17\x0a\x0f\x65\x78\x61\x6d\x70\x6c\x65\x2e\x63\x6f\x6d\x2f\x6e\x69\x63\x12\x04\x65\x74\x68"
    "\x31\x1a\x02\x02\x03\x0a\x47\x0a\x07\x6d\x69\x67\x2d\x70\x6f\x64\x12\x02\x6d\x6c\x1a\x38\x0a\x01"
    "\x77\x12\x2f\x0a\x16\x6e\x76\x69\x64\x69\x61\x2e\x63\x6f\x6d\x2f\x6d\x69\x67\x2d\x31\x67\x2e\x31"
    "\x38\x67\x62\x12\x08\x4d\x49\x47\x2d\x63\x63\x63\x63\x12\x0b\x6e\x76\x69\x64\x69\x61\x32\x2f\x67"
    "\x69\x35\x1a\x02\x02\x03";
#define REPLY_LEN 174

static void test_frame(void)
{
	uint8_t h[GW_GRPC_FRAME_HDR];
	gw_grpc_frame_header(h, 0x01020304);
	CHECK(memcmp(h, "\x00\x01\x02\x03\x04", 5) == 0);
	const uint8_t *m;
	size_t n;
	CHECK_INT_EQ(gw_grpc_unframe(reply, REPLY_LEN, &m, &n), 0);
	CHECK_INT_EQ(n, REPLY_LEN - 5);
	CHECK(m == reply + 5);
	/* an empty message is a message */
	CHECK_INT_EQ(gw_grpc_unframe((const uint8_t *)"\0\0\0\0\0", 5, &m, &n), 0);
	CHECK_INT_EQ(n, 0);
	CHECK_INT_EQ(gw_grpc_unframe(reply, 4, &m, &n), GW_EPARSE);		/* short prefix */
	CHECK_INT_EQ(gw_grpc_unframe(reply, REPLY_LEN - 1, &m, &n), GW_EPARSE); /* cut short */
	uint8_t two[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	CHECK_INT_EQ(gw_grpc_unframe(two, 10, &m, &n), GW_EPARSE); /* a second message */
	uint8_t z[6] = {1, 0, 0, 0, 1, 'x'};
	CHECK_INT_EQ(gw_grpc_unframe(z, 6, &m, &n), GW_ENOTSUP); /* compressed */
	z[0] = 2;
	CHECK_INT_EQ(gw_grpc_unframe(z, 6, &m, &n), GW_EPARSE); /* a flag gRPC does not define */
}

static struct gw_pods *decoded(void)
{
	struct gw_pods *p = NULL;
	CHECK_INT_EQ(gw_pods_decode(reply + 5, REPLY_LEN - 5, &p), 0);
	return p;
}

static void test_decode(void)
{
	struct gw_pods *p = decoded();
	if (!p)
		return;
	CHECK_INT_EQ(p->npods, 2);
	CHECK_INT_EQ(p->n, 4); /* the NIC is no NVIDIA resource */
	CHECK_STR_EQ(p->v[0].id, "GPU-aaaa");
	CHECK_STR_EQ(p->v[0].pod, "train-0");
	CHECK_STR_EQ(p->v[0].ns, "ml");
	CHECK_STR_EQ(p->v[0].container, "trainer");
	CHECK_STR_EQ(p->v[0].resource, "nvidia.com/gpu");
	CHECK_STR_EQ(p->v[1].id, "GPU-bbbb"); /* the replica's ::3 cut */
	CHECK_STR_EQ(p->v[2].id, "MIG-cccc");
	CHECK_STR_EQ(p->v[2].pod, "mig-pod");
	CHECK_STR_EQ(p->v[3].id, "nvidia2/gi5");
	gw_pods_ref(p);
	gw_pods_unref(p);
	CHECK_STR_EQ(p->v[3].container, "w"); /* still held once */
	gw_pods_unref(p);
	gw_pods_unref(NULL);

	/* an empty answer: no pods; garbage: a parse error */
	CHECK_INT_EQ(gw_pods_decode((const uint8_t *)"", 0, &p), 0);
	CHECK_INT_EQ(p->n, 0);
	gw_pods_unref(p);
	CHECK_INT_EQ(gw_pods_decode((const uint8_t *)"\x0a\x7f\x01", 3, &p),
		     GW_EPARSE); /* a length past the end */
	CHECK(p == NULL);
	CHECK_INT_EQ(gw_pods_decode(reply + 5, 20, &p), GW_EPARSE);
}

static void test_lookup(void)
{
	struct gw_pods *p = decoded();
	if (!p)
		return;
	struct gw_gpu g0 = {.index = 0, .uuid = "GPU-aaaa"}, g1 = {.index = 1, .uuid = "GPU-bbbb"},
		      g2 = {.index = 2, .uuid = "GPU-dddd"}, g3 = {.index = 3, .uuid = "GPU-eeee"};
	CHECK_STR_EQ(gw_pods_gpu(p, &g0)->pod, "train-0");
	CHECK_STR_EQ(gw_pods_gpu(p, &g1)->container, "trainer");
	CHECK(gw_pods_gpu(p, &g2) == NULL); /* only its MIG devices are a pod's */
	CHECK(gw_pods_gpu(p, &g3) == NULL);
	CHECK(gw_pods_gpu(NULL, &g0) == NULL);

	struct gw_mig m[3] = {
	    {.gi = 1, .uuid = "MIG-cccc"}, {.gi = 5, .uuid = "MIG-ffff"}, {.gi = 7, .uuid = ""}};
	struct gw_migs migs = {m, 3};
	CHECK_STR_EQ(gw_pods_mig(p, &g2, &m[0])->pod, "mig-pod"); /* by MIG UUID */
	CHECK_STR_EQ(gw_pods_mig(p, &g2, &m[1])->pod, "mig-pod"); /* GKE's nvidia2/gi5 */
	CHECK(gw_pods_mig(p, &g2, &m[2]) == NULL);
	CHECK(gw_pods_mig(p, &g3, &m[1]) == NULL); /* gi5 of another GPU */

	CHECK_STR_EQ(gw_pods_proc(p, &g0, NULL, GW_PROC_ID_NONE)->pod, "train-0");
	CHECK_STR_EQ(gw_pods_proc(p, &g2, &migs, 1)->container, "w");
	CHECK_STR_EQ(gw_pods_proc(p, &g2, &migs, 5)->container, "w");
	CHECK(gw_pods_proc(p, &g2, &migs, 7) == NULL);
	CHECK(gw_pods_proc(p, &g2, &migs, GW_PROC_ID_NONE) == NULL);
	CHECK(gw_pods_proc(p, &g3, NULL, GW_PROC_ID_NONE) == NULL);

	/* a GPU two containers share: the last one listed on its series, no one's on its processes */
	struct gw_pod_dev shared[2] = {{"GPU-aaaa", "nvidia.com/gpu", "a", "ns", "c"},
				       {"GPU-aaaa", "nvidia.com/gpu", "b", "ns", "c"}};
	struct gw_pods two = {.n = 2, .v = shared};
	CHECK_STR_EQ(gw_pods_gpu(&two, &g0)->pod, "b");
	CHECK(gw_pods_proc(&two, &g0, NULL, GW_PROC_ID_NONE) == NULL);
	/* one container listed twice for the GPU (two replicas) is still one owner */
	shared[1].pod = "a";
	CHECK_STR_EQ(gw_pods_proc(&two, &g0, NULL, GW_PROC_ID_NONE)->pod, "a");
	gw_pods_unref(p);
}

/*
 * Pod uids learned from processes on GPUs one container holds: g0 is
 * a/c's, g2 is b/d's, g1 both share (a with two containers). A uid seen
 * on g0 or g2 names its pod on g1; a uid seen with both pods names
 * neither; a pod with two containers on g1 does not say which.
 */
static void test_owner(void)
{
	struct gw_pod_dev devs[5] = {{"GPU-0", "nvidia.com/gpu", "a", "ns", "c"},
				     {"GPU-1", "nvidia.com/gpu", "a", "ns", "c"},
				     {"GPU-1", "nvidia.com/gpu", "b", "ns", "d"},
				     {"GPU-2", "nvidia.com/gpu", "b", "ns", "d"},
				     {"GPU-1", "nvidia.com/gpu", "b", "ns", "e"}};
	struct gw_pods pods = {.n = 4, .v = devs};
	struct gw_gpu gpus[3] = {
	    {.index = 0, .uuid = "GPU-0"}, {.index = 1, .uuid = "GPU-1"}, {.index = 2, .uuid = "GPU-2"}};
	struct gw_proc p0[2] = {{.pid = 1, .gi = GW_PROC_ID_NONE, .attr.pod_uid = "uid-a"},
				{.pid = 2, .gi = GW_PROC_ID_NONE, .attr.pod_uid = "uid-x"}};
	struct gw_proc p1[4] = {{.pid = 4, .gi = GW_PROC_ID_NONE, .attr.pod_uid = "uid-a"},
				{.pid = 5, .gi = GW_PROC_ID_NONE, .attr.pod_uid = "uid-b"},
				{.pid = 6, .gi = GW_PROC_ID_NONE, .attr.pod_uid = "uid-new"},
				{.pid = 7, .gi = GW_PROC_ID_NONE, .attr.pod_uid = "uid-x"}};
	struct gw_proc p2[2] = {{.pid = 8, .gi = GW_PROC_ID_NONE, .attr.pod_uid = "uid-b"},
				{.pid = 9, .gi = GW_PROC_ID_NONE, .attr.pod_uid = "uid-x"}};
	struct gw_frame_gpu fg[3] = {{.gpu = &gpus[0], .procs = {p0, 2}, .pods = &pods},
				     {.gpu = &gpus[1], .procs = {p1, 4}, .pods = &pods},
				     {.gpu = &gpus[2], .procs = {p2, 2}, .pods = &pods}};
	struct gw_frame f = {.ngpus = 3, .gpus = fg, .pods = &pods};
	struct gw_pod_uids u;
	gw_pod_uids_learn(&u, &f);
	CHECK_INT_EQ(u.n, 3);
	const struct gw_pod_dev *d = gw_pods_owner(&fg[0], &p0[0], &u);
	CHECK(d && strcmp(d->pod, "a") == 0);
	d = gw_pods_owner(&fg[0], &p0[1], &u); /* ambiguous uid, but the GPU has one holder */
	CHECK(d && strcmp(d->pod, "a") == 0);
	d = gw_pods_owner(&fg[1], &p1[0], &u);
	CHECK(d && strcmp(d->container, "c") == 0);
	d = gw_pods_owner(&fg[1], &p1[1], &u);
	CHECK(d && strcmp(d->container, "d") == 0);
	CHECK(gw_pods_owner(&fg[1], &p1[2], &u) == NULL); /* a uid no sole holder taught */
	CHECK(gw_pods_owner(&fg[1], &p1[3], &u) == NULL); /* ambiguous */
	struct gw_proc none = {.pid = 10, .gi = GW_PROC_ID_NONE};
	CHECK(gw_pods_owner(&fg[1], &none, &u) == NULL); /* no cgroup pod: a shared GPU says nothing */
	d = gw_pods_owner(&fg[2], &none, &u);		 /* ... a sole holder does */
	CHECK(d && strcmp(d->pod, "b") == 0);
	CHECK(gw_pods_owner(&fg[2], &none, NULL) == d);
	pods.n = 5; /* b has a second container on g1: which one runs pid 5 is unknown */
	CHECK(gw_pods_owner(&fg[1], &p1[1], &u) == NULL);
	d = gw_pods_owner(&fg[1], &p1[0], &u);
	CHECK(d && strcmp(d->container, "c") == 0);
	/* without pods nothing is learned or owned */
	f.pods = NULL;
	gw_pod_uids_learn(&u, &f);
	CHECK_INT_EQ(u.n, 0);
}

/* A unix socket server that accepts one connection and then does what mode says. */
struct server {
	char path[108];
	int fd;
	int mode; /* 0: close at once; 1: read and never answer until stopped */
	int stop[2];
};

static void *serve(void *arg)
{
	struct server *s = arg;
	int c = accept(s->fd, NULL, NULL);
	if (c >= 0 && s->mode == 1) {
		char b;
		if (read(s->stop[0], &b, 1) < 0)
			b = 0;
	}
	if (c >= 0)
		close(c);
	return NULL;
}

static int server_start(struct server *s, pthread_t *t, int mode)
{
	snprintf(s->path, sizeof(s->path), "/tmp/gw-podres-%d-%d.sock", (int)getpid(), mode);
	unlink(s->path);
	s->mode = mode;
	s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", s->path);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s->fd, 1) != 0 ||
	    pipe(s->stop) != 0)
		return -1;
	return pthread_create(t, NULL, serve, s);
}

static void server_stop(struct server *s, pthread_t t)
{
	if (write(s->stop[1], "x", 1) < 0)
		return;
	pthread_join(t, NULL);
	close(s->fd);
	close(s->stop[0]);
	close(s->stop[1]);
	unlink(s->path);
}

static void test_call_failures(void)
{
	struct gw_pods *p = (struct gw_pods *)1;
	struct gw_err err = {0};
	CHECK_INT_EQ(gw_pods_list("/nonexistent/kubelet.sock", 1000, &p, &err), GW_ENOTFOUND);
	CHECK(p == NULL);
	CHECK(strstr(err.msg, "/nonexistent/kubelet.sock") != NULL);

	struct server s;
	pthread_t t;
	CHECK_INT_EQ(server_start(&s, &t, 0), 0);
	CHECK_INT_EQ(gw_pods_list(s.path, 2000, &p, &err), GW_EIO); /* hung up before answering */
	server_stop(&s, t);

	CHECK_INT_EQ(server_start(&s, &t, 1), 0);
	CHECK_INT_EQ(gw_pods_list(s.path, 300, &p, &err), GW_ETIMEOUT); /* a kubelet that never answers */
	CHECK(strstr(err.msg, "timeout") != NULL);
	server_stop(&s, t);
}

/* The watcher against a dead socket: no snapshot, errors counted, one report. */
static unsigned int reports;
static void on_report(void *arg, bool up, const char *sock, const struct gw_err *why, size_t npods,
		      size_t ndevs)
{
	reports++;
}

static void test_watch_down(void)
{
	struct gw_podres_opts o = {
	    .socket = "/nonexistent/kubelet.sock", .interval_ms = 20, .log = on_report};
	struct gw_podres *w;
	CHECK_INT_EQ(gw_podres_new(&w, &o, NULL), 0);
	usleep(200 * 1000);
	struct gw_podres_stats st;
	gw_podres_stats(w, &st);
	CHECK(st.lists_total >= 3);
	CHECK_INT_EQ(st.errors_total, st.lists_total);
	CHECK(!st.up);
	CHECK(gw_podres_get(w) == NULL);
	gw_podres_free(w);
	CHECK_INT_EQ(reports, 1);
	gw_podres_free(NULL);
}

int main(void)
{
	RUN(test_frame);
	RUN(test_decode);
	RUN(test_lookup);
	RUN(test_owner);
	RUN(test_call_failures);
	RUN(test_watch_down);
	return harness_done();
}
