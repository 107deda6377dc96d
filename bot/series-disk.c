// SPDX-License-Identifier: GPL-2.0
/*
 * Series assembly for more mail than memory should hold.
 *
 * In memory, each message costs about 0.6 KB until the end, and it has
 * to: a review can answer a patch, and a v8 can supersede a v1, any
 * number of messages later.  Past a->spill_after, the messages move to
 * a scratch SQLite database (a private file in $TMPDIR, else /var/tmp,
 * deleted on close, with an 8 MB page cache) and assembly runs there:
 * the same steps as series.c, with rows where series.c has pointers, and
 * most steps done for every message at once.  Memory then stays flat
 * whatever the size of the mbox; what is held at once is one message,
 * one send, one series or one reply chain.
 *
 * The tables:
 *   m   one row per message, i in the order they were added (the index
 *       of a->msgs), written once: what a patch or cover letter says in
 *       columns, trailers and links packed in rec
 *   g   where each message stands (kind, known parent kp, send, reply
 *       target, the send it opens), with what climbing a thread reads:
 *       narrow, so that the passes over it are cheap
 *   s   one row per send, id in the order series.c creates them
 *   sp  the patch slots of each send: which message holds slot n
 *   tr  the trailers replies gave each slot, in order (its own are in rec)
 *   sr  one row per series; so, the series in output order
 *   lf  the patches left to group by sender and time, in order
 *   pr  problems, once there are many
 *
 * Whatever differs from series.c is a bug: t0104 compares the two on
 * every fixture and a generated list, and fuzz-mbox on every input.
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

#define NODE_CACHE 32

/* A node looked up lately (by Message-ID, or by i when msgid is NULL) */
struct cached {
	char *msgid;
	bool used, found;
	struct node *n;		/* light (no msgid, refs); NULL: not found */
};

struct series_disk {
	struct db *db;
	size_t nr;		/* messages */
	bool failed;		/* a->fatal says why */
	/*
	 * While patches are placed, the patches of one send look up the
	 * same cover letter and patch 1 again and again: the last few
	 * lookups are kept (and forgotten where g changes).
	 */
	bool caching;
	unsigned int next;
	struct cached cache[NODE_CACHE];
};

static void cache_set(struct series_disk *d, bool on);

static const char schema[] =
	"CREATE TABLE m (i INTEGER PRIMARY KEY, msgid TEXT NOT NULL UNIQUE,"
	" parent TEXT, refs TEXT, kind INTEGER, n INTEGER, total INTEGER,"
	" version INTEGER, sender TEXT, date INTEGER, idx INTEGER,"
	" subject TEXT, title TEXT, aname TEXT, aemail TEXT, tree TEXT,"
	" base TEXT, chid TEXT, rfc INTEGER, resend INTEGER, ntr INTEGER,"
	" nlinks INTEGER, rec BLOB);"
	"CREATE TABLE g (i INTEGER PRIMARY KEY, kind INTEGER, kp INTEGER,"
	" send INTEGER, target INTEGER, opens INTEGER, putin INTEGER,"
	" n INTEGER, total INTEGER, version INTEGER, sender TEXT, date INTEGER,"
	" idx INTEGER, ntr INTEGER);"
	"CREATE TABLE s (id INTEGER PRIMARY KEY, total INTEGER,"
	" version INTEGER, sender TEXT, date INTEGER, have INTEGER DEFAULT 0,"
	" cover INTEGER, head INTEGER, sid TEXT,"
	" title TEXT, tree TEXT, aname TEXT, aemail TEXT, base TEXT, chid TEXT,"
	" rfc INTEGER, resend INTEGER, complete INTEGER, replies INTEGER DEFAULT 0,"
	" uf INTEGER, key TEXT, series INTEGER, pos INTEGER DEFAULT 0,"
	" superseded INTEGER);"
	"CREATE INDEX s_match ON s (sender, version, total);"
	"CREATE INDEX s_cover ON s (cover);"
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
		strbuf_addstr(&a->fatal, db_error(d->db));
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

/* One text from a query with one integer parameter (malloc'ed), or NULL */
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

/* Run statements without parameters until one changes nothing */
static void run_all(struct assembly *a, const char *sql)
{
	if (!a->disk->failed && db_exec(a->disk->db, sql))
		fail(a);
}

/* rec: trailers and links, packed (lengths as varints, +1; 0: NULL) */

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

/* Trailers (and links) from rec into m, malloc'ed: msg_release() frees */
static void rec_unpack(const void *blob, size_t len, struct msg *m)
{
	struct reader r = { blob, (const unsigned char *)blob + len, false };
	uint64_t nr, i;

	nr = blob ? get_num(&r) : 0;
	for (i = 0; i < nr && !r.bad; i++) {
		char *name = get_str(&r), *value = get_str(&r);

		if (name && value)
			trailers_add(&m->trailers, name, value);
		free(name);
		free(value);
	}
	nr = blob ? get_num(&r) : 0;
	if (nr > MSG_MAX_LINKS)
		nr = 0;
	m->links = xcalloc(nr + 1, sizeof(*m->links));
	for (i = 0; i < nr && !r.bad; i++) {
		m->links[m->nr_links] = get_str(&r);
		if (m->links[m->nr_links])
			m->nr_links++;
	}
}

