/*
 * tsdb_check.c - whether the database file can be used, and if not, out of
 * the way (opts.recover: the agent, whose sampling and /metrics must not
 * depend on its history).
 *
 * Three layers, cheapest first. Our own reading of the 100-byte header:
 * the magic, a page size SQLite could have written, and the page count it
 * records against the file's length (a file cut short keeps a header that
 * promises more pages). Then SQLite's quick_check, which walks every
 * b-tree page once (what a flipped byte in a page header or a cell pointer
 * breaks), and the format in meta. A file failing any of these is renamed
 * with its -wal and -shm, never deleted: sqlite3's .recover may still get
 * rows out of it. Damage inside chunk bytes passes all three; the chunk
 * scan counts those chunks (each fails its CRC and is skipped when read,
 * with a warning in the query's answer, tsdb_query.c).
 */
#include "store/codec.h"
#include "store/codec_int.h"
#include "store/rollup.h"
#include "store/tsdb_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The header by hand (https://sqlite.org/fileformat.html, section 1.3); *empty: no file, or nothing in it. */
static int check_header(const char *path, bool *empty, struct gw_err *why)
{
	*empty = true;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : gw_err_set(why, GW_EIO, "open %s: %s", path, strerror(errno));
	struct stat st;
	unsigned char h[100];
	ssize_t got = fstat(fd, &st) == 0 ? pread(fd, h, sizeof(h), 0) : -1;
	int e = errno;
	close(fd);
	if (got < 0)
		return gw_err_set(why, GW_EIO, "read %s: %s", path, strerror(e));
	if (st.st_size == 0)
		return 0; /* created and never written: SQLite starts it afresh */
	*empty = false;
	if (got < (ssize_t)sizeof(h))
		return gw_err_set(why, GW_EPARSE, "file of %lld bytes, shorter than a database header",
				  (long long)st.st_size);
	if (memcmp(h, "SQLite format 3", 16) != 0)
		return gw_err_set(why, GW_EPARSE, "not an sqlite database: header magic damaged");
	uint32_t psize = (uint32_t)h[16] << 8 | h[17];
	if (psize == 1)
		psize = 65536;
	if (psize < 512 || (psize & (psize - 1)) != 0)
		return gw_err_set(why, GW_EPARSE, "header names page size %u", psize);
	/* The page count is valid only while the change counter (24) equals
	 * the version-valid-for number (92); older writers left it stale. */
	uint32_t pages = be32(h + 28);
	if (pages && be32(h + 24) == be32(h + 92) && (uint64_t)st.st_size < (uint64_t)pages * psize)
		return gw_err_set(why, GW_EPARSE, "truncated: %lld bytes, header says %u pages of %u",
				  (long long)st.st_size, pages, psize);
	return 0;
}

/* "3" and the like: a format number, or -1 when the text is not one. */
static long format_number(const char *v)
{
	if (!v || *v < '1' || *v > '9')
		return -1;
	char *end = NULL;
	long f = strtol(v, &end, 10);
	return *end ? -1 : f;
}

