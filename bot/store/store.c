// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/store/store.h"
#include "bot/store/store-int.h"
#include "bot/base/version.h"

static int fail(struct store *st, struct strbuf *err)
{
	strbuf_addstr(err, db_error(st->db));
	return -1;
}

int store_open(struct store *st, const char *path, struct strbuf *err)
{
	st->db = NULL;
	st->trusted = NULL;
	st->nr_trusted = 0;
	st->results_tables = 0;
	st->answers_tables = 0;
	st->hook = NULL;
	st->hook_data = NULL;
	st->jail = NULL;
	st->jail_batch_ms = 0;
	st->jail_one_ms = 0;
	st->series_memory = 0;
	return db_open(&st->db, path, 0, err);
}

void store_close(struct store *st)
{
	db_close(st->db);
	st->db = NULL;
	st->trusted = NULL;
	st->nr_trusted = 0;
	if (st->hook)
		st->hook->release(st);
	store_jail_stop(st);
}

int store_begin(struct store *st, struct strbuf *err)
{
	return db_begin(st->db) ? fail(st, err) : 0;
}

int store_commit(struct store *st, struct strbuf *err)
{
	/* the states of what this transaction changed, in it */
	if (st->hook && st->hook->before_commit(st, err)) {
		db_rollback(st->db);
		return -1;
	}
	if (db_commit(st->db)) {
		fail(st, err);
		db_rollback(st->db);
		return -1;
	}
	return 0;
}

void store_rollback(struct store *st)
{
	db_rollback(st->db);
}

/* lists */

static char *col_dup(struct db_stmt *s, int col)
{
	return xstrdup_or_null(db_column_text(s, col));
}

static int list_read(struct store *st, const char *name, struct store_list *l)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT id, name, url, query, cursor, probe, last_poll, last_ok,"
		" next_poll, failures, last_error, probe_seen, last_search"
		" FROM lists WHERE name = ?");
	int r;

	if (!s || db_bind_text(s, 1, name))
		return -1;
	r = db_step(s);
	if (r <= 0)
		return r;
	l->id = db_column_int(s, 0);
	l->name = col_dup(s, 1);
	l->url = col_dup(s, 2);
	l->query = col_dup(s, 3);
	l->has_cursor = !db_column_null(s, 4);
	l->cursor = db_column_int(s, 4);
	l->probe = col_dup(s, 5);
	l->last_poll = db_column_int(s, 6);
	l->last_ok = db_column_int(s, 7);
	l->next_poll = db_column_int(s, 8);
	l->failures = (int)db_column_int(s, 9);
	l->last_error = col_dup(s, 10);
	l->probe_seen = db_column_int(s, 11);
	l->last_search = db_column_int(s, 12);
	db_reset(s);
	return 1;
}

int store_list_get(struct store *st, const char *name, const char *url,
		   const char *query, struct store_list *l, struct strbuf *err)
{
	struct db_stmt *s;
	int r;

	memset(l, 0, sizeof(*l));
	if (!query)
		query = "";
	r = list_read(st, name, l);
	if (r < 0)
		return fail(st, err);
	if (r && !strcmp(l->url, url) && !strcmp(l->query, query))
		return 0;
	if (r) {
		/* a new query or server: the cursor still says what was seen */
		s = db_prepare(st->db, "UPDATE lists SET url = ?, query = ?, probe = NULL"
			       " WHERE id = ?");
		if (!s || db_bind_text(s, 1, url) || db_bind_text(s, 2, query) ||
		    db_bind_int(s, 3, l->id) || db_run(s))
			return fail(st, err);
	} else {
		s = db_prepare(st->db, "INSERT INTO lists (name, url, query) VALUES (?, ?, ?)");
		if (!s || db_bind_text(s, 1, name) || db_bind_text(s, 2, url) ||
		    db_bind_text(s, 3, query) || db_run(s))
			return fail(st, err);
	}
	store_list_release(l);
	r = list_read(st, name, l);
	return r > 0 ? 0 : fail(st, err);
}

int64_t store_list_find(struct store *st, const char *name)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT id FROM lists WHERE name = ?");
	int64_t id = 0;
	int r;

	if (!s || db_bind_text(s, 1, name))
		return -1;
	r = db_step(s);
	if (r > 0) {
		id = db_column_int(s, 0);
		db_reset(s);
	}
	return r < 0 ? -1 : id;
}

