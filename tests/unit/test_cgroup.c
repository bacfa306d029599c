/*
 * collect/cgroup on the fixture tree tests/data/proc (one pid per runtime
 * and cgroup layout), on bare paths, and with the simulator's answer
 * standing in for /proc.
 */
#include "collect/cgroup.h"
#include "harness.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C1 "3f4e9c1b2a7d8e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define C2 "aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00ee11ff22aa33bb44cc55dd66"
#define C3 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define C4 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define C5 "1111222233334444555566667777888899990000aaaabbbbccccddddeeeeffff"

static char root[4096];
static char user4242[64];

struct want {
	unsigned int pid;
	const char *container, *pod_uid, *slurm_job, *user;
};

static void check_pid(const struct want *w)
{
	struct gw_cgroup_src src = {.root = root, .read_proc = true};
	struct gw_attr a;
	CHECK_INT_EQ(gw_cgroup_attribute(&src, w->pid, &a), 0);
	CHECK_STR_EQ(a.container, w->container);
	CHECK_STR_EQ(a.pod_uid, w->pod_uid);
	CHECK_STR_EQ(a.slurm_job, w->slurm_job);
	CHECK_STR_EQ(a.user, w->user);
}

static void test_fixtures(void)
{
	const struct want wants[] = {
		{1001, C1, "", "", "root"},                                          /* docker v1 cgroupfs */
		{1002, C2, "", "", user4242},                                        /* docker v2 systemd */
		{1003, C3, "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", "", "root"},      /* k8s systemd containerd */
		{1004, C4, "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", "", user4242},    /* k8s cgroupfs v1 */
		{1005, C5, "12345678-9abc-def0-1234-56789abcdef0", "", "root"},      /* k8s cri-o guaranteed */
		{1009, "", "12345678-9abc-def0-1234-56789abcdef0", "", "root"},      /* crio-conmon */
		{1006, "", "", "4242001", user4242},                                 /* slurm v1 */
		{1007, "", "", "77", "root"},                                        /* slurm v2 */
		{1008, "", "", "", "root"},                                          /* login session */
		{1010, "", "", "", "root"},                                          /* no cgroup file */
	};
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		check_pid(&wants[i]);
}

static void test_missing_pid(void)
{
	struct gw_cgroup_src src = {.root = root, .read_proc = true};
	struct gw_attr a;
	CHECK_INT_EQ(gw_cgroup_attribute(&src, 999999, &a), GW_ENOTFOUND);
	CHECK_STR_EQ(a.user, "");
	/* read_proc off: the tree is not consulted at all */
	src.read_proc = false;
	CHECK_INT_EQ(gw_cgroup_attribute(&src, 1001, &a), GW_ENOTFOUND);
}

static void test_paths(void)
{
	struct gw_attr a = {0};
	/* not a container: wrong length, not hex, a kubepods-less "pod" name */
	gw_cgroup_parse_path("/system.slice/docker-abc.scope", &a);
	gw_cgroup_parse_path("/docker/" C1 "0", &a);
	gw_cgroup_parse_path("/system.slice/podman.service/pod0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", &a);
	gw_cgroup_parse_path("/user.slice/job_12x/step", &a);
	CHECK_STR_EQ(a.container, "");
	CHECK_STR_EQ(a.pod_uid, "");
	CHECK_STR_EQ(a.slurm_job, "");
	/* podman, and the innermost of nested containers */
	gw_cgroup_parse_path("/machine.slice/libpod-" C2 ".scope/container/docker/" C1, &a);
	CHECK_STR_EQ(a.container, C1);
	/* fields already set are kept: the first v1 line with an id wins */
	gw_cgroup_parse_path("/docker/" C3, &a);
	CHECK_STR_EQ(a.container, C1);
	/* upper-case pod uid from a hand-made path is normalised */
	struct gw_attr b = {0};
	gw_cgroup_parse_file("1:cpu:/kubepods/podAAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE/x\n", &b);
	CHECK_STR_EQ(b.pod_uid, "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
	/* a path with ':' in it, as v1 named hierarchies allow */
	struct gw_attr c = {0};
	gw_cgroup_parse_file("3:name=a:b:/slurm/uid_1/job_9/step_0", &c);
	CHECK_STR_EQ(c.slurm_job, "9");
	/* empty and degenerate input */
	struct gw_attr d = {0};
	gw_cgroup_parse_file("", &d);
	gw_cgroup_parse_file("garbage\n::\n0::/\n", &d);
	gw_cgroup_parse_path("", &d);
	gw_cgroup_parse_path("////", &d);
	CHECK_STR_EQ(d.container, "");
}

static int fake_sim(unsigned int pid, char *buf, unsigned int len)
{
	if (pid != 20001)
		return -1;
	snprintf(buf, len, "/system.slice/slurmstepd.scope/job_4100042/step_0/user/task_1");
	return 0;
}

static void test_sim_source(void)
{
	struct gw_cgroup_src src = {.root = root, .read_proc = false, .sim_cgroup = fake_sim};
	struct gw_attr a;
	CHECK_INT_EQ(gw_cgroup_attribute(&src, 20001, &a), 0);
	CHECK_STR_EQ(a.slurm_job, "4100042");
	CHECK_STR_EQ(a.user, "");
	CHECK_INT_EQ(gw_cgroup_attribute(&src, 20002, &a), GW_ENOTFOUND);
	/* with the tree read too, /proc wins where it has the pid */
	src.read_proc = true;
	CHECK_INT_EQ(gw_cgroup_attribute(&src, 1002, &a), 0);
	CHECK_STR_EQ(a.container, C2);
	/* trailing slashes on the root are fine */
	char r2[4200];
	snprintf(r2, sizeof(r2), "%s//", root);
	src.root = r2;
	CHECK_INT_EQ(gw_cgroup_attribute(&src, 1007, &a), 0);
	CHECK_STR_EQ(a.slurm_job, "77");
}

int main(void)
{
	const char *data = getenv("GW_TEST_DATA");
	snprintf(root, sizeof(root), "%s/data", data ? data : "tests");
	struct passwd *pw = getpwuid(4242);
	snprintf(user4242, sizeof(user4242), "%s", pw ? pw->pw_name : "4242");
	RUN(test_fixtures);
	RUN(test_missing_pid);
	RUN(test_paths);
	RUN(test_sim_source);
	return harness_done();
}
