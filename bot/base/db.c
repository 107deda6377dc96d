// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/base/db.h"
#include "lib/log.h"
#include "lib/strmap.h"

#define BUSY_TIMEOUT_MS 30000

struct db_stmt {
	struct db *db;
	sqlite3_stmt *st;
	char *sql;
};

/* What SQLite did for the statements of a connection (LOREBOT_DB_STATS) */
struct db_stats {
	uint64_t fullscan;	/* rows stepped through in full scans of a table */
	uint64_t sort;		/* sorts */
	uint64_t autoindex;	/* rows put in automatic indexes */
	uint64_t vmstep;	/* virtual machine steps: the work */
};

struct db {
	sqlite3 *h;
	char *path;
	struct strbuf err;
	struct strmap stmts;	/* sql -> struct db_stmt */
	struct db_stmt **all;
	size_t nr, alloc;
	bool migrated;		/* db_migrate() applied one */
	int (*busy_wait_ms)(void *ctx);	/* db_set_busy_wait() */
	void *busy_ctx;
	struct db_stats exec;	/* of db_exec()'s statements */
	struct strbuf scans;	/* db_exec()'s statements that scanned a table */
};

/* LOREBOT_DB_STATS, or NULL */
static const char *stats_file(void)
{
	const char *f = getenv("LOREBOT_DB_STATS");

	return f && *f ? f : NULL;
}

/* Add a statement's counters to s; its full scans to lines, if asked for */
static void stats_add(struct db_stats *s, sqlite3_stmt *st, const char *sql, int len,
		      struct strbuf *lines)
{
	int full = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0);
	int i;

	s->fullscan += full;
	s->sort += sqlite3_stmt_status(st, SQLITE_STMTSTATUS_SORT, 0);
	s->autoindex += sqlite3_stmt_status(st, SQLITE_STMTSTATUS_AUTOINDEX, 0);
	s->vmstep += sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
	if (!full || !stats_file())
		return;
	strbuf_addf(lines, "  fullscan %d: ", full);
	while (len > 0 && (*sql == ' ' || *sql == '\n' || *sql == '\t'))
		sql++, len--;
	for (i = 0; i < len && i < 160; i++)
		strbuf_addch(lines, sql[i] == '\n' || sql[i] == '\t' ? ' ' : sql[i]);
	strbuf_addch(lines, '\n');
}

/*
 * LOREBOT_DB_PLANS=FILE: each statement a connection prepares is appended
 * to FILE with the plan SQLite chose for it (EXPLAIN QUERY PLAN, with the
 * statistics the connection has): "sql SQL" on one line, then a line
 * "plan DEPTH DETAIL" a step.  Which statement reads what, and through
 * which index, at any size of database (tests/t0954-query-plans.t).
 */
static void plan_write(sqlite3 *h, const char *sql, int len)
{
	const char *file = getenv("LOREBOT_DB_PLANS");
	struct strbuf sb = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int ids[64], depth[64], nr = 0, rows = 0, i;
	FILE *f;

	if (!file || !*file)
		return;
	while (len > 0 && (*sql == ' ' || *sql == '\n' || *sql == '\t'))
		sql++, len--;
	strbuf_addstr(&sb, "EXPLAIN QUERY PLAN ");
	strbuf_add(&sb, sql, len);
	if (sqlite3_prepare_v2(h, sb.buf, -1, &st, NULL) != SQLITE_OK || !st) {
		strbuf_release(&sb);
		return;
	}
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "sql ");
	for (i = 0; i < len; i++)
		strbuf_addch(&sb, sql[i] == '\n' || sql[i] == '\t' ? ' ' : sql[i]);
	strbuf_addch(&sb, '\n');
	while (sqlite3_step(st) == SQLITE_ROW) {
		int id = sqlite3_column_int(st, 0), parent = sqlite3_column_int(st, 1), d = 0;

		/* the depth of a step: its parent's plus one */
		for (i = 0; i < nr; i++)
			if (ids[i] == parent)
				d = depth[i] + 1;
		if (nr < (int)ARRAY_SIZE(ids)) {
			ids[nr] = id;
			depth[nr++] = d;
		}
		strbuf_addf(&sb, "plan %d %s\n", d, (const char *)sqlite3_column_text(st, 3));
		rows++;
	}
	sqlite3_finalize(st);
	if (rows && (f = fopen(file, "a"))) {
		fputs(sb.buf, f);
		fclose(f);
	}
	strbuf_release(&sb);
}

/*
 * LOREBOT_DB_STATS=FILE: at db_close() a line per connection is appended
 * to FILE, "db PATH pid PID fullscan N sort N autoindex N vmstep N" for
 * all its statements, then each statement that stepped through a table
 * in a full scan.  How the cost of a request or a poll grows with the
 * database, without a clock (tests/t0953).
 */
