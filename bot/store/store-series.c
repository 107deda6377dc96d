// SPDX-License-Identifier: GPL-2.0
/*
 * Series in the database: assemble every stored message (the same code
 * as `lorebot series --mbox`) and bring the series/versions/patches/
 * trailers tables up to date, touching only what changed.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/jsonw.h"
#include "bot/series/series-out.h"
#include "bot/store/store.h"
#include "bot/store/store-int.h"

/*
 * A version as stored before the assembly: not its JSON, which the
 * database compares (a full assembly of a large archive would hold
 * every version's twice)
 */
struct old_version {
	int64_t generation;
	int64_t ord;
	bool gone;
	bool same;		/* its JSON is the one written now */
};

static int fail(struct store *st, struct strbuf *err)
{
	if (!err->len)
		strbuf_addstr(err, db_error(st->db));
	return -1;
}

static void change_release(struct store_change *ch)
{
	free(ch->id);
	free(ch->series_id);
	free(ch->title);
}

/* Room for one more change kept in c?  Else it is counted */
static bool change_room(struct store_changes *c)
{
	if (!c->limit || c->nr < c->limit)
		return true;
	c->more++;
	return false;
}

void store_changes_release(struct store_changes *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		change_release(&c->v[i]);
	free(c->v);
	c->v = NULL;
	c->nr = c->alloc = c->more = 0;
}

/*
 * A version first new and then updated is new; new and then gone was
 * never there; anything else is what it became last.
 */
void store_changes_merge(struct store_changes *into, struct store_changes *from)
{
	struct strmap at = STRMAP_INIT;
	bool *drop = xcalloc(into->nr + from->nr + 1, sizeof(*drop));
	enum store_change_kind kind;
	size_t i, j, dropped = 0;

	for (i = 0; i < into->nr; i++)
		strmap_put(&at, into->v[i].id, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < from->nr; i++) {
		struct store_change *c = &from->v[i], *was;
		uintptr_t k = (uintptr_t)strmap_get(&at, c->id);

		if (!k) {
			if (!change_room(into)) {
				change_release(c);
				continue;
			}
			ALLOC_GROW(into->v, into->nr + 1, into->alloc);
			into->v[into->nr] = *c;
			strmap_put(&at, c->id, (void *)(uintptr_t)(++into->nr));
			continue;
		}
		was = &into->v[k - 1];
		kind = was->kind == STORE_VERSION_NEW ? STORE_VERSION_NEW : c->kind;
		if (was->kind == STORE_VERSION_NEW && c->kind == STORE_VERSION_GONE) {
			drop[k - 1] = true;
			dropped++;
		}
		/* the later state, but was's id: the map holds it */
		free(c->id);
		c->id = was->id;
		free(was->series_id);
		free(was->title);
		*was = *c;
		was->kind = kind;
	}
	strmap_release(&at);
	into->more += from->more;
	free(from->v);
	from->v = NULL;
	from->nr = from->alloc = from->more = 0;
	for (i = j = 0; dropped && i < into->nr; i++) {
		if (drop[i]) {
			change_release(&into->v[i]);
			continue;
		}
		into->v[j++] = into->v[i];
	}
	if (dropped)
		into->nr = j;
	free(drop);
}

const char *store_change_name(enum store_change_kind kind)
{
	static const char *const names[] = {
		[STORE_VERSION_NEW] = "new",
		[STORE_VERSION_UPDATED] = "updated",
		[STORE_VERSION_GONE] = "gone",
	};

	return names[kind];
}

static void add_change(struct store_changes *c, enum store_change_kind kind,
		       const char *id, const char *series_id, const char *title,
		       int version, int have, int total, bool complete,
		       int64_t generation)
{
	struct store_change *ch;

	if (!c || !change_room(c))
		return;
	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	ch = &c->v[c->nr++];
	ch->kind = kind;
	ch->id = xstrdup(id);
	ch->series_id = xstrdup_or_null(series_id);
	ch->title = xstrdup_or_null(title);
	ch->version = version;
	ch->have = have;
	ch->total = total;
	ch->complete = complete;
	ch->generation = generation;
}

/*
 * The versions stored before are looked up one by one, and those written
 * now are noted in temp.written: a map of all of them was 11 MB of
 * db rebuild's anonymous memory at 141,258 versions, a cost of the
 * archive.
 */