int store_list_save(struct store *st, const struct store_list *l, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"UPDATE lists SET cursor = ?, probe = ?, last_poll = ?, last_ok = ?,"
		" next_poll = ?, failures = ?, last_error = ?, probe_seen = ?,"
		" last_search = ? WHERE id = ?");

	if (!s || (l->has_cursor ? db_bind_int(s, 1, l->cursor) : db_bind_null(s, 1)) ||
	    db_bind_text(s, 2, l->probe) || db_bind_int(s, 3, l->last_poll) ||
	    db_bind_int(s, 4, l->last_ok) || db_bind_int(s, 5, l->next_poll) ||
	    db_bind_int(s, 6, l->failures) || db_bind_text(s, 7, l->last_error) ||
	    db_bind_int(s, 8, l->probe_seen) || db_bind_int(s, 9, l->last_search) ||
	    db_bind_int(s, 10, l->id) || db_run(s))
		return fail(st, err);
	return 0;
}

void store_list_release(struct store_list *l)
{
	free(l->name);
	free(l->url);
	free(l->query);
	free(l->probe);
	free(l->last_error);
	memset(l, 0, sizeof(*l));
}

int store_epoch_get(struct store *st, int64_t list_id, int epoch,
		    struct store_epoch *e, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT fingerprint, head FROM lore_epochs WHERE list = ? AND epoch = ?");
	int r;

	memset(e, 0, sizeof(*e));
	if (!s || db_bind_int(s, 1, list_id) || db_bind_int(s, 2, epoch))
		return fail(st, err);
	r = db_step(s);
	if (r < 0)
		return fail(st, err);
	if (r) {
		e->fingerprint = col_dup(s, 0);
		e->head = col_dup(s, 1);
		db_reset(s);
	}
	return r;
}

int store_epoch_set(struct store *st, int64_t list_id, int epoch,
		    const char *fingerprint, const char *head, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT INTO lore_epochs (list, epoch, fingerprint, head) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT (list, epoch) DO UPDATE SET head = ?4,"
		" fingerprint = coalesce(?3, fingerprint)");

	if (!s || db_bind_int(s, 1, list_id) || db_bind_int(s, 2, epoch) ||
	    db_bind_text(s, 3, fingerprint) || db_bind_text(s, 4, head) || db_run(s))
		return fail(st, err);
	return 0;
}

void store_epoch_release(struct store_epoch *e)
{
	free(e->fingerprint);
	free(e->head);
	memset(e, 0, sizeof(*e));
}

/* messages */

int store_mark_dirty(struct store *st, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR REPLACE INTO state (key, value) VALUES ('series_dirty', '1')");

	return !s || db_run(s) ? fail(st, err) : 0;
}

bool store_series_dirty(struct store *st)
{
	int64_t v = 0;

	if (db_query_int(st->db, "SELECT value FROM state WHERE key = 'series_dirty'",
			 0, &v))
		return true;
	return v != 0 || store_series_need_full(st);
}

static int link_list(struct store *st, int64_t list_id, int64_t rowid)
{
	struct db_stmt *s;

	if (!list_id)
		return 0;
	s = db_prepare(st->db, "INSERT OR IGNORE INTO list_messages (list, message)"
		       " VALUES (?, ?)");
	if (!s || db_bind_int(s, 1, list_id) || db_bind_int(s, 2, rowid))
		return -1;
	return db_run(s);
}

/* The row holding exactly these bytes, 0 when none, -1 on error */
static int64_t find_same(struct store *st, const char *raw, size_t len,
			 const char *hash)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT id, raw FROM messages WHERE hash = ?");
	int64_t found = 0;
	int r;

	if (!s || db_bind_text(s, 1, hash))
		return -1;
	while ((r = db_step(s)) > 0) {
		size_t n;
		const void *p = db_column_blob(s, 1, &n);

		if (n == len && !memcmp(p, raw, len)) {
			found = db_column_int(s, 0);
			db_reset(s);
			return found;
		}
	}
	return r < 0 ? -1 : 0;
}

static int has_msgid(struct store *st, const char *msgid)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT 1 FROM messages WHERE msgid = ?");
	int r;

	if (!s || db_bind_text(s, 1, msgid))
		return -1;
	r = db_step(s);
	if (r > 0)
		db_reset(s);
	return r;
}

const char *store_parse_stamp(void)
{
	static char v[64];

	if (!*v)
		snprintf(v, sizeof(v), "parse %d, %s", STORE_PARSE_VERSION,
			 mail_library());
	return v;
}

/* A failure is tried again by the next build */
const char *store_failed_stamp(void)
{
	static char v[128];

	if (!*v)
		snprintf(v, sizeof(v), "failed %s", version_string());
	return v;
}

