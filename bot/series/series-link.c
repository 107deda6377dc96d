// SPDX-License-Identifier: GPL-2.0
/*
 * Sends into series: partial resends completed from the version they
 * answer, then versions linked by change-id, title or lore link (only
 * from the same sender, or a trusted one), ordered, superseded.
 */
#include <stdlib.h>
#include <strings.h>

#include "bot/series/series.h"
#include "bot/series/series-int.h"

/* May this sender continue anyone's series (series.trust)? */
static bool trusted(const struct assembly *a, const char *sender)
{
	size_t i;

	for (i = 0; sender && i < a->nr_trusted; i++)
		if (!strcasecmp(a->trusted[i], sender))
			return true;
	return false;
}

/*
 * A partial resend (b4's partial reroll): a version whose every patch
 * was sent in reply to the patch of the same number in one earlier
 * version, by the same sender (or a trusted one), is completed with that
 * version's other patches and its cover letter, trailers included.
 */
#define REROLL_CLIMB 64

static struct send *rerolled_from(struct assembly *a, const struct send *s)
{
	struct send *prev = NULL, *found;
	int i, steps;

	if (s->complete || s->version < 2 || !s->have)
		return NULL;
	for (i = 0; i < s->total; i++) {
		const struct msg *m = s->patches[i].msg;
		struct msg *p;

		if (!m)
			continue;
		for (p = series_known_parent(a, m), steps = 0; p && steps < REROLL_CLIMB;
		     p = series_known_parent(a, p), steps++) {
			struct send *ps = series_send_of(a, p);

			if (p->kind == MSG_PATCH && ps && ps != s &&
			    p->subj.n == m->subj.n && p->subj.total == m->subj.total)
				break;
		}
		if (!p || steps >= REROLL_CLIMB)
			return NULL;
		found = series_send_of(a, p);
		if (found->version >= s->version || (prev && found != prev))
			return NULL;
		prev = found;
	}
	if (!prev || prev->total != s->total ||
	    !(series_same_sender(prev->sender_email, s->sender_email) ||
	      trusted(a, s->sender_email)))
		return NULL;
	return prev;
}

static void add_trailers(struct trailers *to, const struct trailers *from)
{
	size_t t;

	for (t = 0; t < from->nr; t++)
		if (!patch_trailers_has(to, from->t[t].name, from->t[t].value))
			patch_trailers_add(to, from->t[t].name, from->t[t].value);
}

void series_complete_partial_resends(struct assembly *a)
{
	size_t i;
	int k;

	for (i = 0; i < a->nr_sends; i++) {
		struct send *s = a->sends[i], *prev;
		size_t index = 0;
		int own;

		/* before skipping: a skipped send's page is touched too */
		series_tick(a);
		if (s->complete || s->version < 2)
			continue;
		prev = rerolled_from(a, s);
		if (!prev)
			continue;
		own = s->have;
		for (k = s->total; k-- > 0; )
			if (s->patches[k].msg)
				index = s->patches[k].msg->index;
		for (k = 0; k < s->total; k++) {
			struct send_patch *sp = &s->patches[k];

			if (!sp->trailers.pool && !sp->trailers.nr)
				sp->trailers.pool = &a->pool;
			if (sp->msg) {
				add_trailers(&sp->trailers, &prev->cover_trailers);
				continue;
			}
			if (!prev->patches[k].msg)
				continue;
			sp->msg = prev->patches[k].msg;
			add_trailers(&sp->trailers, &prev->patches[k].trailers);
			s->have++;
		}
		if (!s->cover && prev->cover) {
			s->cover = prev->cover;
			add_trailers(&s->cover_trailers, &prev->cover_trailers);
		}
		s->complete = s->have == s->total;
		s->reroll_from = prev->version;
		s->title = prev->title;
		if (!s->change_id)
			s->change_id = prev->change_id;
		if (!s->base_commit)
			s->base_commit = prev->base_commit;
		series_problem(a, index, s->id, "v%d resends %d of %d patches in reply to v%d: "
			       "completed from v%d", s->version, own, s->total,
			       prev->version, prev->version);
	}
}

/* series: union-find over sends */

static size_t uf_root(size_t *idx, size_t i)
{
	while (idx[i] != i) {
		idx[i] = idx[idx[i]];
		i = idx[i];
	}
	return i;
}