static int written_init(struct store *st)
{
	return db_exec(st->db, "CREATE TEMP TABLE IF NOT EXISTS written (id TEXT PRIMARY KEY);"
		       "DELETE FROM temp.written");
}

/* id as stored before, with json compared: 1, 0 when it was not, or -1 */
static int old_version(struct store *st, const char *id, const char *json,
		       struct old_version *o)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT generation, ord, gone, json = ?2"
				       " FROM versions WHERE id = ?1");
	int r;

	if (!s || db_bind_text(s, 1, id) || db_bind_text(s, 2, json))
		return -1;
	r = db_step(s);
	if (r > 0) {
		o->generation = db_column_int(s, 0);
		o->ord = db_column_int(s, 1);
		o->gone = db_column_int(s, 2) != 0;
		o->same = db_column_int(s, 3) == 1;
		db_reset(s);
		return 1;
	}
	return r;
}

/* first_date and first_version place the series in `lorebot series` */
static int put_series(struct store *st, const struct series *sr, int64_t now)
{
	const struct send *last = sr->sends[sr->nr - 1], *first = sr->sends[0];
	struct db_stmt *s = db_prepare(st->db,
		"INSERT INTO series (id, title, author_name, author_email, created, updated,"
		" first_date, first_version) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7)"
		" ON CONFLICT (id) DO UPDATE SET title = ?2, author_name = ?3,"
		" author_email = ?4, updated = ?5, first_date = ?6, first_version = ?7"
		" WHERE title IS NOT ?2 OR author_name IS NOT ?3 OR author_email IS NOT ?4"
		" OR first_date IS NOT ?6 OR first_version IS NOT ?7");

	if (!s || db_bind_text(s, 1, sr->id) || db_bind_text(s, 2, last->title) ||
	    db_bind_text(s, 3, last->author_name) ||
	    db_bind_text(s, 4, last->author_email) || db_bind_int(s, 5, now) ||
	    db_bind_int(s, 6, first->date) || db_bind_text(s, 7, first->id))
		return -1;
	return db_run(s);
}

