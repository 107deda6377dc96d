// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bot/git/epoch.h"
#include "bot/fetch/fetch.h"
#include "lib/log.h"

/* rt: needs 5 digits or more, else public-inbox reads it as a date */
#define RT_MIN 100000

void fetch_cfg_from_config(struct fetch_cfg *c, const struct config *cfg)
{
	memset(c, 0, sizeof(*c));
	c->min_interval_ms = config_v(cfg)->lore_minpoll;
	c->poll_interval_ms = c->min_interval_ms;
	c->overlap_s = config_v(cfg)->lore_overlap / 1000;
	c->index_lag_s = config_v(cfg)->lore_indexlag / 1000;
	c->batch = config_v(cfg)->lore_batch;
	c->max_batches = config_v(cfg)->lore_maxbatches;
	c->max_threads = config_v(cfg)->lore_threads;
	c->backoff_max_ms = config_v(cfg)->lore_backoffmax;
	lore_opts_from_config(&c->lore, cfg);
	if (c->batch < 1)
		c->batch = 1;
	if (c->max_batches < 1)
		c->max_batches = 1;
}

int fetch_parse_method(const char *s, enum fetch_method *m)
{
	if (!s || !strcmp(s, "search"))
		*m = FETCH_SEARCH;
	else if (!strcmp(s, "git"))
		*m = FETCH_GIT;
	else
		return -1;
	return 0;
}

int fetch_cfg_list(struct fetch_cfg *c, const struct config *cfg, const char *name,
		   struct strbuf *err)
{
	const char *since, *method;
	int ret = 1;

	fetch_cfg_from_config(c, cfg);
	c->name = name;
	c->url = config_sub(cfg, CFG_SUB_list_url, name);
	c->query = config_sub(cfg, CFG_SUB_list_query, name);
	since = config_sub(cfg, CFG_SUB_list_since, name);
	method = config_sub(cfg, CFG_SUB_list_method, name);
	c->poll_interval_ms = MAX(config_sub_ms(cfg, CFG_SUB_list_pollinterval, name),
				  c->min_interval_ms);
	if (since && fetch_parse_since(since, time(NULL), &c->since)) {
		strbuf_addf(err, "list.%s.since: bad value '%s'", name, since);
		ret = -1;
	} else if (fetch_parse_method(method, &c->method)) {
		strbuf_addf(err, "list.%s.method: bad value '%s'", name, method);
		ret = -1;
	} else if (!config_sub_bool(cfg, CFG_SUB_list_enabled, name) || !c->url) {
		ret = 0;
	}
	return ret;
}

void fetch_result_release(struct fetch_result *r)
{
	strbuf_release(&r->error);
	store_changes_release(&r->changes);
}

const char *fetch_status_name(enum fetch_status s)
{
	static const char *const names[] = {
		[FETCH_OK] = "ok",
		[FETCH_MORE] = "more",
		[FETCH_UNCHANGED] = "unchanged",
		[FETCH_NOT_DUE] = "not-due",
		[FETCH_FAILED] = "failed",
	};

	return names[s];
}

int fetch_parse_since(const char *s, int64_t now, int64_t *out)
{
	struct tm tm = { 0 };
	uint64_t ms;
	char *end;
	int n = 0;

	if (!s || !*s)
		return -EINVAL;
	if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) == 3 &&
	    n == 10) {
		if (s[10] && (sscanf(s + 10, "T%2d:%2d:%2d%n", &tm.tm_hour, &tm.tm_min,
				     &tm.tm_sec, &n) != 3 ||
			      (strcmp(s + 10 + n, "Z") && s[10 + n])))
			return -EINVAL;
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		*out = timegm(&tm);
		return 0;
	}
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (!errno && end != s && !*end && *out >= 0)
		return 0;
	if (!util_parse_duration_ms(s, &ms)) {
		*out = now - (int64_t)(ms / 1000);
		return 0;
	}
	return -EINVAL;
}

/* storing what arrives */

/*
 * Messages are stored a batch at a time, so that their parser (in a
 * jail: store.h) gets them in one request: at most this many, or this
 * many bytes (more only for one message alone)
 */
