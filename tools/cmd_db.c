/* rowreduce db: look at and move the tuning database (list, show, export, import, clear). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "rowreduce.h"
#include "rowreduce_tune.h"

static void usage(FILE *out)
{
	char path[4096];
	rr_tune_db_default_path(path, sizeof path);
	fprintf(
	    out,
	    "usage: rowreduce db list|show [KERNEL] [--db FILE]\n"
	    "       rowreduce db export FILE [--db FILE]\n"
	    "       rowreduce db import FILE [--db FILE]\n"
	    "       rowreduce db clear [--db FILE]\n"
	    "\n"
	    "  list    one line per record: kernel, dtype, shape, objective, plan, time, regret,\n"
	    "          device\n"
	    "  show    every field of every record (of KERNEL when given) as JSON\n"
	    "  export  all records to FILE as JSON, written atomically\n"
	    "  import  the records of an exported FILE, in one transaction (a record with the\n"
	    "          same key is replaced; a bad file changes nothing)\n"
	    "  clear   delete every record\n"
	    "\n"
	    "The database is --db FILE, else $RR_TUNING_DB, else ~/.cache/rowreduce/\n"
	    "tuning.sqlite (now: %s).\n"
	    "\n"
	    "--plan auto uses a record whose key matches, else the cost model with the\n"
	    "coefficients fitted for the device class (src/plan/coeffs, from tune results by\n"
	    "rowreduce tune --fit; the database is not read by the fit). A record's regret is that\n"
	    "of the model built in when it was tuned. Processes of one host may write one\n"
	    "database at once (WAL); keep it on a local disk, and merge the databases of\n"
	    "several hosts with export and import (README, \"Beyond one host\").\n"
	    "\n"
	    "exit status: 0 success, 2 bad usage, or a database or file that cannot be used\n"
	    "(damaged, newer schema, read-only location)\n",
	    path);
}

static int fail(void)
{
	return rr_tool_fail(2, "%s", rr_last_error());
}

int rr_cmd_db(int argc, char **argv)
{
	if (rr_tool_wants_help(argc, argv) || argc < 2) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *action = argv[1], *db_path = NULL, *operand = NULL;
	for (int i = 2; i < argc; i++) {
		int missing = 0;
		const char *v = rr_tool_option_value(argc, argv, &i, "--db", &missing);
		if (missing)
			return rr_tool_fail(2, "--db needs a file");
		if (v)
			db_path = v;
		else if (!operand && argv[i][0] != '-')
			operand = argv[i];
		else
			return rr_tool_fail(2, "unexpected '%s' (see rowreduce db --help)",
			                    argv[i]);
	}
	int list = strcmp(action, "list") == 0, show = strcmp(action, "show") == 0;
	int writes = strcmp(action, "import") == 0 || strcmp(action, "clear") == 0;
	if (!list && !show && !writes && strcmp(action, "export") != 0)
		return rr_tool_fail(2,
		                    "unknown db action '%s': allowed are list, show, export, "
		                    "import, clear",
		                    action);
	if ((strcmp(action, "export") == 0 || strcmp(action, "import") == 0) && !operand)
		return rr_tool_fail(2, "db %s needs a FILE", action);
	if ((list || strcmp(action, "clear") == 0) && operand)
		return rr_tool_fail(2, "db %s takes no operand ('%s')", action, operand);
	rr_tune_db *db = NULL;
	if (rr_tune_db_open(db_path, writes, &db) != RR_OK)
		return fail();
	int count = 0;
	rr_status status;
	if (list || show)
		status = rr_tune_db_print(db, stdout, operand, show, &count);
	else if (strcmp(action, "export") == 0)
		status = rr_tune_db_export(db, operand, &count);
	else if (strcmp(action, "import") == 0)
		status = rr_tune_db_import(db, operand, &count);
	else
		status = rr_tune_db_clear(db, &count);
	if (status == RR_OK && !list && !show)
		printf("%s: %d records (%s)\n", action, count, rr_tune_db_path(db));
	else if (status == RR_OK && count == 0)
		printf("no records in %s\n", rr_tune_db_path(db));
	rr_tune_db_close(db);
	return status == RR_OK ? 0 : fail();
}
