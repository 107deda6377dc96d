/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replies table (bot/store/store-replies.c): the replies bot/report/
 * composes, stored with their permanent record, and their transitions
 * (queued, sending, sent, skipped, failed).  The store keeps what a
 * composed reply says; composing it is bot/report/'s.
 */
#ifndef LOREBOT_STORE_REPLIES_H
#define LOREBOT_STORE_REPLIES_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/mail/mail-out.h"
#include "lib/strbuf.h"

struct store;

/* A file of a reply's permanent record (a .config, a log) */
struct report_file {
	char *name;
	struct strbuf data;
};

/* What the replies table keeps of a composed reply (struct reply_mail) */
struct store_reply {
	int patch;
	const char *msgid, *in_reply_to, *subject;	/* without <> */
	const struct mail_addrs *to, *cc;
	const struct strbuf *text;	/* the whole message */
	/* its permanent record (report-snap.c), or NULL */
	const char *report_id, *snapshot;
	const struct report_file *files;
	size_t nr_files;
};

/* Rows of the replies table */
struct reply_row {
	int64_t id;
	char *version, *kind, *msgid, *in_reply_to, *subject, *author;
	char *recipients;	/* JSON text */
	char *mode, *state, *reason;
	int patch, attempts;
	int64_t next_attempt, created, updated, sent;
	char *mail;		/* only when loaded with the mail */
	size_t mail_len;
};

struct reply_rows {
	struct reply_row *v;
	size_t nr, alloc;
};

/* The replies of a version (with their mail when with_mail), oldest first */
int store_replies_of_version(struct store *st, const char *version, bool with_mail,
			     struct reply_rows *rows, struct strbuf *err);
void store_reply_rows_release(struct reply_rows *rows);

int store_replies_exists(struct store *st, const char *version, const char *kind);
/* kind: report_kind_round() of the mail's */
int store_replies_insert(struct store *st, const char *version, const char *kind,
			 const struct store_reply *m, const char *mode, const char *state,
			 const char *reason, int64_t now, int64_t *id, struct strbuf *err);
/* queued or sending rows whose next attempt is due, of one series/version or all */
int store_replies_pending(struct store *st, int64_t now, const char *only,
			  struct reply_rows *rows, struct strbuf *err);
int store_replies_load(struct store *st, int64_t id, struct reply_row *r, struct strbuf *err);
/* queued|sending -> sending, attempts + 1: 1 claimed, 0 not (state changed), -1 */
int store_replies_claim(struct store *st, int64_t id, int64_t now, struct strbuf *err);
int store_replies_set(struct store *st, int64_t id, const char *state, int64_t next_attempt,
		      const char *reason, int64_t now, struct strbuf *err);
/* Set the reason only (no state, time or attempt changes) */
int store_replies_note(struct store *st, int64_t id, const char *reason, struct strbuf *err);
/* replies sent (or being sent) since t; only to author when not NULL */
int64_t store_replies_sent_since(struct store *st, int64_t t, const char *author);
/* the oldest sent time since t (when the rate limit frees a slot) */
int64_t store_replies_oldest_since(struct store *st, int64_t t, const char *author);
/* Has a message with this Message-ID arrived (from the list archive)? */
bool store_replies_in_archive(struct store *st, const char *msgid);
void store_reply_row_release(struct reply_row *r);

#endif