#define SINK_BATCH 256
#define SINK_BATCH_BYTES (8 << 20)

struct sink {
	struct store *st;
	int64_t list_id;
	size_t max_msg;
	struct fetch_result *r;
	/*
	 * each batch committed as it is stored (lore): a pass stopped at its
	 * time limit keeps what it stored, and the next finds those as
	 * duplicates, never parsed again, and goes on past them (issue 38)
	 */
	bool commit_each;
	bool in_txn;
	/* in the open transaction: counted in r once it is committed */
	uint64_t added, variants, duplicates;
	size_t txn_bytes;
	struct strbuf *err;
	/* received, not yet stored (copies) */
	struct store_raw pending[SINK_BATCH];
	size_t nr_pending, pending_bytes;
	/* messages stored as variants of a Message-ID, to be ranked (rank_variants()) */
	int64_t *variants_at;
	size_t nr_variants, alloc_variants;
};

static void sink_drop(struct sink *s)
{
	while (s->nr_pending)
		free((char *)s->pending[--s->nr_pending].raw);
	s->pending_bytes = 0;
}

static void sink_forget(struct sink *s);

/* The open transaction committed (or rolled back), counted in r */
static int sink_end_txn(struct sink *s)
{
	int r = store_commit(s->st, s->err);

	if (!r) {
		s->r->added += s->added;
		s->r->variants += s->variants;
		s->r->duplicates += s->duplicates;
	}
	sink_forget(s);
	return r;
}

static int sink_flush(struct sink *s)
{
	enum store_added added[SINK_BATCH];
	int64_t rowids[SINK_BATCH];
	size_t i;
	int r;

	if (!s->nr_pending)
		return 0;
	/* take the write lock only once the data is here and complete */
	if (!s->in_txn) {
		if (store_begin(s->st, s->err)) {
			sink_drop(s);
			return -1;
		}
		s->in_txn = true;
	}
	r = store_add_messages(s->st, s->list_id, s->pending, s->nr_pending, added, rowids,
			       s->err);
	for (i = 0; !r && i < s->nr_pending; i++) {
		if (added[i] == STORE_NEW) {
			s->added++;
		} else if (added[i] == STORE_VARIANT) {
			s->variants++;
			ALLOC_GROW(s->variants_at, s->nr_variants + 1, s->alloc_variants);
			s->variants_at[s->nr_variants++] = rowids[i];
		} else {
			s->duplicates++;
		}
	}
	s->txn_bytes += s->pending_bytes;
	sink_drop(s);
	if (!r && s->commit_each)
		r = sink_end_txn(s);
	return r;
}

static int sink_raw(struct sink *s, const char *raw, size_t len)
{
	char *copy;

	if (s->nr_pending == SINK_BATCH ||
	    (s->nr_pending && s->pending_bytes + len > SINK_BATCH_BYTES)) {
		if (sink_flush(s))
			return -1;
	}
	copy = xmalloc(len + 1);
	memcpy(copy, raw, len);
	copy[len] = '\0';
	s->pending[s->nr_pending].raw = copy;
	s->pending[s->nr_pending++].len = len;
	s->pending_bytes += len;
	return 0;
}

static int sink_msg(void *data, const struct mbox_msg *m)
{
	struct sink *s = data;

	s->r->received++;
	if (m->too_big) {
		s->r->skipped++;
		log_warn("lore: message %zu of a response is too large (%llu bytes); skipped",
			 m->index + 1, (unsigned long long)m->size);
		return 0;
	}
	return sink_raw(s, m->raw.buf, m->raw.len);
}

/* one message of an epoch commit */
static int sink_blob(void *data, const char *commit, const char *raw, size_t len)
{
	struct sink *s = data;
	const char *nl;

	s->r->received++;
	if (len > s->max_msg) {
		s->r->skipped++;
		log_warn("lore: the message of commit %s is too large (%zu bytes); skipped",
			 commit, len);
		return 0;
	}
	/* very old imports kept the mbox "From " line: drop it, as /raw does */
	nl = len > 5 && !memcmp(raw, "From ", 5) ? memchr(raw, '\n', len) : NULL;
	if (nl) {
		len -= nl + 1 - raw;
		raw = nl + 1;
	}
	return sink_raw(s, raw, len);
}