static void stats_write(struct db *db)
{
	const char *file = stats_file();
	struct strbuf lines = STRBUF_INIT;
	struct db_stats s = db->exec;
	FILE *f;
	size_t i;

	if (!file)
		return;
	strbuf_addbuf(&lines, &db->scans);
	for (i = 0; i < db->nr; i++)
		stats_add(&s, db->all[i]->st, db->all[i]->sql, (int)strlen(db->all[i]->sql),
			  &lines);
	f = fopen(file, "a");
	if (f) {
		fprintf(f, "db %s pid %d fullscan %llu sort %llu autoindex %llu vmstep %llu\n%s",
			db->path, (int)getpid(), (unsigned long long)s.fullscan,
			(unsigned long long)s.sort, (unsigned long long)s.autoindex,
			(unsigned long long)s.vmstep, lines.buf);
		fclose(f);
	}
	strbuf_release(&lines);
}

static int set_error(struct db *db, const char *what)
{
	strbuf_reset(&db->err);
	strbuf_addf(&db->err, "%s: %s", db->path, sqlite3_errmsg(db->h));
	if (what)
		strbuf_addf(&db->err, " (in '%.80s')", what);
	return -1;
}

const char *db_error(struct db *db)
{
	return db->err.buf;
}

const char *db_path(struct db *db)
{
	return db->path;
}

int db_exec(struct db *db, const char *sql)
{
	const char *next;

	/* sqlite3_exec(), with the counters of each statement kept */
	for (; sql && *sql; sql = next) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, &next);

		if (rc != SQLITE_OK)
			return set_error(db, sql);
		if (!st)
			continue;	/* white space or a comment */
		plan_write(db->h, sql, (int)(next - sql));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		stats_add(&db->exec, st, sql, (int)(next - sql), &db->scans);
		if (rc != SQLITE_DONE) {
			set_error(db, sql);
			sqlite3_finalize(st);
			return -1;
		}
		sqlite3_finalize(st);
	}
	return 0;
}

int db_begin(struct db *db)
{
	return db_exec(db, "BEGIN IMMEDIATE");
}

int db_commit(struct db *db)
{
	return db_exec(db, "COMMIT");
}

int db_rollback(struct db *db)
{
	if (sqlite3_get_autocommit(db->h))
		return 0;
	return db_exec(db, "ROLLBACK");
}

bool db_in_transaction(struct db *db)
{
	return !sqlite3_get_autocommit(db->h);
}

struct db_stmt *db_prepare(struct db *db, const char *sql)
{
	struct db_stmt *st = strmap_get(&db->stmts, sql);

	if (st) {
		sqlite3_reset(st->st);
		sqlite3_clear_bindings(st->st);
		return st;
	}
	st = xcalloc(1, sizeof(*st));
	st->db = db;
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &st->st, NULL) != SQLITE_OK) {
		set_error(db, sql);
		sqlite3_finalize(st->st);
		free(st);
		return NULL;
	}
	plan_write(db->h, sql, (int)strlen(sql));
	st->sql = xstrdup(sql);
	strmap_put(&db->stmts, st->sql, st);
	ALLOC_GROW(db->all, db->nr + 1, db->alloc);
	db->all[db->nr++] = st;
	return st;
}

static int bind_rc(struct db_stmt *st, int rc)
{
	return rc == SQLITE_OK ? 0 : set_error(st->db, st->sql);
}

int db_bind_int(struct db_stmt *st, int idx, int64_t v)
{
	return bind_rc(st, sqlite3_bind_int64(st->st, idx, v));
}

int db_bind_text(struct db_stmt *st, int idx, const char *s)
{
	if (!s)
		return db_bind_null(st, idx);
	return bind_rc(st, sqlite3_bind_text(st->st, idx, s, -1, SQLITE_TRANSIENT));
}

int db_bind_textn(struct db_stmt *st, int idx, const char *s, size_t len)
{
	return bind_rc(st, sqlite3_bind_text64(st->st, idx, s, len, SQLITE_TRANSIENT,
					       SQLITE_UTF8));
}

int db_bind_blob(struct db_stmt *st, int idx, const void *p, size_t len)
{
	return bind_rc(st, sqlite3_bind_blob64(st->st, idx, len ? p : "", len,
					       SQLITE_TRANSIENT));
}

int db_bind_null(struct db_stmt *st, int idx)
{
	return bind_rc(st, sqlite3_bind_null(st->st, idx));
}

int db_step(struct db_stmt *st)
{
	int rc = sqlite3_step(st->st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st->st);
		return 0;
	}
	set_error(st->db, st->sql);
	sqlite3_reset(st->st);
	return -1;
}

