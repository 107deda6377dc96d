// SPDX-License-Identifier: GPL-2.0
/*
 * Incremental assembly: the messages stored since the last assembly
 * (series_pending), and every message connected to them by a chain of
 * shared keys (message_keys, series_msg_each_key()), are assembled again; what
 * they make replaces what they made before.  Messages outside that
 * closure share nothing with it that any assembly rule looks at, so
 * their series cannot change: the result is the full rebuild's.
 *
 * One key is followed more narrowly: a sender's sends of one version
 * and count ("f:"), which only the grouping of patches threading did not
 * place looks at (series_group_fallback()).  Following it from every patch
 * took in a fifth of a prolific sender's archive for each of their new
 * series (38,846 of 1,000,000 messages for a poll of 10); it is followed
 * in full only from such unplaced patches, which the last assembly
 * marked ("u:" keys) or, for the news' own threads, an assembly of
 * those threads finds.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/log.h"
#include "bot/store/store.h"
#include "bot/store/store-int.h"

struct closure {
	struct strmap keys;	/* keys expanded */
	int64_t *todo;		/* messages whose keys are still to expand */
	size_t nr, alloc;
	bool titles;		/* follow "t:" keys (series.trust is set) */
	bool threads;		/* the first pass: only "m:" keys */
	int64_t *thread;	/* sorted: what the first pass found */
	size_t nr_thread;
	size_t size;
};

/* Add a message to temp.closure; queue it when it was not there */
static int closure_add(struct store *st, struct closure *c, int64_t id)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT OR IGNORE INTO temp.closure (id) VALUES (?)");

	if (!s || db_bind_int(s, 1, id) || db_run(s))
		return -1;
	if (!db_changes(st->db))
		return 0;
	c->size++;
	ALLOC_GROW(c->todo, c->nr + 1, c->alloc);
	c->todo[c->nr++] = id;
	return 0;
}

/* The messages of a key not expanded yet */
static int expand_key(struct store *st, struct closure *c, const char *key)
{
	struct db_stmt *s;
	int64_t *ids = NULL;
	size_t nr = 0, alloc = 0, i;
	int r;

	if (strmap_get(&c->keys, key))
		return 0;
	strmap_put(&c->keys, xstrdup(key), (void *)1);
	s = db_prepare(st->db, "SELECT message FROM message_keys WHERE key = ?");
	if (!s || db_bind_text(s, 1, key))
		return -1;
	while ((r = db_step(s)) > 0) {
		ALLOC_GROW(ids, nr + 1, alloc);
		ids[nr++] = db_column_int(s, 0);
	}
	for (i = 0; r == 0 && i < nr; i++)
		if (closure_add(st, c, ids[i]))
			r = -1;
	free(ids);
	return r;
}

static int cmp_id(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

static bool in_thread(const struct closure *c, int64_t id)
{
	return c->thread && bsearch(&id, c->thread, c->nr_thread, sizeof(id), cmp_id);
}

/*
 * Expand a key of message id.  The "f:" key (a sender's sends of one
 * version and count) matters only to patches threading did not place
 * (series_group_fallback()), which look at every send of it: from such a
 * patch ("u:", stored by the last assembly) every send of the key is
 * followed; from any message, the unplaced patches of the key.  Whether
 * a message of the news' threads is unplaced is not what is stored but
 * what an assembly of those threads finds (thread_pass()).
 */
static int expand_one(struct store *st, struct closure *c, int64_t id, const char *key)
{
	char *other;
	int r;

	if (c->threads)
		return strncmp(key, "m:", 2) ? 0 : expand_key(st, c, key);
	if (!c->titles && !strncmp(key, "t:", 2))
		return 0;
	if (strncmp(key, "f:", 2) && strncmp(key, "u:", 2))
		return expand_key(st, c, key);
	if (key[0] == 'u' && in_thread(c, id))
		return 0;
	other = xstrdup(key);
	other[0] = key[0] == 'f' ? 'u' : 'f';
	r = expand_key(st, c, other);
	free(other);
	return r;
}

static int expand_message(struct store *st, struct closure *c, int64_t id)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT key FROM message_keys WHERE message = ?");
	char **keys = NULL;
	size_t nr = 0, i;
	int r = 0;

	if (!s || db_bind_int(s, 1, id) || db_column_all(s, &keys, &nr))
		return -1;
	for (i = 0; i < nr && !r; i++)
		if (expand_one(st, c, id, keys[i]))
			r = -1;
	db_strings_free(keys, nr);
	return r;
}

