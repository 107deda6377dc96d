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

#include "bot/db.h"
#include "bot/series.h"

struct report_opts;

struct store {
	struct db *db;
	const char **trusted;	/* series.trust (the strings borrowed) */
	size_t nr_trusted;
	int results_tables;	/* store_has_results(): 0 not asked yet, 1, -1 */
	/* what version_states is derived with, or NULL (report_states_attach()) */
	struct report_opts *states;
	/* store_add_message() and store_reparse() parse raw mail in it, or here */
	struct jail *jail;
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

/* Raw bytes of a message (the variant assembly uses): 1, 0 unknown, -1 */
int store_get_raw(struct store *st, const char *msgid, struct strbuf *raw,
		  struct strbuf *err);
/* Number of stored messages (variants count), or -1 */
int64_t store_count_messages(struct store *st);

/*
 * What parsing a message stores (the parsed columns and meta) is stamped
 * with this version and the MIME library's (store_parse_stamp(): "parse
 * 1, GMime 3.2.13").  Bump it with any change to what some message
 * parses to: tests/unit/t-parse-stamp.c fails until you do.  A message
 * that could not be parsed is stamped with the lorebot that tried
 * ("failed " + lorebot --version), so that the next build tries again.
 */
#define STORE_PARSE_VERSION 2
const char *store_parse_stamp(void);
/* "failed " + lorebot --version */
const char *store_failed_stamp(void);

/*
 * Parse again every message whose stamp is not this build's (another
 * parser, or a failure by another lorebot), or all with force, and mark
 * the series for a full assembly.  Returns how many, or -1.
 */
int64_t store_reparse(struct store *st, bool force, struct strbuf *err);


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
 * Parsing in a jail (bot/store-jail.c, lib/jail.h), so that the process
 * that holds the database never parses MIME.  store_jail_use() gives st
 * a jailed parser, started at its first message (store_jail_start():
 * now, 0 or -1 with err when no jail can be made here); store_close()
 * stops it.  store_jail_parse_many() is series_msg_from_raw() through it: what
 * the parser answered, read back as a stored message's JSON is; -1 with
 * err when it could not parse the message, died on it or took too long
 * (the message is then stored unparsed, with that error, and the next
 * one gets a new parser).  store_jail_parse_many() parses n messages in
 * one request (m[i], parsed[i], perr[i] for each), and each alone again
 * when the parser died on them, so that one message costs only itself.
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
