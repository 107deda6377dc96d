/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the reply module (reply*.c, store-replies.c) */
#ifndef LOREBOT_REPLY_INT_H
#define LOREBOT_REPLY_INT_H

#include "bot/report/reply.h"


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
