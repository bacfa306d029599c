/*
 * fuzz.h - what the fuzz targets share.
 *
 * Each tests/fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput() for one
 * parser. Built with clang and -DGW_FUZZ=ON (scripts/fuzz.sh) it links
 * libFuzzer and explores; in every other build it links driver.c, which
 * feeds it each file of its corpus, tests/fuzz/corpus/NAME/, so ctest runs
 * the whole corpus as a regression test under the normal and the sanitizer
 * builds. A target aborts (fuzz_check) only on a broken invariant; any
 * input, however malformed, must otherwise just be refused.
 */
#ifndef GW_FUZZ_H
#define GW_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (embedded NULs kept); free() it. */
static inline char *fuzz_cstr(const uint8_t *d, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		abort();
	if (n)
		memcpy(s, d, n);
	s[n] = '\0';
	return s;
}

#define fuzz_check(cond)                                                                                   \
	do {                                                                                               \
		if (!(cond)) {                                                                             \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);       \
			abort();                                                                           \
		}                                                                                          \
	} while (0)

#endif
