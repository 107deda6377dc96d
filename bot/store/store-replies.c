// SPDX-License-Identifier: GPL-2.0
/* The replies table (migration "report-1") and its state transitions */
#include <stdlib.h>

#include "lib/jsonx.h"
#include "bot/base/db.h"
#include "bot/store/store.h"
#include "bot/store/store-replies.h"

static int fail(struct store *st, struct strbuf *err)
{
	strbuf_addstr(err, db_error(st->db));
	return -1;
}

int store_replies_exists(struct store *st, const char *version, const char *kind)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT 1 FROM replies WHERE version = ? AND kind = ?");
	int r;

	if (!s || db_bind_text(s, 1, version) || db_bind_text(s, 2, kind))
		return -1;
	r = db_step(s);
	if (r > 0)
		db_reset(s);
	return r;
}

static char *recipients_json(const struct store_reply *m)
{
	json_object *o = json_object_new_object(), *to = json_object_new_array();
	json_object *cc = json_object_new_array();
	char *s;
	size_t i;

	for (i = 0; i < m->to->nr; i++)
		json_object_array_add(to, json_object_new_string(m->to->v[i].email));
	for (i = 0; i < m->cc->nr; i++)
		json_object_array_add(cc, json_object_new_string(m->cc->v[i].email));
	json_object_object_add(o, "to", to);
	json_object_object_add(o, "cc", cc);
	s = xstrdup(jx_text(o, false));
	json_object_put(o);
	return s;
}

/* The reply's permanent record (migration "report-3"), beside it */
static int report_record(struct store *st, int64_t reply, const char *version,
			 const struct store_reply *m, int64_t now, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR IGNORE INTO reports (id, reply, version, json, created)"
		" VALUES (?, ?, ?, ?, ?)");
	size_t i;

	if (!s || db_bind_text(s, 1, m->report_id) || db_bind_int(s, 2, reply) ||
	    db_bind_text(s, 3, version) || db_bind_text(s, 4, m->snapshot) ||
	    db_bind_int(s, 5, now) || db_run(s))
		return fail(st, err);
	for (i = 0; i < m->nr_files; i++) {
		s = db_prepare(st->db, "INSERT OR IGNORE INTO report_files (report, name, data)"
			       " VALUES (?, ?, ?)");
		if (!s || db_bind_text(s, 1, m->report_id) ||
		    db_bind_text(s, 2, m->files[i].name) ||
		    db_bind_blob(s, 3, m->files[i].data.buf, m->files[i].data.len) || db_run(s))
			return fail(st, err);
	}
	return 0;
}

int store_replies_insert(struct store *st, const char *version, const char *kind,
			 const struct store_reply *m, const char *mode, const char *state,
			 const char *reason, int64_t now, int64_t *id, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT INTO replies (version, kind, patch, msgid, in_reply_to, subject, author,"
		" recipients, mode, state, reason, mail, created, updated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)"
		" ON CONFLICT (version, kind) DO NOTHING");
	char *rcpt = recipients_json(m);
	int ret;

	ret = !s || db_bind_text(s, 1, version) || db_bind_text(s, 2, kind) ||
		db_bind_int(s, 3, m->patch) || db_bind_text(s, 4, m->msgid) ||
		db_bind_text(s, 5, m->in_reply_to) || db_bind_text(s, 6, m->subject) ||
		db_bind_text(s, 7, m->to->nr ? m->to->v[0].email : NULL) ||
		db_bind_text(s, 8, rcpt) || db_bind_text(s, 9, mode) ||
		db_bind_text(s, 10, state) || db_bind_text(s, 11, reason) ||
		db_bind_blob(s, 12, m->text->buf, m->text->len) || db_bind_int(s, 13, now) ||
		db_run(s) ? fail(st, err) : 0;
	free(rcpt);
	if (!ret)
		*id = db_changes(st->db) ? db_last_insert_id(st->db) : 0;
	if (!ret && *id && m->report_id && m->snapshot)
		ret = report_record(st, *id, version, m, now, err);
	return ret;
}

#define ROW_COLUMNS "id, version, kind, msgid, in_reply_to, subject, author, recipients," \
	" mode, state, reason, patch, attempts, next_attempt, created, updated, sent"

static void row_read(struct db_stmt *s, struct reply_row *r, bool with_mail)
{
	memset(r, 0, sizeof(*r));
	r->id = db_column_int(s, 0);
	r->version = xstrdup_or_null(db_column_text(s, 1));
	r->kind = xstrdup_or_null(db_column_text(s, 2));
	r->msgid = xstrdup_or_null(db_column_text(s, 3));
	r->in_reply_to = xstrdup_or_null(db_column_text(s, 4));
	r->subject = xstrdup_or_null(db_column_text(s, 5));
	r->author = xstrdup_or_null(db_column_text(s, 6));
	r->recipients = xstrdup_or_null(db_column_text(s, 7));
	r->mode = xstrdup_or_null(db_column_text(s, 8));
	r->state = xstrdup_or_null(db_column_text(s, 9));
	r->reason = xstrdup_or_null(db_column_text(s, 10));
	r->patch = (int)db_column_int(s, 11);
	r->attempts = (int)db_column_int(s, 12);
	r->next_attempt = db_column_int(s, 13);
	r->created = db_column_int(s, 14);
	r->updated = db_column_int(s, 15);
	r->sent = db_column_int(s, 16);
	if (with_mail) {
		const void *p = db_column_blob(s, 17, &r->mail_len);

		r->mail = xstrndup(p ? p : "", r->mail_len);
	}
}

