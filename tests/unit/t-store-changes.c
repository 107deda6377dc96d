// SPDX-License-Identifier: GPL-2.0
/*
 * Changes of several assemblies in one fetch (one a search window)
 * merged into one list: one entry a version, new wins over updated,
 * new and then gone is nothing.
 */
#include "bot/store/store.h"
#include "tests/unit/tap.h"

static void add(struct store_changes *c, enum store_change_kind kind,
		const char *id, int have, int64_t gen)
{
	struct store_change *ch;

	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	ch = &c->v[c->nr++];
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	ch->id = xstrdup(id);
	if (kind != STORE_VERSION_GONE) {
		ch->series_id = xstrdup("s");
		ch->title = xasprintf("title of %s, %d", id, have);
	}
	ch->version = 1;
	ch->have = have;
	ch->total = 3;
	ch->complete = have == 3;
	ch->generation = gen;
}

static const struct store_change *find(const struct store_changes *c, const char *id)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->v[i].id, id))
			return &c->v[i];
	return NULL;
}

static void test_merge(void)
{
	struct store_changes all = { 0 }, w = { 0 };
	const struct store_change *c;

	/* the first window */
	add(&w, STORE_VERSION_NEW, "a", 1, 1);
	add(&w, STORE_VERSION_NEW, "b", 1, 1);
	add(&w, STORE_VERSION_UPDATED, "c", 2, 5);
	add(&w, STORE_VERSION_UPDATED, "d", 2, 5);
	add(&w, STORE_VERSION_GONE, "e", 0, 4);
	store_changes_merge(&all, &w);
	is_int(all.nr, 5, "first window: taken as it is");
	ok(!w.nr && !w.v, "the merged list is left empty");

	/* the second: a grows, b goes, c grows, d goes, e is back, f new */
	add(&w, STORE_VERSION_UPDATED, "a", 3, 2);
	add(&w, STORE_VERSION_GONE, "b", 0, 2);
	add(&w, STORE_VERSION_UPDATED, "c", 3, 6);
	add(&w, STORE_VERSION_GONE, "d", 0, 6);
	add(&w, STORE_VERSION_UPDATED, "e", 1, 5);
	add(&w, STORE_VERSION_NEW, "f", 1, 1);
	store_changes_merge(&all, &w);
	is_int(all.nr, 5, "one entry a version, b is not there");
	c = find(&all, "a");
	ok(c && c->kind == STORE_VERSION_NEW, "new then updated: new");
	ok(c && c->have == 3 && c->complete && c->generation == 2,
	   "new then updated: the last state");
	is_str(c ? c->title : NULL, "title of a, 3", "new then updated: the last title");
	ok(!find(&all, "b"), "new then gone: nothing");
	c = find(&all, "c");
	ok(c && c->kind == STORE_VERSION_UPDATED && c->have == 3 && c->generation == 6,
	   "updated twice: updated, the last state");
	c = find(&all, "d");
	ok(c && c->kind == STORE_VERSION_GONE && !c->title, "updated then gone: gone");
	c = find(&all, "e");
	ok(c && c->kind == STORE_VERSION_UPDATED && c->generation == 5,
	   "gone then back: updated");
	c = find(&all, "f");
	ok(c && c->kind == STORE_VERSION_NEW, "new in the last window: new");
	is_str(all.v[0].id, "a", "the first change keeps its place");
	is_str(all.v[all.nr - 1].id, "f", "the latest comes last");

	/* nothing to merge, and into an empty list */
	store_changes_merge(&all, &w);
	is_int(all.nr, 5, "an empty merge changes nothing");
	store_changes_release(&all);
}

/* a long list: the merge is by a map, not by a search per change */
static void test_many(void)
{
	struct store_changes all = { 0 }, w = { 0 };
	char id[32];
	size_t i, news = 0;

	for (i = 0; i < 50000; i++) {
		snprintf(id, sizeof(id), "v%zu", i);
		add(&w, STORE_VERSION_NEW, id, 1, 1);
	}
	store_changes_merge(&all, &w);
	for (i = 0; i < 50000; i += 2) {
		snprintf(id, sizeof(id), "v%zu", i);
		add(&w, i % 4 ? STORE_VERSION_UPDATED : STORE_VERSION_GONE, id, 2, 2);
	}
	store_changes_merge(&all, &w);
	is_int(all.nr, 37500, "50,000 new, a quarter gone again: 37,500");
	for (i = 0; i < all.nr; i++)
		news += all.v[i].kind == STORE_VERSION_NEW;
	is_int(news, 37500, "and all of them new");
	store_changes_release(&all);
}

/* past a limit, changes are counted, not kept */
static void test_limit(void)
{
	struct store_changes all = { .limit = 2 }, w = { .limit = 2 };
	const struct store_change *c;

	add(&w, STORE_VERSION_NEW, "a", 1, 1);
	add(&w, STORE_VERSION_NEW, "b", 1, 1);
	w.more = 3;		/* as an assembly past its limit leaves it */
	store_changes_merge(&all, &w);
	is_int(all.nr, 2, "limit: two kept");
	is_int(store_changes_count(&all), 5, "limit: five counted");
	ok(!w.more, "limit: the merged list is left empty");
	add(&w, STORE_VERSION_UPDATED, "a", 2, 2);
	add(&w, STORE_VERSION_NEW, "c", 1, 1);
	store_changes_merge(&all, &w);
	c = find(&all, "a");
	ok(c && c->kind == STORE_VERSION_NEW && c->have == 2,
	   "limit: a kept version still merges");
	ok(!find(&all, "c"), "limit: a new one past it is not kept");
	is_int(store_changes_count(&all), 6, "limit: but counted");
	store_changes_release(&all);
	is_int(store_changes_count(&all), 0, "limit: released, nothing counted");
	is_int(all.limit, 2, "limit: and the limit kept");
}

int main(void)
{
	test_merge();
	test_many();
	test_limit();
	return done_testing();
}
