// SPDX-License-Identifier: GPL-2.0
/*
 * Series assembly for more mail than memory should hold.
 *
 * In memory, each message costs about 0.7 KB until the end, and it has
 * to: a review can answer a patch, and a v8 can supersede a v1, any
 * number of messages later.  Past a->spill_after, the messages move to
 * a scratch SQLite database (a private file in $TMPDIR, deleted on
 * close, with an 8 MB page cache) and assembly runs there: the same
 * steps as series.c, with rows where series.c has pointers.  Memory
 * then stays flat whatever the size of the mbox; what is held at once
 * is one message, one series or one reply chain.
 *
 * The tables:
 *   m   one row per message, i in the order they were added (the index
 *       of a->msgs); what assembly looks at in columns, the rest
 *       (subject, authors, trailers, links) packed in rec
 *   s   one row per send, id in the order series.c creates them
 *   sp  the patch slots of each send
 *   tr  the trailers of each slot, in order
 *   sr  one row per series
 *   lf  the patches left to group by sender and time, in order
 *   pr  problems, once there are many
 *
 * Whatever differs from series.c is a bug: t0104 compares the two on
 * every fixture and on a generated mbox.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "bot/db.h"
#include "bot/series-int.h"

#define BATCH 1024
#define BATCH_LIMIT " LIMIT 1024"
#define STR_(x) #x
#define STR(x) STR_(x)

/* enum msg_kind, spelled for SQL */
#define K_OTHER "0"
#define K_PATCH "1"
#define K_COVER "2"
#define K_REPLY "3"
_Static_assert(MSG_OTHER == 0 && MSG_PATCH == 1 && MSG_COVER == 2 &&
	       MSG_REPLY == 3, "K_* spell enum msg_kind");
#define PROBLEMS_FLUSH (64 * 1024)

struct series_disk {
	struct db *db;
	size_t nr;		/* messages */
	bool failed;		/* a->fatal says why */
};

static const char schema[] =
	"CREATE TABLE m (i INTEGER PRIMARY KEY, msgid TEXT NOT NULL UNIQUE,"
	" parent TEXT, refs TEXT, kind INTEGER, n INTEGER, total INTEGER,"
	" version INTEGER, sender TEXT, date INTEGER, idx INTEGER, rec BLOB,"
	" send INTEGER, target INTEGER, opens INTEGER);"
	"CREATE TABLE s (id INTEGER PRIMARY KEY, total INTEGER, version INTEGER,"
	" sender TEXT, date INTEGER, have INTEGER DEFAULT 0, cover INTEGER,"
	" fallback INTEGER DEFAULT 0, sid TEXT, title TEXT, tree TEXT,"
	" aname TEXT, aemail TEXT, base TEXT, chid TEXT, rfc INTEGER,"
	" resend INTEGER, complete INTEGER, replies INTEGER DEFAULT 0,"
	" uf INTEGER, key TEXT, series INTEGER, pos INTEGER, superseded INTEGER);"
	"CREATE INDEX s_match ON s (sender, version, total);"
	"CREATE INDEX s_key ON s (key);"
	"CREATE INDEX s_series ON s (series, pos);"
	"CREATE TABLE sp (send INTEGER, n INTEGER, msg INTEGER,"
	" PRIMARY KEY (send, n)) WITHOUT ROWID;"
	"CREATE TABLE tr (send INTEGER, n INTEGER, seq INTEGER, name TEXT,"
	" value TEXT, PRIMARY KEY (send, n, seq)) WITHOUT ROWID;"
	"CREATE TABLE sr (id INTEGER PRIMARY KEY, root INTEGER UNIQUE, hid TEXT,"
	" date INTEGER, first TEXT);"
	"CREATE TABLE lf (i INTEGER);"
	"CREATE TABLE so (sr INTEGER);"
	"CREATE TABLE pr (line TEXT)";

static void fail(struct assembly *a)
{
	struct series_disk *d = a->disk;

	if (!d->failed)
		strbuf_addf(&a->fatal, "scratch database: %s", db_error(d->db));
	d->failed = true;
}

/* A prepared statement, or NULL with the assembly failed */
static struct db_stmt *prep(struct assembly *a, const char *sql)
{
	struct db_stmt *st;

	if (a->disk->failed)
		return NULL;
	st = db_prepare(a->disk->db, sql);
	if (!st)
		fail(a);
	return st;
}

/* Run a statement with integer parameters; 0 or -1 */
static int run_ints(struct assembly *a, const char *sql, int nr, ...)
{
	struct db_stmt *st = prep(a, sql);
	va_list ap;
	int i;

	if (!st)
		return -1;
	va_start(ap, nr);
	for (i = 1; i <= nr; i++)
		db_bind_int(st, i, va_arg(ap, int64_t));
	va_end(ap);
	if (db_run(st)) {
		fail(a);
		return -1;
	}
	return 0;
}

/* One integer from a query with integer parameters; def when no row */
static int64_t query_int(struct assembly *a, int64_t def, const char *sql,
			 int nr, ...)
{
	struct db_stmt *st = prep(a, sql);
	int64_t v = def;
	va_list ap;
	int i, r;

	if (!st)
		return def;
	va_start(ap, nr);
	for (i = 1; i <= nr; i++)
		db_bind_int(st, i, va_arg(ap, int64_t));
	va_end(ap);
	r = db_step(st);
	if (r > 0) {
		if (!db_column_null(st, 0))
			v = db_column_int(st, 0);
		db_reset(st);
	} else if (r < 0) {
		fail(a);
	}
	return v;
}

/* rec: the rest of a message, packed (lengths as varints, +1; 0: NULL) */

static void put_num(struct strbuf *b, uint64_t v)
{
	while (v >= 0x80) {
		strbuf_addch(b, (char)(v | 0x80));
		v >>= 7;
	}
	strbuf_addch(b, (char)v);
}

