/* The tuning database and the worker pool: a record round-trips; changing any one key field is a
 * miss; export then import restores every record; files this build cannot vouch for are refused
 * and left byte for byte; a worker that dies mid-item loses nothing. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tune/tune.h"

static char folder[] = "/tmp/rr-test-tune-XXXXXX";

static rr__tune_record sample_record(void)
{
	rr__tune_record r;
	memset(&r, 0, sizeof r);
	rr__tune_key *k = &r.key;
	snprintf(k->backend, sizeof k->backend, "cuda");
	snprintf(k->device_uuid, sizeof k->device_uuid, "GPU-1234");
	snprintf(k->device_name, sizeof k->device_name, "NVIDIA H200");
	snprintf(k->compute_capability, sizeof k->compute_capability, "9.0");
	snprintf(k->driver, sizeof k->driver, "580.1");
	snprintf(k->compiler, sizeof k->compiler, "NVRTC 13.0");
	snprintf(k->rowreduce_version, sizeof k->rowreduce_version, "0.1.0+abc");
	snprintf(k->kernel_hash, sizeof k->kernel_hash, "%064d", 7);
	snprintf(k->kernel, sizeof k->kernel, "rmsnorm");
	snprintf(k->dtype, sizeof k->dtype, "bf16");
	k->rows = 4096;
	k->cols = 8192;
	snprintf(k->objective, sizeof k->objective, "gpu");
	snprintf(r.plan, sizeof r.plan, "W=256,V=8,U=1,R=1,C=1,S=regs,G=rows");
	snprintf(r.model_plan, sizeof r.model_plan, "W=128,V=8,U=1,R=1,C=1,S=regs,G=rows");
	r.best_us = 12.5;
	r.regret = 0.031;
	r.candidates = 40;
	r.measured = 8;
	return r;
}

static int found(rr_tune_db *db, const rr__tune_key *key)
{
	rr__tune_record out;
	int hit = -1;
	CHECK(rr__tune_db_get(db, key, &out, &hit) == RR_OK);
	return hit;
}

static void test_round_trip_and_misses(rr_tune_db *db)
{
	rr__tune_record r = sample_record();
	CHECK(rr__tune_db_put(db, &r) == RR_OK);
	rr__tune_record back;
	int hit = 0;
	CHECK(rr__tune_db_get(db, &r.key, &back, &hit) == RR_OK && hit);
	CHECK(strcmp(back.plan, r.plan) == 0 && back.best_us == r.best_us);
	CHECK(back.regret == r.regret && strcmp(back.model_plan, r.model_plan) == 0);
	/* Every text field of the key, changed alone, is a miss; so are M, N. */
	char *texts[] = {
	    r.key.backend, r.key.device_uuid, r.key.device_name,       r.key.compute_capability,
	    r.key.driver,  r.key.compiler,    r.key.rowreduce_version, r.key.kernel_hash,
	    r.key.dtype,   r.key.objective};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		char saved = texts[i][0];
		texts[i][0] = saved == 'x' ? 'y' : 'x';
		CHECKF(found(db, &r.key) == 0, "key field %zu changed is still a hit", i);
		texts[i][0] = saved;
	}
	r.key.rows++;
	CHECK(found(db, &r.key) == 0);
	r.key.rows--;
	r.key.cols++;
	CHECK(found(db, &r.key) == 0);
	r.key.cols--;
	CHECK(found(db, &r.key) == 1);
}

static void test_export_import(rr_tune_db *db)
{
	char path[128];
	snprintf(path, sizeof path, "%s/export.json", folder);
	rr__tune_record second = sample_record();
	second.key.rows = 1;
	CHECK(rr__tune_db_put(db, &second) == RR_OK);
	int count = 0;
	CHECK(rr_tune_db_export(db, path, &count) == RR_OK && count == 2);
	CHECK(rr_tune_db_clear(db, &count) == RR_OK && count == 2);
	CHECK(found(db, &second.key) == 0);
	CHECK(rr_tune_db_import(db, path, &count) == RR_OK && count == 2);
	CHECK(found(db, &second.key) == 1);
	/* A bad record anywhere changes nothing. */
	FILE *f = fopen(path, "w");
	fputs("{\"tuning_db_schema\": 1, \"records\": [{\"kernel\": 3}]}", f);
	fclose(f);
	CHECK(rr_tune_db_clear(db, &count) == RR_OK);
	CHECK(rr_tune_db_import(db, path, &count) != RR_OK && count == 0);
}

