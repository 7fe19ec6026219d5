/* Minimal test harness: CHECK records a failure with file:line and carries on, so one run
 * reports every broken assertion; a test's main returns rr_test_finish(). */
#ifndef RR_TEST_HARNESS_H
#define RR_TEST_HARNESS_H
#include <stdio.h>

extern int rr_test_failures;
extern int rr_test_checks;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		rr_test_checks++;                                                                  \
		if (!(cond)) {                                                                     \
			rr_test_failures++;                                                        \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECKF(cond, ...)                                                                          \
	do {                                                                                       \
		rr_test_checks++;                                                                  \
		if (!(cond)) {                                                                     \
			rr_test_failures++;                                                        \
			fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

/* Prints "N checks, F failures" and returns the exit code (0 or 1). */
int rr_test_finish(const char *name);
/* Exit code that CTest reads as "skipped". */
#define RR_TEST_SKIP 77
/* Uniform random double in [lo, hi) from a per-test xorshift state. */
double rr_test_uniform(unsigned long long *state, double lo, double hi);

#endif