static int sink_begin(struct sink *s)
{
	if (s->in_txn)
		return 0;
	if (store_begin(s->st, s->err))
		return -1;
	s->in_txn = true;
	return 0;
}

static void sink_forget(struct sink *s)
{
	s->in_txn = false;
	s->added = s->variants = s->duplicates = 0;
	s->txn_bytes = 0;
}

static int sink_commit(struct sink *s)
{
	if (sink_flush(s))
		return -1;
	/* committed, or rolled back by store_commit() */
	return s->in_txn ? sink_end_txn(s) : 0;
}

static void sink_abort(struct sink *s)
{
	sink_drop(s);
	if (s->in_txn)
		store_rollback(s->st);
	sink_forget(s);
}

/* The messages of an answer, copied, in its order */
struct raw_list {
	struct store_raw *v;
	size_t nr, alloc;
};

static int raw_collect(void *data, const struct mbox_msg *m)
{
	struct raw_list *rl = data;
	char *copy = xmalloc(m->raw.len + 1);

	if (m->too_big) {
		free(copy);
		return 0;
	}
	memcpy(copy, m->raw.buf, m->raw.len);
	copy[m->raw.len] = '\0';
	ALLOC_GROW(rl->v, rl->nr + 1, rl->alloc);
	rl->v[rl->nr].raw = copy;
	rl->v[rl->nr++].len = m->raw.len;
	return 0;
}

static void raw_list_release(struct raw_list *rl)
{
	while (rl->nr)
		free((char *)rl->v[--rl->nr].raw);
	free(rl->v);
	memset(rl, 0, sizeof(*rl));
}

/* The Message-ID of a stored message, or NULL; caller frees */
static char *msgid_of(struct store *st, int64_t id)
{
	struct db_stmt *q = db_prepare(st->db, "SELECT msgid FROM messages WHERE id = ?");
	char *msgid = NULL;

	if (q && !db_bind_int(q, 1, id) && db_step(q) > 0) {
		msgid = xstrdup_or_null(db_column_text(q, 0));
		db_reset(q);
	}
	return msgid;
}

/*
 * Which of a Message-ID's messages counts is the one the archive has
 * first, never the one stored first: lore answers a search in an order
 * of its own (public-inbox: the newest arrival first; others by Date:,
 * which the sender sets), so a copy of another sender's Message-ID,
 * backdated or sent later, could be stored before it (issue 38).  The
 * archive lists a Message-ID's messages in the order they arrived
 * (/<msgid>/raw): each variant this pass stored is ranked so
 * (store_rank_variants()).  When the archive cannot say, the first
 * stored counts, and the log says so.
 */
static void rank_variants(struct lore *l, struct sink *s)
{
	char **done = NULL;
	size_t nr_done = 0, alloc_done = 0, i, k;

	for (i = 0; i < s->nr_variants; i++) {
		struct raw_list rl = { 0 };
		struct strbuf err = STRBUF_INIT;
		char *msgid = msgid_of(s->st, s->variants_at[i]);

		for (k = 0; msgid && k < nr_done; k++)
			if (!strcmp(done[k], msgid))
				break;
		if (!msgid || k < nr_done) {
			free(msgid);
			continue;
		}
		if (lore_raw(l, msgid, raw_collect, &rl, &err) < 0 ||
		    store_begin(s->st, &err) ||
		    store_rank_variants(s->st, msgid, rl.v, rl.nr, &err) ||
		    store_commit(s->st, &err)) {
			store_rollback(s->st);
			log_warn("lore: <%s> has variants and the archive's order of them is "
				 "not known (%s): the one stored first counts", msgid, err.buf);
		} else {
			log_info("lore: <%s> has %zu variants: the one the archive has "
				 "first counts", msgid, rl.nr);
		}
		ALLOC_GROW(done, nr_done + 1, alloc_done);
		done[nr_done++] = msgid;
		raw_list_release(&rl);
		strbuf_release(&err);
	}
	while (nr_done)
		free(done[--nr_done]);
	free(done);
	s->nr_variants = 0;
}

