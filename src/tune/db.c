/* The tuning database: one SQLite file in WAL mode, shared by concurrent tuning processes
 * (a busy timeout, single-statement writes). A file this build cannot vouch for (damaged, a
 * newer schema, not ours) is refused with a sentence and never written. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tune/tune.h"

#define BUSY_TIMEOUT_MS 30000

struct rr_tune_db {
	sqlite3 *sql;
	char path[4096];
	int writable;
};

static const char *const KEY_COLUMNS =
    "backend, device_uuid, device_name, compute_capability, driver, compiler, "
    "rowreduce_version, kernel_hash, kernel, dtype, m, n, objective";

static const char *const CREATE_SQL =
    "CREATE TABLE tuned ("
    " backend TEXT NOT NULL, device_uuid TEXT NOT NULL, device_name TEXT NOT NULL,"
    " compute_capability TEXT NOT NULL, driver TEXT NOT NULL, compiler TEXT NOT NULL,"
    " rowreduce_version TEXT NOT NULL, kernel_hash TEXT NOT NULL, kernel TEXT NOT NULL,"
    " dtype TEXT NOT NULL, m INTEGER NOT NULL, n INTEGER NOT NULL, objective TEXT NOT NULL,"
    " plan TEXT NOT NULL, best_us REAL NOT NULL, model_plan TEXT NOT NULL, regret REAL,"
    " candidates INTEGER, measured INTEGER, rejected INTEGER, decision TEXT, tuned_at TEXT,"
    " host TEXT,"
    " PRIMARY KEY (backend, device_uuid, device_name, compute_capability, driver, compiler,"
    "  rowreduce_version, kernel_hash, dtype, m, n, objective));";

void rr_tune_db_default_path(char *buf, size_t size)
{
	const char *env = getenv("RR_TUNING_DB");
	const char *home = getenv("HOME");
	if (env && env[0])
		snprintf(buf, size, "%s", env);
	else
		snprintf(buf, size, "%s/.cache/rowreduce/tuning.sqlite",
		         home && home[0] ? home : "/tmp");
}

const char *rr_tune_db_path(const rr_tune_db *db)
{
	return db ? db->path : "";
}

void rr_tune_db_close(rr_tune_db *db)
{
	if (!db)
		return;
	sqlite3_close(db->sql);
	free(db);
}

static rr_status refuse(rr_tune_db *db, const char *what)
{
	rr_status status =
	    rr__fail(RR_ERR_IO,
	             "the tuning database '%s' %s; it was left as it is (move it away, "
	             "or point RR_TUNING_DB at another file)",
	             db->path, what);
	rr_tune_db_close(db);
	return status;
}

static int query_int(sqlite3 *sql, const char *text, int *value)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(sql, text, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*value = sqlite3_column_int(st, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* The folder must exist and take files: a read-only location is an error before SQLite sees it
 * (SQLite would otherwise fall back to read-only or fail later, mid-run). */
static rr_status prepare_folder(const char *path)
{
	char folder[4096];
	snprintf(folder, sizeof folder, "%s", path);
	char *slash = strrchr(folder, '/');
	if (!slash)
		snprintf(folder, sizeof folder, ".");
	else if (slash == folder)
		slash[1] = 0;
	else
		*slash = 0;
	if (rr__mkdir_p(folder) != RR_OK)
		return rr__fail_context(
		    RR_ERR_IO, "cannot create the folder of the tuning database '%s'", path);
	if (access(folder, W_OK) != 0)
		return rr__fail(RR_ERR_IO,
		                "the folder '%s' of the tuning database is not writable (%s); set "
		                "RR_TUNING_DB to a file in a writable folder",
		                folder, strerror(errno));
	return RR_OK;
}

/* Checks an opened file: readable, not damaged, our schema or empty. Creates the table in an
 * empty writable file (inside one transaction, so two processes creating it at once agree). */