/* A message as output and finishing need it, into m (zeroed first) */
static int load_msg(struct assembly *a, int64_t i, struct msg *m)
{
	struct db_stmt *st = prep(a, "SELECT msgid, subject, title, aname, aemail,"
				  " rec FROM m WHERE i = ?");
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
	m->subject = xstrdup_or_null(db_column_text(st, 1));
	m->title = xstrdup_or_null(db_column_text(st, 2));
	m->author_name = xstrdup_or_null(db_column_text(st, 3));
	m->author_email = xstrdup_or_null(db_column_text(st, 4));
	blob = db_column_blob(st, 5, &len);
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
	cache_set(a->disk, false);
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

struct msg *series_disk_add(struct assembly *a, struct msg *m)
{
	struct db_stmt *st = prep(a, "INSERT OR IGNORE INTO m (i, msgid, parent,"
				  " refs, kind, n, total, version, sender, date,"
				  " idx, subject, title, aname, aemail, tree, base,"
				  " chid, rfc, resend, ntr, nlinks, rec) VALUES (?, ?,"
				  " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
				  " ?, ?, ?, ?)");
	struct strbuf refs = STRBUF_INIT, rec = STRBUF_INIT;
	bool head = m->kind == MSG_PATCH || m->kind == MSG_COVER;

	if (!st)
		goto out;
	refs_join(m, &refs);
	if (m->trailers.nr || m->nr_links)
		rec_pack(m, &rec);
	db_bind_int(st, 1, (int64_t)a->disk->nr + 1);
	db_bind_text(st, 2, m->msgid);
	db_bind_text(st, 3, m->parent);
	if (refs.len)
		db_bind_textn(st, 4, refs.buf, refs.len);
	db_bind_int(st, 5, m->kind);
	db_bind_int(st, 6, m->subj.n);
	db_bind_int(st, 7, m->subj.total);
	db_bind_int(st, 8, m->subj.version);
	db_bind_text(st, 9, m->sender_email);
	db_bind_int(st, 10, m->date);
	db_bind_int(st, 11, (int64_t)m->index);
	if (head) {
		/* what only patches and cover letters need */
		db_bind_text(st, 12, m->subject);
		db_bind_text(st, 13, m->title);
		db_bind_text(st, 14, m->author_name);
		db_bind_text(st, 15, m->author_email);
		db_bind_text(st, 16, m->subj.tree);
		db_bind_text(st, 17, m->base_commit);
		db_bind_text(st, 18, m->change_id);
		db_bind_int(st, 19, m->subj.rfc);
		db_bind_int(st, 20, m->subj.resend);
	}
	db_bind_int(st, 21, (int64_t)m->trailers.nr);
	db_bind_int(st, 22, (int64_t)m->nr_links);
	if (rec.len)
		db_bind_blob(st, 23, rec.buf, rec.len);
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
	msg_free(m);
	return NULL;
}

/* nodes: what climbing a thread looks at */

/* From g alone (what climbing needs), + m for node_full() */
struct node {
	int64_t i, kp, send, target, opens, date, idx;
	int kind, n, total, version;
	char *sender;
	/* node_full() */
	bool has_parent;
	char *msgid, *refs;	/* refs: '\n'-separated */
};

static void node_release(struct node *n)
{
	free(n->msgid);
	free(n->sender);
	free(n->refs);
	memset(n, 0, sizeof(*n));
}

#define NODE_SELECT "SELECT i, kind, kp, send, target, opens, date, idx," \
	" n, total, version, sender FROM g"

/* 1 and *n filled, or 0 (no such message, or failed) */
static int node_step(struct assembly *a, struct db_stmt *st, struct node *n)
{
	int r = db_step(st);

	if (r < 0)
		fail(a);
	if (r <= 0)
		return 0;
	n->i = db_column_int(st, 0);
	n->kind = (int)db_column_int(st, 1);
	n->kp = db_column_int(st, 2);
	n->send = db_column_int(st, 3);
	n->target = db_column_null(st, 4) ? -1 : db_column_int(st, 4);
	n->opens = db_column_int(st, 5);
	n->date = db_column_int(st, 6);
	n->idx = db_column_int(st, 7);
	n->n = (int)db_column_int(st, 8);
	n->total = (int)db_column_int(st, 9);
	n->version = (int)db_column_int(st, 10);
	n->sender = xstrdup_or_null(db_column_text(st, 11));
	db_reset(st);
	return 1;
}

/* the light part of a node, copied */
static void node_copy(struct node *dst, const struct node *src)
{
	*dst = *src;
	dst->sender = xstrdup_or_null(src->sender);
	dst->msgid = dst->refs = NULL;
}

static void cached_clear(struct cached *c)
{
	free(c->msgid);
	if (c->n) {
		node_release(c->n);
		free(c->n);
	}
	memset(c, 0, sizeof(*c));
}

/* By Message-ID (msgid) or by i; NULL when not kept */
static struct cached *cache_find(struct series_disk *d, const char *msgid, int64_t i)
{
	size_t k;

	if (!d->caching)
		return NULL;
	for (k = 0; k < NODE_CACHE; k++) {
		struct cached *c = &d->cache[k];

		if (!c->used)
			continue;
		if (msgid ? c->msgid && !strcmp(c->msgid, msgid) : c->n && c->n->i == i)
			return c;
	}
	return NULL;
}

static void cache_put(struct series_disk *d, const char *msgid,
		      const struct node *n)
{
	struct cached *c;

	if (!d->caching)
		return;
	c = &d->cache[d->next++ % NODE_CACHE];
	cached_clear(c);
	c->used = true;
	c->msgid = xstrdup_or_null(msgid);
	if (n) {
		c->n = xmalloc(sizeof(*c->n));
		node_copy(c->n, n);
	}
}

/* g changed for message i: forget it */
static void cache_forget(struct series_disk *d, int64_t i)
{
	size_t k;

	for (k = 0; k < NODE_CACHE; k++)
		if (d->cache[k].n && d->cache[k].n->i == i)
			cached_clear(&d->cache[k]);
}

static void cache_set(struct series_disk *d, bool on)
{
	size_t k;

	for (k = 0; k < NODE_CACHE; k++)
		cached_clear(&d->cache[k]);
	d->caching = on;
}

static int node_by_id(struct assembly *a, const char *msgid, struct node *n)
{
	struct cached *c = cache_find(a->disk, msgid, 0);
	struct db_stmt *st;
	int found;

	if (!msgid)
		return 0;
	if (c) {
		if (c->n)
			node_copy(n, c->n);
		return c->n != NULL;
	}
	/* the index has the rowid: no row of m is read */
	st = prep(a, NODE_SELECT " WHERE i = (SELECT i FROM m WHERE msgid = ?)");
	if (!st)
		return 0;
	db_bind_text(st, 1, msgid);
	found = node_step(a, st, n);
	if (!a->disk->failed)
		cache_put(a->disk, msgid, found ? n : NULL);
	return found;
}

static int node_by_i(struct assembly *a, int64_t i, struct node *n)
{
	struct cached *c = cache_find(a->disk, NULL, i);
	struct db_stmt *st;

	if (i <= 0)
		return 0;
	if (c) {
		node_copy(n, c->n);
		return 1;
	}
	st = prep(a, NODE_SELECT " WHERE i = ?");
	if (!st)
		return 0;
	db_bind_int(st, 1, i);
	if (!node_step(a, st, n))
		return 0;
	cache_put(a->disk, NULL, n);
	return 1;
}

/* The message being placed: its Message-ID and references too */
static int node_full(struct assembly *a, int64_t i, struct node *n)
{
	struct db_stmt *st;
	int r;

	if (!node_by_i(a, i, n))
		return 0;
	st = prep(a, "SELECT msgid, parent IS NOT NULL, refs FROM m WHERE i = ?");
	if (!st)
		return 0;
	db_bind_int(st, 1, i);
	r = db_step(st);
	if (r <= 0) {
		if (r < 0)
			fail(a);
		return 0;
	}
	n->msgid = xstrdup(db_column_text(st, 0));
	n->has_parent = db_column_int(st, 1);
	n->refs = xstrdup_or_null(db_column_text(st, 2));
	db_reset(st);
	return 1;
}

/* The next reference after *p in n->refs, copied into b; false at the end */
static bool next_ref(const char **p, struct strbuf *b)
{
	const char *s = *p;
	size_t len;

	if (!s || !*s)
		return false;
	len = strcspn(s, "\n");
	strbuf_reset(b);
	strbuf_add(b, s, len);
	*p = s[len] ? s + len + 1 : s + len;
	return true;
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

/*
 * series.c's send_root(); 1 with *top filled, or 0.  g.kp is series.c's
 * known_parent(), worked out for every message at once.
 */
static int send_root(struct assembly *a, const struct node *m, struct node *top)
{
	struct strbuf ref = STRBUF_INIT;
	struct node p = { 0 };
	const char *refs = m->refs;
	int64_t cur = m->kp;
	size_t steps = 0;
	int found = 0;

	memset(top, 0, sizeof(*top));
	while (!found && next_ref(&refs, &ref)) {
		if (!node_by_id(a, ref.buf, &p))
			continue;
		if (p.i != m->i && same_send(&p, m)) {
			*top = p;
			memset(&p, 0, sizeof(p));
			cur = top->kp;
			found = 1;
		}
		node_release(&p);
	}
	strbuf_release(&ref);
	while (steps++ < MAX_CLIMB && node_by_i(a, cur, &p)) {
		if (p.i == m->i || !same_send(&p, m)) {
			node_release(&p);
			break;
		}
		node_release(top);
		*top = p;
		memset(&p, 0, sizeof(p));
		cur = top->kp;
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
	int64_t s;

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
	s = db_last_insert_id(a->disk->db);
	run_ints(a, "UPDATE g SET opens = ?2 WHERE i = ?1", 2, first->i, s);
	cache_forget(a->disk, first->i);
	return s;
}

/*
 * series.c's send_put() for a patch.  Which message each send holds is
 * in sp; g.send and the dates of the sends follow from it for all at once
 * at the end of group_threaded(); group_fallback() needs them @now.
 */
static void send_put(struct assembly *a, int64_t s, const struct node *m, bool now)
{
	struct db_stmt *st = prep(a, "INSERT INTO sp (send, n, msg) VALUES (?, ?, ?)"
				  " ON CONFLICT DO NOTHING");
	int64_t slot, keep = m->i, drop;
	struct node old = { 0 };
	int put;

	if (!st)
		return;
	db_bind_int(st, 1, s);
	db_bind_int(st, 2, m->n);
	db_bind_int(st, 3, m->i);
	if (db_run(st)) {
		fail(a);
		return;
	}
	put = db_changes(a->disk->db);
	if (now) {
		run_ints(a, "UPDATE g SET send = ?2, putin = ?2 WHERE i = ?1", 2, m->i, s);
		run_ints(a, "UPDATE s SET date = ?2 WHERE id = ?1 AND ?2 != 0 AND"
			 " (date = 0 OR ?2 < date)", 2, s, m->date);
	}
	if (put)
		return;
	/* the same N/M posted twice in one thread: keep the later */
	slot = query_int(a, 0, "SELECT msg FROM sp WHERE send = ? AND n = ?", 2,
			 s, (int64_t)m->n);
	/* a send holds patches of its own count only: m->total is its */
	assembly_problem(a, m->idx, m->msgid, "patch %d/%d posted twice in one "
			 "send; using the later copy", m->n, m->total);
	drop = slot;
	if (node_by_i(a, slot, &old) && m->date < old.date) {
		keep = slot;
		drop = m->i;
	}
	node_release(&old);
	/* putin: its date counts for the send's all the same */
	run_ints(a, "UPDATE g SET send = NULL, kind = " K_OTHER ", putin = ?2"
		 " WHERE i = ?1", 2, drop, s);
	cache_forget(a->disk, drop);
	cache_forget(a->disk, keep);
	run_ints(a, "UPDATE sp SET msg = ?3 WHERE send = ?1 AND n = ?2", 3,
		 s, (int64_t)m->n, keep);
	if (now)
		run_ints(a, "UPDATE g SET send = ?2, putin = ?2 WHERE i = ?1", 2, keep, s);
}

static void group_threaded(struct assembly *a)
{
	struct batch patches = {
		.sql = "SELECT i FROM m WHERE i > ? AND kind = " K_PATCH
			" AND n >= 1 AND n <= total ORDER BY i" BATCH_LIMIT,
	};
	struct node m = { 0 }, root;
	int64_t i, s;

	/* every cover letter opens a send, in order */
	run_all(a, "INSERT INTO s (total, version, sender, date, cover)"
		" SELECT total, version, sender, date, i FROM m WHERE kind = "
		K_COVER " ORDER BY i;"
		"UPDATE g SET (opens, send, putin) = (SELECT id, id, id FROM s"
		" WHERE s.cover = g.i) WHERE kind = " K_COVER);
	cache_set(a->disk, true);
	while (batch_next(a, &patches, &i)) {
		/* a copy displaced by a later one is no longer a patch */
		if (!node_full(a, i, &m) || m.kind != MSG_PATCH) {
			node_release(&m);
			continue;
		}
		if (!send_root(a, &m, &root)) {
			if (m.total > 1 && (m.n > 1 || !m.has_parent)) {
				node_release(&m);
				continue;
			}
			node_by_i(a, m.i, &root);
		}
		s = root.opens ? root.opens : new_send(a, &root);
		send_put(a, s, &m, false);
		node_release(&root);
		node_release(&m);
	}
	cache_set(a->disk, false);
	/* what send_put() left for later: g.send, and the dates */
	run_all(a, "CREATE INDEX sp_msg ON sp (msg);"
		"UPDATE g SET (send, putin) = (SELECT send, send FROM sp"
		" WHERE sp.msg = g.i) WHERE kind = " K_PATCH " AND"
		" i IN (SELECT msg FROM sp);"
		"UPDATE s SET date = x.d FROM (SELECT putin, min(date) AS d"
		" FROM g WHERE putin IS NOT NULL AND date != 0 GROUP BY putin) AS x"
		" WHERE x.putin = s.id AND (s.date = 0 OR x.d < s.date)");
}

static void group_fallback(struct assembly *a)
{
	struct batch left = {
		.sql = "SELECT rowid FROM lf WHERE rowid > ? ORDER BY rowid"
			BATCH_LIMIT,
	};
	struct node m = { 0 };
	int64_t row, i, best;

	run_all(a, "INSERT INTO lf (i) SELECT i FROM g WHERE kind = " K_PATCH
		" AND send IS NULL AND n >= 1 AND n <= total ORDER BY date, idx");
	while (batch_next(a, &left, &row)) {
		i = query_int(a, 0, "SELECT i FROM lf WHERE rowid = ?", 1, row);
		if (!node_full(a, i, &m))
			continue;
		if (m.opens) {
			/* patch 1 that the rest of its send replies to */
			send_put(a, m.opens, &m, true);
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
			int r;

			if (st) {
				db_bind_text(st, 1, m.sender);
				db_bind_int(st, 2, m.version);
				db_bind_int(st, 3, m.total);
				db_bind_int(st, 4, m.date);
				db_bind_int(st, 5, m.n);
				r = db_step(st);
				if (r > 0) {
					best = db_column_int(st, 0);
					db_reset(st);
				} else if (r < 0) {
					fail(a);
				}
			}
		}
		if (!best)
			best = new_send(a, &m);
		assembly_problem(a, m.idx, m.msgid,
				 "patch %d/%d is not threaded; grouped by "
				 "sender, version and time", m.n, m.total);
		send_put(a, best, &m, true);
		node_release(&m);
	}
}

/* series.c's finish_send(), for every send at once */
static void finish_sends(struct assembly *a)
{
	run_all(a,
		"UPDATE s SET have = (SELECT count(*) FROM sp WHERE sp.send = s.id),"
		" head = coalesce(cover, (SELECT msg FROM sp WHERE sp.send = s.id"
		" ORDER BY n LIMIT 1));"
		"UPDATE s SET complete = (have = total),"
		" (sid, title, aname, aemail, chid, tree, base, rfc, resend) ="
		" (SELECT msgid, title, aname, aemail, chid, tree, base, rfc, resend"
		"  FROM m WHERE m.i = s.head);"
		"UPDATE s SET"
		" tree = coalesce(tree, (SELECT p.tree FROM sp JOIN m AS p ON"
		"  p.i = sp.msg WHERE sp.send = s.id AND p.tree IS NOT NULL"
		"  ORDER BY sp.n LIMIT 1)),"
		" base = coalesce(base, (SELECT p.base FROM sp JOIN m AS p ON"
		"  p.i = sp.msg WHERE sp.send = s.id AND p.base IS NOT NULL"
		"  ORDER BY sp.n LIMIT 1)),"
		" (rfc, resend) = (SELECT s.rfc OR coalesce(max(p.rfc), 0),"
		"  s.resend OR coalesce(max(p.resend), 0) FROM sp JOIN m AS p"
		"  ON p.i = sp.msg WHERE sp.send = s.id)");
}

/* replies */

/* Append what replies gave to patch n of send s */
static void added_trailers(struct assembly *a, int64_t s, int64_t n,
			   struct trailers *t)
{
	struct db_stmt *st = prep(a, "SELECT name, value FROM tr WHERE send = ?"
				  " AND n = ? ORDER BY seq");
	int r;

	if (!st)
		return;
	db_bind_int(st, 1, s);
	db_bind_int(st, 2, n);
	while ((r = db_step(st)) > 0)
		trailers_add(t, db_column_text(st, 0), db_column_text(st, 1));
	if (r < 0)
		fail(a);
}

/* The trailers of one patch slot: its own, then those replies gave */
static void slot_trailers(struct assembly *a, int64_t s, int64_t n, int64_t msg,
			  struct trailers *t)
{
	struct msg p;

	memset(t, 0, sizeof(*t));
	if (!load_msg(a, msg, &p)) {
		*t = p.trailers;
		memset(&p.trailers, 0, sizeof(p.trailers));
	}
	msg_release(&p);
	added_trailers(a, s, n, t);
}

/*
 * series.c's reply_target() for what the passes in resolve_targets()
 * left: reply chains deeper than they go, and loops.  1 with *t, or 0.
 */
static int64_t climb(struct assembly *a, const struct node *m)
{
	struct node p = { 0 };
	int64_t cur = m->kp, mark = 0, found = 0;
	size_t steps = 0, lap = 1, power = 1;

	while (steps++ < MAX_CLIMB && node_by_i(a, cur, &p)) {
		if (p.i == m->i)
			break;
		if (p.kind == MSG_PATCH || p.kind == MSG_COVER) {
			found = p.send;
			found = found ? p.i : 0;
			break;
		}
		if (p.kind != MSG_REPLY && p.kind != MSG_OTHER)
			break;
		if (p.target >= 0) {	/* worked out already */
			found = p.target;
			break;
		}
		/* a loop that m is not in never ends: Brent's cycle finding */
		if (p.i == mark)
			break;
		if (lap++ == power) {
			mark = p.i;
			power *= 2;
			lap = 1;
		}
		cur = p.kp;
		node_release(&p);
	}
	node_release(&p);
	return found;
}

/*
 * Every reply's target: the patch or cover letter its chain of parents
 * reaches first, 0 for none.  Level by level for all replies at once
 * (series.c climbs each), then one by one for what is left.
 */
static void resolve_targets(struct assembly *a)
{
	struct batch left = {
		.sql = "SELECT i FROM g WHERE i > ? AND target IS NULL AND kind IN ("
			K_REPLY ", " K_OTHER ") ORDER BY i" BATCH_LIMIT,
	};
	struct node m = { 0 };
	int64_t i;
	int level;

	run_all(a, "UPDATE g SET target = 0 WHERE kind IN (" K_REPLY ", " K_OTHER ")"
		" AND (kp IS NULL OR kp = i);"
		"UPDATE g SET target = (SELECT CASE WHEN p.send IS NULL THEN 0"
		" ELSE p.i END FROM g AS p WHERE p.i = g.kp AND p.kind IN ("
		K_PATCH ", " K_COVER ")) WHERE target IS NULL AND kind IN ("
		K_REPLY ", " K_OTHER ")");
	for (level = 0; level < 8 && !a->disk->failed; level++) {
		run_all(a, "UPDATE g SET target = (SELECT p.target FROM g AS p"
			" WHERE p.i = g.kp AND p.kind IN (" K_REPLY ", " K_OTHER "))"
			" WHERE target IS NULL AND kind IN (" K_REPLY ", " K_OTHER ")"
			" AND (SELECT p.target FROM g AS p WHERE p.i = g.kp AND"
			" p.kind IN (" K_REPLY ", " K_OTHER ")) IS NOT NULL");
		if (!db_changes(a->disk->db))
			break;
	}
	while (batch_next(a, &left, &i)) {
		if (!node_by_i(a, i, &m))
			continue;
		run_ints(a, "UPDATE g SET target = ?2 WHERE i = ?1", 2, i, climb(a, &m));
		node_release(&m);
	}
}

static void give_trailers(struct assembly *a, const struct node *target,
			  const struct trailers *given)
{
	struct db_stmt *slots = prep(a, "SELECT n, msg FROM sp WHERE send = ?"
				     " ORDER BY n");
	struct { int64_t n, msg; } *slot = NULL;
	size_t nr = 0, alloc = 0, k, g;
	int r;

	if (!slots)
		return;
	db_bind_int(slots, 1, target->send);
	while ((r = db_step(slots)) > 0) {
		/* on the cover letter: every patch; else the one replied to */
		if (target->kind == MSG_PATCH && db_column_int(slots, 1) != target->i)
			continue;
		ALLOC_GROW(slot, nr + 1, alloc);
		slot[nr].n = db_column_int(slots, 0);
		slot[nr++].msg = db_column_int(slots, 1);
	}
	if (r < 0)
		fail(a);
	for (k = 0; k < nr; k++) {
		struct trailers have;

		slot_trailers(a, target->send, slot[k].n, slot[k].msg, &have);
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
			db_bind_int(st, 2, slot[k].n);
			db_bind_int(st, 3, (int64_t)have.nr - 1);
			db_bind_text(st, 4, tr->name);
			db_bind_text(st, 5, tr->value);
			if (db_run(st))
				fail(a);
		}
		trailers_release(&have);
	}
	free(slot);
}

static void attach_replies(struct assembly *a)
{
	struct batch givers = {
		.sql = "SELECT i FROM g WHERE i > ? AND target > 0 AND ntr > 0"
			" ORDER BY i" BATCH_LIMIT,
	};
	struct node t = { 0 };
	struct msg given;
	int64_t i;

	resolve_targets(a);
	run_all(a, "UPDATE s SET replies = x.c FROM (SELECT t.send AS send,"
		" count(*) AS c FROM g JOIN g AS t ON t.i = g.target WHERE"
		" g.target > 0 GROUP BY t.send) AS x WHERE x.send = s.id");
	/* the trailers replies give, in the order they were given */
	while (batch_next(a, &givers, &i)) {
		int64_t target = query_int(a, 0, "SELECT target FROM g WHERE i = ?", 1, i);

		if (!node_by_i(a, target, &t))
			continue;
		if (!load_msg(a, i, &given) && given.trailers.nr)
			give_trailers(a, &t, &given.trailers);
		msg_release(&given);
		node_release(&t);
	}
}

/* series: union-find over sends, the root of a set its smallest id */

static int64_t uf_root(struct assembly *a, int64_t x)
{
	int64_t p;
	size_t steps = 0;

	while ((p = query_int(a, 0, "SELECT uf FROM s WHERE id = ?", 1, x)) &&
	       p != x && steps++ < MAX_CLIMB)
		x = p;
	return x;
}

static void uf_union(struct assembly *a, int64_t x, int64_t y)
{
	x = uf_root(a, x);
	y = uf_root(a, y);
	if (x != y)
		run_ints(a, "UPDATE s SET uf = ?2 WHERE id = ?1", 2, MAX(x, y), MIN(x, y));
}

/* series_key() of every send, then the first send of each key as root */
static void union_by_key(struct assembly *a)
{
	struct batch sends = {
		.sql = "SELECT id FROM s WHERE id > ? ORDER BY id" BATCH_LIMIT,
	};
	struct db_stmt *st;
	int64_t id;
	int r;

	while (batch_next(a, &sends, &id)) {
		struct send s = { 0 };
		char *key;

		st = prep(a, "SELECT title, chid, sender FROM s WHERE id = ?");
		if (!st)
			break;
		db_bind_int(st, 1, id);
		r = db_step(st);
		if (r <= 0) {
			if (r < 0)
				fail(a);
			continue;
		}
		s.title = xstrdup_or_null(db_column_text(st, 0));
		s.change_id = xstrdup_or_null(db_column_text(st, 1));
		s.sender_email = xstrdup_or_null(db_column_text(st, 2));
		db_reset(st);
		key = series_key(&s);
		st = prep(a, "UPDATE s SET key = ?2 WHERE id = ?1");
		if (st) {
			db_bind_int(st, 1, id);
			db_bind_text(st, 2, key);
			if (db_run(st))
				fail(a);
		}
		free(key);
		free(s.title);
		free(s.change_id);
		free(s.sender_email);
	}
	run_all(a, "CREATE INDEX s_key ON s (key, id);"
		"UPDATE s SET uf = (SELECT min(o.id) FROM s AS o WHERE o.key = s.key)");
}

/* Cover letters that link to an earlier version */
static void union_by_link(struct assembly *a)
{
	struct batch sends = {
		.sql = "SELECT s.id FROM s JOIN m ON m.i = s.cover WHERE s.id > ?"
			" AND m.nlinks > 0 ORDER BY s.id" BATCH_LIMIT,
	};
	int64_t id;
	size_t j;

	while (batch_next(a, &sends, &id)) {
		int64_t cover = query_int(a, 0, "SELECT cover FROM s WHERE id = ?", 1, id);
		char *sender = text_of(a, "SELECT sender FROM s WHERE id = ?", id);
		struct msg c;

		if (!load_msg(a, cover, &c)) {
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
	/* every send straight to its root */
	while (!a->disk->failed) {
		run_all(a, "UPDATE s SET uf = (SELECT o.uf FROM s AS o WHERE"
			" o.id = s.uf) WHERE uf != (SELECT o.uf FROM s AS o WHERE"
			" o.id = s.uf)");
		if (!db_changes(a->disk->db))
			break;
	}
}

static void make_series(struct assembly *a)
{
	struct batch all = {
		.sql = "SELECT id FROM sr WHERE id > ? ORDER BY id" BATCH_LIMIT,
	};
	int64_t sr;

	run_all(a, "INSERT INTO sr (root) SELECT id FROM s WHERE uf = id ORDER BY id");
	while (batch_next(a, &all, &sr)) {
		char *key = text_of(a, "SELECT s.key FROM sr JOIN s ON s.id = sr.root"
				    " WHERE sr.id = ?", sr);
		struct series tmp = { 0 };
		struct db_stmt *st = prep(a, "UPDATE sr SET hid = ?2 WHERE id = ?1");

		series_set_id(&tmp, key ? key : "");
		if (st) {
			db_bind_int(st, 1, sr);
			db_bind_text(st, 2, tmp.id);
			if (db_run(st))
				fail(a);
		}
		free(tmp.id);
		free(key);
	}
	run_all(a, "UPDATE s SET series = (SELECT id FROM sr WHERE sr.root = s.uf);"
		"CREATE INDEX s_series ON s (series, pos)");
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

/* series_order() where a series has several sends; a lone one is current */
static void order_series(struct assembly *a)
{
	struct batch several = {
		.sql = "SELECT series FROM s WHERE series > ? GROUP BY series"
			" HAVING count(*) > 1 ORDER BY series" BATCH_LIMIT,
	};
	int64_t sr;
	size_t nr, j;

	while (batch_next(a, &several, &sr)) {
		struct disk_send *v = load_sends(a, sr, &nr);
		struct series tmp = { 0 };

		tmp.sends = xcalloc(nr + 1, sizeof(*tmp.sends));
		for (j = 0; j < nr; j++)
			tmp.sends[j] = &v[j].s;
		tmp.nr = nr;
		series_order(&tmp);
		for (j = 0; j < nr; j++) {
			const struct disk_send *d = (const struct disk_send *)tmp.sends[j];
			const struct disk_send *by = (const struct disk_send *)d->s.superseded_by;

			run_ints(a, "UPDATE s SET pos = ?2, resend = ?3, superseded = ?4"
				 " WHERE id = ?1", 4, d->id, (int64_t)j,
				 (int64_t)d->s.resend, by ? by->id : (int64_t)0);
		}
		for (j = 0; j < nr; j++)
			free(v[j].s.id);
		free(tmp.sends);
		free(v);
	}
	run_all(a, "UPDATE sr SET (date, first) = (SELECT date, sid FROM s"
		" WHERE s.series = sr.id AND s.pos = 0);"
		"INSERT INTO so (sr) SELECT id FROM sr ORDER BY date, first, id");
}

void series_disk_build(struct assembly *a)
{
	/* where each message stands, and its known parent (series.c's
	 * known_parent()): the parent, else the nearest known reference */
	struct batch orphans = {
		.sql = "SELECT g.i FROM g JOIN m ON m.i = g.i WHERE g.i > ? AND"
			" g.kp IS NULL AND m.refs IS NOT NULL ORDER BY g.i" BATCH_LIMIT,
	};
	struct strbuf ref = STRBUF_INIT;
	int64_t i;

	run_all(a, "INSERT INTO g (i, kind, kp, n, total, version, sender, date,"
		" idx, ntr) SELECT m.i, m.kind, (SELECT p.i FROM m AS p WHERE"
		" p.msgid = m.parent), n, total, version, sender, date, idx, ntr"
		" FROM m ORDER BY m.i");
	while (batch_next(a, &orphans, &i)) {
		char *refs = text_of(a, "SELECT refs FROM m WHERE i = ?", i);
		const char *p = refs;
		int64_t kp = 0, found;
		int r;

		/* the last one known wins: the nearest ancestor */
		while (next_ref(&p, &ref)) {
			struct db_stmt *st = prep(a, "SELECT i FROM m WHERE msgid = ?");

			if (!st)
				break;
			db_bind_text(st, 1, ref.buf);
			r = db_step(st);
			if (r < 0)
				fail(a);
			if (r > 0) {
				found = db_column_int(st, 0);
				db_reset(st);
				kp = found;
			}
		}
		if (kp)
			run_ints(a, "UPDATE g SET kp = ?2 WHERE i = ?1", 2, i, kp);
		free(refs);
	}
	strbuf_release(&ref);
	group_threaded(a);
	group_fallback(a);
	finish_sends(a);
	attach_replies(a);
	union_by_key(a);
	union_by_link(a);
	make_series(a);
	order_series(a);
}

/* output */

/* The sends in order, with what send_write_json() prints */
#define SENDS_OUT "SELECT s.id, s.sid, s.title, s.aname, s.aemail, s.version," \
	" s.total, s.tree, s.rfc, (SELECT msgid FROM m WHERE m.i = s.cover)," \
	" s.date, s.complete, (SELECT o.sid FROM s AS o WHERE o.id = s.superseded)," \
	" s.resend, s.base, s.chid, s.replies, s.have, s.sender, sr.hid" \
	" FROM so JOIN sr ON sr.id = so.sr JOIN s ON s.series = sr.id" \
	" ORDER BY so.rowid, s.pos"
/* Their patches, in the same order */
#define PATCHES_OUT "SELECT s.id, sp.n, m.msgid, m.subject, m.title, m.aname," \
	" m.aemail, m.rec FROM so JOIN s ON s.series = so.sr JOIN sp ON" \
	" sp.send = s.id JOIN m ON m.i = sp.msg ORDER BY so.rowid, s.pos, sp.n"
/* And the trailers replies gave them */
#define ADDED_OUT "SELECT s.id, tr.n, tr.name, tr.value FROM so JOIN s ON" \
	" s.series = so.sr JOIN tr ON tr.send = s.id" \
	" ORDER BY so.rowid, s.pos, tr.n, tr.seq"

static char *col_dup(struct db_stmt *st, int col)
{
	return xstrdup_or_null(db_column_text(st, col));
}

static void send_release(struct send *s)
{
	int i;

	for (i = 0; i < s->total; i++) {
		if (s->patches[i].msg)
			msg_free(s->patches[i].msg);
		trailers_release(&s->patches[i].trailers);
	}
	free(s->patches);
	if (s->cover)
		free(s->cover->msgid);
	if (s->superseded_by)
		free(s->superseded_by->id);
	free(s->series->id);
	free(s->id);
	free(s->title);
	free(s->author_name);
	free(s->author_email);
	free(s->tree);
	free(s->base_commit);
	free(s->change_id);
	free(s->sender_email);
}

/* Fill s (and the stubs it points to) from a row of SENDS_OUT */
static void send_from_row(struct db_stmt *st, struct send *s, struct msg *cover,
			  struct send *by, struct series *sr)
{
	memset(s, 0, sizeof(*s));
	s->id = col_dup(st, 1);
	s->title = col_dup(st, 2);
	s->author_name = col_dup(st, 3);
	s->author_email = col_dup(st, 4);
	s->version = (int)db_column_int(st, 5);
	s->total = (int)db_column_int(st, 6);
	s->tree = col_dup(st, 7);
	s->rfc = db_column_int(st, 8);
	if (!db_column_null(st, 9)) {
		memset(cover, 0, sizeof(*cover));
		cover->msgid = col_dup(st, 9);
		s->cover = cover;
	}
	s->date = db_column_int(st, 10);
	s->complete = db_column_int(st, 11);
	if (!db_column_null(st, 12)) {
		memset(by, 0, sizeof(*by));
		by->id = col_dup(st, 12);
		s->superseded_by = by;
	}
	s->resend = db_column_int(st, 13);
	s->base_commit = col_dup(st, 14);
	s->change_id = col_dup(st, 15);
	s->replies = (int)db_column_int(st, 16);
	s->have = (int)db_column_int(st, 17);
	s->sender_email = col_dup(st, 18);
	memset(sr, 0, sizeof(*sr));
	sr->id = col_dup(st, 19);
	s->series = sr;
	s->patches = xcalloc(s->total > 0 ? s->total : 1, sizeof(*s->patches));
}

static int step(struct assembly *a, struct db_stmt *st)
{
	int r = st ? db_step(st) : 0;

	if (r < 0)
		fail(a);
	return r;
}

/*
 * Three queries walked side by side, all in the order of the output:
 * memory holds one send at a time.
 */
void series_disk_each_send(const struct assembly *ca,
			   void (*fn)(const struct send *s, void *ctx), void *ctx)
{
	/* reading changes nothing the caller sees; statements are cached */
	struct assembly *a = (struct assembly *)ca;
	struct db_stmt *sends = prep(a, SENDS_OUT);
	struct db_stmt *patches = prep(a, PATCHES_OUT);
	struct db_stmt *added = prep(a, ADDED_OUT);
	int rp = step(a, patches), ra = step(a, added);

	while (step(a, sends) > 0) {
		int64_t id = db_column_int(sends, 0);
		struct send s, by;
		struct msg cover;
		struct series sr;

		send_from_row(sends, &s, &cover, &by, &sr);
		for (; rp > 0 && db_column_int(patches, 0) == id; rp = step(a, patches)) {
			int n = (int)db_column_int(patches, 1);
			struct msg *p;
			const void *blob;
			size_t len;

			if (n < 1 || n > s.total || s.patches[n - 1].msg)
				continue;
			p = xcalloc(1, sizeof(*p));
			strbuf_init(&p->warnings, 0);
			p->msgid = col_dup(patches, 2);
			p->subject = col_dup(patches, 3);
			p->title = col_dup(patches, 4);
			p->author_name = col_dup(patches, 5);
			p->author_email = col_dup(patches, 6);
			blob = db_column_blob(patches, 7, &len);
			rec_unpack(blob, len, p);
			/* its own trailers, then those replies gave */
			s.patches[n - 1].msg = p;
			s.patches[n - 1].trailers = p->trailers;
			memset(&p->trailers, 0, sizeof(p->trailers));
		}
		for (; ra > 0 && db_column_int(added, 0) == id; ra = step(a, added)) {
			int n = (int)db_column_int(added, 1);

			if (n >= 1 && n <= s.total && s.patches[n - 1].msg)
				trailers_add(&s.patches[n - 1].trailers,
					     db_column_text(added, 2),
					     db_column_text(added, 3));
		}
		if (!a->disk->failed)
			fn(&s, ctx);
		send_release(&s);
	}
	if (rp > 0)
		db_reset(patches);
	if (ra > 0)
		db_reset(added);
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