static void window_query(struct strbuf *q, const char *query, int64_t from,
			 int64_t to)
{
	strbuf_reset(q);
	if (query && *query)
		strbuf_addf(q, "(%s) AND ", query);
	strbuf_addf(q, "rt:%lld..", (long long)MAX(from, RT_MIN));
	if (to)
		strbuf_addf(q, "%lld", (long long)MAX(to, RT_MIN));
}

/*
 * One window of a search pass: the messages from start to the batch-th
 * (or to the newest), fetched by the pass or by the thread that fetches
 * the next window while the pass stores this one.
 */
struct window {
	struct lore *l;
	const struct fetch_cfg *c;
	int64_t start;
	int r;			/* 1: a window; 0: nothing since start; -1: err */
	struct lore_entry last;	/* the batch-th message from start, if any */
	struct lore_entry newest;	/* else the newest */
	struct strbuf mbox;
	struct strbuf err;
};

static void window_init(struct window *w, struct lore *l, const struct fetch_cfg *c,
			int64_t start)
{
	memset(w, 0, sizeof(*w));
	w->l = l;
	w->c = c;
	w->start = start;
	strbuf_init(&w->mbox, 0);
	strbuf_init(&w->err, 0);
}

static void window_release(struct window *w)
{
	lore_entry_release(&w->last);
	lore_entry_release(&w->newest);
	strbuf_release(&w->mbox);
	strbuf_release(&w->err);
}

/* Two requests: where the window ends, then its messages */
static void *window_get(void *data)
{
	struct window *w = data;
	struct strbuf q = STRBUF_INIT;
	int r;

	window_query(&q, w->c->query, w->start, 0);
	/* the batch-th oldest message from start: where this window ends */
	r = lore_search_entry(w->l, q.buf, true, w->c->batch - 1, &w->last, &w->err);
	if (!r) {
		/* fewer than batch left: the newest says where the cursor goes */
		r = lore_search_entry(w->l, q.buf, false, 0, &w->newest, &w->err);
		if (!r) {
			w->r = 0;	/* nothing at all since start */
			goto out;
		}
	} else if (r > 0) {
		window_query(&q, w->c->query, w->start, MAX(w->last.ts, w->start));
	}
	/* no results (404) is an empty window */
	if (r >= 0)
		r = lore_search_mbox_get(w->l, q.buf, false, &w->mbox, &w->err);
	w->r = r < 0 ? -1 : 1;
out:
	strbuf_release(&q);
	return NULL;
}

/*
 * Store a fetched window.  Returns 1 when the list is caught up, 0 when
 * more windows follow, -1 on error.  The messages and the new cursor
 * are committed together.
 */
static int window_store(struct lore *l, struct sink *s, const struct fetch_cfg *c,
			struct store_list *list, int64_t pass_start, int64_t *start,
			const struct window *w)
{
	int64_t cursor;
	int ret = -1;

	if (w->r < 0) {
		strbuf_addbuf(s->err, &w->err);
		goto out;
	}
	if (!w->r)
		return 1;
	if (lore_mbox_each(l, &w->mbox, sink_msg, s, s->err) < 0)
		goto out;
	s->r->windows++;
	if (w->last.msgid) {
		cursor = MAX(w->last.ts, *start) + 1;
		ret = 0;
	} else {
		cursor = MAX(pass_start, w->newest.ts + 1 - (int64_t)c->overlap_s);
		ret = 1;
	}
	/*
	 * never past now: a message the archive dates in the future (one
	 * that takes its Date: for when it was received, as an inbox without
	 * Received: lines does) would hide every later one (issue 38)
	 */
	cursor = MIN(cursor, (int64_t)time(NULL));
	list->has_cursor = true;
	list->cursor = cursor;
	if (sink_begin(s) || store_list_save(s->st, list, s->err) || sink_commit(s)) {
		ret = -1;
		goto out;
	}
	rank_variants(l, s);
	*start = MAX(w->last.msgid ? cursor : *start, *start);
out:
	if (ret < 0)
		sink_abort(s);
	return ret;
}