static rr_status check_schema(rr_tune_db *db)
{
	char what[512];
	int version = 0, tables = 0, ok = 0;
	int rc = query_int(db->sql, "PRAGMA user_version", &version);
	if (rc == SQLITE_OK)
		rc = query_int(db->sql, "SELECT count(*) FROM sqlite_master", &tables);
	if (rc == SQLITE_OK)
		rc = query_int(db->sql, "SELECT quick_check = 'ok' FROM pragma_quick_check", &ok);
	if (rc != SQLITE_OK || (tables > 0 && !ok)) {
		snprintf(what, sizeof what, "is damaged or not a SQLite file (%s)",
		         rc != SQLITE_OK ? sqlite3_errstr(rc) : "integrity check failed");
		return refuse(db, what);
	}
	if (version > RR_TUNE_DB_SCHEMA) {
		snprintf(what, sizeof what,
		         "was written by a newer rowreduce (schema %d; this build reads schema %d)",
		         version, RR_TUNE_DB_SCHEMA);
		return refuse(db, what);
	}
	if (version == 0 && tables > 0)
		return refuse(db, "holds tables but no rowreduce schema version: it is not a "
		                  "rowreduce tuning database");
	if (version == RR_TUNE_DB_SCHEMA || !db->writable)
		return RR_OK;
	rc = sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = query_int(db->sql, "PRAGMA user_version", &version);
	if (rc == SQLITE_OK && version == 0) {
		char text[1200];
		snprintf(text, sizeof text, "%s PRAGMA user_version = %d;", CREATE_SQL,
		         RR_TUNE_DB_SCHEMA);
		rc = sqlite3_exec(db->sql, text, NULL, NULL, NULL);
	}
	rc = rc == SQLITE_OK ? sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) : rc;
	if (rc != SQLITE_OK) {
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		snprintf(what, sizeof what, "could not be initialised (%s)",
		         sqlite3_errmsg(db->sql));
		return refuse(db, what);
	}
	return RR_OK;
}

rr_status rr_tune_db_open(const char *path, int writable, rr_tune_db **out)
{
	*out = NULL;
	rr_tune_db *db = calloc(1, sizeof *db);
	if (!db)
		return rr__fail(RR_ERR_NOMEM, "out of memory opening the tuning database");
	if (path && path[0])
		snprintf(db->path, sizeof db->path, "%s", path);
	else
		rr_tune_db_default_path(db->path, sizeof db->path);
	db->writable = writable;
	struct stat info;
	int exists = stat(db->path, &info) == 0;
	if (!writable && !exists) {
		rr_status status = rr__fail(
		    RR_ERR_IO, "no tuning database at '%s' (rowreduce tune creates it)", db->path);
		free(db);
		return status;
	}
	if (exists && !S_ISREG(info.st_mode)) {
		rr_status status =
		    rr__fail(RR_ERR_IO, "the tuning database '%s' is not a regular file", db->path);
		free(db);
		return status;
	}
	if (writable) {
		rr_status status = prepare_folder(db->path);
		if (status == RR_OK && exists && access(db->path, W_OK) != 0)
			status = rr__fail(RR_ERR_IO, "the tuning database '%s' is read-only (%s)",
			                  db->path, strerror(errno));
		if (status != RR_OK) {
			free(db);
			return status;
		}
	}
	int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	int rc = sqlite3_open_v2(db->path, &db->sql, flags | SQLITE_OPEN_FULLMUTEX, NULL);
	if (rc != SQLITE_OK) {
		char what[300];
		snprintf(what, sizeof what, "cannot be opened (%s)", sqlite3_errstr(rc));
		return refuse(db, what);
	}
	sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS);
	rr_status status = check_schema(db);
	if (status != RR_OK)
		return status;
	if (writable &&
	    sqlite3_exec(db->sql, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK) {
		char what[300];
		snprintf(what, sizeof what, "cannot be put in WAL mode (%s)",
		         sqlite3_errmsg(db->sql));
		return refuse(db, what);
	}
	*out = db;
	return RR_OK;
}

/* ---------------------------------------------------------------- records */

static void bind_key(sqlite3_stmt *st, const rr__tune_key *k)
{
	const char *text[] = {
	    k->backend, k->device_uuid, k->device_name,       k->compute_capability,
	    k->driver,  k->compiler,    k->rowreduce_version, k->kernel_hash,
	    k->kernel,  k->dtype};
	for (int i = 0; i < 10; i++)
		sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 11, k->rows);
	sqlite3_bind_int64(st, 12, k->cols);
	sqlite3_bind_text(st, 13, k->objective, -1, SQLITE_TRANSIENT);
}

static void column_text(sqlite3_stmt *st, int i, char *out, size_t size)
{
	const unsigned char *text = sqlite3_column_text(st, i);
	snprintf(out, size, "%s", text ? (const char *)text : "");
}

