/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The domain store on top of db.h: lists followed on lore and their
 * fetch state, messages exactly as received (plus their parsed
 * headers), and the series, versions, patches and trailers assembled
 * from them.  Schema: migration "lore-1" in db-migrations.c; README
 * "## lore" describes the tables.
 *
 * Guarantees:
 * - A message is stored once per distinct content: the same Message-ID
 *   with the same bytes is a duplicate; the same Message-ID with other
 *   bytes (public-inbox keeps both) is a second variant.  Series assembly
 *   uses the variant stored first (one reusing a Message-ID later, with
 *   whatever Date:, never displaces it) and reports the others.
 * - Series are a pure function of the stored messages: after messages
 *   are added, the threads and series they touch are assembled again
 *   (store_update_series()) in one transaction; until then they wait in
 *   series_pending and a "dirty" flag, so a crash loses nothing.
 *   store_rebuild_series() assembles everything (`lorebot db rebuild`),
 *   and gives the same tables.
 * - A version's id (Message-ID of its cover letter, else of patch 1)
 *   and its series id (a hash of the series key) are stable; a version
 *   that assembly no longer produces (e.g. its cover letter arrived
 *   late and gave the send another id) is kept with gone = 1.
 */
#ifndef LOREBOT_STORE_H
#define LOREBOT_STORE_H

#include <stdint.h>

#include "bot/base/db.h"
#include "bot/series/series.h"
#include "bot/store/store-results.h"

struct store;

/*
 * What a layer above keeps derived from the tables, in the writer's own
 * transaction (report_states_attach(): the versions' states), so the
 * store need not know it: before_commit() runs in store_commit() and
 * store_results_insert() before they commit (non-zero: they roll back,
 * err says why), release() in store_close().
 */
struct store_hook {
	int (*before_commit)(struct store *st, struct strbuf *err);
	void (*release)(struct store *st);
};

struct store {
	struct db *db;
	/* series.trust: the configuration's array, borrowed (it outlives the store) */
	const char *const *trusted;
	size_t nr_trusted;
	int results_tables;	/* store_has_results(): 0 not asked yet, 1, -1 */
	int answers_tables;	/* store_has_answers(): the same */
	/* the hook of a layer above and its data (struct store_hook), or NULL */
	const struct store_hook *hook;
	void *hook_data;
	/* store_add_message() and store_reparse() parse raw mail in it, or here */
	struct jail *jail;
	/* its time for a batch and for one message (0: 30 s and 10 s) */
	uint64_t jail_batch_ms, jail_one_ms;
	/* series.memory: past it, an assembly goes to a scratch file (0: never) */
	uint64_t series_memory;
};

/* Open (create, migrate) the database at path.  0 or -1 with err. */
int store_open(struct store *st, const char *path, struct strbuf *err);
void store_close(struct store *st);

/* transactions (several calls that belong together) */
int store_begin(struct store *st, struct strbuf *err);
int store_commit(struct store *st, struct strbuf *err);
void store_rollback(struct store *st);

/* lists and their fetch state */

struct store_list {
	int64_t id;
	char *name;
	char *url;		/* base URL ending in '/' */
	char *query;		/* "" for everything */
	bool has_cursor;
	int64_t cursor;		/* rt: (Received time) the next search starts at */
	char *probe;		/* what the change probe saw at the last pass */
	int64_t probe_seen;	/* when it first saw it (unix seconds) */
	int64_t last_search;	/* start of the last pass that searched to the end */
	int64_t last_poll;	/* unix seconds of the last attempt, 0: never */
	int64_t last_ok;
	int64_t next_poll;	/* no poll before this (back-off); 0: any time */
	int failures;		/* passes failed in a row */
	char *last_error;
};

/*
 * The list called name, created when new; url and query are updated when
 * they changed.  Fills l (release with store_list_release()).
 */
int store_list_get(struct store *st, const char *name, const char *url,
		   const char *query, struct store_list *l, struct strbuf *err);
/* The id of the list called name, 0 when there is none, -1 on error */
int64_t store_list_find(struct store *st, const char *name);
/* Write back the fetch state (cursor, probe, times, failures, error) */
int store_list_save(struct store *st, const struct store_list *l,
		    struct strbuf *err);
void store_list_release(struct store_list *l);

/* a list's git epochs (fetch method git) */
struct store_epoch {
	char *fingerprint;	/* NULL until the epoch was stored completely */
	char *head;		/* the last commit stored, NULL: none */
};

/* 1 known (e filled; release it), 0 not yet, -1 error */
int store_epoch_get(struct store *st, int64_t list_id, int epoch,
		    struct store_epoch *e, struct strbuf *err);
/* Set head, and fingerprint when not NULL */
int store_epoch_set(struct store *st, int64_t list_id, int epoch,
		    const char *fingerprint, const char *head, struct strbuf *err);
void store_epoch_release(struct store_epoch *e);

/* messages */

