/*
 * report_png.c - report --png: each chart of the report rendered by the
 * cairo backend into memory, then written to its file in the directory.
 */
#include "cmd/report_png.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p dir; then dir must be a directory. */
static int make_dir(const char *dir, struct gw_err *err)
{
	char *p = strdup(dir);
	if (!p)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	for (char *q = p + 1;; q++) {
		if (*q && *q != '/')
			continue;
		char c = *q;
		*q = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			int e = errno;
			int rc = gw_err_set(err, e == EACCES ? GW_EPERM : GW_EIO,
					    "--png %s: cannot create %s: %s", dir, p, strerror(e));
			free(p);
			return rc;
		}
		*q = c;
		if (!c)
			break;
	}
	free(p);
	struct stat st;
	if (stat(dir, &st) != 0)
		return gw_err_set(err, GW_EIO, "--png %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return gw_err_set(err, GW_EINVAL, "--png %s: not a directory", dir);
	return 0;
}

static int write_file(const char *path, const struct gw_buf *b, struct gw_err *err)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return gw_err_set(err, errno == EACCES ? GW_EPERM : GW_EIO, "--png: cannot write %s: %s",
				  path, strerror(errno));
	size_t k = fwrite(b->data, 1, b->len, f);
	int werr = k != b->len || ferror(f);
	if (fclose(f) != 0 || werr)
		return gw_err_set(err, GW_EIO, "--png: writing %s: %s", path, strerror(errno));
	return 0;
}

static int draw_all(struct gw_chart_png *png, const struct gw_report *r, struct gw_err *err)
{
	struct gw_buf b;
	gw_buf_init(&b, (size_t)64 << 20);
	int rc = 0;
	for (size_t k = 0; !rc && k < GW_REPORT_NCHARTS; k++) {
		char path[4096];
		struct gw_chart c;
		if (gw_report_chart_file(r, k, path, sizeof(path)) != 0)
			rc = gw_err_set(err, GW_ERANGE, "--png %s: the path is too long", r->png_dir);
		else if ((rc = gw_report_chart(r, k, &c)) != 0)
			rc = gw_err_set(err, rc, "out of memory");
		if (rc)
			break;
		gw_buf_reset(&b);
		rc = gw_chart_png_draw(png, &c, &b, err);
		gw_chart_release(&c);
		if (!rc)
			rc = write_file(path, &b, err);
	}
	gw_buf_release(&b);
	return rc;
}

int gw_report_png_write(const struct gw_report *r, struct gw_err *err)
{
	struct gw_chart_png *png = NULL;
	int rc = gw_chart_png_open(&png, err);
	if (!rc)
		rc = make_dir(r->png_dir, err);
	if (!rc)
		rc = draw_all(png, r, err);
	gw_chart_png_close(png);
	return rc;
}