/* Assemble what was stored since the last time; changes add up in r */
static int rebuild(struct store *st, const struct fetch_cfg *c, struct fetch_result *r)
{
	struct store_changes ch = { .limit = r->changes.limit };
	int ret;

	if (c->no_rebuild || !store_series_dirty(st))
		return 0;
	ret = store_update_series(st, &ch, &r->error);
	store_changes_merge(&r->changes, &ch);
	return ret;
}

static void add_stats(struct lore_stats *to, const struct lore_stats *from)
{
	to->requests += from->requests;
	to->retries += from->retries;
	to->bytes_in += from->bytes_in;
	to->bytes_out += from->bytes_out;
}

/*
 * The windows of a search pass from *start, at most max_batches.  While
 * the pass stores one (parsed in the jail, written to the database) and
 * assembles the series it touched, a thread fetches the next on a
 * connection of its own: the server renders while lorebot works, as it
 * would for one long request, and only the last window's assembly is
 * left after the last response.  Returns as window_store().
 */
static int search_pass(struct lore *l, struct sink *s, const struct fetch_cfg *c,
		       struct store_list *list, int64_t *start)
{
	struct lore ahead;
	struct strbuf err = STRBUF_INIT;
	struct window w[2];
	int64_t pass_start = *start;
	bool two = c->max_batches > 1 && !lore_init(&ahead, c->url, &c->lore, &err);
	int i, cur = 0, done = 0;

	if (two)
		ahead.sleep_ms = l->sleep_ms;
	window_init(&w[0], l, c, *start);
	window_init(&w[1], l, c, 0);
	window_get(&w[0]);
	for (i = 0; i < c->max_batches; i++) {
		struct window *now = &w[cur], *next = &w[!cur];
		bool more = now->r > 0 && now->last.msgid && i + 1 < c->max_batches;
		bool fetching = false;
		pthread_t tid;

		if (more) {
			window_release(next);
			/* where window_store() puts the cursor */
			window_init(next, two ? &ahead : l, c,
				    MAX(now->last.ts, *start) + 1);
			fetching = two && !pthread_create(&tid, NULL, window_get, next);
		}
		done = window_store(l, s, c, list, pass_start, start, now);
		if (!done && fetching && rebuild(s->st, c, s->r))
			done = -1;
		if (fetching)
			pthread_join(tid, NULL);
		else if (more && !done)
			window_get(next);
		if (done)
			break;
		cur = !cur;
	}
	if (two) {
		add_stats(&l->stats, &ahead.stats);
		lore_release(&ahead);
	}
	window_release(&w[0]);
	window_release(&w[1]);
	strbuf_release(&err);
	return done;
}

/* Whole threads of new patches whose parents are missing */
static int complete_threads(struct lore *l, struct sink *s, const struct fetch_cfg *c,
			    int64_t first_new)
{
	struct db_stmt *st;
	char **ids = NULL;
	size_t nr = 0, alloc = 0, i;
	int r, ret = 0;

	if (c->max_threads <= 0)
		return 0;
	st = db_prepare(s->st->db,
		"SELECT m.msgid FROM messages m WHERE m.id > ? AND m.parent IS NOT NULL"
		" AND (json_extract(m.meta, '$.has_diff') OR m.subject LIKE '%PATCH%')"
		" AND m.subject NOT LIKE 'Re:%'"
		" AND NOT EXISTS (SELECT 1 FROM messages p WHERE p.msgid = m.parent)"
		" ORDER BY m.id");
	if (!st || db_bind_int(st, 1, first_new)) {
		strbuf_addstr(s->err, db_error(s->st->db));
		return -1;
	}
	while ((r = db_step(st)) > 0) {
		ALLOC_GROW(ids, nr + 1, alloc);
		ids[nr++] = xstrdup(db_column_text(st, 0));
	}
	if (r < 0) {
		strbuf_addstr(s->err, db_error(s->st->db));
		ret = -1;
	}
	for (i = 0; i < nr && !ret && s->r->threads < (size_t)c->max_threads; i++) {
		struct db_stmt *chk = db_prepare(s->st->db,
			"SELECT 1 FROM messages m WHERE m.msgid = ? AND EXISTS"
			" (SELECT 1 FROM messages p WHERE p.msgid = m.parent)");

		/* an earlier thread of this pass may have brought it */
		if (!chk || db_bind_text(chk, 1, ids[i]))
			continue;
		r = db_step(chk);
		if (r > 0) {
			db_reset(chk);
			continue;
		}
		log_info("lore: fetching the thread of <%s> (its parent is missing)", ids[i]);
		if (lore_thread(l, ids[i], sink_msg, s, s->err) < 0 || sink_commit(s)) {
			sink_abort(s);
			ret = -1;
		} else {
			rank_variants(l, s);
		}
		s->r->threads++;
	}
	for (i = 0; i < nr; i++)
		free(ids[i]);
	free(ids);
	return ret;
}