static void uf_union(size_t *idx, size_t a, size_t b)
{
	a = uf_root(idx, a);
	b = uf_root(idx, b);
	if (a != b)
		idx[MAX(a, b)] = MIN(a, b);
}


/* When a send was stored (the database) or read (an mbox): its first message */
static uint64_t send_order(const struct send *s)
{
	uint64_t o = UINT64_MAX;
	int i;

	if (s->cover)
		o = s->cover->rowid ? (uint64_t)s->cover->rowid : s->cover->index;
	for (i = 0; i < s->total; i++) {
		const struct msg *m = s->patches[i].msg;
		uint64_t mo;

		if (!m)
			continue;
		mo = m->rowid ? (uint64_t)m->rowid : m->index;
		o = MIN(o, mo);
	}
	return o;
}

/*
 * The series key: the change-id, for the sender who used it first and
 * the trusted ones (a copy by someone else gets a key of its own, so
 * never the first sender's series id); else title and sender.
 */
static char *series_key(const struct assembly *a, const struct send *s,
			const struct send *owner)
{
	char *t, *k;

	if (s->change_id) {
		if (series_same_sender(s->sender_email, owner->sender_email) ||
		    trusted(a, s->sender_email))
			return xasprintf("change-id:%s", s->change_id);
		return xasprintf("change-id:%s\n%s", s->change_id,
				 s->sender_email ? s->sender_email : "");
	}
	t = subject_normalise_title(s->title);
	k = xasprintf("%s\n%s", t, s->sender_email ? s->sender_email : "");
	free(t);
	return k;
}

/* The first send (stored first) of each change-id */
static void change_id_owners(struct assembly *a, struct strmap *owners)
{
	size_t i;

	for (i = 0; i < a->nr_sends; i++) {
		struct send *s = a->sends[i], *o;

		series_tick(a);
		if (!s->change_id)
			continue;
		o = strmap_get(owners, s->change_id);
		if (!o)
			strmap_put(owners, s->change_id, s);
		else if (send_order(s) < send_order(o))
			strmap_put(owners, s->change_id, s);
	}
}

static void series_set_id(struct assembly *a, struct series *sr, const char *key)
{
	char h[17];

	util_hash_hex(key, strlen(key), h);
	h[12] = '\0';
	sr->id = strpool_strdup(&a->pool, h);
}

static int cmp_send(const void *x, const void *y)
{
	const struct send *a = *(const struct send *const *)x;
	const struct send *b = *(const struct send *const *)y;

	if (a->version != b->version)
		return a->version < b->version ? -1 : 1;
	if (a->date != b->date)
		return a->date < b->date ? -1 : 1;
	return strcmp(a->id, b->id);
}

/* Which send of a version is current: complete beats partial, later wins */
static bool better(const struct send *a, const struct send *b)
{
	if (a->complete != b->complete)
		return a->complete;
	return a->date > b->date;
}

static void series_order(struct series *sr)
{
	struct send *newest = NULL;
	size_t j, k;

	qsort(sr->sends, sr->nr, sizeof(*sr->sends), cmp_send);
	/* the current send of each version */
	for (j = 0; j < sr->nr; j++) {
		struct send *s = sr->sends[j];

		for (k = 0; k < sr->nr; k++) {
			struct send *o = sr->sends[k];

			if (o != s && o->version == s->version && better(o, s)) {
				s->superseded_by = o;
				break;
			}
		}
		if (!s->superseded_by && (!newest || s->version > newest->version))
			newest = s;
	}
	for (j = 0; j < sr->nr; j++) {
		struct send *s = sr->sends[j];

		/* a same-version send after another one is a resend */
		for (k = 0; k < j; k++)
			if (sr->sends[k]->version == s->version)
				s->resend = true;
		if (!s->superseded_by && s != newest)
			s->superseded_by = newest;
	}
}

/* Series by the date of their first send, then its Message-ID */
static int cmp_series(const void *x, const void *y)
{
	const struct sort_key *a = x, *b = y;

	if (a->date != b->date)
		return a->date < b->date ? -1 : 1;
	return strcmp(a->tie, b->tie);
}

