/* Files, hashes, strings and clocks: atomic writes so no reader ever sees half a file. */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

static void hex_digest(const unsigned char *digest, unsigned length, char out[65])
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < length && i < 32; i++) {
		out[2 * i] = digits[digest[i] >> 4];
		out[2 * i + 1] = digits[digest[i] & 15];
	}
	out[64] = 0;
}

void rr__sha256_hex(const void *data, size_t size, char out[65])
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned length = 0;
	EVP_Digest(data, size, digest, &length, EVP_sha256(), NULL);
	hex_digest(digest, length, out);
}

rr_status rr__sha256_file(const char *path, char out[65])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return rr__fail(RR_ERR_IO, "cannot open '%s' to hash it: %s", path,
		                strerror(errno));
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx) {
		fclose(f);
		return rr__fail(RR_ERR_NOMEM, "out of memory while hashing '%s'", path);
	}
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	unsigned char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		EVP_DigestUpdate(ctx, chunk, n);
	int failed = ferror(f);
	fclose(f);
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned length = 0;
	EVP_DigestFinal_ex(ctx, digest, &length);
	EVP_MD_CTX_free(ctx);
	if (failed)
		return rr__fail(RR_ERR_IO, "cannot read '%s' to hash it", path);
	hex_digest(digest, length, out);
	return RR_OK;
}

/* Room for `extra` more bytes and the terminating NUL, doubling from 256; on a failed
 * allocation marks the buffer failed and returns -1. */
static int buf_reserve(rr__buf *buf, size_t extra)
{
	if (buf->length + extra + 1 <= buf->capacity)
		return 0;
	size_t capacity = buf->capacity ? buf->capacity : 256;
	while (capacity < buf->length + extra + 1)
		capacity *= 2;
	char *data = realloc(buf->data, capacity);
	if (!data) {
		buf->failed = 1;
		return -1;
	}
	buf->data = data;
	buf->capacity = capacity;
	return 0;
}

void rr__buf_vprintf(rr__buf *buf, const char *fmt, va_list args)
{
	if (buf->failed)
		return;
	va_list copy;
	va_copy(copy, args);
	int needed = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (needed < 0) {
		buf->failed = 1;
		return;
	}
	if (buf_reserve(buf, (size_t)needed) != 0)
		return;
	vsnprintf(buf->data + buf->length, (size_t)needed + 1, fmt, args);
	buf->length += (size_t)needed;
}

void rr__buf_printf(rr__buf *buf, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	rr__buf_vprintf(buf, fmt, args);
	va_end(args);
}

void rr__buf_append(rr__buf *buf, const char *text, size_t length)
{
	if (buf->failed)
		return;
	if (buf_reserve(buf, length) != 0)
		return;
	memcpy(buf->data + buf->length, text, length);
	buf->length += length;
	buf->data[buf->length] = 0;
}

void rr__buf_free(rr__buf *buf)
{
	free(buf->data);
	buf->data = NULL;
	buf->length = buf->capacity = 0;
	buf->failed = 0;
}

rr_status rr__write_file_atomic(const char *path, const void *data, size_t size)
{
	size_t length = strlen(path);
	char *temp = malloc(length + 32);
	if (!temp)
		return rr__fail(RR_ERR_NOMEM, "out of memory writing '%s'", path);
	/* Unique per process and call: threads of one process may write the same file at once. */
	static atomic_long calls;
	snprintf(temp, length + 32, "%s.tmp.%ld.%ld", path, (long)getpid(),
	         atomic_fetch_add(&calls, 1));
	FILE *f = fopen(temp, "wb");
	if (!f) {
		rr_status s = rr__fail(RR_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
		free(temp);
		return s;
	}
	size_t written = size ? fwrite(data, 1, size, f) : 0;
	int flush_failed = fflush(f) != 0 || fsync(fileno(f)) != 0;
	int saved_errno = errno;
	int close_failed = fclose(f) != 0;
	if (written != size || flush_failed || close_failed) {
		unlink(temp);
		free(temp);
		return rr__fail(RR_ERR_IO, "cannot write '%s' (disk full?): %s", path,
		                strerror(saved_errno ? saved_errno : EIO));
	}
	if (rename(temp, path) != 0) {
		rr_status s =
		    rr__fail(RR_ERR_IO, "cannot move the finished file into place at '%s': %s",
		             path, strerror(errno));
		unlink(temp);
		free(temp);
		return s;
	}
	free(temp);
	return RR_OK;
}

rr_status rr__read_file(const char *path, char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return rr__fail(RR_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
	rr__buf buf = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		rr__buf_append(&buf, chunk, n);
	int failed = ferror(f);
	fclose(f);
	if (failed) {
		rr__buf_free(&buf);
		return rr__fail(RR_ERR_IO, "cannot read '%s'", path);
	}
	if (buf.failed) {
		rr__buf_free(&buf);
		return rr__fail(RR_ERR_NOMEM, "out of memory reading '%s'", path);
	}
	if (!buf.data) {
		buf.data = calloc(1, 1);
		if (!buf.data)
			return rr__fail(RR_ERR_NOMEM, "out of memory reading '%s'", path);
	}
	*data = buf.data;
	*size = buf.length;
	return RR_OK;
}

/* What a file of mode `mode` is, for a message. */
static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode)    ? "a folder"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISFIFO(mode) ? "a pipe"
	       : S_ISSOCK(mode) ? "a socket"
	                        : "not a regular file";
}

