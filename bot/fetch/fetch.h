/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following a list: one incremental pass over a public-inbox (lore.h)
 * into the store (store.h), the way a polite subscriber would.
 *
 * A pass:
 * 1. is skipped when the list was polled less than min_interval ago, or
 *    is backing off after failed passes (unless force);
 * 2. asks the cheap probe (manifest.js.gz, a few hundred bytes); when it
 *    says what it said before, and the last search began at least
 *    index_lag after the probe first said so, stops there (the server's
 *    search index lags behind its git refs: public-inbox-httpd 1.9 keeps
 *    its Xapian handle up to 30 s and more, so the first search after a
 *    change may miss the newest mail);
 * 3. otherwise searches by received time from the stored cursor in
 *    windows of at most batch messages (one small Atom request finds
 *    the window's end, one POST x=m brings its messages), at most
 *    max_batches windows per pass: a long outage is caught up in
 *    bounded steps, not in one storm of requests;
 * 4. stores each window's messages and the advanced cursor in one
 *    transaction; the last window leaves the cursor `overlap` before the
 *    newest message, so mail the server indexes late is still found;
 * 5. fetches the whole thread (t.mbox.gz) of new patches whose parent is
 *    not stored (series cut by `since` or by a search query), at most
 *    max_threads per pass;
 * 6. rebuilds the series tables.
 * With FETCH_GIT, steps 3 to 5 are instead: fetch every epoch whose
 * fingerprint changed into a bare mirror (the first fetch shallow, from
 * since) and store the messages of its new commits, batch commits per
 * transaction together with the last commit stored; at most max_batches
 * batches per pass.  No search index is involved, so no overlap and no
 * index lag: every message imported is seen once, in import order.
 * A failed pass leaves what was stored, counts the failure and sets the
 * next poll time: min_interval doubled per failure (with jitter), at
 * most backoff_max.
 */
#ifndef LOREBOT_FETCH_H
#define LOREBOT_FETCH_H

#include "bot/conf/config.h"
#include "bot/lore/lore.h"
#include "bot/store/store.h"

enum fetch_method {
	FETCH_SEARCH,		/* HTTP search windows (any query) */
	FETCH_GIT,		/* the inbox's git epochs (everything, exactly) */
};

struct fetch_cfg {
	const char *name;	/* the list, e.g. "linux-mm" */
	enum fetch_method method;
	const char *gitdir;	/* FETCH_GIT: mirrors in <gitdir>/<name>/<N>.git */
	const char *url;	/* its public-inbox base URL */
	const char *query;	/* search restricting what is fetched; NULL/"": all */
	int64_t since;		/* first fetch: received time to start at; 0: all */
	uint64_t min_interval_ms;	/* lore.minpoll */
	/* list.<name>.pollinterval, at least minpoll: the daemon's schedule */
	uint64_t poll_interval_ms;
	uint64_t overlap_s;	/* lore.overlap */
	uint64_t index_lag_s;	/* lore.indexlag */
	size_t batch;		/* lore.batch: messages per window */
	int max_batches;	/* lore.maxbatches: windows per pass */
	int max_threads;	/* lore.threads: thread fetches per pass */
	uint64_t backoff_max_ms;	/* lore.backoffmax (passes and requests) */
	struct lore_opts lore;
	bool force;		/* ignore min_interval and back-off */
	bool no_rebuild;	/* leave the series tables dirty */
};

enum fetch_status {
	FETCH_OK,		/* caught up */
	FETCH_MORE,		/* max_batches reached: more to fetch next pass */
	FETCH_UNCHANGED,	/* the probe said nothing changed */
	FETCH_NOT_DUE,		/* too soon (min_interval or back-off) */
	FETCH_FAILED,
};

struct fetch_result {
	enum fetch_status status;
	size_t windows;
	size_t threads;
	uint64_t received;	/* messages downloaded */
	uint64_t added;		/* new Message-IDs */
	uint64_t variants;	/* new content for a known Message-ID */
	uint64_t duplicates;
	uint64_t skipped;	/* larger than mail.maxsize */
	struct lore_stats stats;
	int64_t cursor;
	int64_t next_poll;	/* NOT_DUE, FAILED: not before this */
	int failures;
	struct strbuf error;
	struct store_changes changes;	/* series versions new/updated/gone */
};

#define FETCH_RESULT_INIT { .error = STRBUF_INIT }

/* Defaults for every field from the lore.* and mail.* configuration */
void fetch_cfg_from_config(struct fetch_cfg *c, const struct config *cfg);
/*
 * The same plus list.<name>.* (url, query, since, method, pollinterval).
 * Strings stay owned by cfg (and name by the caller).  1 when the list
 * is enabled and has a url, 0 when it is to be skipped, -1 on a bad
 * value (err says which).  gitdir is left to the caller.
 */
int fetch_cfg_list(struct fetch_cfg *c, const struct config *cfg, const char *name,
		   struct strbuf *err);
/* "search" or "git"; 0 or -1 */
int fetch_parse_method(const char *s, enum fetch_method *m);

/*
 * One pass over one list.  0 when the pass ran or was not due (see
 * r->status), -1 when it failed (r->error; the failure is recorded in
 * the database too).
 */
int fetch_list(struct store *st, const struct fetch_cfg *c,
	       struct fetch_result *r);

/* Fetch one thread (t.mbox.gz) or one message (raw) into the store */
int fetch_thread(struct store *st, const struct fetch_cfg *c, const char *msgid,
		 bool raw_only, struct fetch_result *r);

/*
 * A local mbox is committed every this many bytes of mail by default: one
 * transaction for a whole archive grew the WAL to twice the archive
 * (5 GB for 1,000,000 messages) and its index in memory with it; what
 * was committed stays pending assembly (series_pending) if the import
 * stops.
 */
#define FETCH_MBOX_COMMIT (64ull << 20)

/*
 * Import a local mbox file as if fetched from list (NULL: no list),
 * committed every commit_bytes of mail (0: FETCH_MBOX_COMMIT)
 */
int fetch_mbox_file(struct store *st, const char *list, const char *path,
		    size_t max_msg, uint64_t commit_bytes, struct fetch_result *r);

void fetch_result_release(struct fetch_result *r);
const char *fetch_status_name(enum fetch_status s);

/* "2024-05-06", "2024-05-06T09:00:00Z", "1714986000", "14d" (ago) */
int fetch_parse_since(const char *s, int64_t now, int64_t *out);

/* The list's name from its URL: "https://lore.kernel.org/linux-mm/" -> "linux-mm" */
char *fetch_name_from_url(const char *url);

#endif
