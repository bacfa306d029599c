/*
 * smi_golden.h - golden-file comparison for the smi/dmon/pmon unit tests.
 *
 * golden_check(name, text) compares text with $GW_TEST_DATA/golden/<name>.
 * With GW_GOLDEN_UPDATE=1 it rewrites the file instead: do that only on
 * purpose, then diff the result against the nvidia-smi capture it stands for.
 */
#ifndef GW_TEST_SMI_GOLDEN_H
#define GW_TEST_SMI_GOLDEN_H

#include "harness.h"

#include <stdlib.h>

static char *golden_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

static void golden_check(const char *name, const char *text)
{
	const char *dir = getenv("GW_TEST_DATA");
	char path[1024];
	snprintf(path, sizeof(path), "%s/golden/%s", dir ? dir : "tests", name);
	const char *upd = getenv("GW_GOLDEN_UPDATE");
	if (upd && *upd == '1') {
		FILE *f = fopen(path, "wb");
		CHECK(f != NULL);
		if (f) {
			fputs(text, f);
			fclose(f);
		}
		return;
	}
	char *want = golden_read(path);
	if (!want)
		fprintf(stderr, "missing golden file %s\n", path);
	CHECK_STR_EQ(text, want);
	free(want);
}

/* Render through fn into a string (caller frees). */
#define RENDER(var, stmt)                                                                          \
	char *var = NULL;                                                                          \
	do {                                                                                       \
		size_t len_;                                                                       \
		FILE *out = open_memstream(&var, &len_);                                           \
		stmt;                                                                              \
		fclose(out);                                                                       \
	} while (0)

#endif