static int expand_all(struct store *st, struct closure *c)
{
	int r = 0;

	while (r == 0 && c->nr)
		r = expand_message(st, c, c->todo[--c->nr]);
	return r;
}

static void closure_release(struct closure *c)
{
	size_t i;

	for (i = 0; i < c->keys.size; i++)
		free((char *)c->keys.e[i].key);
	strmap_release(&c->keys);
	free(c->todo);
	free(c->thread);
}

/*
 * The news' threads (temp.closure after the first pass: whole threads,
 * so threading places their patches as a full assembly does) are
 * assembled once to see which of their patches threading leaves
 * unplaced; the "f:" keys of those are followed, and every message of
 * the threads is queued for its other keys.
 */
static int thread_pass(struct store *st, struct closure *c)
{
	struct assembly a;
	struct strbuf err = STRBUF_INIT;
	struct db_stmt *s;
	size_t i, alloc = 0;
	int r;

	s = db_prepare(st->db, "SELECT id FROM temp.closure ORDER BY id");
	if (!s)
		return -1;
	while ((r = db_step(s)) > 0) {
		ALLOC_GROW(c->thread, c->nr_thread + 1, alloc);
		c->thread[c->nr_thread++] = db_column_int(s, 0);
	}
	if (r < 0)
		return -1;
	store_assembly_init(st, &a);
	r = store_load_assembly(st, &a, true, NULL, &err);
	if (r == 0)
		series_build(&a);
	for (i = 0; r == 0 && i < a.nr; i++) {
		char *key = series_msg_unthreaded_key(a.msgs[i]);

		if (key) {
			key[0] = 'f';
			r = expand_key(st, c, key);
			free(key);
		}
	}
	series_release(&a);
	strbuf_release(&err);
	/* the first pass expanded their "m:" keys, not the others */
	for (i = 0; r == 0 && i < c->nr_thread; i++) {
		ALLOC_GROW(c->todo, c->nr + 1, c->alloc);
		c->todo[c->nr++] = c->thread[i];
	}
	return r;
}

/*
 * temp.closure: the pending messages and all connected to them;
 * temp.touched: the versions they made before.  Returns its size or -1.
 */
static int64_t find_closure(struct store *st)
{
	struct closure c = { .keys = STRMAP_INIT, .titles = st->nr_trusted > 0,
			     .threads = true };
	struct db_stmt *s;
	int64_t *seed = NULL, ret = -1;
	size_t nr = 0, alloc = 0, i;
	int r;

	if (db_exec(st->db, "CREATE TEMP TABLE IF NOT EXISTS closure (id INTEGER PRIMARY KEY);"
		    "CREATE TEMP TABLE IF NOT EXISTS touched (id TEXT PRIMARY KEY);"
		    "DELETE FROM temp.closure; DELETE FROM temp.touched"))
		return -1;
	s = db_prepare(st->db, "SELECT message FROM series_pending");
	if (!s)
		return -1;
	while ((r = db_step(s)) > 0) {
		ALLOC_GROW(seed, nr + 1, alloc);
		seed[nr++] = db_column_int(s, 0);
	}
	for (i = 0; r == 0 && i < nr; i++)
		r = closure_add(st, &c, seed[i]);
	free(seed);
	if (r == 0)
		r = expand_all(st, &c);
	c.threads = false;
	if (r == 0 && c.size)
		r = thread_pass(st, &c);
	if (r == 0)
		r = expand_all(st, &c);
	if (r == 0 && !db_exec(st->db,
		"INSERT OR IGNORE INTO temp.touched (id)"
		" SELECT p.version FROM patches p WHERE p.msgid IN"
		"  (SELECT msgid FROM messages WHERE id IN (SELECT id FROM temp.closure));"
		"INSERT OR IGNORE INTO temp.touched (id)"
		" SELECT v.id FROM versions v WHERE v.cover IN"
		"  (SELECT msgid FROM messages WHERE id IN (SELECT id FROM temp.closure));"
		"INSERT OR IGNORE INTO temp.touched (id)"
		" SELECT v.id FROM versions v WHERE v.id IN"
		"  (SELECT msgid FROM messages WHERE id IN (SELECT id FROM temp.closure))"))
		ret = (int64_t)c.size;
	closure_release(&c);
	return ret;
}

