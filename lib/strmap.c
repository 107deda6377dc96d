// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "lib/scratch.h"
#include "lib/strmap.h"

/* Eight bytes a step: keys are Message-IDs, names and addresses */
static uint64_t str_hash(const char *s)
{
	size_t len = strlen(s);
	uint64_t h = 0xcbf29ce484222325ULL ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h | 1;	/* 0 marks an empty slot */
}

/* A frozen table in the scratch file, and which keys it may hold */
struct strmap_gen {
	struct strmap_entry *e;
	size_t size;
	struct bloom bloom;
};

/*
 * Bloom bits an entry: a generation's filter (about 0.1% false positives
 * with 4 of them), and the filter of all (about 3%: it only spares the
 * look in each generation's)
 */
#define BLOOM_BITS 16
#define ALL_BITS 8

/* In s when given (else, or when it is full, in memory) */
static void bloom_init(struct bloom *b, size_t entries, size_t bits,
		       struct scratch *s)
{
	b->blocks = MAX((entries * bits + 511) / 512, 1);
	b->w = s ? scratch_alloc(s, b->blocks * 8 * sizeof(*b->w)) : NULL;
	b->mapped = b->w != NULL;
	if (!b->w)
		b->w = xcalloc(b->blocks * 8, sizeof(*b->w));
}

static void bloom_release(struct bloom *b)
{
	if (!b->mapped)
		free(b->w);
}

/* The block of a hash: its top 32 bits scaled to the number of blocks */
static size_t block_of(const struct bloom *b, uint64_t h)
{
	return (size_t)(((h >> 32) * (uint64_t)b->blocks) >> 32);
}

/* A block of 512 bits a key, four bits in it: one cache line a look */
static bool bloom_may(const struct bloom *b, uint64_t h)
{
	const uint64_t *w = b->w + block_of(b, h) * 8;
	int k;

	for (k = 0; k < 4; k++) {
		unsigned int bit = (h >> (9 * k)) & 511;

		if (!(w[bit >> 6] & (1ULL << (bit & 63))))
			return false;
	}
	return true;
}

static void bloom_add(struct bloom *b, uint64_t h)
{
	uint64_t *w = b->w + block_of(b, h) * 8;
	int k;

	for (k = 0; k < 4; k++) {
		unsigned int bit = (h >> (9 * k)) & 511;

		w[bit >> 6] |= 1ULL << (bit & 63);
	}
}

/* The filter of all generations looks at other bits of the hash */
static uint64_t all_hash(uint64_t h)
{
	return h << 23 | h >> 41;
}

static struct strmap_entry *find_in(struct strmap_entry *e, size_t size,
				    const char *key, uint64_t h)
{
	size_t i = h & (size - 1);

	for (;;) {
		if (!e[i].hash || (e[i].hash == h && !strcmp(e[i].key, key)))
			return &e[i];
		i = (i + 1) & (size - 1);
	}
}

static struct strmap_entry *find(const struct strmap *m, const char *key,
				 uint64_t h)
{
	return find_in(m->e, m->size, key, h);
}

/* A hit this many generations back is copied to the table in memory */
#define PROMOTE_DEPTH 4

/* The entry for key in a generation, or NULL; *depth: how far back */
static struct strmap_entry *find_old(const struct strmap *m, const char *key,
				     uint64_t h, size_t *depth)
{
	size_t i;

	/* most keys looked for are in none: one look says so */
	if (!bloom_may(&m->all, all_hash(h)))
		return NULL;
	/* newest first: mail mostly refers to recent mail */
	for (i = m->nr_gens; i-- > 0; ) {
		const struct strmap_gen *g = &m->gens[i];
		struct strmap_entry *e;

		if (!bloom_may(&g->bloom, h))
			continue;
		e = find_in(g->e, g->size, key, h);
		if (e->hash) {
			*depth = m->nr_gens - i;
			return e;
		}
	}
	return NULL;
}

static void grow(struct strmap *m);
static int freeze(struct strmap *m);

/*
 * An entry found in an old generation is copied to the table in memory:
 * what is looked up again and again (names, addresses, a thread's
 * root) would otherwise cost a look in every newer generation each
 * time.  The newest copy of a key is the one that counts.
 */
static void promote(struct strmap *m, const struct strmap_entry *old)
{
	if ((m->nr + 1) * 4 > m->size * 3)
		grow(m);
	*find(m, old->key, old->hash) = *old;
	if (++m->nr >= m->gen)
		freeze(m);
}

void *strmap_get(const struct strmap *cm, const char *key)
{
	/* promoting changes where an entry is, not what the map holds */
	struct strmap *m = (struct strmap *)cm;
	struct strmap_entry *e;
	size_t depth;
	uint64_t h;

	if (!key || (!m->size && !m->nr_gens))
		return NULL;
	h = str_hash(key);
	if (m->size) {
		e = find(m, key, h);
		if (e->hash)
			return e->value;
	}
	e = m->nr_gens ? find_old(m, key, h, &depth) : NULL;
	if (!e)
		return NULL;
	if (depth > PROMOTE_DEPTH)
		promote(m, e);
	return e->value;
}