static int rows_read(struct store *st, struct db_stmt *s, bool with_mail,
		     struct reply_rows *rows, struct strbuf *err)
{
	int r;

	while ((r = db_step(s)) > 0) {
		ALLOC_GROW(rows->v, rows->nr + 1, rows->alloc);
		row_read(s, &rows->v[rows->nr++], with_mail);
	}
	return r < 0 ? fail(st, err) : 0;
}

int store_replies_pending(struct store *st, int64_t now, const char *only,
			  struct reply_rows *rows, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT " ROW_COLUMNS ", mail FROM replies r WHERE state IN ('queued', 'sending')"
		" AND next_attempt <= ?1 AND (?2 IS NULL OR version = ?2 OR"
		" version IN (SELECT id FROM versions WHERE series = ?2)) ORDER BY id");

	if (!s || db_bind_int(s, 1, now) || db_bind_text(s, 2, only))
		return fail(st, err);
	return rows_read(st, s, true, rows, err);
}

int store_replies_of_version(struct store *st, const char *version, bool with_mail,
			     struct reply_rows *rows, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT " ROW_COLUMNS ", mail FROM replies WHERE version = ? ORDER BY id");

	if (!s || db_bind_text(s, 1, version))
		return fail(st, err);
	return rows_read(st, s, with_mail, rows, err);
}

int store_replies_load(struct store *st, int64_t id, struct reply_row *r, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT " ROW_COLUMNS ", mail FROM replies WHERE id = ?");
	int ret;

	if (!s || db_bind_int(s, 1, id))
		return fail(st, err);
	ret = db_step(s);
	if (ret < 0)
		return fail(st, err);
	if (ret) {
		row_read(s, r, true);
		db_reset(s);
	}
	return ret;
}

int store_replies_claim(struct store *st, int64_t id, int64_t now, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"UPDATE replies SET state = 'sending', attempts = attempts + 1, updated = ?2"
		" WHERE id = ?1 AND state IN ('queued', 'sending')");

	if (!s || db_bind_int(s, 1, id) || db_bind_int(s, 2, now) || db_run(s))
		return fail(st, err);
	return db_changes(st->db) == 1;
}

int store_replies_set(struct store *st, int64_t id, const char *state, int64_t next_attempt,
		      const char *reason, int64_t now, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"UPDATE replies SET state = ?2, next_attempt = ?3, reason = ?4, updated = ?5,"
		" sent = CASE WHEN ?2 = 'sent' THEN ?5 ELSE sent END WHERE id = ?1");

	if (!s || db_bind_int(s, 1, id) || db_bind_text(s, 2, state) ||
	    db_bind_int(s, 3, next_attempt) || db_bind_text(s, 4, reason) ||
	    db_bind_int(s, 5, now) || db_run(s))
		return fail(st, err);
	return 0;
}

int store_replies_note(struct store *st, int64_t id, const char *reason, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db, "UPDATE replies SET reason = ?2 WHERE id = ?1");

	if (!s || db_bind_int(s, 1, id) || db_bind_text(s, 2, reason) || db_run(s))
		return fail(st, err);
	return 0;
}

int64_t store_replies_sent_since(struct store *st, int64_t t, const char *author)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT count(*) FROM replies WHERE ((state = 'sent' AND sent >= ?1) OR"
		" state = 'sending') AND (?2 IS NULL OR author = ?2)");
	int64_t n = 0;

	if (!s || db_bind_int(s, 1, t) || db_bind_text(s, 2, author) || db_step(s) <= 0)
		return 0;
	n = db_column_int(s, 0);
	db_reset(s);
	return n;
}

int64_t store_replies_oldest_since(struct store *st, int64_t t, const char *author)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT min(sent) FROM replies WHERE state = 'sent' AND sent >= ?1"
		" AND (?2 IS NULL OR author = ?2)");
	int64_t n = t;

	if (!s || db_bind_int(s, 1, t) || db_bind_text(s, 2, author) || db_step(s) <= 0)
		return t;
	if (!db_column_null(s, 0))
		n = db_column_int(s, 0);
	db_reset(s);
	return n;
}

bool store_replies_in_archive(struct store *st, const char *msgid)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT 1 FROM messages WHERE msgid = ? LIMIT 1");
	int r;

	if (!s || db_bind_text(s, 1, msgid))
		return false;
	r = db_step(s);
	if (r > 0)
		db_reset(s);
	return r > 0;
}

void store_reply_row_release(struct reply_row *r)
{
	free(r->version);
	free(r->kind);
	free(r->msgid);
	free(r->in_reply_to);
	free(r->subject);
	free(r->author);
	free(r->recipients);
	free(r->mode);
	free(r->state);
	free(r->reason);
	free(r->mail);
	memset(r, 0, sizeof(*r));
}

void store_reply_rows_release(struct reply_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->nr; i++)
		store_reply_row_release(&rows->v[i]);
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}
