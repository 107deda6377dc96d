// SPDX-License-Identifier: GPL-2.0
/*
 * The SQLite layer: migrations (report-5 on a database with results),
 * statements, transactions
 */
#include <errno.h>
#include <unistd.h>

#include "bot/base/db.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "bot/stage/stage.h"
#include "bot/store/store.h"
#include "lib/jsonx.h"
#include "tests/unit/tap.h"

/* remove a database with its WAL files */
static void unlink_db(const char *p)
{
	char *wal = xasprintf("%s-wal", p), *shm = xasprintf("%s-shm", p);

	unlink(p);
	unlink(wal);
	unlink(shm);
	free(wal);
	free(shm);
}

static char *tmpdb(const char *name)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *p = xasprintf("%s/t-db-%d-%s.db", dir, (int)getpid(), name);

	unlink_db(p);
	return p;
}

static void rm_db(char *p)
{
	unlink_db(p);
	free(p);
}

static int64_t q(struct db *db, const char *sql)
{
	int64_t v = -1;

	db_query_int(db, sql, -1, &v);
	return v;
}

static const struct db_migration two[] = {
	{ "t-1", "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1)" },
	{ "t-2", "CREATE TABLE b (y TEXT)" },
};

/* The number of the migrations up to and including name */
static size_t upto(const char *name)
{
	size_t i;

	for (i = 0; i < db_migrations_nr; i++)
		if (!strcmp(db_migrations[i].name, name))
			return i + 1;
	return 0;
}

static const char version_sql[] =
	"INSERT INTO series (id, title, created, updated) VALUES ('s1', 't', 0, 0);"
	"INSERT INTO versions (id, series, ord, version, total, have, complete, rfc,"
	" resend, title, replies, json, created, updated) VALUES"
	" ('v1@x', 's1', 0, 1, 1, 1, 1, 0, 0, 't', 0, '{}', 0, 0);";

static int add_result(struct db *db, int64_t id, const char *stage, const char *arch)
{
	struct db_stmt *s = db_prepare(db,
		"INSERT INTO results (id, version, stage, arch, status, summary, json, recorded)"
		" VALUES (?, 'v1@x', ?, ?, 'ok', 'ok', '{}', 0)");

	if (!s || db_bind_int(s, 1, id) || db_bind_text(s, 2, stage) ||
	    db_bind_text(s, 3, arch))
		return -1;
	return db_run(s);
}

/*
 * The results table takes a stage the stage table knows, without a
 * migration of its own: report-5 dropped the CHECK on the stage's name
 * (rebuilding the table), stage_record() refuses a stage that
 * records no results, store_results_load() skips a row of a stage this
 * lorebot does not know and orders the rest by the stage table.  A
 * database made before report-5, with results, keeps them, their index
 * and the triggers that mark a version's state dirty.
 */
