// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "bot/scratch.h"
#include "bot/strmap.h"

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
	uint64_t *bloom;	/* blocks of 8 words */
	size_t blocks;		/* a power of two */
};

/* Bloom bits an entry (about 0.1% false positives with 4 of them) */
#define BLOOM_BITS 16

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

/* One block of 512 bits a key, four bits in it: one cache line a look */
static uint64_t *bloom_block(const struct strmap_gen *g, uint64_t h)
{
	return g->bloom + ((h >> 40) & (g->blocks - 1)) * 8;
}

static bool bloom_may(const struct strmap_gen *g, uint64_t h)
{
	const uint64_t *b = bloom_block(g, h);
	int k;

	for (k = 0; k < 4; k++) {
		unsigned int bit = (h >> (9 * k)) & 511;

		if (!(b[bit >> 6] & (1ULL << (bit & 63))))
			return false;
	}
	return true;
}

static void bloom_add(struct strmap_gen *g, uint64_t h)
{
	uint64_t *b = bloom_block(g, h);
	int k;

	for (k = 0; k < 4; k++) {
		unsigned int bit = (h >> (9 * k)) & 511;

		b[bit >> 6] |= 1ULL << (bit & 63);
	}
}

/* The entry for key in a generation, or NULL */
static struct strmap_entry *find_old(const struct strmap *m, const char *key,
				     uint64_t h)
{
	size_t i;

	/* newest first: mail mostly refers to recent mail */
	for (i = m->nr_gens; i-- > 0; ) {
		const struct strmap_gen *g = &m->gens[i];
		struct strmap_entry *e;

		if (!bloom_may(g, h))
			continue;
		e = find_in(g->e, g->size, key, h);
		if (e->hash)
			return e;
	}
	return NULL;
}

void *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_entry *e;
	uint64_t h;

	if (!key || (!m->size && !m->nr_gens))
		return NULL;
	h = str_hash(key);
	if (m->size) {
		e = find(m, key, h);
		if (e->hash)
			return e->value;
	}
	e = m->nr_gens ? find_old(m, key, h) : NULL;
	return e ? e->value : NULL;
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
	size_t i, blocks = 1;

	if (!m->nr)
		return 0;
	e = scratch_alloc(m->scratch, m->size * sizeof(*e));
	if (!e)
		return -1;
	memcpy(e, m->e, m->size * sizeof(*e));
	while (blocks * 512 < m->nr * BLOOM_BITS)
		blocks *= 2;
	ALLOC_GROW(m->gens, m->nr_gens + 1, m->alloc_gens);
	g = &m->gens[m->nr_gens++];
	g->e = e;
	g->size = m->size;
	g->blocks = blocks;
	g->bloom = xcalloc(blocks * 8, sizeof(*g->bloom));
	for (i = 0; i < m->size; i++)
		if (e[i].hash)
			bloom_add(g, e[i].hash);
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
	void *prev;

	if ((m->nr + 1) * 4 > m->size * 3)
		grow(m);
	e = find(m, key, h);
	old = e->hash || !m->nr_gens ? NULL : find_old(m, key, h);
	if (old)
		e = old;
	if (e->hash) {
		prev = e->value;
		e->value = value;
		return prev;
	}
	e->key = key;
	e->hash = h;
	e->value = value;
	m->nr++;
	/* full: a new generation (if the file is full, it stays here) */
	if (m->scratch && m->nr >= m->gen)
		freeze(m);
	return NULL;
}

void strmap_use_scratch(struct strmap *m, struct scratch *s)
{
	m->scratch = s;
	/* the table in memory stays a small part of the window */
	m->gen = MAX(MIN(s->window / 1024, STRMAP_GEN), 64);
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
		free(m->gens[i].bloom);
	free(m->gens);
	memset(m, 0, sizeof(*m));
}
