/* Replay and audit (DESIGN.md §7), internal side: reading a results.json back into the
 * measurement structures, the replay's own report (JSON tree and Markdown) and the statistics
 * both the replay and the audit compute from raw samples. Public door: rowreduce_replay.h. */
#ifndef RR_REPLAY_INTERNAL_H
#define RR_REPLAY_INTERNAL_H

#include <jansson.h>

#include "measure/measure.h"
#include "rowreduce_replay.h"

/* What wrote a results file: `rowreduce bench`, `rowreduce replay`, or the peers' script. */
typedef enum rr__results_kind {
	RR_RESULTS_BENCH = 0,
	RR_RESULTS_REPLAY,
	RR_RESULTS_PEERS,
	RR_RESULTS_TUNE /* rowreduce tune: a bench file with a "tuning" object and no results.md */
} rr__results_kind;

/* Parses a JSON file; a syntax error names path:line:column (RR_ERR_PARSE), a missing file
 * RR_ERR_IO. */
rr_status rr__json_read_file(const char *path, json_t **out);
/* The kind recorded in `kind` ("bench" when absent, the schema before replays; a tune run when a
 * "tuning" object is present). A tool other than rowreduce and rowreduce-peers, or an unknown
 * kind, is RR_ERR_PARSE. */
rr_status rr__results_kind_of(const json_t *root, rr__results_kind *kind);
/* Reads the common schema (docs/results-schema.md) into `results`, statistics as stored. Every
 * key is type-checked: a wrong or missing one fails (RR_ERR_PARSE) naming its JSON path, e.g.
 * "rows[3].phases.e2e.samples_us[2] is a string, expected a number". */
rr_status rr__results_from_json(const json_t *root, rr__results *results);
/* "rows[3] (softmax f32 64x4096)": how messages name a row. */
void rr__row_label(const rr__row_result *row, int index, char *out, size_t size);

/* ---------------------------------------------------------------- the replay's statistics */

/* Fills every statistic of a replay tree from its raw samples, in place: each side row's phase
 * median/min/max/tbps, round p50s and their median, each workload's paired per-round ratios,
 * their median and range, the bootstrap interval when the protocol asks for one, the verdict,
 * and the summary. The replay writes what this computes; verify recomputes it on a copy. */
rr_status rr__replay_summarize(json_t *root);
/* The replay's results.md text from a summarized tree. */
rr_status rr__replay_format_md(const json_t *root, rr__buf *buf);

#endif
