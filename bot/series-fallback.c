// SPDX-License-Identifier: GPL-2.0
/*
 * Patches that threading did not place join a send of their sender,
 * version and count posted within the hour (the nearest in time among
 * the newest FALLBACK_CANDIDATES such sends), else start one.
 */
#include "bot/series.h"
#include "bot/series-int.h"

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

struct candidates {
	struct send **s;
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
		memmove(c->s, c->s + FALLBACK_CANDIDATES,
			FALLBACK_CANDIDATES * sizeof(*c->s));
		c->nr = FALLBACK_CANDIDATES;
	}
	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? c->alloc * 2 : 2;
		c->s = strpool_grow(&a->pool, c->s, c->nr, c->alloc, sizeof(*c->s));
	}
	c->s[c->nr++] = s;
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
		int64_t best_gap = FALLBACK_WINDOW + 1;
		struct candidates *c;

		series_tick(a);
		if (best) {
			/* patch 1 that the rest of its send replies to */
			series_send_put(a, best, m);
			continue;
		}
		/* what follows looks at every send of its sender, version, count */
		m->unthreaded = true;
		c = m->sender_email ?
			strmap_get(&cands, candidates_key(m->subj.version,
				   m->subj.total, m->sender_email, &sb)) : NULL;
		for (j = c && c->nr > FALLBACK_CANDIDATES ?
		     c->nr - FALLBACK_CANDIDATES : 0; c && j < c->nr; j++) {
			struct send *s = c->s[j];
			int64_t gap = m->date - s->date;

			series_tick(a);
			if (gap < 0)
				gap = -gap;
			if (s->patches[m->subj.n - 1].msg || gap >= best_gap)
				continue;
			best = s;
			best_gap = gap;
		}
		if (!best) {
			best = series_new_send(a, m);
			best->fallback = true;
			candidates_add(a, &cands, best, &sb);
		}
		series_problem(a, m->index, m->msgid,
			       "patch %d/%d is not threaded; grouped by "
			       "sender, version and time", m->subj.n,
			       m->subj.total);
		series_send_put(a, best, m);
	}
	strmap_release(&cands);
	strbuf_release(&sb);
}
