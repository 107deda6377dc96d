// SPDX-License-Identifier: GPL-2.0
/*
 * The state of every live version kept in the database (version_states,
 * migration report-2): report_state()'s output, derived again for the
 * versions the triggers marked dirty, before a writer commits.  It only
 * stores what report_state() says; report_states_check() proves it.
 */
#include <stdlib.h>

#include "bot/report/report.h"
#include "bot/store/store-results.h"

#define STATES_KEY "version_states"

void report_states_key(const struct report_opts *o, struct strbuf *sb)
{
	size_t i;

	strbuf_addstr(sb, "archs=");
	for (i = 0; i < o->nr_archs; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "", o->archs[i]);
	strbuf_addf(sb, " boot=%d", o->boot);
}

enum key_is {
	KEY_NONE,	/* never derived (just migrated) */
	KEY_OTHER,	/* derived with other options */
	KEY_OURS,
};

/* Whose options the table was derived with (enum key_is), or -1 */
static int key_matches(struct db *db, const struct report_opts *o)
{
	struct db_stmt *s = db_prepare(db, "SELECT value FROM state WHERE key = ?");
	struct strbuf want = STRBUF_INIT;
	int r;

	if (!s || db_bind_text(s, 1, STATES_KEY))
		return -1;
	r = db_step(s);
	if (r <= 0)
		return r < 0 ? -1 : KEY_NONE;
	report_states_key(o, &want);
	r = db_column_text(s, 0) && !strcmp(want.buf, db_column_text(s, 0)) ?
		KEY_OURS : KEY_OTHER;
	db_reset(s);
	strbuf_release(&want);
	return r;
}

bool report_states_valid(struct db *db, const struct report_opts *o)
{
	int64_t dirty = 1;

	if (key_matches(db, o) != KEY_OURS)
		return false;
	return !db_query_int(db, "SELECT EXISTS (SELECT 1 FROM version_states_dirty)", 1,
			     &dirty) && !dirty;
}

static int db_fail(struct db *db, struct strbuf *err)
{
	strbuf_addstr(err, db_error(db));
	return -1;
}

/* Derive the state of version id again: its row, or none when it is gone */
static int derive_one(struct store *st, const char *id, const struct report_opts *o,
		      struct strbuf *err)
{
	struct report_version v;
	struct db_stmt *s;
	int r = report_version_load(st, id, REPORT_LIGHT, &v, err);

	if (r < 0)
		return -1;
	if (!r || v.gone) {
		s = db_prepare(st->db, "DELETE FROM version_states WHERE version = ?");
		r = !s || db_bind_text(s, 1, id) || db_run(s);
	} else {
		s = db_prepare(st->db, "INSERT OR REPLACE INTO version_states"
			       " (version, state, date) VALUES (?, ?, ?)");
		r = !s || db_bind_text(s, 1, id) ||
			db_bind_text(s, 2, report_state(&v, o)) ||
			db_bind_int(s, 3, v.date) || db_run(s);
	}
	report_version_release(&v);
	return r ? db_fail(st->db, err) : 0;
}

/* The dirty versions' ids (all of them: the statement is not kept open) */
static int dirty_ids(struct db *db, char ***ids, size_t *nr, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(db, "SELECT version FROM version_states_dirty");

	*ids = NULL;
	*nr = 0;
	if (!s || db_column_all(s, ids, nr))
		return db_fail(db, err);
	return 0;
}

/* The options the table was derived with: o's from now on, every version dirty */
static int adopt(struct store *st, const struct report_opts *o, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)");
	struct strbuf key = STRBUF_INIT;
	int r;

	report_states_key(o, &key);
	r = !s || db_bind_text(s, 1, STATES_KEY) || db_bind_text(s, 2, key.buf) ||
		db_run(s) || db_exec(st->db, "DELETE FROM version_states;"
			"INSERT OR IGNORE INTO version_states_dirty SELECT id FROM versions");
	strbuf_release(&key);
	return r ? db_fail(st->db, err) : 0;
}

int report_states_flush(struct store *st, enum states_flush how, struct strbuf *err)
{
	const struct report_opts *o = st->hook_data;
	bool own_tx;
	char **ids = NULL;
	size_t nr = 0, i;
	int r, ret = -1;

	if (!o)
		return 0;
	r = key_matches(st->db, o);
	if (r < 0)
		return db_fail(st->db, err);
	/* derived with other options (the daemon's --arch): theirs to keep up */
	if (r == KEY_OTHER && how == STATES_DIRTY)
		return 0;
	own_tx = !db_in_transaction(st->db);
	if (own_tx && db_begin(st->db))
		return db_fail(st->db, err);
	if ((r != KEY_OURS || how == STATES_ALL) && adopt(st, o, err))
		goto out;
	if (dirty_ids(st->db, &ids, &nr, err))
		goto out;
	for (i = 0; i < nr; i++)
		if (derive_one(st, ids[i], o, err))
			goto out;
	if (nr && db_exec(st->db, "DELETE FROM version_states_dirty")) {
		db_fail(st->db, err);
		goto out;
	}
	ret = 0;
out:
	if (own_tx) {
		if (!ret && db_commit(st->db))
			ret = db_fail(st->db, err);
		if (ret)
			db_rollback(st->db);
	}
	db_strings_free(ids, nr);
	return ret;
}

