/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A public-inbox (lore.kernel.org) client for one inbox, on net.h:
 * the endpoints lorebot uses and their traps (../docs: lore-lab.md).
 *
 *   probe          GET manifest.js.gz: fingerprints of the inbox's git
 *                  epochs, which change with every message imported (a
 *                  few hundred bytes); servers without it: new.atom
 *   search entry   GET ?q=...&x=A&l=1&o=...: one Atom entry (Message-ID,
 *                  received time) at a position of the results, oldest or
 *                  newest first; no results is 404, not an empty feed
 *   search mbox    POST ?q=...&x=m: the results as gzip'ed mboxrd (GET
 *                  would give an HTML page)
 *   thread         GET <msgid>/t.mbox.gz: the whole thread
 *   raw            GET <msgid>/raw: one message (two when a Message-ID
 *                  was reused)
 *
 * Every request is retried on connection failures, timeouts, HTTP 5xx
 * and 429 and gzip data cut short, up to attempts times, waiting
 * retry_delay, 2 x retry_delay, 4 x ... (at most backoff_max) with
 * random jitter in between; a Retry-After header is honoured.  Each
 * retry is logged as a warning.
 */
#ifndef LOREBOT_LORE_H
#define LOREBOT_LORE_H

#include <stdint.h>

#include "bot/conf/config.h"
#include "bot/mail/mbox.h"
#include "bot/base/net.h"

struct lore_opts {
	uint64_t timeout_ms;	/* one request; 0: 30 s */
	int attempts;		/* per request; 0: 5 */
	uint64_t retry_delay_ms;	/* first wait; 0: 1 s */
	uint64_t backoff_max_ms;	/* longest wait; 0: 10 min */
	size_t max_size;	/* decoded response limit; 0: 256 MiB */
	size_t max_msg;		/* larger messages are passed as too_big; 0: 16 MiB */
	const char *user_agent;	/* NULL: lorebot/<version> */
};

/* The options of the [lore] keys (and mail.maxsize) of cfg */
void lore_opts_from_config(struct lore_opts *o, const struct config *cfg);

struct lore_stats {
	uint64_t requests;	/* attempts, retries included */
	uint64_t retries;
	uint64_t bytes_in;	/* on the wire */
	uint64_t bytes_out;
};

struct lore {
	struct net net;
	char *base;		/* the inbox URL, ending in '/' */
	struct lore_opts o;
	struct lore_stats stats;
	unsigned int seed;	/* jitter */
	/* waits between retries go here (tests replace it); NULL: nanosleep */
	void (*sleep_ms)(uint64_t ms);
};

/* One Atom entry of a search */
struct lore_entry {
	char *msgid;
	int64_t ts;		/* <updated>: public-inbox's received time */
};

/* The git epochs of a v2 inbox, from manifest.js.gz, by number */
struct lore_epoch {
	int n;
	char *fingerprint;	/* sha1 of the epoch's refs */
	int64_t modified;	/* its newest commit time */
};

struct lore_epochs {
	struct lore_epoch *v;
	size_t nr, alloc;
};

void lore_epochs_release(struct lore_epochs *e);

/* Called per message; return non-zero to stop (the call then fails) */
typedef int (*lore_msg_fn)(void *data, const struct mbox_msg *m);

/* base_url: "https://lore.kernel.org/linux-mm/" (a missing '/' is added) */
int lore_init(struct lore *l, const char *base_url, const struct lore_opts *o,
	      struct strbuf *err);
void lore_release(struct lore *l);

/*
 * A short token that changes whenever the inbox changes ("m:<epoch
 * fingerprints>", or "a:<newest entry>" from new.atom).  epochs (may be
 * NULL) gets the inbox's git epochs; none without a manifest.  0 or -1.
 */
int lore_probe(struct lore *l, struct strbuf *token, struct lore_epochs *epochs,
	       struct strbuf *err);
/* The git URL of an epoch: <base><n> */
char *lore_epoch_url(const struct lore *l, int n);

/*
 * The entry at position skip (0-based) of the results of query, ordered
 * by received time, oldest first or newest first.  1 found, 0 no such
 * entry, -1 error (err).
 */
int lore_search_entry(struct lore *l, const char *query, bool oldest_first,
		      size_t skip, struct lore_entry *e, struct strbuf *err);
void lore_entry_release(struct lore_entry *e);

/*
 * Every message matching query (threads: with their whole threads), in
 * the server's order, in two steps, so that one thread can fetch while
 * another stores.  lore_search_mbox_get(): the decoded mbox into *mbox
 * (complete: gzip trailer checked), 1; 0 for no results; or -1.
 * lore_mbox_each(): each message of it to fn; the count, or -1.
 */
int lore_search_mbox_get(struct lore *l, const char *query, bool threads,
			 struct strbuf *mbox, struct strbuf *err);
int64_t lore_mbox_each(struct lore *l, const struct strbuf *mbox,
		       lore_msg_fn fn, void *data, struct strbuf *err);

/* The thread of msgid, or its raw message(s).  Count, 0 unknown, -1 */
int64_t lore_thread(struct lore *l, const char *msgid, lore_msg_fn fn,
		    void *data, struct strbuf *err);
int64_t lore_raw(struct lore *l, const char *msgid, lore_msg_fn fn,
		 void *data, struct strbuf *err);

/* "2026-08-28T09:42:45Z" -> unix seconds; 0 or -1 */
int lore_parse_time(const char *s, int64_t *t);
/*
 * The first <entry> of an Atom feed: its Message-ID (from the link) and
 * time.  Also the feed's own <updated> (may be NULL).  1, 0 none, -1 bad.
 */
int lore_atom_first(const char *xml, struct lore_entry *e, int64_t *feed_updated);

#endif
