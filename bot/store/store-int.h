/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the store: what the full assembly (bot/store/store-series.c) and the
 * incremental one (bot/store/store-update.c) share.  "touched" calls work on
 * the temporary tables temp.closure (messages.id of the messages being
 * assembled again) and temp.touched (versions.id of what they made
 * before); the others on everything.
 */
#ifndef LOREBOT_STORE_INT_H
#define LOREBOT_STORE_INT_H

#include "bot/store/store.h"

/* `lorebot series` order of versions joined with their series as s, v */
#define STORE_VERSION_ORDER "s.first_date, s.first_version, v.ord"

int store_put_state(struct store *st, const char *key, const char *value);
/* series.trust as the state "series_trust" records it; caller frees */
char *store_trust_state(const struct store *st);
/* Is a full assembly needed (parser, series.trust, the keys' migration)? */
bool store_series_need_full(struct store *st);
/* series_init() with series.trust */
void store_assembly_init(struct store *st, struct assembly *a);

/*
 * Load the stored messages (touched: those of temp.closure) into a, in
 * the order assembly reads them.  *pending (may be NULL) counts the
 * messages of series_pending that were added.
 */
int store_load_assembly(struct store *st, struct assembly *a, bool touched,
			size_t *pending, struct strbuf *err);
/* The keys of a message (series_msg_each_key()) into message_keys */
int store_put_keys(struct store *st, struct msg *m, int64_t rowid);
/*
 * Write what a (built) made: series, versions, patches, trailers and
 * problems; versions it made before (all, or those in temp.touched) and
 * no longer makes are marked gone.  Inside a transaction.
 */
int store_put_assembly(struct store *st, struct assembly *a, bool touched,
		       struct store_changes *ch);

#endif
