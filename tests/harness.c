/* Shared pieces of the unit tests: failure counting and a seeded random generator. */
#include "harness.h"

int rr_test_failures = 0;
int rr_test_checks = 0;

int rr_test_finish(const char *name)
{
	printf("%s: %d checks, %d failures\n", name, rr_test_checks, rr_test_failures);
	return rr_test_failures == 0 ? 0 : 1;
}

double rr_test_uniform(unsigned long long *state, double lo, double hi)
{
	unsigned long long x = *state ? *state : 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return lo + (hi - lo) * (double)(x >> 11) / 9007199254740992.0;
}