static int put_patches(struct store *st, const struct send *sd)
{
	struct db_stmt *s;
	int n;

	s = db_prepare(st->db, "DELETE FROM patches WHERE version = ?");
	if (!s || db_bind_text(s, 1, sd->id) || db_run(s))
		return -1;
	for (n = 0; n < sd->total; n++) {
		const struct send_patch *sp = &sd->patches[n];
		size_t t;

		if (!sp->msg)
			continue;
		s = db_prepare(st->db,
			"INSERT INTO patches (version, n, message, msgid, subject, title,"
			" author_name, author_email) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
		if (!s || db_bind_text(s, 1, sd->id) || db_bind_int(s, 2, n + 1) ||
		    (sp->msg->rowid ? db_bind_int(s, 3, sp->msg->rowid) : db_bind_null(s, 3)) ||
		    db_bind_text(s, 4, sp->msg->msgid) ||
		    db_bind_text(s, 5, sp->msg->subject) ||
		    db_bind_text(s, 6, sp->msg->title) ||
		    db_bind_text(s, 7, sp->msg->author_name) ||
		    db_bind_text(s, 8, sp->msg->author_email) || db_run(s))
			return -1;
		for (t = 0; t < sp->trailers.nr; t++) {
			s = db_prepare(st->db,
				"INSERT INTO trailers (version, n, pos, name, value)"
				" VALUES (?, ?, ?, ?, ?)");
			if (!s || db_bind_text(s, 1, sd->id) || db_bind_int(s, 2, n + 1) ||
			    db_bind_int(s, 3, t) ||
			    db_bind_text(s, 4, sp->trailers.t[t].name) ||
			    db_bind_text(s, 5, sp->trailers.t[t].value) || db_run(s))
				return -1;
		}
	}
	return 0;
}

/* columns 1..19 of versions, in the order of the statements below */
static int bind_version(struct db_stmt *s, const struct send *sd, int64_t ord,
			const char *json)
{
	return db_bind_text(s, 1, sd->id) || db_bind_text(s, 2, sd->series->id) ||
		db_bind_int(s, 3, ord) || db_bind_int(s, 4, sd->version) ||
		db_bind_int(s, 5, sd->total) || db_bind_int(s, 6, sd->have) ||
		db_bind_int(s, 7, sd->complete) || db_bind_int(s, 8, sd->rfc) ||
		db_bind_int(s, 9, sd->resend) || db_bind_text(s, 10, sd->tree) ||
		db_bind_text(s, 11, sd->title) || db_bind_text(s, 12, sd->author_name) ||
		db_bind_text(s, 13, sd->author_email) ||
		db_bind_text(s, 14, sd->cover ? sd->cover->msgid : NULL) ||
		db_bind_text(s, 15, sd->base_commit) || db_bind_text(s, 16, sd->change_id) ||
		db_bind_text(s, 17, sd->superseded_by ? sd->superseded_by->id : NULL) ||
		db_bind_int(s, 18, sd->date) || db_bind_int(s, 19, sd->replies) ||
		db_bind_text(s, 20, json) ? -1 : 0;
}

static int put_version(struct store *st, const struct send *sd, int64_t ord,
		       int64_t now, struct store_changes *ch)
{
	struct strbuf sb = STRBUF_INIT;
	struct jsonw w = JSONW_INIT(&sb, false);
	const char *json;
	struct old_version ov = { 0 };
	struct db_stmt *s;
	int64_t gen = 1;
	int was, ret = -1;

	series_send_write_json(&w, sd);
	json = sb.buf;
	was = old_version(st, sd->id, json, &ov);
	s = db_prepare(st->db, "INSERT OR IGNORE INTO temp.written (id) VALUES (?)");
	if (was < 0 || !s || db_bind_text(s, 1, sd->id) || db_run(s))
		goto out;
	if (was) {
		if (!ov.gone && ov.same) {
			ret = 0;
			if (ov.ord != ord) {
				s = db_prepare(st->db, "UPDATE versions SET ord = ? WHERE id = ?");
				if (!s || db_bind_int(s, 1, ord) || db_bind_text(s, 2, sd->id) ||
				    db_run(s))
					ret = -1;
			}
			goto out;
		}
		gen = ov.generation + 1;
		s = db_prepare(st->db,
			"UPDATE versions SET series = ?2, ord = ?3, version = ?4, total = ?5,"
			" have = ?6, complete = ?7, rfc = ?8, resend = ?9, tree = ?10,"
			" title = ?11, author_name = ?12, author_email = ?13, cover = ?14,"
			" base_commit = ?15, change_id = ?16, superseded_by = ?17, date = ?18,"
			" replies = ?19, json = ?20, generation = ?21, gone = 0, updated = ?22"
			" WHERE id = ?1");
	} else {
		s = db_prepare(st->db,
			"INSERT INTO versions (id, series, ord, version, total, have, complete,"
			" rfc, resend, tree, title, author_name, author_email, cover,"
			" base_commit, change_id, superseded_by, date, replies, json,"
			" generation, created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
			" ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,"
			" ?22, ?22)");
	}
	if (!s || bind_version(s, sd, ord, json) || db_bind_int(s, 21, gen) ||
	    db_bind_int(s, 22, now) || db_run(s) || put_patches(st, sd))
		goto out;
	add_change(ch, was ? STORE_VERSION_UPDATED : STORE_VERSION_NEW, sd->id,
		   sd->series->id, sd->title, sd->version, sd->have, sd->total,
		   sd->complete, gen);
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

/*
 * The versions stored before that this assembly did not write again are
 * gone: of the touched ones (temp.touched) when it assembled only those,
 * else of all.  The touched ones are looked up by id: "+gone" keeps the
 * planner from walking every live version through versions_live to find
 * the few touched (tests/t0954-query-plans.t)
 */
static int mark_gone(struct store *st, bool touched, int64_t now,
		     struct store_changes *ch)
{
	struct db_stmt *s = db_prepare(st->db, touched ?
		"UPDATE versions SET gone = 1, generation = generation + 1, updated = ?1"
		" WHERE +gone = 0 AND id IN (SELECT id FROM temp.touched)"
		" AND id NOT IN (SELECT id FROM temp.written) RETURNING id, generation" :
		"UPDATE versions SET gone = 1, generation = generation + 1, updated = ?1"
		" WHERE gone = 0 AND id NOT IN (SELECT id FROM temp.written)"
		" RETURNING id, generation");
	int r;

	if (!s || db_bind_int(s, 1, now))
		return -1;
	while ((r = db_step(s)) > 0)
		add_change(ch, STORE_VERSION_GONE, db_column_text(s, 0), NULL, NULL, 0, 0,
			   0, false, db_column_int(s, 1));
	return r;
}

int store_put_state(struct store *st, const char *key, const char *value)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)");

	if (!s || db_bind_text(s, 1, key) || db_bind_text(s, 2, value))
		return -1;
	return db_run(s);
}

