/* The database key of a workload on a device, and the lookup the planner and `--plan auto|tuned`
 * use: a record is reused only when every field of its key matches (a mismatch is a miss). */
#include <string.h>
#include <sys/stat.h>

#include "tune/tune.h"

const char *rr__tune_default_objective(const rr_device *device)
{
	return device->ops->event_create ? "gpu" : "wall";
}

rr_status rr__tune_key_make(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                            int64_t rows, int64_t cols, const char *objective, rr__tune_key *key)
{
	memset(key, 0, sizeof *key);
	rr__device_properties props;
	memset(&props, 0, sizeof props);
	if (device->ops->properties) {
		rr_status status = device->ops->properties(device, &props);
		if (status != RR_OK)
			return rr__fail_context(status, "cannot read the device's identity for the "
			                                "tuning database");
	}
	snprintf(key->backend, sizeof key->backend, "%s", device->ops->name);
	snprintf(key->device_uuid, sizeof key->device_uuid, "%s", props.uuid);
	snprintf(key->device_name, sizeof key->device_name, "%.127s",
	         props.name[0] ? props.name : device->name);
	snprintf(key->compute_capability, sizeof key->compute_capability, "%d.%d", props.cc_major,
	         props.cc_minor);
	snprintf(key->driver, sizeof key->driver, "%s", props.driver_version);
	snprintf(key->compiler, sizeof key->compiler, "%s", props.compiler_version);
	/* The commit too: generated code changes between commits of one version. */
	snprintf(key->rowreduce_version, sizeof key->rowreduce_version, "%s+%s", rr_version(),
	         rr_git_commit());
	snprintf(key->kernel_hash, sizeof key->kernel_hash, "%s", rr_kernel_source_hash(kernel));
	snprintf(key->kernel, sizeof key->kernel, "%s", rr_kernel_name(kernel));
	snprintf(key->dtype, sizeof key->dtype, "%s", rr_dtype_name(dtype));
	key->rows = rows;
	key->cols = cols;
	snprintf(key->objective, sizeof key->objective, "%s",
	         objective ? objective : rr__tune_default_objective(device));
	return RR_OK;
}

rr_status rr_tune_lookup(rr_device *device, const rr_kernel *kernel, rr_dtype dtype, int64_t rows,
                         int64_t cols, const char *objective, const char *db_path, rr_layout *out,
                         int *hit)
{
	if (!device || !kernel || !out || !hit)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_tune_lookup: NULL argument");
	*hit = 0;
	char path[4096];
	if (db_path && db_path[0])
		snprintf(path, sizeof path, "%s", db_path);
	else
		rr_tune_db_default_path(path, sizeof path);
	struct stat info;
	if (stat(path, &info) != 0 || rows < 1)
		return RR_OK; /* no database yet, or no M to key on: a miss */
	rr__tune_key key;
	rr_status status = rr__tune_key_make(device, kernel, dtype, rows, cols, objective, &key);
	rr_tune_db *db = NULL;
	if (status == RR_OK)
		status = rr_tune_db_open(path, 0, &db);
	rr__tune_record record;
	if (status == RR_OK)
		status = rr__tune_db_get(db, &key, &record, hit);
	rr_tune_db_close(db);
	if (status == RR_OK && *hit && rr_layout_parse(record.plan, out) != RR_OK) {
		*hit = 0;
		return rr__fail(RR_ERR_IO, "the tuning database '%s' holds an unreadable plan '%s'",
		                path, record.plan);
	}
	return status;
}

rr_status rr_tune_db_check(const char *path)
{
	char resolved[4096];
	if (path && path[0])
		snprintf(resolved, sizeof resolved, "%s", path);
	else
		rr_tune_db_default_path(resolved, sizeof resolved);
	struct stat info;
	if (stat(resolved, &info) != 0)
		return RR_OK;
	rr_tune_db *db = NULL;
	rr_status status = rr_tune_db_open(resolved, 0, &db);
	rr_tune_db_close(db);
	return status;
}

/* The planner's door (program.c): a fully automatic request on an opened device asks the
 * database first. */
rr_status rr__tune_auto_layout(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                               int64_t rows_hint, int64_t cols, const rr_layout *requested,
                               rr_layout *out, int *hit)
{
	*hit = 0;
	if (requested && (requested->workers_per_row || requested->vec || requested->unroll ||
	                  requested->rows_per_group || requested->blocks_per_row ||
	                  requested->storage || requested->grid))
		return RR_OK;
	if (!device || !device->impl)
		return RR_OK;
	return rr_tune_lookup(device, kernel, dtype, rows_hint, cols, NULL, NULL, out, hit);
}
