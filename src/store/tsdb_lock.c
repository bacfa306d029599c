/*
 * tsdb_lock.c - one writer per store: an exclusive flock(2) on
 * DIR/gpuwatch.lock, taken at open by writers (must_write) and held until
 * close. Two writers would each keep their own heads and series index, so
 * what one wrote would not show in the other's queries until a restart;
 * the lock turns that into a refusal at open that names the holder.
 *
 * flock and not a pid file: the kernel drops the lock with the holder's
 * last descriptor, so a holder killed with SIGKILL leaves nothing stale to
 * clean up, and the file's content (pid and name) is only read to explain
 * a refusal. The descriptor is close-on-exec so a child never keeps it.
 */
#include "store/tsdb_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define LOCK_FILE "gpuwatch.lock"

/* "PID NAME\n" of the holder; false when the file does not say (it is written just after the lock is taken). */
static bool read_holder(int fd, long *pid, char *name, size_t cap)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *end;
	errno = 0;
	*pid = strtol(buf, &end, 10);
	if (errno || end == buf || *pid <= 0 || *end != ' ')
		return false;
	end++;
	size_t len = strcspn(end, "\n");
	if (!len)
		return false;
	snprintf(name, cap, "%.*s", (int)len, end);
	return true;
}

int ts_lock_take(struct gw_tsdb *db, struct gw_err *err)
{
	char path[4096];
	if (snprintf(path, sizeof(path), "%s/%s", db->dir, LOCK_FILE) >= (int)sizeof(path))
		return gw_err_set(err, GW_EINVAL, "storage path too long");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return gw_err_set(err, errno == EACCES ? GW_EPERM : GW_EIO, "open %s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		long pid = 0;
		char name[64];
		int rc;
		if (e != EWOULDBLOCK)
			rc = gw_err_set(err, GW_EIO, "lock %s: %s", path, strerror(e));
		else if (read_holder(fd, &pid, name, sizeof(name)))
			rc = gw_err_set(err, GW_EBUSY, "the store %s is held by a running %s (pid %ld)", db->dir, name,
					pid);
		else
			rc = gw_err_set(err, GW_EBUSY, "the store %s is held by another writer (%s is locked)",
					db->dir, path);
		close(fd);
		return rc;
	}
	char line[96];
	int len = snprintf(line, sizeof(line), "%ld %.60s\n", (long)getpid(),
			   db->o.holder && *db->o.holder ? db->o.holder : "writer");
	/* who holds it only explains a refusal: a failure to write it is not one */
	if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len)
		(void)0;
	db->lock_fd = fd;
	return 0;
}

void ts_lock_release(struct gw_tsdb *db)
{
	if (db->lock_fd < 0)
		return;
	close(db->lock_fd); /* drops the flock */
	db->lock_fd = -1;
}
