/* How much memory this process may still take, checked before every large allocation so that
 * a huge shape fails at once with a sentence instead of swapping the machine to a halt. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* "MemAvailable:  123456 kB" of /proc/meminfo in bytes, -1 when absent. */
static int64_t meminfo_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	char line[256];
	long long kib = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib >= 0 && kib < INT64_MAX / 1024 ? (int64_t)kib * 1024 : -1;
}

/* One number from a cgroup v2 file ("max" or absent: -1). */
static int64_t cgroup_number(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long long value = -1;
	if (fscanf(f, "%lld", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}

/* The cgroup's remaining allowance (memory.max - memory.current), -1 when unlimited. */
static int64_t cgroup_available(void)
{
	int64_t max = cgroup_number("/sys/fs/cgroup/memory.max");
	int64_t current = cgroup_number("/sys/fs/cgroup/memory.current");
	if (max < 0 || current < 0)
		return -1;
	return max > current ? max - current : 0;
}

/* $RR_MEMORY_LIMIT in bytes: digits and an optional K, M, G or T (powers of 1024); -1 when
 * unset or malformed (a malformed value is ignored rather than fatal: it only lowers a cap). */
static int64_t configured_limit(void)
{
	const char *text = getenv("RR_MEMORY_LIMIT");
	if (!text || !isdigit((unsigned char)text[0]))
		return -1;
	char *end = NULL;
	errno = 0;
	unsigned long long value = strtoull(text, &end, 10);
	int shift = 0;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		break;
	}
	if (shift)
		end++;
	if (errno || *end || value > (unsigned long long)(INT64_MAX >> shift))
		return -1;
	return (int64_t)(value << shift);
}

static int64_t lower_known(int64_t a, int64_t b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

int64_t rr__host_memory_available(void)
{
	int64_t available = meminfo_available();
	if (available < 0) {
		long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
		available = pages > 0 && page > 0 ? (int64_t)pages * page : -1;
	}
	available = lower_known(available, cgroup_available());
	return lower_known(available, configured_limit());
}

void rr__format_bytes(uint64_t bytes, char *out, size_t size)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double value = (double)bytes;
	int unit = 0;
	while (value >= 1024 && unit < 6) {
		value /= 1024;
		unit++;
	}
	if (unit == 0)
		snprintf(out, size, "%llu B", (unsigned long long)bytes);
	else
		snprintf(out, size, "%.1f %s", value, units[unit]);
}

rr_status rr__host_memory_check(uint64_t bytes, const char *what)
{
	int64_t available = rr__host_memory_available();
	if (available < 0 || bytes <= (uint64_t)available)
		return RR_OK;
	char asked[48], have[32];
	if (bytes == UINT64_MAX) /* a saturated count */
		snprintf(asked, sizeof asked, "more than 16 EiB");
	else
		rr__format_bytes(bytes, asked, sizeof asked);
	rr__format_bytes((uint64_t)available, have, sizeof have);
	return rr__fail(RR_ERR_NOMEM,
	                "%s needs %s (%llu bytes) but only %s of memory is available%s; use a "
	                "smaller shape",
	                what, asked, (unsigned long long)bytes, have,
	                getenv("RR_MEMORY_LIMIT") ? " (capped by RR_MEMORY_LIMIT)" : "");
}