/*
 * The filter of all generations, for at least m->old entries: when it
 * would hold more than it was made for, it is made again half as large
 * again from the hashes in the generations' tables (read in order, a
 * few times in all); else the newest table's (e, size) are added.
 */
static void all_add(struct strmap *m, const struct strmap_entry *e, size_t size)
{
	size_t i, k, bytes;

	if (m->old > m->all_for) {
		bloom_release(&m->all);
		m->all_for = MAX(m->old, m->all_for * 3 / 2);
		/* past a few MB, memory would grow with the mbox: the file */
		bytes = m->all_for * ALL_BITS / 8;
		bloom_init(&m->all, m->all_for, ALL_BITS,
			   bytes > m->all_max ? m->scratch : NULL);
		/* the filter is written all over: all of it mapped in soon */
		if (bytes > m->all_max)
			scratch_room(m->scratch, bytes);
		for (k = 0; k < m->nr_gens; k++) {
			for (i = 0; i < m->gens[k].size; i++) {
				/* 48 KB of entries: under a tick's 64 KB */
				if (!(i & 2047))
					scratch_tick(m->scratch);
				if (m->gens[k].e[i].hash)
					bloom_add(&m->all, all_hash(m->gens[k].e[i].hash));
			}
		}
		return;
	}
	for (i = 0; i < size; i++)
		if (e[i].hash)
			bloom_add(&m->all, all_hash(e[i].hash));
}

/*
 * The table in memory becomes the newest generation: copied to the
 * scratch file, with its Bloom filter.  0, or -1 when the file is full
 * (scratch_error() says so), and the table stays where it is.
 */
static int freeze(struct strmap *m)
{
	struct strmap_gen *g;
	struct strmap_entry *e;
	size_t i;

	if (!m->nr)
		return 0;
	e = scratch_alloc(m->scratch, m->size * sizeof(*e));
	if (!e)
		return -1;
	scratch_room(m->scratch, m->size * sizeof(*e));
	memcpy(e, m->e, m->size * sizeof(*e));
	ALLOC_GROW(m->gens, m->nr_gens + 1, m->alloc_gens);
	g = &m->gens[m->nr_gens++];
	g->e = e;
	g->size = m->size;
	/* read only when the filter of all says yes: in the file */
	bloom_init(&g->bloom, m->nr, BLOOM_BITS, m->scratch);
	for (i = 0; i < m->size; i++)
		if (e[i].hash)
			bloom_add(&g->bloom, e[i].hash);
	m->old += m->nr;
	all_add(m, m->e, m->size);	/* from the table in memory: hot */
	memset(m->e, 0, m->size * sizeof(*m->e));
	m->nr = 0;
	return 0;
}

static void grow(struct strmap *m)
{
	struct strmap_entry *old = m->e;
	size_t i, oldsize = m->size;

	m->size = m->size ? m->size * 2 : 64;
	m->e = xcalloc(m->size, sizeof(*m->e));
	for (i = 0; i < oldsize; i++)
		if (old[i].hash)
			*find(m, old[i].key, old[i].hash) = old[i];
	free(old);
}

void *strmap_put(struct strmap *m, const char *key, void *value)
{
	struct strmap_entry *e, *old;
	uint64_t h = str_hash(key);
	size_t depth;
	void *prev;

	if ((m->nr + 1) * 4 > m->size * 3)
		grow(m);
	e = find(m, key, h);
	if (e->hash) {
		prev = e->value;
		e->value = value;
		return prev;
	}
	/* in a generation: the new value goes in a newer copy */
	old = m->nr_gens ? find_old(m, key, h, &depth) : NULL;
	prev = old ? old->value : NULL;
	e->key = old ? old->key : key;
	e->hash = h;
	e->value = value;
	m->nr++;
	/* full: a new generation (if the file is full, it stays here) */
	if (m->scratch && m->nr >= m->gen)
		freeze(m);
	return prev;
}

void strmap_use_scratch(struct strmap *m, struct scratch *s)
{
	m->scratch = s;
	/*
	 * The table in memory stays a small part of the window, and so
	 * does the filter of all (an eighth: 3.5 MB, 3.5 million keys, for
	 * the default 28m)
	 */
	m->gen = MAX(MIN(s->window / 1024, STRMAP_GEN), 64);
	m->all_max = s->window / 8;
	if (!m->nr || freeze(m))
		return;
	/* the table in memory starts small again */
	free(m->e);
	m->e = NULL;
	m->size = 0;
}

void strmap_release(struct strmap *m)
{
	size_t i;

	free(m->e);
	for (i = 0; i < m->nr_gens; i++)
		bloom_release(&m->gens[i].bloom);
	bloom_release(&m->all);
	free(m->gens);
	memset(m, 0, sizeof(*m));
}
