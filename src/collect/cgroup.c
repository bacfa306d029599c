#include "collect/cgroup.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runtime prefixes of a container's scope name, before the 64-hex id. */
static const char *const container_prefixes[] = {"docker-", "cri-containerd-", "crio-", "libpod-", "containerd-", ""};

#define CONTAINER_ID_LEN 64
#define POD_UID_LEN 36

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t pl = strlen(p);
	return n >= pl && memcmp(s, p, pl) == 0;
}

/* A 64-hex container id in one component, or false. */
static bool component_container(const char *c, size_t n, char *out, size_t outlen)
{
	if (has_prefix(c, n, "crio-conmon-"))
		return false; /* cri-o's monitor process, not the container */
	if (n > 6 && memcmp(c + n - 6, ".scope", 6) == 0)
		n -= 6;
	for (size_t i = 0; i < sizeof(container_prefixes) / sizeof(container_prefixes[0]); i++) {
		size_t pl = strlen(container_prefixes[i]);
		if (!has_prefix(c, n, container_prefixes[i]) || n - pl != CONTAINER_ID_LEN)
			continue;
		if (!all_hex(c + pl, CONTAINER_ID_LEN))
			continue;
		snprintf(out, outlen, "%.*s", CONTAINER_ID_LEN, c + pl);
		return true;
	}
	return false;
}

/* "pod<uid>" (cgroupfs) or "kubepods-<qos>-pod<uid_with_underscores>.slice" (systemd). */
static bool component_pod(const char *c, size_t n, char *out, size_t outlen)
{
	const char *u = NULL;
	if (has_prefix(c, n, "pod"))
		u = c + 3;
	else if (has_prefix(c, n, "kubepods")) {
		for (size_t i = 0; i + 4 <= n; i++)
			if (memcmp(c + i, "-pod", 4) == 0)
				u = c + i + 4;
	}
	if (!u)
		return false;
	size_t len = (size_t)(c + n - u);
	if (len > 6 && memcmp(u + len - 6, ".slice", 6) == 0)
		len -= 6;
	if (len != POD_UID_LEN || outlen <= POD_UID_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = u[i];
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? (ch != '-' && ch != '_') : !isxdigit((unsigned char)ch))
			return false;
		out[i] = ch == '_' ? '-' : (char)tolower((unsigned char)ch);
	}
	out[len] = '\0';
	return true;
}

/* "job_<digits>" (Slurm's cgroup plugin, v1 and v2 layouts). */
static bool component_job(const char *c, size_t n, char *out, size_t outlen)
{
	if (!has_prefix(c, n, "job_") || n == 4 || n - 4 >= outlen)
		return false;
	for (size_t i = 4; i < n; i++)
		if (!isdigit((unsigned char)c[i]))
			return false;
	snprintf(out, outlen, "%.*s", (int)(n - 4), c + 4);
	return true;
}

void gw_cgroup_parse_path(const char *path, struct gw_attr *out)
{
	bool kube = strstr(path, "kubepods") != NULL;
	/* The deepest match wins inside one path (nested containers: the innermost). */
	char container[sizeof(out->container)] = "", pod[sizeof(out->pod_uid)] = "", job[sizeof(out->slurm_job)] = "";
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		const char *e = p;
		while (*e && *e != '/' && *e != '\n')
			e++;
		size_t n = (size_t)(e - p);
		if (n) {
			component_container(p, n, container, sizeof(container));
			if (kube)
				component_pod(p, n, pod, sizeof(pod));
			component_job(p, n, job, sizeof(job));
		}
		if (*e != '/')
			break;
		p = e;
	}
	if (!out->container[0])
		memcpy(out->container, container, sizeof(container));
	if (!out->pod_uid[0])
		memcpy(out->pod_uid, pod, sizeof(pod));
	if (!out->slurm_job[0])
		memcpy(out->slurm_job, job, sizeof(job));
}

void gw_cgroup_parse_file(const char *text, struct gw_attr *out)
{
	/* Lines are "hierarchy-id:controllers:path"; the path may hold ':'. */
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *c1 = memchr(line, ':', (size_t)(end - line));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (c2) {
			char path[4096];
			snprintf(path, sizeof(path), "%.*s", (int)(end - c2 - 1), c2 + 1);
			gw_cgroup_parse_path(path, out);
		}
		if (!nl)
			break;
		line = nl + 1;
	}
}

/* Read a small /proc file whole (truncated at len - 1 bytes). */
static int read_small(const char *root, unsigned int pid, const char *name, char *buf, size_t len)
{
	char path[4096];
	size_t rl = strlen(root);
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	snprintf(path, sizeof(path), "%.*s/proc/%u/%s", (int)rl, root, pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? GW_ENOTFOUND : GW_EIO;
	size_t have = 0;
	while (have + 1 < len) {
		ssize_t r = read(fd, buf + have, len - 1 - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	close(fd);
	buf[have] = '\0';
	return 0;
}

static void user_name(unsigned long uid, char *out, size_t outlen)
{
	struct passwd pw, *res = NULL;
	char buf[1024];
	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name[0])
		snprintf(out, outlen, "%s", res->pw_name);
	else
		snprintf(out, outlen, "%lu", uid);
}

/* The real uid from a status file's "Uid:\treal\teffective\tsaved\tfs" line. */
static bool status_uid(const char *text, unsigned long *uid)
{
	const char *u = strstr(text, "\nUid:");
	if (!u)
		return false;
	char *end;
	errno = 0;
	unsigned long v = strtoul(u + 5, &end, 10);
	if (end == u + 5 || errno)
		return false;
	*uid = v;
	return true;
}

int gw_cgroup_attribute(const struct gw_cgroup_src *src, unsigned int pid, struct gw_attr *out)
{
	memset(out, 0, sizeof(*out));
	const char *root = src->root && src->root[0] ? src->root : "/";
	bool found = false;
	char text[8192];
	if (src->read_proc && read_small(root, pid, "cgroup", text, sizeof(text)) == 0) {
		gw_cgroup_parse_file(text, out);
		found = true;
	}
	if (!found && src->sim_cgroup) {
		char path[1024];
		if (src->sim_cgroup(pid, path, sizeof(path)) == 0) {
			gw_cgroup_parse_path(path, out);
			found = true;
		}
	}
	unsigned long uid;
	if (src->read_proc && read_small(root, pid, "status", text, sizeof(text)) == 0 && status_uid(text, &uid)) {
		user_name(uid, out->user, sizeof(out->user));
		found = true;
	}
	return found ? 0 : GW_ENOTFOUND;
}