/* Reads from `fd` until end of file, failing once more than `limit` bytes arrive (the file may
 * have grown since fstat). */
static rr_status read_bounded(int fd, const char *path, size_t limit, const char *what,
                              rr__buf *buf)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rr__fail(RR_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
		if (n == 0)
			return RR_OK;
		if (buf->length + (size_t)n > limit)
			return rr__fail(RR_ERR_INVALID_ARG,
			                "%s '%s' is larger than the limit of %zu bytes", what, path,
			                limit);
		rr__buf_append(buf, chunk, (size_t)n);
		if (buf->failed)
			return rr__fail(RR_ERR_NOMEM, "out of memory reading '%s'", path);
	}
}

rr_status rr__read_regular_file(const char *path, size_t limit, const char *what, char **data,
                                size_t *size)
{
	/* O_NONBLOCK: opening a pipe must not wait for a writer before fstat can refuse it. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return rr__fail(RR_ERR_IO, "cannot open %s '%s': %s", what, path, strerror(errno));
	struct stat st;
	rr_status status = RR_OK;
	if (fstat(fd, &st) != 0)
		status =
		    rr__fail(RR_ERR_IO, "cannot read %s '%s': %s", what, path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		status = rr__fail(RR_ERR_IO, "'%s' is %s; expected a %s (a regular file)", path,
		                  file_kind(st.st_mode), what);
	else if ((uint64_t)st.st_size > limit)
		status = rr__fail(RR_ERR_INVALID_ARG,
		                  "%s '%s' has %lld bytes, over the limit of %zu bytes", what, path,
		                  (long long)st.st_size, limit);
	rr__buf buf = {0};
	if (status == RR_OK && fcntl(fd, F_SETFL, 0) != 0)
		status = rr__fail(RR_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
	if (status == RR_OK)
		status = read_bounded(fd, path, limit, what, &buf);
	close(fd);
	if (status == RR_OK && !buf.data && !(buf.data = calloc(1, 1)))
		status = rr__fail(RR_ERR_NOMEM, "out of memory reading '%s'", path);
	if (status != RR_OK) {
		rr__buf_free(&buf);
		return status;
	}
	*data = buf.data;
	*size = buf.length;
	return RR_OK;
}

rr_status rr__mkdir_p(const char *path)
{
	return rr__mkdir_p_mode(path, 0755);
}

rr_status rr__mkdir_p_mode(const char *path, unsigned mode)
{
	char partial[4096];
	size_t length = strlen(path);
	if (length == 0 || length >= sizeof partial)
		return rr__fail(RR_ERR_INVALID_ARG, "folder path '%s' is empty or too long", path);
	memcpy(partial, path, length + 1);
	for (size_t i = 1; i <= length; i++) {
		if (partial[i] != '/' && partial[i] != 0)
			continue;
		char saved = partial[i];
		partial[i] = 0;
		if (mkdir(partial, (mode_t)mode) != 0 && errno != EEXIST)
			return rr__fail(RR_ERR_IO, "cannot create folder '%s': %s", partial,
			                strerror(errno));
		partial[i] = saved;
	}
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return rr__fail(RR_ERR_IO, "'%s' exists and is not a folder", path);
	return RR_OK;
}

double rr__now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
