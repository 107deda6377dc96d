/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the reply module (reply*.c, store-replies.c) */
#ifndef LOREBOT_REPLY_INT_H
#define LOREBOT_REPLY_INT_H

#include "bot/reply.h"

/* store-replies.c: the table and its transitions */
int store_replies_exists(struct store *st, const char *version, const char *kind);
/* kind: report_kind_round() of the mail's */
int store_replies_insert(struct store *st, const char *version, const char *kind,
			 const struct reply_mail *m, const char *mode, const char *state,
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

/* reply-outbox.c: maildir delivery, idempotent by file name */
char *reply_outbox_name(const struct reply_row *r);
/* 1 when the file is in new/ or cur/ already */
int reply_outbox_has(const char *dir, const char *name);
int reply_outbox_deliver(const char *dir, const char *name, const char *mail, size_t len,
			 struct strbuf *err);

/* reply-smtp.c */
struct net;
struct smtp_conf;
/*
 * Send one stored mail; 0 sent, -1 transient (try later), -2 permanent
 * (refused; never retried); err says why.
 */
int reply_smtp_deliver(const struct config *cfg, struct net *net, const struct reply_row *r,
		       struct strbuf *err);
/* Read user and password from a file only its owner can read: 0 or -1 */
int reply_smtp_read_credentials(const char *path, char **user, char **password,
				struct strbuf *err);

#endif
