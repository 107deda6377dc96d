/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state database: SQLite, the only file that includes sqlite3.h.
 *
 * db_open() sets WAL mode, a busy timeout and foreign keys, and applies
 * the schema migrations of db-migrations.c that the file does not have
 * yet, each in its own transaction (so a crash leaves the database at
 * one migration or the next, never in between).  Other areas add their
 * tables by appending one entry to db_migrations[].
 *
 * Statements are prepared once per database and cached: db_prepare()
 * with the same SQL text returns the same statement, reset and with its
 * bindings cleared.  Errors: functions return 0 (or a row count, or 1
 * for a row) and -1 on error; db_error() has the message, naming the
 * statement.  Strings returned by db_column_text() stay valid until the
 * next db_step() or db_prepare() of that statement.
 *
 *	struct db_stmt *st = db_prepare(db, "SELECT raw FROM messages WHERE msgid = ?");
 *	db_bind_text(st, 1, msgid);
 *	while ((r = db_step(st)) > 0)
 *		use(db_column_blob(st, 0, &len), len);
 *	if (r < 0)
 *		error("%s", db_error(db));
 */
#ifndef LOREBOT_DB_H
#define LOREBOT_DB_H

#include <stdint.h>

#include "lib/strbuf.h"

struct db;
struct db_stmt;

struct db_migration {
	const char *name;	/* unique and never changed once released */
	const char *sql;	/* one or more statements */
};

extern const struct db_migration db_migrations[];
extern const size_t db_migrations_nr;

enum db_flags {
	DB_READONLY = 1 << 0,	/* no migrations; the file must exist */
	DB_NO_MIGRATE = 1 << 1,	/* open as is (tests of the migrations) */
};

/*
 * Open (creating it unless DB_READONLY) and migrate.  0, or -1 with a
 * message in err; *dbp is NULL then.
 */
int db_open(struct db **dbp, const char *path, unsigned int flags,
	    struct strbuf *err);
void db_close(struct db *db);

/* Apply the migrations in table order that are not applied yet */
int db_migrate(struct db *db, const struct db_migration *m, size_t nr);
/* Number of migrations applied to this file */
int db_schema_version(struct db *db);

const char *db_error(struct db *db);
const char *db_path(struct db *db);

/* Statements without results (several, separated by ';') */
int db_exec(struct db *db, const char *sql);

/* BEGIN IMMEDIATE (the write lock at once), COMMIT, ROLLBACK */
int db_begin(struct db *db);
int db_commit(struct db *db);
int db_rollback(struct db *db);
bool db_in_transaction(struct db *db);

/* A cached prepared statement, or NULL (db_error()) */
struct db_stmt *db_prepare(struct db *db, const char *sql);

/* Parameters are 1-based, as in SQLite.  Strings and blobs are copied. */
int db_bind_int(struct db_stmt *st, int idx, int64_t v);
int db_bind_text(struct db_stmt *st, int idx, const char *s);	/* NULL: NULL */
int db_bind_textn(struct db_stmt *st, int idx, const char *s, size_t len);
int db_bind_blob(struct db_stmt *st, int idx, const void *p, size_t len);
int db_bind_null(struct db_stmt *st, int idx);

/* 1: a row is there; 0: done (the statement is reset); -1: error */
int db_step(struct db_stmt *st);
/* Run a statement to its end, ignoring rows; 0 or -1 */
int db_run(struct db_stmt *st);
/*
 * Run a statement to its end and collect its first column's text (NULL
 * stays NULL): *out has *nr strings, the caller frees them with
 * db_strings_free().  0 or -1 (what was collected is freed).
 */
int db_column_all(struct db_stmt *st, char ***out, size_t *nr);
void db_strings_free(char **v, size_t nr);
/* Reset early (before db_step() returned 0) */
void db_reset(struct db_stmt *st);

/* Columns are 0-based */
int64_t db_column_int(struct db_stmt *st, int col);
const char *db_column_text(struct db_stmt *st, int col);	/* NULL for NULL */
const void *db_column_blob(struct db_stmt *st, int col, size_t *len);
bool db_column_null(struct db_stmt *st, int col);

int64_t db_last_insert_id(struct db *db);
int db_changes(struct db *db);

/* A single integer from a query without parameters; def when no row */
int db_query_int(struct db *db, const char *sql, int64_t def, int64_t *out);
/* Does the query, its one parameter bound to text, give a row?  1, 0, -1 */
int db_query_exists(struct db *db, const char *sql, const char *text);

/* How long a statement waits for another connection's lock (default 30 s) */
void db_set_busy_timeout(struct db *db, int ms);
/*
 * Instead: while the database is locked, wait as long as wait_ms(ctx)
 * says at each retry (milliseconds in all since the wait began; 0: give
 * up now, the call fails as "database is locked").  The daemon gives up
 * at once when a signal is waiting for it.
 */
void db_set_busy_wait(struct db *db, int (*wait_ms)(void *ctx), void *ctx);
/*
 * PRAGMA optimize (bounded by analysis_limit): statistics for the query
 * planner where they are missing or stale.  After migrations, and now and
 * then in a long-running process.  Errors are ignored (it is advice).
 */
void db_optimize(struct db *db);

/* PRAGMA integrity_check: 0 when "ok", else -1 with the report in err */
int db_integrity_check(struct db *db, struct strbuf *err);

#endif