/*
 * Store the new commits of every epoch whose fingerprint changed.
 * 1 when all are stored, 0 when max_batches ran out first, -1 on error.
 */
static int git_pass(struct lore *l, struct sink *s, const struct fetch_cfg *c,
		    struct store_list *list, const struct lore_epochs *ep)
{
	struct epoch_opts eo = {
		.user_agent = l->net.user_agent,
		.timeout_ms = MAX(c->lore.timeout_ms * 20, 600000),
		.attempts = c->lore.attempts,
		.retry_delay_ms = c->lore.retry_delay_ms,
		.backoff_max_ms = c->lore.backoff_max_ms,
	};
	struct strbuf head = STRBUF_INIT;
	int batches = 0, ret = 1;
	size_t i;

	if (!ep->nr) {
		strbuf_addf(s->err, "%s has no git epochs in manifest.js.gz "
			    "(lore.method git needs a public-inbox v2 inbox)", c->url);
		return -1;
	}
	for (i = 0; i < ep->nr && ret == 1; i++) {
		const struct lore_epoch *e = &ep->v[i];
		struct store_epoch se;
		char *dir, *url, **commits = NULL;
		size_t nr = 0, j;
		int known = store_epoch_get(s->st, list->id, e->n, &se, s->err);

		if (known < 0)
			return -1;
		if (se.fingerprint && !strcmp(se.fingerprint, e->fingerprint)) {
			store_epoch_release(&se);
			continue;
		}
		/* an epoch that ended before since was never followed */
		if (!known && c->since && e->modified && e->modified < c->since) {
			store_epoch_release(&se);
			continue;
		}
		dir = xasprintf("%s/%s/%d.git", c->gitdir, c->name, e->n);
		url = lore_epoch_url(l, e->n);
		if (epoch_sync(dir, url, known ? 0 : c->since, &eo, s->err) ||
		    epoch_head(dir, &head, s->err) ||
		    (head.len && epoch_commits(dir, se.head, head.buf, &commits, &nr, s->err))) {
			ret = -1;
			goto next;
		}
		for (j = 0; j < nr; j += c->batch) {
			size_t k = MIN(c->batch, nr - j);

			if (batches >= c->max_batches) {
				ret = 0;
				goto next;
			}
			if (epoch_read(dir, commits + j, k, sink_blob, s, s->err) < 0 ||
			    sink_begin(s) ||
			    store_epoch_set(s->st, list->id, e->n, NULL, commits[j + k - 1],
					    s->err) ||
			    sink_commit(s)) {
				sink_abort(s);
				ret = -1;
				goto next;
			}
			batches++;
			s->r->windows++;
		}
		if (store_epoch_set(s->st, list->id, e->n, e->fingerprint,
				    head.len ? head.buf : NULL, s->err))
			ret = -1;
next:
		for (j = 0; j < nr; j++)
			free(commits[j]);
		free(commits);
		free(dir);
		free(url);
		store_epoch_release(&se);
	}
	strbuf_release(&head);
	return ret;
}