enum store_added {
	STORE_NEW,		/* a Message-ID not seen before */
	STORE_VARIANT,		/* a known Message-ID with other content */
	STORE_DUPLICATE,	/* exactly these bytes were stored already */
};

/*
 * Store one raw message (as received: no mbox "From " line, no
 * escaping) and link it to a list (list_id 0: none).  A message that
 * cannot be parsed is stored too (with its error) so that a fixed
 * parser can read it later.  *added says what happened; *rowid (may be
 * NULL) is the messages.id.  Call inside store_begin() for speed.
 */
int store_add_message(struct store *st, int64_t list_id, const char *raw,
		      size_t len, enum store_added *added, int64_t *rowid,
		      struct strbuf *err);
/*
 * The same for n messages (parsed in one request to the jail): added[i],
 * rowids[i] (rowids may be NULL) for each.  0, or -1 with err when the
 * database failed (then call store_rollback()).
 */
struct store_raw {
	const char *raw;
	size_t len;
};
int store_add_messages(struct store *st, int64_t list_id, const struct store_raw *raws,
		       size_t n, enum store_added *added, int64_t *rowids,
		       struct strbuf *err);

/*
 * Of a Message-ID's messages (variants), the one that counts: the first
 * the archive has (arrival, store_rank_variants()), else the first
 * stored.  An ORDER BY of the messages table.
 */
#define STORE_VARIANT_ORDER "arrival IS NULL, arrival, id"
/*
 * The archive's messages of msgid, in the order it has them (lore's
 * /<msgid>/raw): each stored one with the same bytes gets its place as
 * its arrival, and is assembled again.  0 or -1 with err (call inside
 * store_begin()).
 */
int store_rank_variants(struct store *st, const char *msgid, const struct store_raw *raws,
			size_t n, struct strbuf *err);
/* Raw bytes of a message (the variant assembly uses): 1, 0 unknown, -1 */
int store_get_raw(struct store *st, const char *msgid, struct strbuf *raw,
		  struct strbuf *err);
/* Number of stored messages (variants count), or -1 */
int64_t store_count_messages(struct store *st);

/*
 * Diffs posted in replies (fold-in fix-ups, "-fix" patches, "[PATCH] tmp"
 * inline in a "Re:" mail) to the messages parents[0..n): their rows, by
 * date (store-fixups.c).  lorebot check --mbox/--msgid reviews them; the
 * dashboard lists them under the version they fix; nothing mails them.
 */
struct fixup_row {
	char *msgid, *parent, *subject, *from_name, *from_email;
	int64_t date;
};

struct fixup_rows {
	struct fixup_row *v;
	size_t nr, alloc;
};

int store_fixups_of(struct store *st, const char *const *parents, size_t n,
		    struct fixup_rows *out, struct strbuf *err);
void store_fixup_rows_release(struct fixup_rows *r);

/*
 * What parsing a message stores (the parsed columns and meta) is stamped
 * with this version and the MIME library's (store_parse_stamp(): "parse
 * 3, GMime 3.2.13").  Bump it with any change to what some message
 * parses to: tests/unit/t-parse-stamp.c fails until you do.  A message
 * that could not be parsed is stamped with the lorebot that tried
 * ("failed " + lorebot --version), so that the next build tries again.
 */
#define STORE_PARSE_VERSION 4
const char *store_parse_stamp(void);
/* "failed " + lorebot --version */
const char *store_failed_stamp(void);

/*
 * Parse again every message whose stamp is not this build's (another
 * parser, or a failure by another lorebot), or all with force, and mark
 * the series for a full assembly.  Returns how many, or -1.
 */
int64_t store_reparse(struct store *st, bool force, struct strbuf *err);


/*
 * Answers to lorebot's mails (migration report-4; bot/report/reply-answers.c
 * reads them, report_version_load() what they did)
 */

/* Are the answers tables there (a database migrated since report-4)? */
bool store_has_answers(struct store *st);
/* The messages.id up to which answers were read (0: none) */
int64_t store_answers_seen(struct store *st);
int store_answers_set_seen(struct store *st, int64_t id, struct strbuf *err);
/* Was the answer msgid read already?  1, 0, -1 */
int store_answer_known(struct store *st, const char *msgid);
/* Record one command of an answer and what came of it */
int store_answer_add(struct store *st, const char *msgid, int line, const char *version,
		     const char *sender, const char *command, bool done,
		     const char *reason, int64_t now, struct strbuf *err);
/* Dismiss a finding ("finding", its id) or a rule for a series: 1 new, 0 was, -1 */
int store_dismiss(struct store *st, const char *series, const char *kind,
		  const char *target, const char *who, const char *why,
		  const char *msgid, const char *version, int64_t now, struct strbuf *err);
/* When the series was last tested again on request (0: never), or -1 */
int64_t store_retest_last(struct store *st, const char *series);
/*
 * Test version again: record who asked, and forget its results and its
 * jobs (none may be queued or running) so that it is planned anew.  0 or -1.
 */
