// SPDX-License-Identifier: GPL-2.0
/*
 * Patches that threading did not place join a send of their sender,
 * version and count posted within the hour (the nearest in time among
 * the newest FALLBACK_CANDIDATES such sends), else start one.
 */
#include "bot/series/series.h"
#include "bot/series/series-int.h"

/* Patches sent without threading join a send posted within this time */
#define FALLBACK_WINDOW (60 * 60)

/* Message i is a patch threading did not place */
static bool unplaced(const struct assembly *a, size_t i)
{
	const struct msg *m;

	/* slot i: neither reads the message */
	if (series_kind_of(a, i) != MSG_PATCH || a->state[i].send)
		return false;
	m = a->msgs[i];
	return m->subj.n >= 1 && m->subj.n <= m->subj.total;
}

/*
 * The sends a patch without threading may join: those of its sender,
 * version and count.  Only the newest FALLBACK_CANDIDATES of them are
 * looked at (in the order they were made): more within the hour is not
 * mail, and looking at all made the grouping quadratic.
 */
#define FALLBACK_CANDIDATES 64

/*
 * A candidate with what the search below looks at first beside it: for
 * every patch it looks at up to 64 sends, and past series.memory
 * reading each send mapped a page back in.  Kept equal to the send's
 * (cands_note()).
 */
struct cand {
	struct send *s;
	int64_t date;		/* s->date */
	bool full;		/* every patch of s is there: joins nothing */
};

struct candidates {
	struct cand *c;
	size_t nr, alloc;
};

static char *candidates_key(int version, int total, const char *sender,
			    struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%d %d %s", version, total, sender);
	return sb->buf;
}

static void candidates_add(struct assembly *a, struct strmap *map,
			   struct send *s, struct strbuf *sb)
{
	struct candidates *c;
	char *key;

	if (!s->sender_email)
		return;		/* joins nothing */
	key = candidates_key(s->version, s->total, s->sender_email, sb);
	c = strmap_get(map, key);
	if (!c) {
		c = POOL_ARRAY(a, 1, struct candidates);
		strmap_put(map, strpool_strdup(&a->pool, key), c);
	}
	if (c->nr == 2 * FALLBACK_CANDIDATES) {
		/* keep the newest */
		memmove(c->c, c->c + FALLBACK_CANDIDATES,
			FALLBACK_CANDIDATES * sizeof(*c->c));
		c->nr = FALLBACK_CANDIDATES;
	}
	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? c->alloc * 2 : 2;
		c->c = strpool_grow(&a->pool, c->c, c->nr, c->alloc, sizeof(*c->c));
	}
	c->c[c->nr++] = (struct cand){ s, s->date, s->have == s->total };
}

/* A patch joined s: what its candidate, c's at-th, says of it */
static void cand_note(struct candidates *c, size_t at, const struct send *s)
{
	c->c[at].date = s->date;
	c->c[at].full = s->have == s->total;
}

/* As cand_note(), the candidate found by its send, if s is one */
static void cands_note(struct strmap *map, const struct send *s, struct strbuf *sb)
{
	struct candidates *c;
	size_t j;

	if (!s->sender_email)
		return;
	c = strmap_get(map, candidates_key(s->version, s->total, s->sender_email, sb));
	for (j = 0; c && j < c->nr; j++)
		if (c->c[j].s == s)
			cand_note(c, j, s);
}

/*
 * The send of c that m joins: of those within the hour whose place for
 * m is free, the nearest in time, the earliest made of equals.  From
 * the newest back, a send is read only when it is not full and as near
 * as the best so far; *at is its place in c.
 */
static struct send *nearest(struct assembly *a, struct candidates *c,
			    const struct msg *m, size_t *at)
{
	struct send *best = NULL;
	int64_t best_gap = FALLBACK_WINDOW;
	size_t j, first;

	if (!c)
		return NULL;
	first = c->nr > FALLBACK_CANDIDATES ? c->nr - FALLBACK_CANDIDATES : 0;
	for (j = c->nr; j-- > first; ) {
		int64_t gap = m->date - c->c[j].date;

		if (gap < 0)
			gap = -gap;
		if (gap > best_gap || c->c[j].full)
			continue;
		series_tick(a);
		if (c->c[j].s->patches[m->subj.n - 1].msg)
			continue;
		best = c->c[j].s;
		best_gap = gap;
		*at = j;
	}
	return best;
}

/* Patches that threading did not place: by sender, version, count, time */
void series_group_fallback(struct assembly *a)
{
	struct strbuf sb = STRBUF_INIT;
	struct strmap cands = STRMAP_INIT;
	struct sort_key *left;
	size_t nr = 0, i, j;

	for (i = 0; i < a->nr; i++) {
		series_tick(a);
		nr += unplaced(a, i);
	}
	if (!nr)
		return;
	left = POOL_ARRAY(a, nr, struct sort_key);
	for (i = 0, j = 0; i < a->nr; i++) {
		struct msg *m = a->msgs[i];

		series_tick(a);
		if (unplaced(a, i))
			left[j++] = (struct sort_key){ .date = m->date,
							  .index = m->index, .it = m };
	}
	series_sort_keys(a, left, nr, series_cmp_key);
	if (a->scratch)
		strmap_use_scratch(&cands, a->scratch);
	for (i = 0; i < a->nr_sends; i++) {
		series_tick(a);
		candidates_add(a, &cands, a->sends[i], &sb);
	}
	for (i = 0; i < nr; i++) {
		struct msg *m = left[i].it;
		struct send *best = strmap_get(&a->roots, m->msgid);
		struct candidates *c;
		size_t at = 0;

		series_tick(a);
		if (best) {
			/* patch 1 that the rest of its send replies to */
			series_send_put(a, best, m);
			cands_note(&cands, best, &sb);
			continue;
		}
		/* what follows looks at every send of its sender, version, count */
		m->unthreaded = true;
		c = m->sender_email ?
			strmap_get(&cands, candidates_key(m->subj.version,
				   m->subj.total, m->sender_email, &sb)) : NULL;
		series_problem(a, m->index, m->msgid,
			       "patch %d/%d is not threaded; grouped by "
			       "sender, version and time", m->subj.n,
			       m->subj.total);
		best = nearest(a, c, m, &at);
		if (best) {
			series_send_put(a, best, m);
			cand_note(c, at, best);
		} else {
			best = series_new_send(a, m);
			best->fallback = true;
			series_send_put(a, best, m);
			/* a candidate from now on, its first patch in it */
			candidates_add(a, &cands, best, &sb);
		}
	}
	strmap_release(&cands);
	strbuf_release(&sb);
}