bool store_series_need_full(struct store *st)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT key, value FROM state"
				       " WHERE key IN ('series_full', 'series_trust')");
	char *trust = store_trust_state(st);
	bool full = true, seen_trust = false;

	while (s && db_step(s) > 0) {
		const char *k = db_column_text(s, 0), *v = db_column_text(s, 1);

		if (!strcmp(k, "series_full")) {
			full = v && strcmp(v, "0");
		} else {
			seen_trust = true;
			if (strcmp(v ? v : "", trust))
				full = true;
		}
	}
	free(trust);
	return full || !seen_trust;
}

static int64_t state_int(struct store *st, const char *key)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT value FROM state WHERE key = ?");
	int64_t v = 0;

	if (s && !db_bind_text(s, 1, key) && db_step(s) > 0) {
		v = db_column_text(s, 0) ? atoll(db_column_text(s, 0)) : 0;
		db_reset(s);
	}
	return v;
}

/*
 * Big news is assembled in full.  The closure of the news is held in
 * memory (its keys, its messages' ids, and two assemblies of it), while
 * the full assembly keeps within series.memory: an archive of 1,000,000
 * messages imported into a database that existed (so no migration asked
 * for a full assembly) peaked at 588 MB incrementally, against 62 MB in
 * full.  Big is past NEWS_FULL messages, or a quarter of what the last
 * assembly had once the news is past NEWS_SMALL; a poll's window (1,000
 * messages, lore.batch) is neither on any archive of NEWS_SMALL or more.
 */
#define NEWS_SMALL 4096
#define NEWS_FULL 32768

static bool news_is_big(struct store *st)
{
	int64_t n = 0;

	if (db_query_int(st->db, "SELECT count(*) FROM series_pending", 0, &n))
		return false;	/* the incremental path reports the error */
	return n >= NEWS_FULL ||
		(n >= NEWS_SMALL && n * 4 >= state_int(st, "messages"));
}

int store_update_series(struct store *st, struct store_changes *ch, struct strbuf *err)
{
	struct assembly a;
	char count[32];
	size_t added = 0;
	int64_t n;

	if (store_reparse(st, false, err) < 0)
		return -1;
	if (store_series_need_full(st) || news_is_big(st)) {
		log_debug("series: every message assembled again");
		return store_rebuild_series(st, ch, err);
	}
	store_assembly_init(st, &a);
	if (store_begin(st, err))
		goto fail_nolock;
	n = find_closure(st);
	if (n < 0)
		goto fail;
	if (n && store_load_assembly(st, &a, true, &added, err))
		goto fail;
	log_debug("series: %lld messages assembled again, %zu of them new",
		  (long long)n, added);
	if (n) {
		series_build(&a);
		if (series_failed(&a)) {
			strbuf_addstr(err, a.fatal.buf);
			goto fail;
		}
		snprintf(count, sizeof(count), "%lld",
			 (long long)(state_int(st, "messages") + (int64_t)added));
		if (store_put_assembly(st, &a, true, ch) ||
		    store_put_state(st, "messages", count))
			goto fail;
	}
	if (db_exec(st->db, "DELETE FROM series_pending") ||
	    store_put_state(st, "series_dirty", "0"))
		goto fail;
	if (store_commit(st, err))
		goto fail_nolock;
	series_release(&a);
	return 0;
fail:
	if (!err->len)
		strbuf_addstr(err, db_error(st->db));
	store_rollback(st);
fail_nolock:
	series_release(&a);
	return -1;
}