int db_column_all(struct db_stmt *st, char ***out, size_t *nr)
{
	size_t alloc = 0;
	const char *t;
	int r;

	*out = NULL;
	*nr = 0;
	while ((r = db_step(st)) > 0) {
		ALLOC_GROW(*out, *nr + 1, alloc);
		t = db_column_text(st, 0);
		(*out)[(*nr)++] = t ? xstrdup(t) : NULL;
	}
	if (r < 0) {
		db_strings_free(*out, *nr);
		*out = NULL;
		*nr = 0;
		return -1;
	}
	return 0;
}

void db_strings_free(char **v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

int db_run(struct db_stmt *st)
{
	int rc;

	while ((rc = db_step(st)) > 0)
		;
	return rc;
}

void db_reset(struct db_stmt *st)
{
	sqlite3_reset(st->st);
}

int64_t db_column_int(struct db_stmt *st, int col)
{
	return sqlite3_column_int64(st->st, col);
}

const char *db_column_text(struct db_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st->st, col);
}

const void *db_column_blob(struct db_stmt *st, int col, size_t *len)
{
	const void *p = sqlite3_column_blob(st->st, col);

	*len = sqlite3_column_bytes(st->st, col);
	return p ? p : "";
}

bool db_column_null(struct db_stmt *st, int col)
{
	return sqlite3_column_type(st->st, col) == SQLITE_NULL;
}

int64_t db_last_insert_id(struct db *db)
{
	return sqlite3_last_insert_rowid(db->h);
}

int db_changes(struct db *db)
{
	return sqlite3_changes(db->h);
}

int db_query_int(struct db *db, const char *sql, int64_t def, int64_t *out)
{
	struct db_stmt *st = db_prepare(db, sql);
	int r;

	if (!st)
		return -1;
	*out = def;
	r = db_step(st);
	if (r > 0) {
		if (!db_column_null(st, 0))
			*out = db_column_int(st, 0);
		db_reset(st);
	}
	return r < 0 ? -1 : 0;
}

int db_query_exists(struct db *db, const char *sql, const char *text)
{
	struct db_stmt *st = db_prepare(db, sql);
	int r;

	if (!st || db_bind_text(st, 1, text))
		return -1;
	r = db_step(st);
	if (r > 0)
		db_reset(st);
	return r;
}

void db_set_busy_timeout(struct db *db, int ms)
{
	sqlite3_busy_timeout(db->h, ms);
}

#define BUSY_STEP_MS 5

static int busy_wait(void *p, int count)
{
	struct db *db = p;
	struct timespec ts = { 0, BUSY_STEP_MS * 1000000L };

	if ((int64_t)count * BUSY_STEP_MS >= db->busy_wait_ms(db->busy_ctx))
		return 0;
	nanosleep(&ts, NULL);
	return 1;
}

void db_set_busy_wait(struct db *db, int (*wait_ms)(void *ctx), void *ctx)
{
	db->busy_wait_ms = wait_ms;
	db->busy_ctx = ctx;
	sqlite3_busy_handler(db->h, busy_wait, db);
}

void db_optimize(struct db *db)
{
	db_exec(db, "PRAGMA analysis_limit = 400; PRAGMA optimize");
}

int db_integrity_check(struct db *db, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db, "PRAGMA integrity_check");
	bool ok = false;
	int r;

	if (!st) {
		strbuf_addstr(err, db_error(db));
		return -1;
	}
	while ((r = db_step(st)) > 0) {
		const char *line = db_column_text(st, 0);

		if (line && !strcmp(line, "ok"))
			ok = true;
		else
			strbuf_addf(err, "%s\n", line ? line : "?");
	}
	if (r < 0) {
		strbuf_addstr(err, db_error(db));
		return -1;
	}
	return ok && !err->len ? 0 : -1;
}

/* migrations */

static const char schema_table[] =
	"CREATE TABLE IF NOT EXISTS schema_version ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" name TEXT NOT NULL UNIQUE,"
	" applied INTEGER NOT NULL)";

int db_schema_version(struct db *db)
{
	int64_t n = 0;

	if (db_query_int(db, "SELECT count(*) FROM schema_version", 0, &n))
		return -1;
	return (int)n;
}

static int is_applied(struct db *db, const char *name)
{
	struct db_stmt *st = db_prepare(db, "SELECT 1 FROM schema_version WHERE name = ?");
	int r;

	if (!st || db_bind_text(st, 1, name))
		return -1;
	r = db_step(st);
	if (r > 0)
		db_reset(st);
	return r;
}

static bool known(const struct db_migration *m, size_t nr, const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(m[i].name, name))
			return true;
	return false;
}