/* Bind the parsed columns (2..9 of the insert/update below) */
static int bind_parsed(struct db_stmt *s, int first, const struct msg *m,
		       bool parsed, const char *error)
{
	char *meta = parsed ? store_msg_to_json(m) : NULL;
	int r = db_bind_text(s, first, parsed ? m->subject : NULL) ||
		db_bind_text(s, first + 1, parsed ? m->sender_name : NULL) ||
		db_bind_text(s, first + 2, parsed ? m->sender_email : NULL) ||
		(parsed ? db_bind_int(s, first + 3, m->date) : db_bind_null(s, first + 3)) ||
		db_bind_text(s, first + 4, parsed ? m->parent : NULL) ||
		db_bind_text(s, first + 5, meta) ||
		db_bind_text(s, first + 6, parsed ? store_parse_stamp() : store_failed_stamp()) ||
		db_bind_text(s, first + 7, error);

	free(meta);
	return r ? -1 : 0;
}

/* What the next store_update_series() starts from: its keys, pending */
static int put_new(struct store *st, struct msg *m, bool parsed, int64_t id)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR IGNORE INTO message_keys (key, message) VALUES ('m:' || ?, ?)");

	if (!s || db_bind_text(s, 1, m->msgid) || db_bind_int(s, 2, id) || db_run(s))
		return -1;
	if (parsed && store_put_keys(st, m, id))
		return -1;
	s = db_prepare(st->db, "INSERT OR IGNORE INTO series_pending (message) VALUES (?)");
	if (!s || db_bind_int(s, 1, id))
		return -1;
	return db_run(s);
}

/*
 * A message already stored with the same bytes: linked to the list too,
 * 1; 0 when new; -1 on error
 */
static int add_duplicate(struct store *st, int64_t list_id, const struct store_raw *r,
			 const char *hash, enum store_added *added, int64_t *rowid,
			 struct strbuf *err)
{
	int64_t id = find_same(st, r->raw, r->len, hash);

	if (id < 0)
		return fail(st, err);
	if (!id)
		return 0;
	*added = STORE_DUPLICATE;
	if (rowid)
		*rowid = id;
	return link_list(st, list_id, id) ? fail(st, err) : 1;
}

/*
 * A message's date is never after it was received: Date: is the sender's,
 * and one dated 2100 sorted first everywhere (the queue, the dashboard)
 * for good (issue 38).  The date stored, in its column and in its meta,
 * is the earlier of the two.
 */
static void clamp_date(struct msg *m, int64_t received)
{
	if (m->date > received)
		m->date = received;
}

/* A new message and what its parser made of it */
static int add_parsed(struct store *st, int64_t list_id, const struct store_raw *r,
		      const char *hash, struct msg *m, bool parsed, const char *perr,
		      enum store_added *added, int64_t *rowid, struct strbuf *err)
{
	struct db_stmt *s;
	int64_t id, now = time(NULL);
	int ret;

	series_msg_set_missing_id(m, r->raw, r->len);
	clamp_date(m, now);
	ret = has_msgid(st, m->msgid);
	if (ret < 0)
		return fail(st, err);
	*added = ret ? STORE_VARIANT : STORE_NEW;
	s = db_prepare(st->db,
		"INSERT INTO messages (msgid, subject, from_name, from_email, date,"
		" parent, meta, meta_version, error, hash, raw, size, fetched)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!s || db_bind_text(s, 1, m->msgid) ||
	    bind_parsed(s, 2, m, parsed, parsed ? NULL : perr) ||
	    db_bind_text(s, 10, hash) || db_bind_blob(s, 11, r->raw, r->len) ||
	    db_bind_int(s, 12, r->len) || db_bind_int(s, 13, now) || db_run(s))
		return fail(st, err);
	id = db_last_insert_id(st->db);
	if (rowid)
		*rowid = id;
	if (link_list(st, list_id, id) || put_new(st, m, parsed, id))
		return err->len ? -1 : fail(st, err);
	return store_mark_dirty(st, err);
}

/*
 * What parsing a batch of n messages makes: m[i] (always to be
 * released), parsed[i] whether it was parsed, perr[i] why not
 */
struct parse_batch {
	size_t n;
	struct msg *m;
	bool *parsed;
	struct strbuf *perr;
};

