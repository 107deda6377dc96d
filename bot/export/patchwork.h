/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Patchwork checks: each version's verdicts (bot/report/pcheck.h) posted to a
 * patchwork instance ([patchwork] url, project, tokenfile) as one check
 * per patch and context, through its REST API 1.3:
 *
 *	GET  <url>/api/1.3/patches/?project=P&msgid=M    the patch's id
 *	POST <url>/api/1.3/patches/<id>/checks/          the check
 *	     {"state", "target_url", "context", "description"}
 *	     Authorization: Token <token>
 *	GET  <url>/api/1.3/patches/<id>/checks/?context=C  (after a crash)
 *
 * A check is planned (stored, state queued) once its stage has ended, in
 * the transaction that records the stage's result, and then moves
 * queued -> sending -> sent, or back to queued after a transient failure
 * (the patch not on patchwork yet, a server error: patchwork.retrydelay
 * doubling, at most patchwork.attempts), or failed (refused: 4xx).  A
 * check found in "sending" was interrupted between the POST and its
 * record: it is sent again only if patchwork does not list it already
 * (same context, state and description), so none is posted twice, even
 * across a kill -9.  One process delivers at a time (a lock file beside
 * the database); the daemon's job runners deliver after each stage, and
 * the daemon runs `lorebot patchwork` while some are due.
 *
 * For tests, LOREBOT_TEST_CRASH=pw-sending (after "sending" is recorded)
 * or =pw-sent (after patchwork answered, before "sent" is recorded)
 * kills the process with SIGKILL.
 */
#ifndef LOREBOT_PATCHWORK_H
#define LOREBOT_PATCHWORK_H

#include <json-c/json.h>

#include "bot/report/report.h"

/* Is [patchwork] url set (and so the checks to be posted)? */
bool patchwork_enabled(const struct config *cfg);

/*
 * Store the checks of version that are due and not stored yet (those of
 * the stages that ended; "pending" ones with patchwork.pending), in the
 * current transaction.  o gives the archs and boots.  The number stored,
 * or -1 with err.
 */
int patchwork_plan(struct store *st, const struct report_opts *o, const char *version,
		   struct strbuf *err);

struct patchwork_summary {
	int sent, queued, failed, deferred;
	json_object *checks;	/* the rows touched: {id, version, patch, context, state,
				 * status, reason, pw_patch, pw_check} */
};

void patchwork_summary_init(struct patchwork_summary *s);
void patchwork_summary_release(struct patchwork_summary *s);

/*
 * Post what is due (of version only, or all when NULL).  0 when every
 * due check was handled (a refused one is counted failed), 1 when
 * another process holds the delivery lock, -1 with err when the
 * configuration or the database failed.
 */
int patchwork_deliver(struct store *st, const struct config *cfg, const char *version,
		      struct patchwork_summary *sum, struct strbuf *err);

/* How many checks are due now (queued or sending, next attempt passed); -1 */
int64_t patchwork_due(struct store *st, int64_t now);

#endif