static int64_t max_rowid(struct store *st)
{
	int64_t v = 0;

	db_query_int(st->db, "SELECT max(id) FROM messages", 0, &v);
	return v;
}

/* The wait after `failures` failed passes in a row */
static uint64_t pass_backoff_ms(const struct fetch_cfg *c, int failures)
{
	uint64_t d = MAX(c->min_interval_ms, c->lore.retry_delay_ms);
	uint64_t max = c->backoff_max_ms ? c->backoff_max_ms : 600000;
	unsigned int seed = (unsigned int)(util_now_ms() ^ (uint64_t)getpid());
	int i;

	if (!d)
		d = 1000;
	for (i = 1; i < failures && d < max; i++)
		d *= 2;
	d = MIN(d, max);
	return d / 2 + (uint64_t)rand_r(&seed) % (d / 2 + 1);
}

int fetch_list(struct store *st, const struct fetch_cfg *c, struct fetch_result *r)
{
	struct store_list list;
	struct lore l;
	struct lore_epochs epochs = { 0 };
	struct strbuf token = STRBUF_INIT;
	struct sink s = { .st = st, .r = r, .err = &r->error, .max_msg = c->lore.max_msg,
			  .commit_each = true };
	int64_t now = time(NULL), start, first_new;
	int done = 0;

	if (store_list_get(st, c->name, c->url, c->query, &list, &r->error))
		return -1;
	r->failures = list.failures;
	r->cursor = list.cursor;
	if (!c->force) {
		int64_t due = list.last_poll ? list.last_poll +
			(int64_t)(c->min_interval_ms / 1000) : 0;

		if (list.next_poll > due)
			due = list.next_poll;
		if (due > now) {
			r->status = FETCH_NOT_DUE;
			r->next_poll = due;
			store_list_release(&list);
			return 0;
		}
	}
	list.last_poll = now;
	s.list_id = list.id;
	if (lore_init(&l, c->url, &c->lore, &r->error))
		goto fail_noinit;
	if (lore_probe(&l, &token, &epochs, &r->error))
		goto fail;
	if (!list.probe || strcmp(list.probe, token.buf)) {
		free(list.probe);
		list.probe = strbuf_detach(&token, NULL);
		list.probe_seen = now;
	} else if (list.last_search && (c->method == FETCH_GIT ||
		   list.last_search >= list.probe_seen + (int64_t)c->index_lag_s)) {
		/* git refs change with the import: no index to wait for */
		r->status = FETCH_UNCHANGED;
		goto good;
	}
	if (c->method == FETCH_GIT) {
		first_new = max_rowid(st);
		done = git_pass(&l, &s, c, &list, &epochs);
		if (done < 0)
			goto fail;
		goto searched;
	}
	start = list.has_cursor ? list.cursor : c->since;
	first_new = max_rowid(st);
	done = search_pass(&l, &s, c, &list, &start);
	if (done < 0)
		goto fail;
searched:
	if (complete_threads(&l, &s, c, first_new))
		goto fail;
	r->status = done ? FETCH_OK : FETCH_MORE;
	if (done)
		list.last_search = now;
good:
	list.failures = 0;
	list.last_ok = now;
	list.next_poll = 0;
	free(list.last_error);
	list.last_error = NULL;
	r->failures = 0;
	r->cursor = list.cursor;
	r->stats = l.stats;
	if (store_list_save(st, &list, &r->error) || rebuild(st, c, r))
		goto fail_saved;
	lore_release(&l);
	lore_epochs_release(&epochs);
	store_list_release(&list);
	strbuf_release(&token);
	free(s.variants_at);
	return 0;
fail:
	r->stats = l.stats;
	lore_release(&l);
	lore_epochs_release(&epochs);
fail_noinit:
	sink_abort(&s);
	list.failures++;
	/* from now: the retries of this pass may have taken a while */
	list.next_poll = time(NULL) + (int64_t)(pass_backoff_ms(c, list.failures) / 1000) + 1;
	free(list.last_error);
	list.last_error = xstrdup(r->error.buf);
	r->failures = list.failures;
	r->next_poll = list.next_poll;
	r->cursor = list.cursor;
	r->status = FETCH_FAILED;
	{
		struct strbuf e2 = STRBUF_INIT;

		/* what was stored stays stored: the series follow it */
		if (store_list_save(st, &list, &e2) || rebuild(st, c, r))
			log_warn("lore: %s: cannot record the failure: %s", c->name,
				 e2.len ? e2.buf : r->error.buf);
		strbuf_release(&e2);
	}
	store_list_release(&list);
	strbuf_release(&token);
	free(s.variants_at);
	return -1;
fail_saved:
	r->status = FETCH_FAILED;
	free(s.variants_at);
	lore_release(&l);
	lore_epochs_release(&epochs);
	store_list_release(&list);
	strbuf_release(&token);
	return -1;
}

