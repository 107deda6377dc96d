// SPDX-License-Identifier: GPL-2.0
/* The answers, dismissals and retests tables (migration "report-4") */
#include "bot/store/store.h"

static int fail(struct store *st, struct strbuf *err)
{
	strbuf_addstr(err, db_error(st->db));
	return -1;
}

bool store_has_answers(struct store *st)
{
	int64_t n = 0;

	if (!st->answers_tables)
		st->answers_tables = !db_query_int(st->db, "SELECT count(*) FROM sqlite_master"
						   " WHERE type = 'table' AND name IN"
						   " ('answers', 'dismissals', 'retests')", 0, &n) &&
			n == 3 ? 1 : -1;
	return st->answers_tables > 0;
}

int64_t store_answers_seen(struct store *st)
{
	int64_t id = 0;

	db_query_int(st->db, "SELECT CAST(value AS INTEGER) FROM state"
		     " WHERE key = 'answers_seen'", 0, &id);
	return id;
}

int store_answers_set_seen(struct store *st, int64_t id, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR REPLACE INTO state (key, value) VALUES ('answers_seen', ?)");

	if (!s || db_bind_int(s, 1, id) || db_step(s) < 0)
		return fail(st, err);
	return 0;
}

int store_answer_known(struct store *st, const char *msgid)
{
	return db_query_exists(st->db, "SELECT 1 FROM answers WHERE msgid = ? LIMIT 1", msgid);
}

int store_answer_add(struct store *st, const char *msgid, int line, const char *version,
		     const char *sender, const char *command, bool done,
		     const char *reason, int64_t now, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR IGNORE INTO answers (msgid, line, version, sender, command, outcome,"
		" reason, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");

	if (!s || db_bind_text(s, 1, msgid) || db_bind_int(s, 2, line) ||
	    db_bind_text(s, 3, version) || db_bind_text(s, 4, sender) ||
	    db_bind_text(s, 5, command) || db_bind_text(s, 6, done ? "done" : "ignored") ||
	    db_bind_text(s, 7, reason) || db_bind_int(s, 8, now) || db_step(s) < 0)
		return fail(st, err);
	return 0;
}

int store_dismiss(struct store *st, const char *series, const char *kind,
		  const char *target, const char *who, const char *why,
		  const char *msgid, const char *version, int64_t now, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR IGNORE INTO dismissals (series, kind, target, who, why, msgid,"
		" version, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");

	if (!s || db_bind_text(s, 1, series) || db_bind_text(s, 2, kind) ||
	    db_bind_text(s, 3, target) || db_bind_text(s, 4, who) ||
	    db_bind_text(s, 5, why) || db_bind_text(s, 6, msgid) ||
	    db_bind_text(s, 7, version) || db_bind_int(s, 8, now) || db_step(s) < 0)
		return fail(st, err);
	return db_changes(st->db) > 0;
}

int64_t store_retest_last(struct store *st, const char *series)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT max(created) FROM retests WHERE series = ?");
	int64_t t = 0;

	if (!s || db_bind_text(s, 1, series))
		return -1;
	if (db_step(s) > 0) {
		t = db_column_int(s, 0);
		db_reset(s);
	}
	return t;
}

int store_retest(struct store *st, const char *series, const char *version,
		 const char *msgid, const char *who, int64_t now, struct strbuf *err)
{
	static const char *const forget[] = {
		"DELETE FROM results WHERE version = ?",
		"DELETE FROM jobs WHERE version = ? AND state IN ('done', 'failed', 'cancelled')",
	};
	struct db_stmt *s = db_prepare(st->db,
		"INSERT INTO retests (series, version, msgid, who, created)"
		" VALUES (?, ?, ?, ?, ?)");
	size_t i;

	if (!s || db_bind_text(s, 1, series) || db_bind_text(s, 2, version) ||
	    db_bind_text(s, 3, msgid) || db_bind_text(s, 4, who) || db_bind_int(s, 5, now) ||
	    db_step(s) < 0)
		return fail(st, err);
	for (i = 0; i < ARRAY_SIZE(forget); i++) {
		s = db_prepare(st->db, forget[i]);
		/* a database without the daemon's jobs table has no jobs to forget */
		if (!s && i == 1)
			continue;
		if (!s || db_bind_text(s, 1, version) || db_step(s) < 0)
			return fail(st, err);
	}
	return 0;
}
