/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stages a series version goes through, as one table that the
 * daemon's pipeline, the job runner, the dashboard's state and the reply
 * logic all read:
 *
 *	apply -> check
 *	      -> build <arch> -> boot <arch>	(when it applied; boot when built)
 *	every other stage ended -> reply
 *
 * A stage is a descriptor, struct stage_ops, in a file of its own
 * (bot/stage/stage-<name>.c), and a row of STAGE_LIST() (bot/results/plan.h, with the
 * descriptor's type, below the store and the reports that read it
 * through plan_stage() once stage_register() gave them this table):
 * whether it is per arch, heavy (limited by daemon.builds) or light,
 * which stage it follows and on which of that stage's results, the lorebot command the
 * job runner runs for it, the contract of its document and how it is
 * summed up, the statuses it may have, what the dashboard and a reply
 * show of it.  Adding a stage (sparse, kunit) is that file, that row and
 * its command: doc/technical/stage.md.
 *
 * What a version still needs is derived from its stored results alone
 * (plan_make()): a stage is done when its result is recorded, whatever
 * the status (an infrastructure failure is a result too, "infra"), so
 * no crash between recording and scheduling can lose a stage.
 */
#ifndef LOREBOT_STAGE_H
#define LOREBOT_STAGE_H

#include "bot/results/plan.h"
#include "bot/store/store-results.h"

struct store;

#define STAGE_DECL_(c, n) extern const struct stage_ops stage_##n;
STAGE_LIST(STAGE_DECL_)
#undef STAGE_DECL_

/* The table's descriptors, by enum stage */
extern const struct stage_ops *const stages[STAGE_NR];

/*
 * Register the table with the layers below (plan_register()): before
 * anything reads a stage (main(), a unit test that needs stages)
 */
void stage_register(void);

/*
 * Check one stage document (for build and boot: one arch object)
 * against the contract of its stage (keys, status_required) and sum it
 * up with its summarise() into r: status, summary, count of findings
 * (doc is not taken).  0, or -1 with what is wrong in err.
 */
int stage_summarise(enum stage stage, struct json_object *doc, struct result *r,
		    struct strbuf *err);
/*
 * Record what a stage found for version: the document split into its
 * rows (store_results_split()), each summed up (stage_summarise()),
 * then stored (store_results_insert()), replacing an earlier result of
 * the same version, stage and arch.  The number of rows recorded,
 * -EINVAL when the version is unknown or the document is not of the
 * contract, -EIO when the database failed; err says why.
 */
int stage_record(struct store *st, const char *version, enum stage stage,
		 const char *arch, struct json_object *doc, struct strbuf *err);

#endif
