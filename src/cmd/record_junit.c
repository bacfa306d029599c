/*
 * record_junit.c - `gpuwatch record --junit FILE`: the run as JUnit XML, the
 * format CI systems (GitLab, Jenkins, GitHub test reporters) show as tests.
 */
#include "cmd/record_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ME "gpuwatch record"

/* Text for an attribute or element; control characters XML 1.0 forbids become spaces. */
static void xml(struct gw_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&':
			gw_buf_puts(b, "&amp;");
			break;
		case '<':
			gw_buf_puts(b, "&lt;");
			break;
		case '>':
			gw_buf_puts(b, "&gt;");
			break;
		case '"':
			gw_buf_puts(b, "&quot;");
			break;
		case '\'':
			gw_buf_puts(b, "&apos;");
			break;
		default:
			gw_buf_putc(b, c < 0x20 && c != '\t' && c != '\n' ? ' ' : (char)c);
		}
	}
}

static void testcase(struct gw_buf *b, const char *name, double seconds, const char *failure)
{
	gw_buf_puts(b, "  <testcase classname=\"gpuwatch record\" name=\"");
	xml(b, name);
	gw_buf_printf(b, "\" time=\"%.3f\"", seconds);
	if (!failure) {
		gw_buf_puts(b, "/>\n");
		return;
	}
	gw_buf_puts(b, ">\n    <failure message=\"");
	xml(b, failure);
	gw_buf_puts(b, "\">");
	xml(b, failure);
	gw_buf_puts(b, "</failure>\n  </testcase>\n");
}

int record_junit_write(const char *path, char *const *cmd, int code, double seconds,
		       const struct record_assert *as, size_t n, const struct record_baseline *base)
{
	size_t failures = (code != 0) + base->regressions, nbase = base->path ? RECORD_BASE_N : 0;
	for (size_t i = 0; i < n; i++)
		failures += !as[i].passed;
	struct gw_buf b, name;
	gw_buf_init(&b, (size_t)1 << 28);
	gw_buf_init(&name, (size_t)1 << 20);
	for (size_t i = 0; cmd[i]; i++)
		gw_buf_printf(&name, "%s%s", i ? " " : "", cmd[i]);
	gw_buf_printf(&b,
		      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<testsuites>\n<testsuite name=\"gpuwatch record\" tests=\"%zu\" failures=\"%zu\" "
		      "errors=\"0\" time=\"%.3f\">\n",
		      n + nbase + 1, failures, seconds);
	char why[64];
	snprintf(why, sizeof(why), "exit code %d", code);
	testcase(&b, name.data ? name.data : "", seconds, code ? why : NULL);
	for (size_t i = 0; i < n; i++) {
		char msg[1400];
		snprintf(msg, sizeof(msg), "assert failed: %s (%s)", as[i].expr, as[i].msg);
		testcase(&b, as[i].expr, 0, as[i].passed ? NULL : msg);
	}
	for (size_t k = 0; k < nbase; k++) {
		char cname[96];
		snprintf(cname, sizeof(cname), "baseline %s", base->check[k].expr);
		testcase(&b, cname, 0, base->check[k].passed ? NULL : base->check[k].msg);
	}
	gw_buf_puts(&b, "</testsuite>\n</testsuites>\n");
	FILE *f = fopen(path, "w");
	int ok = f && fwrite(b.data, 1, b.len, f) == b.len;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		fprintf(stderr, ME ": --junit %s: %s\n", path, strerror(errno));
	gw_buf_release(&b);
	gw_buf_release(&name);
	return ok ? 0 : 1;
}
