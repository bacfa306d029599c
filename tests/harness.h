/*
 * harness.h - a tiny unit-test harness: CHECK macros that print both values,
 * a test registry in main(), and the plain "N passed, N failed" closing line.
 *
 *   static void test_x(void) { CHECK_INT_EQ(1 + 1, 2); }
 *   int main(void) { RUN(test_x); return harness_done(); }
 */
#ifndef GW_TEST_HARNESS_H
#define GW_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int harness_failed_checks;
static int harness_tests_passed;
static int harness_tests_failed;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);   \
			harness_failed_checks++;                                                   \
		}                                                                                  \
	} while (0)

#define CHECK_INT_EQ(a, b)                                                                         \
	do {                                                                                       \
		long long va_ = (long long)(a), vb_ = (long long)(b);                              \
		if (va_ != vb_) {                                                                  \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,        \
				__LINE__, #a, #b, va_, vb_);                                       \
			harness_failed_checks++;                                                   \
		}                                                                                  \
	} while (0)

#define CHECK_DBL_NEAR(a, b, tol)                                                                  \
	do {                                                                                       \
		double va_ = (a), vb_ = (b);                                                       \
		if (!(fabs(va_ - vb_) <= (tol))) {                                                 \
			fprintf(stderr, "%s:%d: %s ~= %s failed: %.9g vs %.9g (tol %g)\n",         \
				__FILE__, __LINE__, #a, #b, va_, vb_, (double)(tol));              \
			harness_failed_checks++;                                                   \
		}                                                                                  \
	} while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
	do {                                                                                       \
		const char *va_ = (a), *vb_ = (b);                                                 \
		if (!va_ || !vb_ || strcmp(va_, vb_) != 0) {                                       \
			fprintf(stderr, "%s:%d: %s == %s failed:\n  got:      \"%s\"\n  expected: \"%s\"\n", \
				__FILE__, __LINE__, #a, #b, va_ ? va_ : "(null)",                  \
				vb_ ? vb_ : "(null)");                                             \
			harness_failed_checks++;                                                   \
		}                                                                                  \
	} while (0)

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		int before_ = harness_failed_checks;                                               \
		fn();                                                                              \
		if (harness_failed_checks == before_) {                                            \
			harness_tests_passed++;                                                    \
		} else {                                                                           \
			harness_tests_failed++;                                                    \
			fprintf(stderr, "FAIL %s\n", #fn);                                         \
		}                                                                                  \
	} while (0)

static inline int harness_done(void)
{
	printf("%d passed, %d failed\n", harness_tests_passed, harness_tests_failed);
	return harness_tests_failed ? 1 : 0;
}

#endif