static void sort_series(struct assembly *a)
{
	struct sort_key *key = POOL_ARRAY(a, a->nr_series, struct sort_key);
	size_t i;

	for (i = 0; i < a->nr_series; i++) {
		struct series *sr = a->series[i];

		series_tick(a);
		series_order(sr);
		key[i] = (struct sort_key){ .date = sr->sends[0]->date,
					    .tie = sr->sends[0]->id, .it = sr };
	}
	series_sort_keys(a, key, a->nr_series, cmp_series);
	for (i = 0; i < a->nr_series; i++)
		a->series[i] = key[i].it;
}

void series_link(struct assembly *a)
{
	size_t n = a->nr_sends, i, j;
	size_t *idx = POOL_ARRAY(a, n + 1, size_t);
	struct strmap keys = STRMAP_INIT, ids = STRMAP_INIT, owners = STRMAP_INIT;
	struct strmap titles = STRMAP_INIT;
	char **karr = POOL_ARRAY(a, n + 1, char *);
	struct series **by_root = POOL_ARRAY(a, n + 1, struct series *);

	if (a->scratch) {
		strmap_use_scratch(&keys, a->scratch);
		strmap_use_scratch(&ids, a->scratch);
		strmap_use_scratch(&owners, a->scratch);
		strmap_use_scratch(&titles, a->scratch);
	}
	change_id_owners(a, &owners);
	for (i = 0; i < n; i++) {
		struct send *s = a->sends[i];
		size_t *prev;
		char *k = series_key(a, s, s->change_id ?
				     strmap_get(&owners, s->change_id) : s);

		series_tick(a);
		idx[i] = i;
		karr[i] = strpool_strdup(&a->pool, k);
		free(k);
		prev = strmap_get(&keys, karr[i]);
		if (prev)
			uf_union(idx, *prev, i);
		else
			strmap_put(&keys, karr[i], &idx[i]);
		strmap_put(&ids, s->id, (void *)(uintptr_t)(i + 1));
	}
	/* a trusted sender's send joins the series of its title */
	for (i = 0; a->nr_trusted && i < n; i++) {
		struct send *s = a->sends[i];
		char *t;
		size_t *first;

		series_tick(a);
		if (s->change_id)
			continue;
		t = subject_normalise_title(s->title);
		first = strmap_get(&titles, t);
		if (!first)
			strmap_put(&titles, strpool_strdup(&a->pool, t), &idx[i]);
		else if (trusted(a, s->sender_email))
			uf_union(idx, first - idx, i);
		free(t);
	}
	/* cover letters that link to an earlier version of the same sender */
	for (i = 0; i < n; i++) {
		const struct msg *c = a->sends[i]->cover;

		series_tick(a);
		for (j = 0; c && j < c->nr_links; j++) {
			struct msg *t = strmap_get(&a->by_id, c->links[j]);
			struct send *ts = t ? series_send_of(a, t) : NULL;
			uintptr_t other;

			if (!ts || ts == a->sends[i])
				continue;
			other = (uintptr_t)strmap_get(&ids, ts->id);
			if (other && (series_same_sender(ts->sender_email,
							 a->sends[i]->sender_email) ||
				      trusted(a, a->sends[i]->sender_email)))
				uf_union(idx, i, other - 1);
		}
	}
	/* the series, each with room for its sends */
	for (i = 0; i < n; i++) {
		size_t r = uf_root(idx, i);
		struct series *sr = by_root[r];

		series_tick(a);
		if (!sr) {
			sr = by_root[r] = POOL_ARRAY(a, 1, struct series);
			series_set_id(a, sr, karr[r]);
			ARRAY_GROW(a, a->series, a->nr_series, a->alloc_series,
				   a->series_mapped);
			a->series[a->nr_series++] = sr;
		}
		sr->alloc++;
		a->sends[i]->series = sr;
	}
	for (i = 0; i < n; i++) {
		struct series *sr = a->sends[i]->series;

		series_tick(a);
		if (!sr->sends)
			sr->sends = POOL_ARRAY(a, sr->alloc, struct send *);
		sr->sends[sr->nr++] = a->sends[i];
	}
	sort_series(a);
	strmap_release(&keys);
	strmap_release(&ids);
	strmap_release(&owners);
	strmap_release(&titles);
}