static char *slurp(const char *path, size_t *size)
{
	char *data = NULL;
	CHECK(rr__read_file(path, &data, size) == RR_OK);
	return data;
}

/* Opens `path` writable and read-only: both refused with `words`, the file unchanged. */
static void expect_refused(const char *path, const char *words)
{
	size_t before_size = 0, after_size = 0;
	char *before = slurp(path, &before_size);
	for (int writable = 0; writable < 2; writable++) {
		rr_tune_db *db = NULL;
		CHECK(rr_tune_db_open(path, writable, &db) == RR_ERR_IO && !db);
		CHECKF(strstr(rr_last_error(), words) != NULL, "'%s' lacks '%s'", rr_last_error(),
		       words);
	}
	char *after = slurp(path, &after_size);
	CHECK(before && after && before_size == after_size && !memcmp(before, after, after_size));
	free(before);
	free(after);
}

static void test_refusals(void)
{
	char path[128];
	sqlite3 *sql = NULL;
	snprintf(path, sizeof path, "%s/future.sqlite", folder);
	CHECK(sqlite3_open(path, &sql) == SQLITE_OK);
	CHECK(sqlite3_exec(sql, "CREATE TABLE t (a); PRAGMA user_version = 7;", 0, 0, 0) == 0);
	sqlite3_close(sql);
	expect_refused(path, "newer rowreduce (schema 7");
	snprintf(path, sizeof path, "%s/foreign.sqlite", folder);
	CHECK(sqlite3_open(path, &sql) == SQLITE_OK);
	CHECK(sqlite3_exec(sql, "CREATE TABLE t (a);", 0, 0, 0) == SQLITE_OK);
	sqlite3_close(sql);
	expect_refused(path, "not a rowreduce tuning database");
	snprintf(path, sizeof path, "%s/text.sqlite", folder);
	FILE *f = fopen(path, "w");
	fputs("this is a text file, long enough to be read as a database header.......", f);
	fclose(f);
	expect_refused(path, "damaged");
}

/* ---------------------------------------------------------------- workers */

static int worker_index = -1, items_done = 0;

static int open_worker(int worker, int ordinal, void *ctx)
{
	(void)ordinal;
	(void)ctx;
	worker_index = worker;
	return 0;
}

/* Worker 0 dies on its second item; every item leaves a marker file when done. */
static int work(int item, void *ctx)
{
	(void)ctx;
	if (worker_index == 0 && ++items_done == 2)
		_exit(9);
	char path[128];
	snprintf(path, sizeof path, "%s/item-%d", folder, item);
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
	usleep(20000);
	return f ? 0 : 1;
}

static int close_worker(int worker, void *ctx)
{
	(void)worker;
	(void)ctx;
	return 0;
}

static void test_workers(void)
{
	int ordinals[2] = {0, 0}, lost = -1;
	CHECK(rr__tune_workers_run(2, ordinals, 6, open_worker, work, close_worker, NULL, &lost) ==
	      RR_OK);
	CHECK(lost == 0);
	for (int i = 0; i < 6; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/item-%d", folder, i);
		CHECKF(access(path, F_OK) == 0, "item %d was never done", i);
	}
}

int main(void)
{
	CHECK(mkdtemp(folder) != NULL);
	char path[128];
	snprintf(path, sizeof path, "%s/sub/tuning.sqlite", folder);
	rr_tune_db *db = NULL;
	CHECK(rr_tune_db_open(path, 0, &db) == RR_ERR_IO); /* read-only: a missing file */
	CHECK(rr_tune_db_open(path, 1, &db) == RR_OK && db);
	if (db) {
		test_round_trip_and_misses(db);
		test_export_import(db);
		rr_tune_db_close(db);
	}
	test_refusals();
	test_workers();
	char command[160];
	snprintf(command, sizeof command, "rm -rf '%s'", folder);
	CHECK(system(command) == 0);
	return rr_test_finish("test_tune");
}