/*
 * A problem line as the database keeps it: "<msgid>: what", without the
 * "message N" of its place in this assembly (which means nothing once
 * other messages arrive), filed under the Message-ID it names.
 */
struct put_ctx {
	struct store *st;
	int64_t rowid;
	bool failed;
};

static void put_problem(const char *line, size_t len, void *ctx)
{
	struct put_ctx *p = ctx;
	struct store *st = p->st;
	const char *lt = memchr(line, '<', len), *gt, *colon;
	struct db_stmt *s;
	size_t skip = 0;

	gt = lt ? memchr(lt, '>', len - (lt - line)) : NULL;
	colon = memchr(line, ':', len);
	if (!strncmp(line, "message ", 8) && colon)
		skip = lt && lt < colon ? (size_t)(lt - line) : (size_t)(colon - line + 2);
	s = db_prepare(st->db, "INSERT INTO series_problems (msgid, line) VALUES (?, ?)");
	if (!s || db_bind_textn(s, 1, gt ? lt + 1 : "", gt ? (size_t)(gt - lt - 1) : 0) ||
	    db_bind_textn(s, 2, line + MIN(skip, len), len - MIN(skip, len)) || db_run(s))
		p->failed = true;
}

static int put_problems(struct store *st, const struct assembly *a, bool touched)
{
	struct db_stmt *s = db_prepare(st->db, touched ?
		"DELETE FROM series_problems WHERE msgid IN"
		" (SELECT msgid FROM messages WHERE id IN (SELECT id FROM temp.closure))" :
		"DELETE FROM series_problems");
	struct put_ctx p = { st, 0, false };

	if (!s || db_run(s))
		return -1;
	series_each_problem(a, put_problem, &p);
	return p.failed ? -1 : 0;
}

/* The "u:" keys of the patches threading did not place (series_msg_unthreaded_key()) */
static int put_unthreaded(struct store *st, struct assembly *a, bool touched)
{
	struct db_stmt *s = db_prepare(st->db, touched ?
		"DELETE FROM message_keys WHERE message IN (SELECT id FROM temp.closure)"
		" AND key >= 'u:' AND key < 'u;'" :
		"DELETE FROM message_keys WHERE key >= 'u:' AND key < 'u;'");
	size_t i;

	if (!s || db_run(s))
		return -1;
	for (i = 0; i < a->nr; i++) {
		struct msg *m = a->msgs[i];
		char *key = m->rowid ? series_msg_unthreaded_key(m) : NULL;

		series_tick(a);
		if (!key)
			continue;
		s = db_prepare(st->db, "INSERT OR IGNORE INTO message_keys (key, message)"
			       " VALUES (?, ?)");
		if (!s || db_bind_text(s, 1, key) || db_bind_int(s, 2, m->rowid) || db_run(s)) {
			free(key);
			return -1;
		}
		free(key);
	}
	return 0;
}

int store_put_assembly(struct store *st, struct assembly *a, bool touched,
		       struct store_changes *ch)
{
	int64_t now = time(NULL);
	size_t i, j;

	if (written_init(st))
		return -1;
	for (i = 0; i < a->nr_series; i++) {
		const struct series *sr = a->series[i];

		if (put_series(st, sr, now))
			return -1;
		for (j = 0; j < sr->nr; j++) {
			series_tick(a);
			if (put_version(st, sr->sends[j], j, now, ch))
				return -1;
		}
	}
	if (mark_gone(st, touched, now, ch) || put_problems(st, a, touched) ||
	    put_unthreaded(st, a, touched))
		return -1;
	return 0;
}

static void put_key(const char *key, void *ctx)
{
	struct put_ctx *k = ctx;
	struct db_stmt *s = db_prepare(k->st->db,
		"INSERT OR IGNORE INTO message_keys (key, message) VALUES (?, ?)");

	if (!s || db_bind_text(s, 1, key) || db_bind_int(s, 2, k->rowid) || db_run(s))
		k->failed = true;
}

int store_put_keys(struct store *st, struct msg *m, int64_t rowid)
{
	struct put_ctx k = { st, rowid, false };

	series_msg_each_key(m, put_key, &k);
	return k.failed ? -1 : 0;
}