static void read_record(sqlite3_stmt *st, rr__tune_record *r)
{
	memset(r, 0, sizeof *r);
	rr__tune_key *k = &r->key;
	column_text(st, 0, k->backend, sizeof k->backend);
	column_text(st, 1, k->device_uuid, sizeof k->device_uuid);
	column_text(st, 2, k->device_name, sizeof k->device_name);
	column_text(st, 3, k->compute_capability, sizeof k->compute_capability);
	column_text(st, 4, k->driver, sizeof k->driver);
	column_text(st, 5, k->compiler, sizeof k->compiler);
	column_text(st, 6, k->rowreduce_version, sizeof k->rowreduce_version);
	column_text(st, 7, k->kernel_hash, sizeof k->kernel_hash);
	column_text(st, 8, k->kernel, sizeof k->kernel);
	column_text(st, 9, k->dtype, sizeof k->dtype);
	k->rows = sqlite3_column_int64(st, 10);
	k->cols = sqlite3_column_int64(st, 11);
	column_text(st, 12, k->objective, sizeof k->objective);
	column_text(st, 13, r->plan, sizeof r->plan);
	r->best_us = sqlite3_column_double(st, 14);
	column_text(st, 15, r->model_plan, sizeof r->model_plan);
	/* NULL: the model's pick was rejected, so there is no regret to report. */
	r->regret =
	    sqlite3_column_type(st, 16) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 16);
	r->candidates = sqlite3_column_int(st, 17);
	r->measured = sqlite3_column_int(st, 18);
	r->rejected = sqlite3_column_int(st, 19);
	column_text(st, 20, r->decision, sizeof r->decision);
	column_text(st, 21, r->tuned_at, sizeof r->tuned_at);
	column_text(st, 22, r->host, sizeof r->host);
}

#define RECORD_COLUMNS                                                                             \
	"plan, best_us, model_plan, regret, candidates, measured, rejected, decision, tuned_at, "  \
	"host"

static rr_status sql_error(rr_tune_db *db, const char *doing)
{
	return rr__fail(RR_ERR_IO, "tuning database '%s': %s failed: %s", db->path, doing,
	                sqlite3_errmsg(db->sql));
}

rr_status rr__tune_db_get(rr_tune_db *db, const rr__tune_key *key, rr__tune_record *record,
                          int *found)
{
	char text[1024];
	snprintf(text, sizeof text,
	         "SELECT %s, " RECORD_COLUMNS " FROM tuned WHERE backend = ?1 AND device_uuid = ?2 "
	         "AND device_name = ?3 AND compute_capability = ?4 AND driver = ?5 AND compiler = "
	         "?6 AND rowreduce_version = ?7 AND kernel_hash = ?8 AND kernel = ?9 AND dtype = "
	         "?10 AND m = ?11 AND n = ?12 AND objective = ?13",
	         KEY_COLUMNS);
	sqlite3_stmt *st = NULL;
	*found = 0;
	if (sqlite3_prepare_v2(db->sql, text, -1, &st, NULL) != SQLITE_OK)
		return sql_error(db, "a lookup");
	bind_key(st, key);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_record(st, record);
		*found = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? RR_OK : sql_error(db, "a lookup");
}

rr_status rr__tune_db_put(rr_tune_db *db, const rr__tune_record *r)
{
	char text[1024];
	snprintf(text, sizeof text,
	         "INSERT OR REPLACE INTO tuned (%s, " RECORD_COLUMNS
	         ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
	         "?17, ?18, ?19, ?20, ?21, ?22, ?23)",
	         KEY_COLUMNS);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->sql, text, -1, &st, NULL) != SQLITE_OK)
		return sql_error(db, "storing a record");
	bind_key(st, &r->key);
	sqlite3_bind_text(st, 14, r->plan, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 15, r->best_us);
	sqlite3_bind_text(st, 16, r->model_plan, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 17, r->regret);
	sqlite3_bind_int(st, 18, r->candidates);
	sqlite3_bind_int(st, 19, r->measured);
	sqlite3_bind_int(st, 20, r->rejected);
	sqlite3_bind_text(st, 21, r->decision, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 22, r->tuned_at, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 23, r->host, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? RR_OK : sql_error(db, "storing a record");
}

rr_status rr__tune_db_each(rr_tune_db *db, int (*fn)(const rr__tune_record *, void *), void *ctx)
{
	char text[512];
	snprintf(text, sizeof text,
	         "SELECT %s, " RECORD_COLUMNS " FROM tuned ORDER BY kernel, dtype, m, n, objective",
	         KEY_COLUMNS);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->sql, text, -1, &st, NULL) != SQLITE_OK)
		return sql_error(db, "reading the records");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rr__tune_record record;
		read_record(st, &record);
		if (fn(&record, ctx))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? RR_OK : sql_error(db, "reading the records");
}

rr_status rr_tune_db_clear(rr_tune_db *db, int *count)
{
	*count = 0;
	if (sqlite3_exec(db->sql, "DELETE FROM tuned", NULL, NULL, NULL) != SQLITE_OK)
		return sql_error(db, "clearing");
	*count = sqlite3_changes(db->sql);
	return RR_OK;
}

/* Import is one transaction: a bad record leaves the database as it was. */
rr_status rr__tune_db_put_all(rr_tune_db *db, const rr__tune_record *records, int n)
{
	if (sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return sql_error(db, "starting an import");
	for (int i = 0; i < n; i++) {
		rr_status status = rr__tune_db_put(db, &records[i]);
		if (status != RR_OK) {
			sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
			return status;
		}
	}
	if (sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return sql_error(db, "committing an import");
	return RR_OK;
}