static void put_str(struct strbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_num(b, s ? n + 1 : 0);
	if (s)
		strbuf_add(b, s, n);
}

static void rec_pack(const struct msg *m, struct strbuf *b)
{
	size_t i;

	put_str(b, m->subject);
	put_str(b, m->title);
	put_str(b, m->author_name);
	put_str(b, m->author_email);
	put_str(b, m->subj.tree);
	put_num(b, m->subj.rfc | m->subj.resend << 1);
	put_str(b, m->base_commit);
	put_str(b, m->change_id);
	put_num(b, m->trailers.nr);
	for (i = 0; i < m->trailers.nr; i++) {
		put_str(b, m->trailers.t[i].name);
		put_str(b, m->trailers.t[i].value);
	}
	put_num(b, m->nr_links);
	for (i = 0; i < m->nr_links; i++)
		put_str(b, m->links[i]);
}

struct reader {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t get_num(struct reader *r)
{
	uint64_t v = 0;
	int shift = 0;

	while (r->p < r->end && shift < 64) {
		unsigned char c = *r->p++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	r->bad = true;
	return 0;
}

static char *get_str(struct reader *r)
{
	uint64_t n = get_num(r);

	if (!n)
		return NULL;
	if (n - 1 > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		return NULL;
	}
	r->p += n - 1;
	return xstrndup((const char *)r->p - (n - 1), n - 1);
}

/* Fill what rec holds into m (malloc'ed: msg_release() frees it) */
static void rec_unpack(const void *blob, size_t len, struct msg *m)
{
	struct reader r = { blob, (const unsigned char *)blob + len, false };
	uint64_t nr, i, flags;

	m->subject = get_str(&r);
	m->title = get_str(&r);
	m->author_name = get_str(&r);
	m->author_email = get_str(&r);
	m->subj.tree = get_str(&r);
	flags = get_num(&r);
	m->subj.rfc = flags & 1;
	m->subj.resend = flags & 2;
	m->base_commit = get_str(&r);
	m->change_id = get_str(&r);
	nr = get_num(&r);
	for (i = 0; i < nr && !r.bad; i++) {
		char *name = get_str(&r), *value = get_str(&r);

		if (name && value)
			trailers_add(&m->trailers, name, value);
		free(name);
		free(value);
	}
	nr = get_num(&r);
	if (nr > MSG_MAX_LINKS)
		nr = 0;
	m->links = xcalloc(nr + 1, sizeof(*m->links));
	for (i = 0; i < nr && !r.bad; i++) {
		m->links[m->nr_links] = get_str(&r);
		if (m->links[m->nr_links])
			m->nr_links++;
	}
}

/* The packed part of message i into m (zeroed first); 0 or -1 */
static int load_rec(struct assembly *a, int64_t i, struct msg *m)
{
	struct db_stmt *st = prep(a, "SELECT msgid, rec FROM m WHERE i = ?");
	const void *blob;
	size_t len;
	int r;

	memset(m, 0, sizeof(*m));
	strbuf_init(&m->warnings, 0);
	if (!st)
		return -1;
	db_bind_int(st, 1, i);
	r = db_step(st);
	if (r <= 0) {
		if (r < 0)
			fail(a);
		return -1;
	}
	m->msgid = xstrdup(db_column_text(st, 0));
	blob = db_column_blob(st, 1, &len);
	rec_unpack(blob, len, m);
	db_reset(st);
	return 0;
}

/* writing messages */

int series_disk_open(struct assembly *a)
{
	struct series_disk *d = xcalloc(1, sizeof(*d));
	struct strbuf err = STRBUF_INIT;

	if (db_open(&d->db, "", DB_SCRATCH, &err)) {
		strbuf_addf(&a->fatal, "cannot create a scratch database: %s", err.buf);
		strbuf_release(&err);
		free(d);
		return -1;
	}
	a->disk = d;
	if (db_exec(d->db, schema) || db_begin(d->db)) {
		fail(a);
		return -1;
	}
	return 0;
}

void series_disk_close(struct assembly *a)
{
	if (!a->disk)
		return;
	db_close(a->disk->db);
	free(a->disk);
	a->disk = NULL;
}

size_t series_disk_nr(const struct assembly *a)
{
	return a->disk->nr;
}

static void refs_join(const struct msg *m, struct strbuf *b)
{
	size_t i;

	for (i = 0; i < m->nr_refs; i++) {
		if (i)
			strbuf_addch(b, '\n');
		strbuf_addstr(b, m->refs[i]);
	}
}

static void free_msg(struct msg *m)
{
	msg_release(m);
	if (!m->pool)
		free(m);
}

struct msg *series_disk_add(struct assembly *a, struct msg *m)
{
	struct db_stmt *st = prep(a, "INSERT OR IGNORE INTO m (i, msgid, parent,"
				  " refs, kind, n, total, version, sender, date,"
				  " idx, rec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
				  " ?, ?, ?)");
	struct strbuf refs = STRBUF_INIT, rec = STRBUF_INIT;