int fetch_thread(struct store *st, const struct fetch_cfg *c, const char *msgid,
		 bool raw_only, struct fetch_result *r)
{
	struct store_list list;
	struct lore l;
	struct sink s = { .st = st, .r = r, .err = &r->error, .max_msg = c->lore.max_msg };
	int64_t n;
	bool ok;

	if (store_list_get(st, c->name, c->url, c->query, &list, &r->error))
		return -1;
	s.list_id = list.id;
	store_list_release(&list);
	if (lore_init(&l, c->url, &c->lore, &r->error))
		return -1;
	n = raw_only ? lore_raw(&l, msgid, sink_msg, &s, &r->error) :
		lore_thread(&l, msgid, sink_msg, &s, &r->error);
	ok = n >= 0 && !sink_commit(&s);
	if (ok)
		rank_variants(&l, &s);
	r->stats = l.stats;
	lore_release(&l);
	free(s.variants_at);
	if (!ok) {
		sink_abort(&s);
		r->status = FETCH_FAILED;
		return -1;
	}
	if (!n) {
		strbuf_addf(&r->error, "<%s> is not known to %s", msgid, c->url);
		r->status = FETCH_FAILED;
		return -1;
	}
	r->threads++;
	r->status = FETCH_OK;
	return rebuild(st, c, r);
}

int fetch_mbox_file(struct store *st, const char *list, const char *path,
		    size_t max_msg, uint64_t commit_bytes, struct fetch_result *r)
{
	struct sink s = { .st = st, .r = r, .err = &r->error };
	struct mbox_reader rd;
	struct mbox_msg m = MBOX_MSG_INIT;
	struct fetch_cfg c = { 0 };
	int rc;

	if (list) {
		s.list_id = store_list_find(st, list);
		if (s.list_id < 0) {
			strbuf_addstr(&r->error, db_error(st->db));
			return -1;
		}
	}
	rc = mbox_open(&rd, path, max_msg);
	if (rc) {
		strbuf_addf(&r->error, "cannot read '%s': %s", path, strerror(-rc));
		return -1;
	}
	while ((rc = mbox_next(&rd, &m)) > 0)
		if (sink_msg(&s, &m) ||
		    (s.txn_bytes >= (commit_bytes ? commit_bytes : FETCH_MBOX_COMMIT) &&
		     sink_commit(&s)))
			break;
	mbox_msg_release(&m);
	mbox_close(&rd);
	if (rc < 0 && !r->error.len)
		strbuf_addf(&r->error, "cannot read '%s': %s", path, strerror(-rc));
	rc = r->error.len || sink_commit(&s) ? -1 : 0;
	/* a file's order is the only one it has: the first stored counts */
	free(s.variants_at);
	if (rc) {
		sink_abort(&s);
		r->status = FETCH_FAILED;
		return -1;
	}
	r->status = FETCH_OK;
	return rebuild(st, &c, r);
}

char *fetch_name_from_url(const char *url)
{
	const char *end = url + strlen(url), *p;

	while (end > url && end[-1] == '/')
		end--;
	for (p = end; p > url && p[-1] != '/'; p--)
		;
	return end > p ? xstrndup(p, end - p) : xstrdup("lore");
}