/* Every message's keys again (after a parser change, or the migration) */
static int put_all_keys(struct store *st, struct assembly *a)
{
	size_t i;

	if (db_exec(st->db, "DELETE FROM message_keys;"
		    "INSERT OR IGNORE INTO message_keys (key, message)"
		    " SELECT 'm:' || msgid, id FROM messages"))
		return -1;
	for (i = 0; i < a->nr; i++) {
		series_tick(a);
		if (a->msgs[i]->rowid && store_put_keys(st, a->msgs[i], a->msgs[i]->rowid))
			return -1;
	}
	return 0;
}

char *store_trust_state(const struct store *st)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < st->nr_trusted; i++)
		strbuf_addf(&sb, "%s\n", st->trusted[i]);
	return strbuf_detach(&sb, NULL);
}

void store_assembly_init(struct store *st, struct assembly *a)
{
	series_init(a, 0);
	a->spill_after = st->series_memory;
	if (st->nr_trusted) {
		const char **t = xcalloc(st->nr_trusted, sizeof(*t));

		memcpy(t, st->trusted, st->nr_trusted * sizeof(*t));
		series_trust_senders(a, t, st->nr_trusted);
	}
}

int store_rebuild_series(struct store *st, struct store_changes *ch,
			 struct strbuf *err)
{
	struct assembly a;
	char count[32], *trust = store_trust_state(st);

	/* parse what an older lorebot parsed, before taking the write lock */
	if (store_reparse(st, false, err) < 0) {
		free(trust);
		return -1;
	}
	store_assembly_init(st, &a);
	if (store_begin(st, err))
		goto fail_nolock;
	if (store_load_assembly(st, &a, false, NULL, err) || put_all_keys(st, &a))
		goto fail;
	series_build(&a);
	if (series_failed(&a)) {
		strbuf_addstr(err, a.fatal.buf);
		goto fail;
	}
	snprintf(count, sizeof(count), "%zu", a.nr);
	if (store_put_assembly(st, &a, false, ch) || store_put_state(st, "messages", count) ||
	    store_put_state(st, "series_trust", trust) ||
	    store_put_state(st, "series_full", "0") ||
	    db_exec(st->db, "DELETE FROM series_pending") ||
	    store_put_state(st, "series_dirty", "0"))
		goto fail;
	if (store_commit(st, err))
		goto fail_nolock;
	series_release(&a);
	free(trust);
	return 0;
fail:
	fail(st, err);
	store_rollback(st);
fail_nolock:
	series_release(&a);
	free(trust);
	return -1;
}

/* in the order of their messages' Message-IDs, whatever assembled them */
static json_object *problems_json(struct store *st)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT line FROM series_problems ORDER BY msgid, line");
	json_object *arr = json_object_new_array();

	while (s && db_step(s) > 0)
		json_object_array_add(arr, json_object_new_string(db_column_text(s, 0)));
	return arr;
}

static char *get_state(struct store *st, const char *key)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT value FROM state WHERE key = ?");
	char *v = NULL;

	if (s && !db_bind_text(s, 1, key) && db_step(s) > 0) {
		v = xstrdup_or_null(db_column_text(s, 0));
		db_reset(s);
	}
	return v;
}

int store_series_json(struct store *st, json_object **out, struct strbuf *err)
{
	struct db_stmt *s;
	json_object *o, *arr;
	char *v;
	int r;

	*out = NULL;
	if (store_series_dirty(st) && store_update_series(st, NULL, err))
		return -1;
	s = db_prepare(st->db, "SELECT v.json FROM versions v JOIN series s ON s.id = v.series"
		       " WHERE v.gone = 0 ORDER BY " STORE_VERSION_ORDER);
	if (!s)
		return fail(st, err);
	o = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(o, "series", arr);
	while ((r = db_step(s)) > 0) {
		json_object *v1 = json_tokener_parse(db_column_text(s, 0));

		if (v1)
			json_object_array_add(arr, v1);
	}
	if (r < 0) {
		json_object_put(o);
		return fail(st, err);
	}
	v = get_state(st, "messages");
	json_object_object_add(o, "messages", json_object_new_int64(v ? atoll(v) : 0));
	free(v);
	json_object_object_add(o, "problems", problems_json(st));
	*out = o;
	return 0;
}

json_object *store_version_json(struct store *st, const char *id)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT json FROM versions WHERE id = ?");
	json_object *o = NULL;

	if (s && !db_bind_text(s, 1, id) && db_step(s) > 0) {
		o = json_tokener_parse(db_column_text(s, 0));
		db_reset(s);
	}
	return o;
}
