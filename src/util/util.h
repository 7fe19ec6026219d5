/* Small shared services: the thread's last error, SHA-256, half-precision conversions, a
 * growable string buffer and atomic file writes. Everything else in rowreduce builds on these. */
#ifndef RR_UTIL_H
#define RR_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "rowreduce.h"

/* Sets the calling thread's last error to the formatted message and returns `status`. */
rr_status rr__fail(rr_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefixes the current message with a context ("while compiling rmsnorm: <old message>") and
 * returns `status`: how a cause chain is built as an error travels up. */
rr_status rr__fail_context(rr_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void rr__clear_error(void);

/* SHA-256 of a buffer or a whole file, as 64 lowercase hex digits plus a zero. */
void rr__sha256_hex(const void *data, size_t size, char out[65]);
rr_status rr__sha256_file(const char *path, char out[65]);

/* IEEE half and bfloat16 conversions, round to nearest even (NaN stays NaN). */
uint16_t rr__f32_to_bf16(float value);
float rr__bf16_to_f32(uint16_t bits);
uint16_t rr__f32_to_f16(float value);
float rr__f16_to_f32(uint16_t bits);
/* Element `i` of a typed array as a double, and storing a double into one. */
double rr__load_as_double(const void *data, rr_dtype dtype, size_t i);
void rr__store_from_double(void *data, rr_dtype dtype, size_t i, double value);

/* A growable string; functions set ->failed on out of memory and then do nothing more. */
typedef struct rr__buf {
	char *data;
	size_t length, capacity;
	int failed;
} rr__buf;
void rr__buf_printf(rr__buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rr__buf_vprintf(rr__buf *buf, const char *fmt, va_list args);
void rr__buf_append(rr__buf *buf, const char *text, size_t length);
void rr__buf_free(rr__buf *buf);

/* Writes `size` bytes to `path` through a temporary file in the same folder and a rename, so a
 * reader never sees a half-written file; a failure removes the temporary and names the cause. */
rr_status rr__write_file_atomic(const char *path, const void *data, size_t size);
/* Reads a whole file (zero-terminated; *size excludes the zero). */
rr_status rr__read_file(const char *path, char **data, size_t *size);
/* Creates a folder and its parents (like mkdir -p). */
rr_status rr__mkdir_p(const char *path);
/* The same with the mode of the folders it creates (0700: private to this user). */
rr_status rr__mkdir_p_mode(const char *path, unsigned mode);

/* The shortest text that reads back as exactly `value`, as a person writes it: whole numbers
 * below 1e15 without exponent ("30"), otherwise %g digits with a plain exponent ("1e-6",
 * "0.5", "1.5e20"). The one formatter of constants and bounds (util/number.c). */
void rr__format_real(double value, char out[32]);

/* Reads a whole regular file of at most `limit` bytes (zero-terminated; *size excludes the
 * zero). `what` names the file's role in messages ("kernel file"). A device, pipe or folder is
 * refused without reading it (RR_ERR_IO), a larger file too (RR_ERR_INVALID_ARG), naming the
 * limit. */
rr_status rr__read_regular_file(const char *path, size_t limit, const char *what, char **data,
                                size_t *size);

/* Compile caches (CPU shared objects, CUDA cubins). Each object <path> has a digest file
 * <path>.sha256 holding "<sha256 hex>  <object file name>\n" (the format of sha256sum).
 *
 * Creates the folder (and parents; new ones mode 0700) and checks that it is a folder owned by
 * this user that neither group nor others may write: objects are loaded from it, so anyone who
 * could write there could run code as this user. RR_ERR_IO naming the folder otherwise. */
rr_status rr__cache_dir_prepare(const char *dir, const char *what);
/* RR_OK when <path>.sha256 exists and records `digest` for <path>'s own name; RR_ERR_IO with
 * the reason (no digest file, a different digest, another object's name) otherwise. */
rr_status rr__cache_digest_check(const char *path, const char digest[65]);
/* Checks <path> itself (a regular file owned by this user) and its digest: on RR_OK `digest`
 * holds the object's SHA-256. */
rr_status rr__cache_object_check(const char *path, char digest[65]);
/* Writes <path>.sha256 for `digest`, atomically. */
rr_status rr__cache_digest_write(const char *path, const char digest[65]);
/* Removes an object and its digest file (missing files are fine). */
void rr__cache_remove(const char *path);

/* One line "rowreduce: <message>" on stderr: the library's only output, kept for events the
 * caller should hear about even when the call succeeds (a damaged cache object rebuilt). */
void rr__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Memory this process may still allocate on the host: MemAvailable of /proc/meminfo (else
 * free pages from sysconf), lowered to the cgroup's remaining allowance where one is set, and
 * to $RR_MEMORY_LIMIT (bytes, or with a K/M/G/T suffix of 1024s) where that is set. -1 when
 * unknown. */
int64_t rr__host_memory_available(void);
/* RR_OK when `bytes` (for `what`, e.g. "input 'x' (4096 x 4096 f32)") fit in the memory
 * available; RR_ERR_NOMEM with a sentence naming both amounts otherwise. Call it before
 * allocating anything large, so a huge request fails at once instead of swapping. */
rr_status rr__host_memory_check(uint64_t bytes, const char *what);
/* "1.5 GiB", "512 B": a byte count for messages. */
void rr__format_bytes(uint64_t bytes, char *out, size_t size);

/* Monotonic host time in seconds. */
double rr__now(void);

#endif
