/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replies: composing the ones that are due, the policies (reply mode
 * per list, reply.rfc, reply.ignore, rate limits), and delivering them
 * (outbox: a maildir; smtp: libcurl through net.h) under a state
 * machine in the replies table that never mails the same version and
 * outcome twice:
 *
 *	(due) -> queued -> sending -> sent
 *	                          \-> queued (transient failure: later, backing off)
 *	                          \-> failed (refused, or out of attempts)
 *	(due) -> skipped (reply mode off, RFC, author ignored: never mailed)
 *
 * A reply is composed once and stored (mail text and Message-ID) before
 * any attempt, and UNIQUE (version, kind) keeps a second one out; every
 * attempt sends the stored bytes.  A reply found in "sending" was
 * interrupted (crash) between handing the mail over and recording it:
 * an outbox reply is sent when its file is not in the maildir (the
 * same file name, so never two files); an smtp reply is marked sent
 * when its Message-ID has arrived in the database from the list
 * archive, otherwise it waits reply.indoubt for that and is then sent
 * again with the same Message-ID, which list archives deduplicate.
 * Only one process delivers at a time (a lock file next to the
 * database).
 *
 * For tests, LOREBOT_TEST_CRASH=sending (after "sending" is recorded,
 * before the mail is handed over) or =sent (after it was handed over,
 * before "sent" is recorded) makes the process kill itself with
 * SIGKILL at that point.
 */
#ifndef LOREBOT_REPLY_H
#define LOREBOT_REPLY_H

#include <json-c/json.h>

#include "bot/report/report.h"

struct reply_run_opts {
	const char *series;	/* only this series (id) or version (id); NULL: all */
	const char *outbox;	/* file every new reply into this maildir */
	bool dry_run;		/* compose and print into dry; record and send nothing */
	bool no_send;		/* compose and queue, deliver nothing (daemon: later) */
	bool wait;		/* wait (at most reply.wait) for retries in this run */
	struct report_opts report;
};

struct reply_summary {
	int composed;		/* new replies this run */
	int sent, failed, skipped, deferred, queued, errors;
	json_object *replies;	/* the rows touched, as reply_row_json() */
	struct strbuf dry;	/* --dry-run: the mails, as an mbox */
};

void reply_summary_init(struct reply_summary *s);
void reply_summary_release(struct reply_summary *s);

/*
 * Compose and queue every reply that is due, then deliver what is
 * queued (unless no_send).  The daemon calls this after each verdict.
 * 0 when everything went as the policies say (a reply that failed to
 * be delivered is counted in sum->failed, not an error); -1 with err
 * for errors of the database or the configuration.
 */
int reply_run(struct store *st, const struct reply_run_opts *o,
	      struct reply_summary *sum, struct strbuf *err);

/*
 * Answers to lorebot's mails (bot/report/reply-answers.c): the commands of the
 * messages fetched since the last scan that answer one of its replies,
 * each recorded with what came of it; the retests made, for the caller
 * to plan
 */
struct reply_answer {
	char *msgid, *sender;
	char *command;		/* "invalid 3a9c01d2 not a leak" */
	bool done;
	char *why;		/* what was done, or why not */
};

struct reply_answers {
	struct reply_answer *v;
	size_t nr, alloc;
	char **retested;	/* version ids queued to be tested again */
	size_t nr_retested, alloc_retested;
};

/* 0, or -1 with err (nothing recorded then) */
int reply_answers_scan(struct store *st, const struct config *cfg, int64_t now,
		       struct reply_answers *out, struct strbuf *err);
void reply_answers_release(struct reply_answers *a);

/* A row as the API and lorebot reply --json show it ("report": its page, /r/<report>) */
json_object *reply_row_json(const struct reply_row *r, bool with_mail);

#endif