static void parse_batch_init(struct parse_batch *b, size_t n)
{
	size_t i;

	b->n = n;
	b->m = xcalloc(n ? n : 1, sizeof(*b->m));
	b->parsed = xcalloc(n ? n : 1, sizeof(*b->parsed));
	b->perr = xcalloc(n ? n : 1, sizeof(*b->perr));
	for (i = 0; i < n; i++) {
		strbuf_init(&b->perr[i], 0);
		strbuf_init(&b->m[i].warnings, 0);
	}
}

static void parse_batch_release(struct parse_batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		series_msg_release(&b->m[i]);
		strbuf_release(&b->perr[i]);
	}
	free(b->m);
	free(b->parsed);
	free(b->perr);
}

/* Parse the first nr (<= b->n): in the store's jail, all in one request, or here */
static void parse_raws(struct store *st, const struct store_raw *r, size_t nr,
		       struct parse_batch *b)
{
	size_t i;

	if (st->jail) {
		store_jail_parse_many(st, r, nr, b->m, b->parsed, b->perr);
		return;
	}
	for (i = 0; i < nr; i++)
		b->parsed[i] = !series_msg_from_raw(r[i].raw, r[i].len, &b->m[i],
						    &b->perr[i]);
}

/* Does a new message of the batch before the k-th have its hash? */
static bool same_hash_before(char (*hash)[17], const size_t *at, size_t k)
{
	size_t j;

	for (j = 0; j < k; j++)
		if (!strcmp(hash[at[j]], hash[at[k]]))
			return true;
	return false;
}

int store_add_messages(struct store *st, int64_t list_id, const struct store_raw *raws,
		       size_t n, enum store_added *added, int64_t *rowids,
		       struct strbuf *err)
{
	char (*hash)[17] = xcalloc(n ? n : 1, sizeof(*hash));
	struct store_raw *todo = xcalloc(n ? n : 1, sizeof(*todo));
	size_t *at = xcalloc(n ? n : 1, sizeof(*at)), nr = 0, i, k;
	struct parse_batch b;
	int ret = 0, r;

	for (i = 0; i < n && !ret; i++) {
		util_hash_hex(raws[i].raw, raws[i].len, hash[i]);
		r = add_duplicate(st, list_id, &raws[i], hash[i], &added[i],
				  rowids ? &rowids[i] : NULL, err);
		if (r < 0)
			ret = -1;
		else if (!r) {
			at[nr] = i;
			todo[nr++] = raws[i];
		}
	}
	parse_batch_init(&b, nr);
	if (!ret && nr)
		parse_raws(st, todo, nr, &b);
	for (k = 0; k < nr && !ret; k++) {
		i = at[k];
		/* the same bytes twice in one batch: the second is the first's duplicate */
		r = same_hash_before(hash, at, k) ?
			add_duplicate(st, list_id, &raws[i], hash[i], &added[i],
				      rowids ? &rowids[i] : NULL, err) : 0;
		if (r < 0 || (!r && add_parsed(st, list_id, &raws[i], hash[i], &b.m[k],
					       b.parsed[k], b.perr[k].buf, &added[i],
					       rowids ? &rowids[i] : NULL, err)))
			ret = -1;
	}
	parse_batch_release(&b);
	free(hash);
	free(todo);
	free(at);
	return ret;
}

int store_rank_variants(struct store *st, const char *msgid, const struct store_raw *raws,
			size_t n, struct strbuf *err)
{
	struct db_stmt *s;
	char hash[17];
	size_t k;
	int64_t id;

	for (k = 0; k < n; k++) {
		util_hash_hex(raws[k].raw, raws[k].len, hash);
		id = find_same(st, raws[k].raw, raws[k].len, hash);
		if (id < 0)
			return fail(st, err);
		if (!id)
			continue;	/* not stored (too large, another list's) */
		s = db_prepare(st->db, "UPDATE messages SET arrival = ?1 WHERE id = ?2"
			       " AND msgid = ?3");
		if (!s || db_bind_int(s, 1, (int64_t)k) || db_bind_int(s, 2, id) ||
		    db_bind_text(s, 3, msgid) || db_run(s))
			return fail(st, err);
		s = db_prepare(st->db,
			       "INSERT OR IGNORE INTO series_pending (message) VALUES (?)");
		if (!s || db_bind_int(s, 1, id) || db_run(s))
			return fail(st, err);
	}
	return store_mark_dirty(st, err);
}

int store_add_message(struct store *st, int64_t list_id, const char *raw,
		      size_t len, enum store_added *added, int64_t *rowid,
		      struct strbuf *err)
{
	struct store_raw r = { raw, len };

