/* The thread's last error: a message that carries its cause chain, read by rr_last_error(). */
#include <stdio.h>
#include <string.h>

#include "rr_commit.h" /* RR_GIT_COMMIT, written at every build (cmake/git_commit.cmake) */
#include "util/util.h"

#define RR_ERROR_CAPACITY 4096

static _Thread_local char last_error[RR_ERROR_CAPACITY];

const char *rr_last_error(void)
{
	return last_error;
}

void rr__clear_error(void)
{
	last_error[0] = 0;
}

rr_status rr__fail(rr_status status, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, args);
	va_end(args);
	return status;
}

rr_status rr__fail_context(rr_status status, const char *fmt, ...)
{
	char context[RR_ERROR_CAPACITY];
	char previous[RR_ERROR_CAPACITY];
	va_list args;
	va_start(args, fmt);
	vsnprintf(context, sizeof context, fmt, args);
	va_end(args);
	memcpy(previous, last_error, sizeof previous);
	size_t used = strlen(context);
	memcpy(last_error, context, used + 1);
	if (previous[0] && used + 2 < sizeof last_error) {
		memcpy(last_error + used, ": ", 3);
		used += 2;
		size_t rest = strlen(previous);
		if (rest > sizeof last_error - used - 1)
			rest = sizeof last_error - used - 1;
		memcpy(last_error + used, previous, rest);
		last_error[used + rest] = 0;
	}
	return status;
}

const char *rr_status_string(rr_status status)
{
	switch (status) {
	case RR_OK:
		return "ok";
	case RR_ERR_PARSE:
		return "parse error";
	case RR_ERR_TYPE:
		return "type error";
	case RR_ERR_INVALID_ARG:
		return "invalid argument";
	case RR_ERR_ILLEGAL_LAYOUT:
		return "illegal layout";
	case RR_ERR_COMPILE:
		return "compile error";
	case RR_ERR_NO_DEVICE:
		return "no device";
	case RR_ERR_DEVICE:
		return "device error";
	case RR_ERR_IO:
		return "i/o error";
	case RR_ERR_NOMEM:
		return "out of memory";
	case RR_ERR_VALIDATION:
		return "validation failed";
	case RR_ERR_UNSUPPORTED:
		return "unsupported";
	case RR_ERR_INTERNAL:
		return "internal error";
	}
	return "unknown status";
}

#ifndef RR_VERSION
#define RR_VERSION "0.0.0"
#endif
#ifndef RR_GIT_COMMIT
#define RR_GIT_COMMIT "unknown"
#endif

const char *rr_version(void)
{
	return RR_VERSION;
}

const char *rr_git_commit(void)
{
	return RR_GIT_COMMIT;
}
