/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results table (bot/store/store-results.c): a stage's result
 * documents recorded as rows, loaded, and the plan a version's rows give.
 * The result types are bot/results/results.h's, below the store.
 */
#ifndef LOREBOT_STORE_RESULTS_H
#define LOREBOT_STORE_RESULTS_H

#include "bot/results/results.h"
#include "bot/store/store.h"

struct db;
struct store;

/*
 * A stage's result document as the rows it is recorded in, for
 * stage_record(), which sums each up before store_results_insert(): for
 * build and boot, doc is a contract document with "archs" (each arch
 * becomes a row; with arch set, only that one, which must be there) or
 * a single arch object.  0, or -EINVAL when the stage records no result
 * or the document is not of the contract; err says why.  The rows are
 * added to rows (release with store_results_release()).
 */
int store_results_split(enum stage stage, const char *arch, json_object *doc,
			struct results *rows, struct strbuf *err);
/*
 * Record the summed-up rows of a stage's result for version (a version
 * id, with or without <>), replacing an earlier result of the same
 * version, stage and arch.  Returns the number of rows recorded, -EINVAL
 * when the version is unknown, -EIO when the database failed; err says
 * why.  Runs in a transaction of its own unless one is open, with the
 * store's hook (struct store_hook) before it commits.
 */
int store_results_insert(struct store *st, const char *version, const struct results *rows,
			 struct strbuf *err);

enum results_load_flags {
	/* status, summary, counts only: doc is NULL, but for apply {"base": ...} */
	RESULTS_NO_DOCS = 1 << 0,
};

/* Every result of a version, in stage then arch order */
int store_results_load(struct store *st, const char *version, unsigned int flags,
		       struct results *rs, struct strbuf *err);
/* The result of a stage (and arch, "" or NULL when not per arch), or NULL */
const struct result *store_results_find(const struct results *rs,
					enum stage stage, const char *arch);
/* Count of results of a stage */
size_t store_results_count(const struct results *rs, enum stage stage);
void store_results_release(struct results *rs);

/* What the version still needs (bot/results/plan.h), from these results */
void store_results_plan(const struct results *rs, const struct plan_cfg *c, struct plan *p);

/* {"apply": {...}|null, "check": ..., "build": {"<arch>": {...}}, "boot": ...} */
json_object *store_results_to_json(const struct results *rs);

/* Does the database have the results tables (an old read-only file may not)? */
bool store_results_available(struct db *db);
/* The same, asked once per store (a dashboard page asks for every row) */
bool store_has_results(struct store *st);

#endif