	return store_add_messages(st, list_id, &r, 1, added, rowid, err);
}

int store_get_raw(struct store *st, const char *msgid, struct strbuf *raw,
		  struct strbuf *err)
{
	/* the variant assembly uses: the first stored */
	struct db_stmt *s = db_prepare(st->db,
		"SELECT raw FROM messages WHERE msgid = ? ORDER BY " STORE_VARIANT_ORDER
		" LIMIT 1");
	size_t len;
	const void *p;
	int r;

	if (!s || db_bind_text(s, 1, msgid))
		return fail(st, err);
	r = db_step(s);
	if (r < 0)
		return fail(st, err);
	if (!r)
		return 0;
	p = db_column_blob(s, 0, &len);
	strbuf_add(raw, p, len);
	db_reset(s);
	return 1;
}

int64_t store_count_messages(struct store *st)
{
	int64_t n;

	if (db_query_int(st->db, "SELECT count(*) FROM messages", 0, &n))
		return -1;
	return n;
}

/* Parsed again a batch at a time: one request to the jail each */
#define REPARSE_BATCH 256

static int reparse_batch(struct store *st, const int64_t *ids, size_t n,
			 struct strbuf *err)
{
	struct strbuf *raw = xcalloc(n, sizeof(*raw));
	struct store_raw *r = xcalloc(n, sizeof(*r));
	int64_t *rid = xcalloc(n, sizeof(*rid)), *received = xcalloc(n, sizeof(*received));
	struct db_stmt *s = db_prepare(st->db, "SELECT raw, fetched FROM messages WHERE id = ?");
	struct parse_batch b;
	size_t i, nr = 0;
	int ret = -1;

	parse_batch_init(&b, n);
	for (i = 0; i < n; i++)
		strbuf_init(&raw[i], 0);
	/* the ids that are gone since they were listed are skipped */
	for (i = 0; s && i < n; i++) {
		const void *p;
		size_t len;
		int rc;

		if (db_bind_int(s, 1, ids[i]))
			goto out;
		rc = db_step(s);
		if (rc < 0)
			goto out;
		if (rc) {
			p = db_column_blob(s, 0, &len);
			strbuf_add(&raw[nr], p, len);
			r[nr].raw = raw[nr].buf;
			r[nr].len = raw[nr].len;
			received[nr] = db_column_int(s, 1);
			rid[nr++] = ids[i];
		}
		db_reset(s);
	}
	if (!s)
		goto out;
	parse_raws(st, r, nr, &b);
	s = db_prepare(st->db,
		"UPDATE messages SET msgid = ?, subject = ?, from_name = ?, from_email = ?,"
		" date = ?, parent = ?, meta = ?, meta_version = ?, error = ? WHERE id = ?");
	for (i = 0; i < nr; i++) {
		struct msg *m = &b.m[i];

		series_msg_set_missing_id(m, r[i].raw, r[i].len);
		if (received[i])
			clamp_date(m, received[i]);
		if (!s || db_bind_text(s, 1, m->msgid) ||
		    bind_parsed(s, 2, m, b.parsed[i], b.parsed[i] ? NULL : b.perr[i].buf) ||
		    db_bind_int(s, 10, rid[i]) || db_run(s))
			break;
	}
	ret = i == nr ? 0 : -1;
out:
	parse_batch_release(&b);
	for (i = 0; i < n; i++)
		strbuf_release(&raw[i]);
	free(raw);
	free(r);
	free(rid);
	free(received);
	return ret ? fail(st, err) : 0;
}