	if (!st)
		goto out;
	refs_join(m, &refs);
	rec_pack(m, &rec);
	db_bind_int(st, 1, (int64_t)a->disk->nr + 1);
	db_bind_text(st, 2, m->msgid);
	db_bind_text(st, 3, m->parent);
	db_bind_textn(st, 4, refs.buf, refs.len);
	db_bind_int(st, 5, m->kind);
	db_bind_int(st, 6, m->subj.n);
	db_bind_int(st, 7, m->subj.total);
	db_bind_int(st, 8, m->subj.version);
	db_bind_text(st, 9, m->sender_email);
	db_bind_int(st, 10, m->date);
	db_bind_int(st, 11, (int64_t)m->index);
	db_bind_blob(st, 12, rec.buf, rec.len);
	if (db_run(st)) {
		fail(a);
	} else if (!db_changes(a->disk->db)) {
		assembly_problem(a, m->index, m->msgid,
				 "duplicate Message-ID; the first copy is used");
	} else {
		a->disk->nr++;
	}
	strbuf_release(&refs);
	strbuf_release(&rec);
out:
	free_msg(m);
	return NULL;
}

/* nodes: what climbing a thread looks at */

struct node {
	int64_t i, send, target, date, idx;
	int kind, n, total, version;
	char *msgid, *sender, *parent, *refs;	/* refs: '\n'-separated */
};

static void node_release(struct node *n)
{
	free(n->msgid);
	free(n->sender);
	free(n->parent);
	free(n->refs);
	memset(n, 0, sizeof(*n));
}

#define NODE_COLS "i, send, target, date, idx, kind, n, total, version," \
	" msgid, sender, parent, refs FROM m"

static void node_from_row(struct db_stmt *st, struct node *n)
{
	n->i = db_column_int(st, 0);
	n->send = db_column_int(st, 1);
	n->target = db_column_int(st, 2);
	n->date = db_column_int(st, 3);
	n->idx = db_column_int(st, 4);
	n->kind = (int)db_column_int(st, 5);
	n->n = (int)db_column_int(st, 6);
	n->total = (int)db_column_int(st, 7);
	n->version = (int)db_column_int(st, 8);
	n->msgid = xstrdup(db_column_text(st, 9));
	n->sender = xstrdup_or_null(db_column_text(st, 10));
	n->parent = xstrdup_or_null(db_column_text(st, 11));
	n->refs = xstrdup_or_null(db_column_text(st, 12));
}

/* 1 and *n filled, or 0 (no such message, or failed) */
static int node_step(struct assembly *a, struct db_stmt *st, struct node *n)
{
	int r = db_step(st);

	if (r < 0)
		fail(a);
	if (r <= 0)
		return 0;
	node_from_row(st, n);
	db_reset(st);
	return 1;
}

static int node_by_id(struct assembly *a, const char *msgid, struct node *n)
{
	struct db_stmt *st;

	if (!msgid)
		return 0;
	st = prep(a, "SELECT " NODE_COLS " WHERE msgid = ?");
	if (!st)
		return 0;
	db_bind_text(st, 1, msgid);
	return node_step(a, st, n);
}

static int node_by_i(struct assembly *a, int64_t i, struct node *n)
{
	struct db_stmt *st = prep(a, "SELECT " NODE_COLS " WHERE i = ?");

	if (!st)
		return 0;
	db_bind_int(st, 1, i);
	return node_step(a, st, n);
}

/* The k-th reference of n (from 0), copied into b; false past the end */
static bool node_ref(const struct node *n, size_t k, struct strbuf *b)
{
	const char *p = n->refs;

	if (!p || !*p)
		return false;
	while (k--) {
		p = strchr(p, '\n');
		if (!p)
			return false;
		p++;
	}
	strbuf_reset(b);
	strbuf_add(b, p, strcspn(p, "\n"));
	return true;
}

static size_t node_nr_refs(const struct node *n)
{
	size_t nr = 0;
	const char *p;

	if (!n->refs || !*n->refs)
		return 0;
	for (p = n->refs; p; p = strchr(p + 1, '\n'))
		nr++;
	return nr;
}

/* series.c's known_parent(): the parent, else the nearest known ancestor */
static int known_parent(struct assembly *a, const struct node *m, struct node *p)
{
	struct strbuf ref = STRBUF_INIT;
	size_t k;
	int found = node_by_id(a, m->parent, p);

	for (k = node_nr_refs(m); !found && k-- > 0; )
		if (node_ref(m, k, &ref))
			found = node_by_id(a, ref.buf, p);
	strbuf_release(&ref);
	return found;
}

static bool same_send(const struct node *a, const struct node *b)
{
	if (a->kind != MSG_PATCH && a->kind != MSG_COVER)
		return false;
	if (b->kind != MSG_PATCH && b->kind != MSG_COVER)
		return false;
	return a->version == b->version && a->total == b->total &&
		a->sender && b->sender && !strcmp(a->sender, b->sender);
}

/* series.c's send_root(); 1 with *top filled, or 0 */
static int send_root(struct assembly *a, const struct node *m, struct node *top)
{
	struct strbuf ref = STRBUF_INIT;
	struct node p = { 0 };
	const struct node *cur = m;
	size_t k, nr = node_nr_refs(m), steps = 0;
	int found = 0;

	memset(top, 0, sizeof(*top));
	for (k = 0; k < nr && !found; k++) {
		if (!node_ref(m, k, &ref) || !node_by_id(a, ref.buf, &p))
			continue;
		if (p.i != m->i && same_send(&p, m)) {
			*top = p;
			memset(&p, 0, sizeof(p));
			cur = top;
			found = 1;
		}
		node_release(&p);
	}
	strbuf_release(&ref);
	while (steps++ < MAX_CLIMB) {
		if (!known_parent(a, cur, &p))
			break;
		if (p.i == m->i || !same_send(&p, m)) {
			node_release(&p);
			break;
		}
		node_release(top);
		*top = p;
		memset(&p, 0, sizeof(p));
		cur = top;
		found = 1;
	}
	return found;
}

/* Walk rows in batches (ids first, work after: no update under a cursor) */
struct batch {
	const char *sql;	/* ?1: the last id; ids in order, LIMIT BATCH */
	int64_t ids[BATCH];
	size_t nr, pos;
	int64_t last;
	bool done;
};

static bool batch_next(struct assembly *a, struct batch *b, int64_t *id)
{
	if (b->pos == b->nr && !b->done) {
		struct db_stmt *st = prep(a, b->sql);
		int r;

		b->nr = b->pos = 0;
		if (!st)
			return false;
		db_bind_int(st, 1, b->last);
		while ((r = db_step(st)) > 0)
			b->ids[b->nr++] = db_column_int(st, 0);
		if (r < 0)
			fail(a);
		b->done = b->nr < BATCH;
		if (b->nr)
			b->last = b->ids[b->nr - 1];
	}
	if (b->pos == b->nr || a->disk->failed)
		return false;
	*id = b->ids[b->pos++];
	return true;
}

/* grouping */

static int64_t new_send(struct assembly *a, const struct node *first)
{
	struct db_stmt *st = prep(a, "INSERT INTO s (total, version, sender, date)"
				  " VALUES (?, ?, ?, ?)");

	if (!st)
		return 0;
	db_bind_int(st, 1, first->total);
	db_bind_int(st, 2, first->version);
	db_bind_text(st, 3, first->sender);
	db_bind_int(st, 4, first->date);
	if (db_run(st)) {
		fail(a);
		return 0;
	}
	return db_last_insert_id(a->disk->db);
}

static void send_put(struct assembly *a, int64_t s, const struct node *m)
{
	int64_t cover, slot, total;

	run_ints(a, "UPDATE m SET send = ?2 WHERE i = ?1", 2, m->i, s);
	run_ints(a, "UPDATE s SET date = ?2 WHERE id = ?1 AND ?2 != 0 AND"
		 " (date = 0 OR ?2 < date)", 2, s, m->date);
	if (m->kind == MSG_COVER) {
		cover = query_int(a, 0, "SELECT cover FROM s WHERE id = ?", 1, s);
		if (cover && cover != m->i)
			assembly_problem(a, m->idx, m->msgid,
					 "second cover letter in one send; ignored");
		else
			run_ints(a, "UPDATE s SET cover = ?2 WHERE id = ?1", 2, s, m->i);
		return;
	}
	total = query_int(a, 0, "SELECT total FROM s WHERE id = ?", 1, s);
	slot = query_int(a, 0, "SELECT msg FROM sp WHERE send = ? AND n = ?",
			 2, s, (int64_t)m->n);
	if (slot) {
		struct node old = { 0 };
		int64_t keep = m->i, drop = slot;

		assembly_problem(a, m->idx, m->msgid,
				 "patch %d/%d posted twice in one send; "
				 "using the later copy", m->n, (int)total);
		if (node_by_i(a, slot, &old) && m->date < old.date) {
			keep = slot;
			drop = m->i;
		}
		node_release(&old);
		run_ints(a, "UPDATE m SET send = NULL, kind = ?2 WHERE i = ?1", 2,
			 drop, (int64_t)MSG_OTHER);
		run_ints(a, "UPDATE sp SET msg = ?3 WHERE send = ?1 AND n = ?2", 3,
			 s, (int64_t)m->n, keep);
	} else {
		run_ints(a, "UPDATE s SET have = have + 1 WHERE id = ?", 1, s);
		run_ints(a, "INSERT INTO sp (send, n, msg) VALUES (?, ?, ?)", 3,
			 s, (int64_t)m->n, m->i);
	}
}

static int64_t opens(struct assembly *a, int64_t i)
{
	return query_int(a, 0, "SELECT opens FROM m WHERE i = ?", 1, i);
}

static void group_threaded(struct assembly *a)
{
	struct batch covers = {
		.sql = "SELECT i FROM m WHERE i > ? AND kind = " K_COVER
			" ORDER BY i" BATCH_LIMIT,
	};
	struct batch patches = {
		.sql = "SELECT i FROM m WHERE i > ? AND kind = " K_PATCH
			" AND n >= 1 AND n <= total ORDER BY i" BATCH_LIMIT,
	};
	struct node m = { 0 }, root;
	int64_t i, s;

	while (batch_next(a, &covers, &i)) {
		if (!node_by_i(a, i, &m))
			continue;
		s = new_send(a, &m);
		send_put(a, s, &m);
		run_ints(a, "UPDATE m SET opens = ?2 WHERE i = ?1", 2, m.i, s);
		node_release(&m);
	}
	while (batch_next(a, &patches, &i)) {
		/* a copy displaced by a later one is no longer a patch */
		if (!node_by_i(a, i, &m) || m.kind != MSG_PATCH) {
			node_release(&m);
			continue;
		}
		if (!send_root(a, &m, &root)) {
			if (m.total > 1 && (m.n > 1 || !m.parent)) {
				node_release(&m);
				continue;
			}
			node_by_i(a, m.i, &root);
		}
		s = opens(a, root.i);
		if (!s) {
			s = new_send(a, &root);
			run_ints(a, "UPDATE m SET opens = ?2 WHERE i = ?1", 2, root.i, s);
		}
		send_put(a, s, &m);
		node_release(&root);
		node_release(&m);
	}
}

static void group_fallback(struct assembly *a)
{
	struct batch left = {
		.sql = "SELECT rowid FROM lf WHERE rowid > ? ORDER BY rowid"
			BATCH_LIMIT,
	};
	struct node m = { 0 };
	int64_t row, i, best;

	if (run_ints(a, "INSERT INTO lf (i) SELECT i FROM m WHERE kind = "
		     K_PATCH " AND send IS NULL AND n >= 1 AND"
		     " n <= total ORDER BY date, idx", 0))
		return;
	while (batch_next(a, &left, &row)) {
		i = query_int(a, 0, "SELECT i FROM lf WHERE rowid = ?", 1, row);
		if (!node_by_i(a, i, &m))
			continue;
		best = opens(a, m.i);
		if (best) {
			/* patch 1 that the rest of its send replies to */
			send_put(a, best, &m);
			node_release(&m);
			continue;
		}
		best = 0;
		if (m.sender) {
			struct db_stmt *st = prep(a,
				"SELECT id FROM s WHERE sender = ?1 AND"
				" version = ?2 AND total = ?3 AND"
				" abs(date - ?4) <= " STR(FALLBACK_WINDOW) " AND"
				" NOT EXISTS (SELECT 1 FROM sp WHERE"
				" sp.send = s.id AND sp.n = ?5)"
				" ORDER BY abs(date - ?4), id LIMIT 1");

			if (st) {
				db_bind_text(st, 1, m.sender);
				db_bind_int(st, 2, m.version);
				db_bind_int(st, 3, m.total);
				db_bind_int(st, 4, m.date);
				db_bind_int(st, 5, m.n);
				int r = db_step(st);

				if (r > 0) {
					best = db_column_int(st, 0);
					db_reset(st);
				} else if (r < 0) {
					fail(a);
				}
			}
		}
		if (!best) {
			best = new_send(a, &m);
			run_ints(a, "UPDATE s SET fallback = 1 WHERE id = ?", 1, best);
		}
		assembly_problem(a, m.idx, m.msgid,
				 "patch %d/%d is not threaded; grouped by "
				 "sender, version and time", m.n, m.total);
		send_put(a, best, &m);
		node_release(&m);
	}
}

static void finish_send(struct assembly *a, int64_t s)
{
	struct db_stmt *slots;
	struct msg h, p;
	int64_t head, have, total;
	char *tree = NULL, *base = NULL;
	bool rfc, resend;
	int r;

	head = query_int(a, 0, "SELECT cover FROM s WHERE id = ?", 1, s);
	if (!head)
		head = query_int(a, 0, "SELECT msg FROM sp WHERE send = ?"
				 " ORDER BY n LIMIT 1", 1, s);
	if (load_rec(a, head, &h)) {
		msg_release(&h);
		return;
	}
	tree = xstrdup_or_null(h.subj.tree);
	base = xstrdup_or_null(h.base_commit);
	rfc = h.subj.rfc;
	resend = h.subj.resend;
	slots = prep(a, "SELECT n, msg FROM sp WHERE send = ? ORDER BY n");
	if (slots)
		db_bind_int(slots, 1, s);
	while (slots && (r = db_step(slots)) > 0) {
		int64_t n = db_column_int(slots, 0);
		size_t t;

		if (load_rec(a, db_column_int(slots, 1), &p)) {
			msg_release(&p);
			continue;
		}
		if (!base && p.base_commit)
			base = xstrdup(p.base_commit);
		if (!tree && p.subj.tree)
			tree = xstrdup(p.subj.tree);
		rfc |= p.subj.rfc;
		resend |= p.subj.resend;
		/* the patch's own trailers start the list replies add to */
		for (t = 0; t < p.trailers.nr; t++) {
			struct db_stmt *st = prep(a, "INSERT INTO tr (send, n, seq,"
						  " name, value) VALUES (?, ?, ?, ?, ?)");

			if (!st)
				break;
			db_bind_int(st, 1, s);
			db_bind_int(st, 2, n);
			db_bind_int(st, 3, (int64_t)t);
			db_bind_text(st, 4, p.trailers.t[t].name);
			db_bind_text(st, 5, p.trailers.t[t].value);
			if (db_run(st))
				fail(a);
		}
		msg_release(&p);
	}
	if (slots && r < 0)
		fail(a);
	have = query_int(a, 0, "SELECT have FROM s WHERE id = ?", 1, s);
	total = query_int(a, 0, "SELECT total FROM s WHERE id = ?", 1, s);
	slots = prep(a, "UPDATE s SET sid = ?2, title = ?3, tree = ?4, aname = ?5,"
		     " aemail = ?6, base = ?7, chid = ?8, rfc = ?9, resend = ?10,"
		     " complete = ?11 WHERE id = ?1");
	if (slots) {
		db_bind_int(slots, 1, s);
		db_bind_text(slots, 2, h.msgid);
		db_bind_text(slots, 3, h.title);
		db_bind_text(slots, 4, tree);
		db_bind_text(slots, 5, h.author_name);
		db_bind_text(slots, 6, h.author_email);
		db_bind_text(slots, 7, base);
		db_bind_text(slots, 8, h.change_id);
		db_bind_int(slots, 9, rfc);
		db_bind_int(slots, 10, resend);
		db_bind_int(slots, 11, have == total);
		if (db_run(slots))
			fail(a);
	}
	free(tree);
	free(base);
	msg_release(&h);
}

/* The trailers of one patch slot, in order */
static void slot_trailers(struct assembly *a, int64_t s, int64_t n,
			  struct trailers *t)
{
	struct db_stmt *st = prep(a, "SELECT name, value FROM tr WHERE send = ?"
				  " AND n = ? ORDER BY seq");
	int r;