static void results_table(void)
{
	struct strbuf err = STRBUF_INIT;
	struct results rs = RESULTS_INIT;
	struct store st = { 0 };
	char *path = tmpdb("results");
	json_object *doc;
	struct db *db;
	size_t before = upto("report-4");
	int r;

	ok(before > 0 && upto("report-5") == before + 1, "report-5 follows report-4");

	/* a database as a lorebot before report-5 left it, with results */
	is_int(db_open(&db, path, DB_NO_MIGRATE, &err), 0, "open without migrating");
	is_int(db_migrate(db, db_migrations, before), 0, "migrate up to report-4 %s",
	       db_error(db));
	ok(!db_exec(db, version_sql), "a series and its version %s", db_error(db));
	/* out of the table's order: the load orders them */
	ok(!add_result(db, 1, "boot", "x86_64") && !add_result(db, 2, "build", "x86_64") &&
	   !add_result(db, 3, "apply", "") && !add_result(db, 4, "build", "arm64"),
	   "four results recorded");
	ok(!db_exec(db, "DELETE FROM version_states_dirty"), "nothing dirty");
	r = add_result(db, 5, "toy", "");
	ok(r != 0 && strstr(db_error(db), "CHECK constraint failed"),
	   "the old table refuses a new stage's name: %s", db_error(db));
	db_close(db);

	/* the lorebot of today opens it */
	is_int(store_open(&st, path, &err), 0, "open and migrate %s", err.buf);
	db = st.db;
	is_int(db_schema_version(db), db_migrations_nr, "every migration applied");
	is_int(q(db, "SELECT count(*) FROM results"), 4, "the results are kept");
	is_int(q(db, "SELECT count(*) FROM results WHERE id = 2 AND stage = 'build' AND"
		 " arch = 'x86_64' AND version = 'v1@x' AND status = 'ok'"), 1,
	       "with their ids and columns");
	is_int(q(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND"
		 " name = 'results_new'"), 0, "no table left behind");
	is_int(q(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND"
		 " sql LIKE '%CHECK (stage%'"), 0, "no CHECK on the stage's name");
	is_int(q(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND"
		 " tbl_name = 'results'"), 2, "its index and its UNIQUE's");
	is_int(q(db, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND"
		 " tbl_name = 'results'"), 3, "its three triggers");
	is_int(q(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0, "foreign keys hold");
	is_int(q(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"),
	       1, "integrity holds");
	ok(add_result(db, 2, "check", "") != 0, "the primary key holds");
	ok(add_result(db, 9, "build", "x86_64") != 0, "so does UNIQUE (version, stage, arch)");

	/* a stage the table does not know, as a newer lorebot may write */
	ok(!db_exec(db, "DELETE FROM version_states_dirty"), "nothing dirty");
	is_int(add_result(db, 5, "toy", ""), 0, "the table takes a new stage's name");
	is_int(q(db, "SELECT count(*) FROM version_states_dirty WHERE version = 'v1@x'"), 1,
	       "the insert trigger marks the version dirty");
	ok(!db_exec(db, "DELETE FROM version_states_dirty; UPDATE results SET summary = 'x'"
		    " WHERE id = 5"), "updated");
	is_int(q(db, "SELECT count(*) FROM version_states_dirty"), 1, "so does the update's");
	ok(!db_exec(db, "DELETE FROM version_states_dirty; DELETE FROM results WHERE id = 5"),
	   "deleted");
	is_int(q(db, "SELECT count(*) FROM version_states_dirty"), 1, "and the delete's");
	is_int(add_result(db, 5, "toy", ""), 0, "and again");

	/* readers skip what they do not know, and order the rest by the table */
	is_int(store_results_load(&st, "v1@x", RESULTS_NO_DOCS, &rs, &err), 0, "load %s",
	       err.buf);
	is_int(rs.nr, 4, "the unknown stage's row is skipped");
	ok(rs.nr == 4 && rs.v[0].stage == STAGE_APPLY && rs.v[1].stage == STAGE_BUILD &&
	   !strcmp(rs.v[1].arch, "arm64") && rs.v[2].stage == STAGE_BUILD &&
	   !strcmp(rs.v[2].arch, "x86_64") && rs.v[3].stage == STAGE_BOOT,
	   "in the stage table's order, then by arch");
	store_results_release(&rs);

	/* the stage table, not the schema, says which stage records results */
	doc = jx_parse("{}", 2, &err);
	is_int(stage_record(&st, "v1@x", STAGE_REPLY, NULL, doc, &err), -EINVAL,
	       "the reply records no result");
	is_str(err.buf, "'reply' is not a stage that records results", "and says so");
	json_object_put(doc);

	store_close(&st);
	rm_db(path);
	strbuf_release(&err);
}

int main(void)
{
	struct strbuf err = STRBUF_INIT;
	struct db *db;
	struct db_stmt *st, *st2;
	char *path = tmpdb("main");
	const void *blob;
	size_t len;
	int r;

	stage_register();
	/* the real schema */
	r = db_open(&db, path, 0, &err);
	is_int(r, 0, "open creates and migrates %s", err.buf);
	is_int(db_schema_version(db), db_migrations_nr, "every migration applied");
	is_int(q(db, "SELECT count(*) FROM sqlite_master WHERE name = 'messages'"), 1,
	       "the messages table exists");
	st = db_prepare(db, "PRAGMA journal_mode");
	ok(st && db_step(st) > 0 && !strcmp(db_column_text(st, 0), "wal"), "WAL mode");
	db_reset(st);
	is_int(q(db, "PRAGMA foreign_keys"), 1, "foreign keys on");
	db_close(db);
	is_int(db_open(&db, path, 0, &err), 0, "open again");
	is_int(db_schema_version(db), db_migrations_nr, "nothing applied twice");

	/* statements */
	ok(db_exec(db, "CREATE TABLE kv (k TEXT PRIMARY KEY, v BLOB, n INTEGER)") == 0,
	   "exec");
	st = db_prepare(db, "INSERT INTO kv (k, v, n) VALUES (?, ?, ?)");
	ok(st && !db_bind_text(st, 1, "a") && !db_bind_blob(st, 2, "x\0y", 3) &&
	   !db_bind_int(st, 3, 1LL << 40) && !db_run(st), "insert with bindings");
	st2 = db_prepare(db, "INSERT INTO kv (k, v, n) VALUES (?, ?, ?)");
	ok(st == st2, "the same SQL gives the cached statement");
	ok(!db_bind_text(st2, 1, "b") && !db_bind_null(st2, 2) && !db_bind_text(st2, 3, NULL) &&
	   !db_run(st2), "insert with NULLs");
	st = db_prepare(db, "SELECT k, v, n FROM kv ORDER BY k");
	is_int(db_step(st), 1, "a row");
	blob = db_column_blob(st, 1, &len);
	ok(len == 3 && !memcmp(blob, "x\0y", 3), "blob with a NUL byte");
	is_int(db_column_int(st, 2), 1LL << 40, "64-bit integer");
	is_int(db_step(st), 1, "second row");
	ok(db_column_null(st, 1) && !db_column_text(st, 1), "NULL column");
	is_int(db_step(st), 0, "done");

	/* a column collected */
	{
		char **v;
		size_t n;

		st = db_prepare(db, "SELECT v FROM kv ORDER BY k");
		r = db_column_all(st, &v, &n);
		ok(!r && n == 2 && !strcmp(v[0], "x") && !v[1],
		   "db_column_all: 2 strings, the NULL kept");
		db_strings_free(v, n);
		st = db_prepare(db, "SELECT k FROM kv WHERE k = 'none'");
		ok(!db_column_all(st, &v, &n) && !n && !v, "db_column_all: no row");
		/* abs() of the smallest integer fails on the second row */
		st = db_prepare(db, "SELECT CASE k WHEN 'a' THEN k"
				" ELSE abs(-9223372036854775807 - 1 + length(k) - 1) END"
				" FROM kv ORDER BY k");
		r = db_column_all(st, &v, &n);
		ok(r < 0 && !n && !v && strstr(db_error(db), "overflow"),
		   "db_column_all: an error mid-way: %s", db_error(db));
	}

	/* errors name the statement */
	st = db_prepare(db, "INSERT INTO kv (k) VALUES ('a')");
	r = st && db_run(st) < 0;
	ok(r && strstr(db_error(db), "UNIQUE") && strstr(db_error(db), "INSERT INTO kv"),
	   "constraint error: %s", db_error(db));
	r = !db_prepare(db, "SELEC nonsense");
	ok(r && strstr(db_error(db), "SELEC nonsense"), "syntax error names the SQL: %s",
	   db_error(db));

	/* transactions */
	ok(!db_begin(db) && db_in_transaction(db), "begin");
	db_exec(db, "INSERT INTO kv (k) VALUES ('c')");
	ok(!db_rollback(db) && !db_in_transaction(db), "rollback");
	is_int(q(db, "SELECT count(*) FROM kv"), 2, "the rolled back row is gone");
	db_begin(db);
	db_exec(db, "INSERT INTO kv (k) VALUES ('c')");
	ok(!db_commit(db), "commit");
	is_int(q(db, "SELECT count(*) FROM kv"), 3, "the committed row is there");
	strbuf_reset(&err);
	is_int(db_integrity_check(db, &err), 0, "integrity_check");
	db_close(db);
	rm_db(path);

	/* migrations one by one */
	path = tmpdb("mig");
	is_int(db_open(&db, path, DB_NO_MIGRATE, &err), 0, "open without migrating");
	is_int(db_migrate(db, two, 1), 0, "first migration");
	is_int(db_schema_version(db), 1, "version 1");
	is_int(db_migrate(db, two, 2), 0, "the next one is appended");
	is_int(db_schema_version(db), 2, "version 2");
	is_int(q(db, "SELECT count(*) FROM a"), 1, "applied once");
	{
		const struct db_migration bad[] = {
			two[0], two[1],
			{ "t-3", "CREATE TABLE c (z); CREATE TABL oops" },
		};

		r = db_migrate(db, bad, 3);
		is_int(r, -1, "a failing migration fails");
		ok(strstr(db_error(db), "migration 't-3'") != NULL, "names it: %s", db_error(db));
		is_int(q(db, "SELECT count(*) FROM sqlite_master WHERE name = 'c'"), 0,
		       "and leaves nothing of itself");
		is_int(db_schema_version(db), 2, "the version stays");
	}
	r = db_migrate(db, two, 1);
	is_int(r, -1, "a database with an unknown migration is refused");
	ok(strstr(db_error(db), "'t-2' is from a newer lorebot") != NULL, "says so: %s",
	   db_error(db));
	db_close(db);
	rm_db(path);

	results_table();

	strbuf_reset(&err);
	r = db_open(&db, "/nonexistent/dir/x.db", 0, &err);
	ok(r && !db && strstr(err.buf, "cannot open database '/nonexistent/dir/x.db'"),
	   "%s", err.buf);
	strbuf_release(&err);
	return done_testing();
}