/* quick_check and the format on a connection that checkpoints nothing. */
static int check_sqlite(const char *path, struct gw_err *why)
{
	sqlite3 *c = NULL;
	int rc = sqlite3_open_v2(path, &c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK) {
		/* leave the file (and its WAL) as found if it is to be moved aside */
		sqlite3_db_config(c, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
		sqlite3_busy_timeout(c, 5000);
	}
	sqlite3_stmt *st = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(c, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *res = (const char *)sqlite3_column_text(st, 0);
		rc = res && strcmp(res, "ok") == 0 ? SQLITE_OK : SQLITE_CORRUPT;
		if (rc)
			gw_err_set(why, GW_EPARSE, "quick_check: %.300s", res ? res : "?");
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	st = NULL;
	bool tables = false;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(c, "SELECT count(*) FROM sqlite_schema WHERE name IN ('meta', 'series', 'chunks')",
					-1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		tables = sqlite3_column_int(st, 0) > 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == SQLITE_OK && tables) {
		rc = sqlite3_prepare_v2(c, "SELECT value FROM meta WHERE key = 'format'", -1, &st, NULL);
		if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			long f = format_number((const char *)sqlite3_column_text(st, 0));
			/* a number is a format (a newer one refuses to open later,
			 * and that store is kept); anything else is damage */
			rc = f > 0 ? SQLITE_OK : SQLITE_CORRUPT;
		} else if (rc == SQLITE_DONE) {
			rc = SQLITE_CORRUPT; /* tables without a format row */
		}
		if (rc == SQLITE_CORRUPT)
			gw_err_set(why, GW_EPARSE, "format row in meta missing or damaged");
		sqlite3_finalize(st);
	}
	int ret = 0;
	if (rc != SQLITE_OK && !(why && why->code == GW_EPARSE))
		ret = ts_sql_err(c, rc, "check", why);
	else if (rc != SQLITE_OK)
		ret = GW_EPARSE;
	sqlite3_close(c);
	return ret;
}

int ts_check(struct gw_tsdb *db, struct gw_err *why)
{
	gw_err_clear(why);
	bool empty = true;
	int rc = check_header(db->dbpath, &empty, why);
	return rc || empty ? rc : check_sqlite(db->dbpath, why);
}

static int move_one(const char *from, const char *to, bool required, struct gw_err *err)
{
	if (rename(from, to) == 0 || (!required && errno == ENOENT))
		return 0;
	return gw_err_set(err, errno == EACCES ? GW_EPERM : GW_EIO, "rename %s to %s: %s", from, to, strerror(errno));
}

int ts_move_aside(struct gw_tsdb *db, const char *why, struct gw_err *err)
{
	char stamp[32], to[GW_ERR_MSG_MAX - 64], from[sizeof(to)], to2[sizeof(to)];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	/* a second recovery within the same second gets a number */
	for (unsigned k = 0;; k++) {
		int len = k ? snprintf(to, sizeof(to), "%s.corrupt-%s.%u", db->dbpath, stamp, k)
			    : snprintf(to, sizeof(to), "%s.corrupt-%s", db->dbpath, stamp);
		if (len < 0 || (size_t)len >= sizeof(to) - 8)
			return gw_err_set(err, GW_EINVAL, "path too long: %s", db->dbpath);
		if (access(to, F_OK) != 0)
			break;
	}
	int rc = move_one(db->dbpath, to, true, err);
	static const char *const SIDE[] = {"-wal", "-shm"};
	for (size_t i = 0; i < 2 && !rc; i++) {
		snprintf(from, sizeof(from), "%s%s", db->dbpath, SIDE[i]);
		snprintf(to2, sizeof(to2), "%s%s", to, SIDE[i]);
		rc = move_one(from, to2, false, err);
	}
	if (rc)
		return rc;
	snprintf(db->moved_to, sizeof(db->moved_to), "%s", to);
	snprintf(db->moved_why, sizeof(db->moved_why), "%s", why);
	return 0;
}

/*
 * Chunks of one table whose bytes fail their CRC or whose count column
 * disagrees with them (referring rows, `same`, hold no bytes); rollups:
 * whose buckets do not decode (the first layout has
 * a CRC per column, not one for the whole). Into *bad.
 */
static int scan_table(sqlite3 *c, const char *sql, bool rollups, struct gw_bucket *scratch, uint64_t *bad,
		      struct gw_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(c, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ts_sql_err(c, rc, "scan chunks", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const uint8_t *p = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0), n = 0;
		/* a row's count must agree with its chunk's own (under the CRC) */
		bool ok = p && (rollups ? gw_rollup_decode(p, len, scratch, GW_CHUNK_MAX_SAMPLES, &n) == 0
				       : gw_chunk_count(p, len) == sqlite3_column_int64(st, 1) && codec_crc_ok(p, len));
		*bad += !ok;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ts_sql_err(c, rc, "scan chunks", err);
}

int ts_scan_chunks(struct gw_tsdb *db, struct gw_err *err)
{
	uint64_t bad = 0;
	struct gw_bucket *scratch = malloc(GW_CHUNK_MAX_SAMPLES * sizeof(*scratch));
	if (!scratch)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	int rc = scan_table(db->w, "SELECT data, count FROM chunks WHERE same IS NULL", false, scratch, &bad, err);
	rc = rc ? rc : scan_table(db->w, "SELECT data, count FROM partials WHERE same IS NULL", false, scratch, &bad, err);
	rc = rc ? rc : scan_table(db->w, "SELECT data FROM rollups", true, scratch, &bad, err);
	free(scratch);
	if (!rc)
		atomic_store(&db->corrupt, bad);
	return rc;
}