	memset(t, 0, sizeof(*t));
	if (!st)
		return;
	db_bind_int(st, 1, s);
	db_bind_int(st, 2, n);
	while ((r = db_step(st)) > 0)
		trailers_add(t, db_column_text(st, 0), db_column_text(st, 1));
	if (r < 0)
		fail(a);
}

/* series.c's reply_target(): 1 with *t filled, or 0 */
static int reply_target(struct assembly *a, const struct node *m, struct node *t)
{
	struct node p = { 0 }, q = { 0 };
	size_t steps = 0;

	if (!known_parent(a, m, &p))
		return 0;
	while (steps++ < MAX_CLIMB) {
		if (p.i == m->i)
			break;
		if ((p.kind == MSG_PATCH || p.kind == MSG_COVER) && p.send) {
			*t = p;
			return 1;
		}
		if (p.kind != MSG_REPLY && p.kind != MSG_OTHER)
			break;
		if (p.target) {	/* replies come in order: reuse the answer */
			int found = node_by_i(a, p.target, t);

			node_release(&p);
			return found;
		}
		if (!known_parent(a, &p, &q))
			break;
		node_release(&p);
		p = q;
		memset(&q, 0, sizeof(q));
	}
	node_release(&p);
	return 0;
}

static void give_trailers(struct assembly *a, const struct node *target,
			  const struct trailers *given)
{
	struct db_stmt *slots = prep(a, "SELECT n, msg FROM sp WHERE send = ?"
				     " ORDER BY n");
	int64_t *ns = NULL;
	size_t nr = 0, alloc = 0, k, g;
	int r;

	if (!slots)
		return;
	db_bind_int(slots, 1, target->send);
	while ((r = db_step(slots)) > 0) {
		/* on the cover letter: every patch; else the one replied to */
		if (target->kind == MSG_PATCH && db_column_int(slots, 1) != target->i)
			continue;
		ALLOC_GROW(ns, nr + 1, alloc);
		ns[nr++] = db_column_int(slots, 0);
	}
	if (r < 0)
		fail(a);
	for (k = 0; k < nr; k++) {
		struct trailers have;

		slot_trailers(a, target->send, ns[k], &have);
		for (g = 0; g < given->nr; g++) {
			const struct trailer *tr = &given->t[g];
			struct db_stmt *st;

			if (trailers_has(&have, tr->name, tr->value))
				continue;
			trailers_add(&have, tr->name, tr->value);
			st = prep(a, "INSERT INTO tr (send, n, seq, name, value)"
				  " VALUES (?, ?, ?, ?, ?)");
			if (!st)
				break;
			db_bind_int(st, 1, target->send);
			db_bind_int(st, 2, ns[k]);
			db_bind_int(st, 3, (int64_t)have.nr - 1);
			db_bind_text(st, 4, tr->name);
			db_bind_text(st, 5, tr->value);
			if (db_run(st))
				fail(a);
		}
		trailers_release(&have);
	}
	free(ns);
}

static void attach_replies(struct assembly *a)
{
	struct batch replies = {
		.sql = "SELECT i FROM m WHERE i > ? AND kind IN (" K_REPLY ", "
			K_OTHER ") ORDER BY i" BATCH_LIMIT,
	};
	struct node m = { 0 }, t = { 0 };
	struct msg given;
	int64_t i;

	while (batch_next(a, &replies, &i)) {
		if (!node_by_i(a, i, &m))
			continue;
		if (!reply_target(a, &m, &t)) {
			node_release(&m);
			continue;
		}
		run_ints(a, "UPDATE m SET target = ?2 WHERE i = ?1", 2, m.i, t.i);
		run_ints(a, "UPDATE s SET replies = replies + 1 WHERE id = ?", 1, t.send);
		if (!load_rec(a, m.i, &given) && given.trailers.nr)
			give_trailers(a, &t, &given.trailers);
		msg_release(&given);
		node_release(&t);
		node_release(&m);
	}
}

/* series: union-find over sends, the root of a set its smallest id */

static int64_t uf_root(struct assembly *a, int64_t x)
{
	int64_t r = x, p;

	while ((p = query_int(a, 0, "SELECT uf FROM s WHERE id = ?", 1, r)) &&
	       p != r)
		r = p;
	/* compress the path */
	while (x != r && (p = query_int(a, 0, "SELECT uf FROM s WHERE id = ?", 1, x)) &&
	       p != r) {
		run_ints(a, "UPDATE s SET uf = ?2 WHERE id = ?1", 2, x, r);
		x = p;
	}
	return r;
}

static void uf_union(struct assembly *a, int64_t x, int64_t y)
{
	x = uf_root(a, x);
	y = uf_root(a, y);
	if (x != y)
		run_ints(a, "UPDATE s SET uf = ?2 WHERE id = ?1", 2, MAX(x, y), MIN(x, y));
}

static char *text_of(struct assembly *a, const char *sql, int64_t id)
{
	struct db_stmt *st = prep(a, sql);
	char *v = NULL;
	int r;

	if (!st)
		return NULL;
	db_bind_int(st, 1, id);
	r = db_step(st);
	if (r > 0) {
		v = xstrdup_or_null(db_column_text(st, 0));
		db_reset(st);
	} else if (r < 0) {
		fail(a);
	}
	return v;
}

static int64_t by_key(struct assembly *a, const char *key)
{
	struct db_stmt *st = prep(a, "SELECT id FROM s WHERE key = ? ORDER BY id LIMIT 1");
	int64_t v = 0;
	int r;

	if (!st)
		return 0;
	db_bind_text(st, 1, key);
	r = db_step(st);
	if (r > 0) {
		v = db_column_int(st, 0);
		db_reset(st);
	} else if (r < 0) {
		fail(a);
	}
	return v;
}

static void union_by_key(struct assembly *a)
{
	struct batch sends = {
		.sql = "SELECT id FROM s WHERE id > ? ORDER BY id" BATCH_LIMIT,
	};
	int64_t id, prev;

	while (batch_next(a, &sends, &id)) {
		struct send s = { 0 };
		struct db_stmt *st;
		char *key;

		s.title = text_of(a, "SELECT title FROM s WHERE id = ?", id);
		s.change_id = text_of(a, "SELECT chid FROM s WHERE id = ?", id);
		s.sender_email = text_of(a, "SELECT sender FROM s WHERE id = ?", id);
		key = series_key(&s);
		prev = by_key(a, key);
		st = prep(a, "UPDATE s SET key = ?2, uf = ?1 WHERE id = ?1");
		if (st) {
			db_bind_int(st, 1, id);
			db_bind_text(st, 2, key);
			if (db_run(st))
				fail(a);
		}
		if (prev)
			uf_union(a, prev, id);
		free(key);
		free(s.title);
		free(s.change_id);
		free(s.sender_email);
	}
}

/* Cover letters that link to an earlier version */
static void union_by_link(struct assembly *a)
{
	struct batch sends = {
		.sql = "SELECT id FROM s WHERE id > ? AND cover IS NOT NULL"
			" ORDER BY id" BATCH_LIMIT,
	};
	int64_t id;
	size_t j;

	while (batch_next(a, &sends, &id)) {
		int64_t cover = query_int(a, 0, "SELECT cover FROM s WHERE id = ?", 1, id);
		char *sender = text_of(a, "SELECT sender FROM s WHERE id = ?", id);
		struct msg c;

		if (!load_rec(a, cover, &c)) {
			for (j = 0; j < c.nr_links; j++) {
				struct node t = { 0 };
				char *other;

				if (!node_by_id(a, c.links[j], &t) || !t.send ||
				    t.send == id) {
					node_release(&t);
					continue;
				}
				other = text_of(a, "SELECT sender FROM s WHERE id = ?", t.send);
				if (!strcmp(other ? other : "", sender ? sender : ""))
					uf_union(a, id, t.send);
				free(other);
				node_release(&t);
			}
		}
		msg_release(&c);
		free(sender);
	}
}

static void make_series(struct assembly *a)
{
	struct batch sends = {
		.sql = "SELECT id FROM s WHERE id > ? ORDER BY id" BATCH_LIMIT,
	};
	int64_t id, root, sr;

	while (batch_next(a, &sends, &id)) {
		root = uf_root(a, id);
		sr = query_int(a, 0, "SELECT id FROM sr WHERE root = ?", 1, root);
		if (!sr) {
			struct series tmp = { 0 };
			char *key = text_of(a, "SELECT key FROM s WHERE id = ?", root);
			struct db_stmt *st = prep(a, "INSERT INTO sr (root, hid) VALUES (?, ?)");

			series_set_id(&tmp, key ? key : "");
			if (st) {
				db_bind_int(st, 1, root);
				db_bind_text(st, 2, tmp.id);
				if (db_run(st))
					fail(a);
				sr = db_last_insert_id(a->disk->db);
			}
			free(tmp.id);
			free(key);
		}
		run_ints(a, "UPDATE s SET series = ?2 WHERE id = ?1", 2, id, sr);
	}
}

/* A send as series_order() needs it, and its row */
struct disk_send {
	struct send s;		/* first: series_order() sorts pointers to it */
	int64_t id;
};

/* The sends of series sr; *nr of them */
static struct disk_send *load_sends(struct assembly *a, int64_t sr, size_t *nr)
{
	struct db_stmt *st = prep(a, "SELECT id, version, date, sid, complete,"
				  " resend FROM s WHERE series = ? ORDER BY id");
	struct disk_send *v = NULL;
	size_t alloc = 0;
	int r;