int store_retest(struct store *st, const char *series, const char *version,
		 const char *msgid, const char *who, int64_t now, struct strbuf *err);

/* series */

enum store_change_kind {
	STORE_VERSION_NEW,
	STORE_VERSION_UPDATED,	/* patches, trailers, completeness... changed */
	STORE_VERSION_GONE,
};

struct store_change {
	enum store_change_kind kind;
	char *id;		/* version id */
	char *series_id;
	char *title;
	int version;
	int have, total;
	bool complete;
	int64_t generation;
};

struct store_changes {
	struct store_change *v;
	size_t nr, alloc;
	/*
	 * At most limit changes are kept (0: all), the rest only counted
	 * in more: a first import makes a change of every version, and a
	 * caller that prints a few and a count need not hold them all.
	 */
	size_t limit, more;
};

void store_changes_release(struct store_changes *c);
/* The versions changed: those kept and those only counted */
static inline size_t store_changes_count(const struct store_changes *c)
{
	return c->nr + c->more;
}
/*
 * Add the later changes from to into, one entry a version (new then
 * updated is new; new then gone is nothing); from is left empty.  Past
 * into's limit, changes are only counted, once for each assembly that
 * made them: exact only when nothing was left out.
 */
void store_changes_merge(struct store_changes *into, struct store_changes *from);
const char *store_change_name(enum store_change_kind kind);

/* Are the series tables behind the messages? */
bool store_series_dirty(struct store *st);
/* Mark them so (store_add_message() does) */
int store_mark_dirty(struct store *st, struct strbuf *err);

/*
 * Assemble every stored message and bring the series, versions,
 * patches and trailers tables up to date, in one transaction.  changes
 * (may be NULL) gets what is new, changed or gone.
 */
int store_rebuild_series(struct store *st, struct store_changes *changes,
			 struct strbuf *err);

/*
 * Assemble again only the messages connected (series_msg_each_key()) to those
 * stored since the last assembly, and update what they make, in one
 * transaction: cost follows the news, not the archive.  A full rebuild
 * instead when the parser changed (messages were parsed again), when
 * series.trust changed, or after the migration that added the keys.
 */
int store_update_series(struct store *st, struct store_changes *changes,
			struct strbuf *err);

/*
 * The series as `lorebot series --mbox --json` prints them:
 * {"series": [...], "messages": N, "problems": [...]}; rebuilds first
 * when dirty.  Caller puts *out.
 */
struct json_object;
int store_series_json(struct store *st, struct json_object **out,
		      struct strbuf *err);
/* One version's JSON (as in the list above), or NULL when unknown */
struct json_object *store_version_json(struct store *st, const char *id);

/*
 * Versions (an array of their JSON objects) as text, exactly as
 * `lorebot series --mbox` prints them
 */
void store_versions_text(struct json_object *versions, struct strbuf *sb);

/* The parsed form of a message as stored (JSON text); caller frees */
char *store_msg_to_json(const struct msg *m);

/*
 * Parsing in a jail (bot/store/store-jail.c, lib/jail.h), so that the process
 * that holds the database never parses MIME.  store_jail_use() gives st
 * a jailed parser, started at its first message (store_jail_start():
 * now, 0 or -1 with err when no jail can be made here); store_close()
 * stops it.  store_jail_parse_many() is series_msg_from_raw() through it: what
 * the parser answered, read back as a stored message's JSON is; -1 with
 * err when it could not parse the message, died on it or took too long
 * (the message is then stored unparsed, with that error, and the next
 * one gets a new parser).  store_jail_parse_many() parses n messages in
 * one request (m[i], parsed[i], perr[i] for each), and each alone again
 * when the parser died on them or was stuck, so that one message costs
 * only itself: a batch's time limit, then its own (st->jail_batch_ms,
 * st->jail_one_ms).
 */
typedef int store_jail_fn(void *ctx, const char *req, size_t len, struct strbuf *resp);
/* answer: what the jail runs on a request, NULL: store_jail_answer() */
void store_jail_use(struct store *st, store_jail_fn *answer);
store_jail_fn store_jail_answer;
int store_jail_start(struct store *st, struct strbuf *err);
void store_jail_parse_many(struct store *st, const struct store_raw *raws, size_t n,
			   struct msg *m, bool *parsed, struct strbuf *perr);
void store_jail_stop(struct store *st);
/*
 * mail_parse() of a stored message, in the store's jail when it has one
 * (the replies read the mail they answer): 0, or -1 with err; release m
 * with mail_release() either way
 */
struct mail;
int store_parse_mail(struct store *st, const char *raw, size_t len, struct mail *m,
		     struct strbuf *err);
int store_msg_from_json(const char *json, struct msg *m);
/* The same with m's strings in pool (NULL: malloc'ed) */
int store_msg_from_json_pool(const char *json, struct strpool *pool, struct msg *m);

#endif