int64_t store_reparse(struct store *st, bool force, struct strbuf *err)
{
	const char *lo = store_parse_stamp(), *hi = store_failed_stamp();
	struct db_stmt *s;
	int64_t *ids = NULL, n = 0;
	size_t nr = 0, alloc = 0, i;
	int r;

	if (strcmp(lo, hi) > 0) {
		hi = lo;
		lo = store_failed_stamp();
	}
	s = db_prepare(st->db, force ? "SELECT id FROM messages" :
		       /*
			* ranges of an index around the two good stamps, not a
			* scan: with statistics that say few stamps share the
			* messages, the planner would rather read them all
			* (tests/t0954-query-plans.t)
			*/
		       "SELECT id FROM messages INDEXED BY messages_meta_version"
		       " WHERE meta_version < ?1 UNION ALL"
		       " SELECT id FROM messages INDEXED BY messages_meta_version"
		       " WHERE meta_version > ?1 AND meta_version < ?2 UNION ALL"
		       " SELECT id FROM messages INDEXED BY messages_meta_version"
		       " WHERE meta_version > ?2 UNION ALL"
		       " SELECT id FROM messages INDEXED BY messages_meta_version"
		       " WHERE meta_version IS NULL");
	if (!s || (!force && (db_bind_text(s, 1, lo) || db_bind_text(s, 2, hi))))
		return fail(st, err);
	while ((r = db_step(s)) > 0) {
		ALLOC_GROW(ids, nr + 1, alloc);
		ids[nr++] = db_column_int(s, 0);
	}
	if (r < 0) {
		free(ids);
		return fail(st, err);
	}
	if (!nr) {
		free(ids);
		return 0;
	}
	/*
	 * keys may change with the parser: everything is assembled again,
	 * and that is said first, so that it holds whatever of the parse a
	 * stopped process committed.  A batch at a time, committed: a parse
	 * stopped (a fetch pass past its time limit, with mail its parser
	 * is stuck on) leaves what it did, and the next goes on from there
	 * (issue 38)
	 */
	if (store_begin(st, err)) {
		free(ids);
		return -1;
	}
	if (store_mark_dirty(st, err) || store_put_state(st, "series_full", "1") ||
	    store_commit(st, err)) {
		store_rollback(st);
		free(ids);
		return -1;
	}
	for (i = 0; i < nr; i += REPARSE_BATCH) {
		size_t k = MIN(REPARSE_BATCH, nr - i);

		if (store_begin(st, err))
			break;
		if (reparse_batch(st, ids + i, k, err) || store_commit(st, err)) {
			store_rollback(st);
			break;
		}
		n += k;
	}
	free(ids);
	return i < nr ? -1 : n;
}

int store_load_assembly(struct store *st, struct assembly *a, bool touched,
			size_t *pending, struct strbuf *err)
{
	struct db_stmt *s;
	size_t index = 0;
	int r;

	if (pending)
		*pending = 0;
	if (store_reparse(st, false, err) < 0)
		return -1;
	/*
	 * Of several variants of a Message-ID, assembly uses the one the
	 * archive has first (STORE_VARIANT_ORDER), never the one with the
	 * earliest Date:, which its sender sets: a later message reusing
	 * the id must not displace it.  Both stay stored; the other is
	 * reported.
	 */
	s = db_prepare(st->db, touched ?
		       "SELECT id, meta, msgid, error, size,"
		       " (SELECT f.id FROM messages AS f WHERE f.msgid = m.msgid"
		       "  ORDER BY " STORE_VARIANT_ORDER " LIMIT 1),"
		       " id IN (SELECT message FROM series_pending)"
		       " FROM messages AS m WHERE id IN (SELECT id FROM temp.closure)"
		       " ORDER BY date, msgid, id" :
		       "SELECT id, meta, msgid, error, size,"
		       " (SELECT f.id FROM messages AS f WHERE f.msgid = m.msgid"
		       "  ORDER BY " STORE_VARIANT_ORDER " LIMIT 1), 0"
		       " FROM messages AS m ORDER BY date, msgid, id");
	if (!s)
		return fail(st, err);
	while ((r = db_step(s)) > 0) {
		const char *meta = db_column_text(s, 1);
		int64_t first = db_column_int(s, 5);
		struct msg *m;

		if (first != db_column_int(s, 0)) {
			series_problem(a, index++, db_column_text(s, 2),
				       "the Message-ID of message #%lld, first in "
				       "the archive (or stored first), with other "
				       "content; not used",
				       (long long)first);
			continue;
		}
		if (!meta) {
			series_problem(a, index++, db_column_text(s, 2), "%s",
				       db_column_text(s, 3) ? db_column_text(s, 3) :
				       "cannot be parsed");
			a->errors++;
			continue;
		}
		/* in the assembly's pools: past series.memory, in its scratch file */
		m = series_msg_alloc(a);
		if (store_msg_from_json_pool(meta, &a->pool, m)) {
			series_problem(a, index++, db_column_text(s, 2),
				       "stored form is damaged; run 'lorebot fetch --reparse'");
			series_msg_free(m);
			a->errors++;
			continue;
		}
		m->rowid = db_column_int(s, 0);
		m->size = db_column_int(s, 4);
		m->index = index++;
		if (series_add_msg(a, m) && pending && db_column_int(s, 6))
			(*pending)++;
		series_tick(a);
	}
	if (series_failed(a)) {
		strbuf_addstr(err, a->fatal.buf);
		return -1;
	}
	return r < 0 ? fail(st, err) : 0;
}