/* A database written by a newer lorebot has migrations we do not know */
static int check_unknown(struct db *db, const struct db_migration *m, size_t nr)
{
	struct db_stmt *st = db_prepare(db, "SELECT name FROM schema_version ORDER BY id");
	int r;

	if (!st)
		return -1;
	while ((r = db_step(st)) > 0) {
		const char *name = db_column_text(st, 0);

		if (!known(m, nr, name)) {
			strbuf_reset(&db->err);
			strbuf_addf(&db->err, "%s: schema migration '%s' is from a newer "
				    "lorebot; refusing to use the database", db->path, name);
			db_reset(st);
			return -1;
		}
	}
	return r;
}

int db_migrate(struct db *db, const struct db_migration *m, size_t nr)
{
	size_t i;

	if (db_exec(db, schema_table) || check_unknown(db, m, nr))
		return -1;
	for (i = 0; i < nr; i++) {
		struct db_stmt *st;
		int r = is_applied(db, m[i].name);

		if (r < 0)
			return -1;
		if (r)
			continue;
		if (db_begin(db))
			return -1;
		/* another process may have migrated in the meantime */
		r = is_applied(db, m[i].name);
		if (r < 0)
			goto fail;
		if (r) {
			db_rollback(db);
			continue;
		}
		if (db_exec(db, m[i].sql)) {
			struct strbuf msg = STRBUF_INIT;

			strbuf_addf(&msg, "migration '%s': %s", m[i].name, db_error(db));
			strbuf_reset(&db->err);
			strbuf_addbuf(&db->err, &msg);
			strbuf_release(&msg);
			goto fail;
		}
		st = db_prepare(db, "INSERT INTO schema_version (name, applied) VALUES (?, ?)");
		if (!st || db_bind_text(st, 1, m[i].name) ||
		    db_bind_int(st, 2, time(NULL)) || db_run(st) || db_commit(db))
			goto fail;
		db->migrated = true;
	}
	return 0;
fail:
	db_rollback(db);
	return -1;
}

/*
 * The database holds every stored mail, result and reply, and SQLite's
 * -wal and -shm take its mode: its owner's alone (issue 38: created
 * 0644, a build could read it wherever a sandbox showed it).  A new one
 * is made 0600 before SQLite opens it; one that others can read, and
 * that is ours, is made so.
 */
static void make_private(const char *path)
{
	static const char *const sqlite_files[] = { "", "-wal", "-shm", "-journal" };
	struct stat st;
	size_t i;
	int fd;

	if (!*path || *path == ':' || util_starts_with(path, "file:"))
		return;		/* in memory, or a URI */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	for (i = 0; i < ARRAY_SIZE(sqlite_files); i++) {
		char *f = xasprintf("%s%s", path, sqlite_files[i]);

		if (!lstat(f, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    (st.st_mode & 077) && !chmod(f, st.st_mode & 0600))
			log_info("%s: made private (0600): it holds every stored mail", f);
		free(f);
	}
}

int db_open(struct db **dbp, const char *path, unsigned int flags, struct strbuf *err)
{
	struct db *db = xcalloc(1, sizeof(*db));
	int oflags = (flags & DB_READONLY) ? SQLITE_OPEN_READONLY :
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	*dbp = NULL;
	strbuf_init(&db->err, 0);
	strbuf_init(&db->scans, 0);
	db->path = xstrdup(path);
	if (!(flags & DB_READONLY))
		make_private(path);
	if (sqlite3_open_v2(path, &db->h, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		strbuf_addf(err, "cannot open database '%s': %s", path,
			    db->h ? sqlite3_errmsg(db->h) : "out of memory");
		db_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db->h, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(db->h, 1);
	if ((!(flags & DB_READONLY) && db_exec(db, "PRAGMA journal_mode = WAL")) ||
	    db_exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON") ||
	    (!(flags & (DB_READONLY | DB_NO_MIGRATE)) &&
	     db_migrate(db, db_migrations, db_migrations_nr))) {
		strbuf_addstr(err, db_error(db));
		db_close(db);
		return -1;
	}
	if (db->migrated)
		db_optimize(db);
	*dbp = db;
	return 0;
}

void db_close(struct db *db)
{
	size_t i;

	if (!db)
		return;
	if (db->h)
		stats_write(db);
	for (i = 0; i < db->nr; i++) {
		sqlite3_finalize(db->all[i]->st);
		free(db->all[i]->sql);
		free(db->all[i]);
	}
	free(db->all);
	strmap_release(&db->stmts);
	if (db->h)
		sqlite3_close(db->h);
	strbuf_release(&db->err);
	strbuf_release(&db->scans);
	free(db->path);
	free(db);
}
