/* The compile caches' safety: a folder only this user can write, and a SHA-256 digest file
 * beside every object, checked before the object is loaded, so a cut, damaged or swapped
 * object is rebuilt instead of crashing the loader or being used as if it were the built one. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

void rr__warn(const char *fmt, ...)
{
	char message[2048];
	va_list args;
	va_start(args, fmt);
	vsnprintf(message, sizeof message, fmt, args);
	va_end(args);
	fprintf(stderr, "rowreduce: %s\n", message);
}

rr_status rr__cache_dir_prepare(const char *dir, const char *what)
{
	/* Folders it creates are private to this user. */
	rr_status status = rr__mkdir_p_mode(dir, 0700);
	if (status != RR_OK)
		return rr__fail_context(status, "cannot create the %s (set RR_CACHE_DIR)", what);
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return rr__fail(RR_ERR_IO, "the %s '%s' is not a folder (set RR_CACHE_DIR)", what,
		                dir);
	if (st.st_uid != geteuid())
		return rr__fail(RR_ERR_IO,
		                "the %s '%s' belongs to user id %ld, not to this user (%ld): "
		                "compiled kernels are loaded only from a folder of your own "
		                "(set RR_CACHE_DIR to one)",
		                what, dir, (long)st.st_uid, (long)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return rr__fail(
		    RR_ERR_IO,
		    "the %s '%s' is writable by %s (mode %03o), so someone else could "
		    "replace the compiled kernels loaded from it: run chmod go-w '%s' "
		    "(and clear it), or set RR_CACHE_DIR to a folder only you can write",
		    what, dir, st.st_mode & S_IWOTH ? "others" : "its group",
		    (unsigned)(st.st_mode & 0777), dir);
	return RR_OK;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

rr_status rr__cache_digest_check(const char *path, const char digest[65])
{
	char digest_path[4400];
	snprintf(digest_path, sizeof digest_path, "%s.sha256", path);
	char *text = NULL;
	size_t size = 0;
	if (rr__read_regular_file(digest_path, 4096, "digest file", &text, &size) != RR_OK)
		return rr__fail(RR_ERR_IO, "has no readable digest file %s", digest_path);
	char recorded[65] = "";
	const char *name = base_name(path);
	size_t name_length = strlen(name);
	int well_formed = size == 64 + 2 + name_length + 1 && text[64] == ' ' && text[65] == ' ' &&
	                  text[size - 1] == '\n';
	if (size >= 64)
		snprintf(recorded, sizeof recorded, "%.64s", text);
	int same_name = well_formed && memcmp(text + 66, name, name_length) == 0;
	free(text);
	if (!well_formed)
		return rr__fail(RR_ERR_IO, "has a malformed digest file %s", digest_path);
	if (!same_name)
		return rr__fail(RR_ERR_IO, "has a digest file %s that names another object",
		                digest_path);
	if (strcmp(recorded, digest) != 0)
		return rr__fail(RR_ERR_IO,
		                "does not match its digest (sha256 %.12s... recorded, %.12s... "
		                "found)",
		                recorded, digest);
	return RR_OK;
}

rr_status rr__cache_object_check(const char *path, char digest[65])
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return rr__fail(RR_ERR_IO, "cannot be opened: %s", strerror(errno));
	struct stat st;
	int bad = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid();
	close(fd);
	if (bad)
		return rr__fail(RR_ERR_IO, "is not a regular file owned by this user");
	rr_status status = rr__sha256_file(path, digest);
	if (status != RR_OK)
		return status;
	return rr__cache_digest_check(path, digest);
}

rr_status rr__cache_digest_write(const char *path, const char digest[65])
{
	char digest_path[4400];
	snprintf(digest_path, sizeof digest_path, "%s.sha256", path);
	rr__buf text = {0};
	rr__buf_printf(&text, "%s  %s\n", digest, base_name(path));
	rr_status status = text.failed
	                       ? rr__fail(RR_ERR_NOMEM, "out of memory writing '%s'", digest_path)
	                       : rr__write_file_atomic(digest_path, text.data, text.length);
	rr__buf_free(&text);
	return status;
}

void rr__cache_remove(const char *path)
{
	char digest_path[4400];
	snprintf(digest_path, sizeof digest_path, "%s.sha256", path);
	unlink(path);
	unlink(digest_path);
}