	*nr = 0;
	if (!st)
		return NULL;
	db_bind_int(st, 1, sr);
	while ((r = db_step(st)) > 0) {
		struct disk_send *d;

		ALLOC_GROW(v, *nr + 1, alloc);
		d = &v[(*nr)++];
		memset(d, 0, sizeof(*d));
		d->id = db_column_int(st, 0);
		d->s.version = (int)db_column_int(st, 1);
		d->s.date = db_column_int(st, 2);
		d->s.id = xstrdup(db_column_text(st, 3));
		d->s.complete = db_column_int(st, 4);
		d->s.resend = db_column_int(st, 5);
	}
	if (r < 0)
		fail(a);
	return v;
}

static void order_series(struct assembly *a)
{
	struct batch all = {
		.sql = "SELECT id FROM sr WHERE id > ? ORDER BY id" BATCH_LIMIT,
	};
	int64_t sr;
	size_t nr, j;

	while (batch_next(a, &all, &sr)) {
		struct disk_send *v = load_sends(a, sr, &nr);
		struct series tmp = { 0 };
		struct db_stmt *st;

		if (!nr) {
			free(v);
			continue;
		}
		tmp.sends = xcalloc(nr, sizeof(*tmp.sends));
		for (j = 0; j < nr; j++)
			tmp.sends[j] = &v[j].s;
		tmp.nr = nr;
		series_order(&tmp);
		for (j = 0; j < nr; j++) {
			const struct disk_send *d = (const struct disk_send *)tmp.sends[j];
			const struct disk_send *by = (const struct disk_send *)d->s.superseded_by;

			run_ints(a, "UPDATE s SET pos = ?2, resend = ?3, superseded = ?4"
				 " WHERE id = ?1", 4, d->id, (int64_t)j,
				 (int64_t)d->s.resend, by ? by->id : 0);
		}
		st = prep(a, "UPDATE sr SET date = ?2, first = ?3 WHERE id = ?1");
		if (st) {
			db_bind_int(st, 1, sr);
			db_bind_int(st, 2, tmp.sends[0]->date);
			db_bind_text(st, 3, tmp.sends[0]->id);
			if (db_run(st))
				fail(a);
		}
		for (j = 0; j < nr; j++)
			free(v[j].s.id);
		free(tmp.sends);
		free(v);
	}
}

void series_disk_build(struct assembly *a)
{
	struct batch sends = {
		.sql = "SELECT id FROM s WHERE id > ? ORDER BY id" BATCH_LIMIT,
	};
	int64_t id;

	group_threaded(a);
	group_fallback(a);
	while (batch_next(a, &sends, &id))
		finish_send(a, id);
	attach_replies(a);
	union_by_key(a);
	union_by_link(a);
	make_series(a);
	order_series(a);
	run_ints(a, "INSERT INTO so (sr) SELECT id FROM sr ORDER BY date, first, id", 0);
}

/* output */

/* Send row id as the in-memory assembly has it, for fn */
static void emit_send(struct assembly *a, int64_t id, const char *hid,
		      void (*fn)(const struct send *s, void *ctx), void *ctx)
{
	struct db_stmt *st = prep(a, "SELECT sid, title, aname, aemail, version,"
				  " total, tree, rfc, cover, date, complete,"
				  " superseded, resend, base, chid, replies, have,"
				  " sender FROM s WHERE id = ?");
	struct series sr = { .id = (char *)hid };
	struct send s = { 0 }, by = { 0 };
	struct msg cover = { 0 };
	int64_t cover_i = 0, by_i = 0;
	int i, r;

	if (!st)
		return;
	db_bind_int(st, 1, id);
	r = db_step(st);
	if (r <= 0) {
		if (r < 0)
			fail(a);
		return;
	}
	s.id = xstrdup_or_null(db_column_text(st, 0));
	s.title = xstrdup_or_null(db_column_text(st, 1));
	s.author_name = xstrdup_or_null(db_column_text(st, 2));
	s.author_email = xstrdup_or_null(db_column_text(st, 3));
	s.version = (int)db_column_int(st, 4);
	s.total = (int)db_column_int(st, 5);
	s.tree = xstrdup_or_null(db_column_text(st, 6));
	s.rfc = db_column_int(st, 7);
	cover_i = db_column_int(st, 8);
	s.date = db_column_int(st, 9);
	s.complete = db_column_int(st, 10);
	by_i = db_column_int(st, 11);
	s.resend = db_column_int(st, 12);
	s.base_commit = xstrdup_or_null(db_column_text(st, 13));
	s.change_id = xstrdup_or_null(db_column_text(st, 14));
	s.replies = (int)db_column_int(st, 15);
	s.have = (int)db_column_int(st, 16);
	s.sender_email = xstrdup_or_null(db_column_text(st, 17));
	db_reset(st);
	s.series = &sr;
	if (cover_i) {
		cover.msgid = text_of(a, "SELECT msgid FROM m WHERE i = ?", cover_i);
		s.cover = &cover;
	}
	if (by_i) {
		by.id = text_of(a, "SELECT sid FROM s WHERE id = ?", by_i);
		s.superseded_by = &by;
	}
	s.patches = xcalloc(s.total > 0 ? s.total : 1, sizeof(*s.patches));
	st = prep(a, "SELECT n, msg FROM sp WHERE send = ? ORDER BY n");
	if (st)
		db_bind_int(st, 1, id);
	while (st && (r = db_step(st)) > 0) {
		int n = (int)db_column_int(st, 0);
		struct msg *p;

		if (n < 1 || n > s.total)
			continue;
		p = xmalloc(sizeof(*p));
		load_rec(a, db_column_int(st, 1), p);
		s.patches[n - 1].msg = p;
		slot_trailers(a, id, n, &s.patches[n - 1].trailers);
	}
	if (st && r < 0)
		fail(a);
	if (!a->disk->failed)
		fn(&s, ctx);
	for (i = 0; i < s.total; i++) {
		if (s.patches[i].msg)
			free_msg(s.patches[i].msg);
		trailers_release(&s.patches[i].trailers);
	}
	free(s.patches);
	free(cover.msgid);
	free(by.id);
	free(s.id);
	free(s.title);
	free(s.author_name);
	free(s.author_email);
	free(s.tree);
	free(s.base_commit);
	free(s.change_id);
	free(s.sender_email);
}

void series_disk_each_send(const struct assembly *ca,
			   void (*fn)(const struct send *s, void *ctx), void *ctx)
{
	/* reading changes nothing the caller sees; statements are cached */
	struct assembly *a = (struct assembly *)ca;
	struct batch all = {
		.sql = "SELECT rowid FROM so WHERE rowid > ? ORDER BY rowid"
			BATCH_LIMIT,
	};
	int64_t row;

	while (batch_next(a, &all, &row)) {
		int64_t sr = query_int(a, 0, "SELECT sr FROM so WHERE rowid = ?", 1, row);
		char *hid = text_of(a, "SELECT hid FROM sr WHERE id = ?", sr);
		struct db_stmt *st = prep(a, "SELECT id FROM s WHERE series = ?"
					  " ORDER BY pos");
		int64_t *ids = NULL;
		size_t nr = 0, alloc = 0, j;
		int r;

		/* one series at a time: its sends first, then each in full */
		if (st) {
			db_bind_int(st, 1, sr);
			while ((r = db_step(st)) > 0) {
				ALLOC_GROW(ids, nr + 1, alloc);
				ids[nr++] = db_column_int(st, 0);
			}
			if (r < 0)
				fail(a);
		}
		for (j = 0; j < nr; j++)
			emit_send(a, ids[j], hid, fn, ctx);
		free(ids);
		free(hid);
	}
}

/* problems: once they are many, kept in the database in pieces */

void series_disk_flush_problems(struct assembly *a)
{
	struct db_stmt *st;

	if (!a->problems.len || a->problems.len < PROBLEMS_FLUSH)
		return;
	st = prep(a, "INSERT INTO pr (line) VALUES (?)");
	if (!st)
		return;
	db_bind_textn(st, 1, a->problems.buf, a->problems.len);
	if (db_run(st))
		fail(a);
	else
		strbuf_reset(&a->problems);
}

void series_disk_each_problems(const struct assembly *ca,
			       void (*fn)(const char *buf, size_t len, void *ctx),
			       void *ctx)
{
	struct assembly *a = (struct assembly *)ca;
	struct db_stmt *st = prep(a, "SELECT line FROM pr ORDER BY rowid");
	int r;

	while (st && (r = db_step(st)) > 0) {
		const char *p = db_column_text(st, 0);

		fn(p, strlen(p), ctx);
	}
	if (st && r < 0)
		fail(a);
}