/* store_commit() and store_results_insert(): the states of what they changed */
static int before_commit(struct store *st, struct strbuf *err)
{
	return report_states_flush(st, STATES_DIRTY, err);
}

static const struct store_hook states_hook = {
	.before_commit = before_commit,
	.release = report_states_detach,
};

void report_states_attach(struct store *st, const struct config *cfg, const char *archs)
{
	struct report_opts *o = xcalloc(1, sizeof(*o));

	report_states_detach(st);
	report_opts_init(o, cfg);
	if (archs)
		report_opts_set_archs(o, archs);
	st->hook = &states_hook;
	st->hook_data = o;
}

const struct report_opts *report_states_opts(const struct store *st)
{
	return st->hook == &states_hook ? st->hook_data : NULL;
}

void report_states_detach(struct store *st)
{
	if (st->hook != &states_hook)
		return;
	report_opts_release(st->hook_data);
	free(st->hook_data);
	st->hook = NULL;
	st->hook_data = NULL;
}

struct check_row {
	char *id, *kept;	/* kept: the table's state, NULL when it has none */
	int64_t date;		/* the table's */
	bool live, dirty;	/* a version not gone; marked to derive again */
};

static int check_one(struct store *st, const struct report_opts *o,
		     const struct check_row *c, struct strbuf *out, struct strbuf *err)
{
	struct report_version v;
	const char *want;
	int r;

	if (!c->live) {
		strbuf_addf(out, "<%s>: '%s' kept for a version gone or unknown\n", c->id,
			    c->kept);
		return 1;
	}
	r = report_version_load(st, c->id, REPORT_LIGHT, &v, err);
	if (r <= 0) {
		if (!r)
			strbuf_addf(err, "version '%s' went away while checked", c->id);
		return -1;
	}
	want = report_state(&v, o);
	r = 1;
	if (!c->kept)
		strbuf_addf(out, "<%s>: no state kept, derives '%s'\n", c->id, want);
	else if (strcmp(c->kept, want))
		strbuf_addf(out, "<%s>: state '%s' kept, derives '%s'\n", c->id, c->kept,
			    want);
	else if (c->date != v.date)
		strbuf_addf(out, "<%s>: date %lld kept, the version's is %lld\n", c->id,
			    (long long)c->date, (long long)v.date);
	else
		r = 0;
	report_version_release(&v);
	return r;
}

int report_states_check(struct store *st, const struct report_opts *o, struct strbuf *out,
			struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT v.id, c.state, c.date, 1, d.version IS NOT NULL FROM versions v"
		" LEFT JOIN version_states c ON c.version = v.id"
		" LEFT JOIN version_states_dirty d ON d.version = v.id WHERE v.gone = 0"
		" UNION ALL SELECT c.version, c.state, c.date, 0, d.version IS NOT NULL"
		" FROM version_states c LEFT JOIN version_states_dirty d ON d.version = c.version"
		" WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.id = c.version"
		"  AND v.gone = 0)");
	struct check_row *rows = NULL;
	size_t nr = 0, alloc = 0, dirty = 0, i;
	int r, bad = 0;

	r = key_matches(st->db, o);
	if (r < 0 || !s)
		return db_fail(st->db, err);
	/* derived with other options: every state may differ, rightly */
	if (r != KEY_OURS) {
		strbuf_addstr(out, "version_states: not derived with these archs and"
			      " boot.enable\n");
		return 1;
	}
	while ((r = db_step(s)) > 0) {
		struct check_row *c;

		ALLOC_GROW(rows, nr + 1, alloc);
		c = &rows[nr++];
		c->id = xstrdup(db_column_text(s, 0));
		c->kept = xstrdup_or_null(db_column_text(s, 1));
		c->date = db_column_int(s, 2);
		c->live = db_column_int(s, 3);
		c->dirty = db_column_int(s, 4);
	}
	if (r < 0) {
		db_fail(st->db, err);
		bad = -1;
	}
	/* a dirty version is not trusted by readers: to derive, not wrong */
	for (i = 0; i < nr && bad >= 0; i++) {
		if (rows[i].dirty) {
			dirty++;
			continue;
		}
		r = check_one(st, o, &rows[i], out, err);
		bad = r < 0 ? -1 : bad + r;
	}
	if (dirty && bad >= 0)
		strbuf_addf(out, "version_states: %zu versions to derive again (the pages"
			    " derive every state meanwhile)\n", dirty);
	for (i = 0; i < nr; i++) {
		free(rows[i].id);
		free(rows[i].kept);
	}
	free(rows);
	return bad;
}
