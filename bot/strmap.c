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

static struct strmap_entry *find(const struct strmap *m, const char *key,
				 uint64_t h)
{
	size_t i = h & (m->size - 1);

	for (;;) {
		struct strmap_entry *e = &m->e[i];

		if (!e->hash || (e->hash == h && !strcmp(e->key, key)))
			return e;
		i = (i + 1) & (m->size - 1);
	}
}

void *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_entry *e;

	if (!m->size || !key)
		return NULL;
	e = find(m, key, str_hash(key));
	return e->hash ? e->value : NULL;
}

static void grow(struct strmap *m)
{
	struct strmap_entry *old = m->e;
	size_t i, oldsize = m->size;
	bool was_mapped = m->mapped;

	m->size = m->size ? m->size * 2 : 64;
	m->e = m->scratch ? scratch_alloc(m->scratch, m->size * sizeof(*m->e)) : NULL;
	m->mapped = m->e != NULL;
	if (!m->e)	/* no scratch, or it is full (scratch_error()) */
		m->e = xcalloc(m->size, sizeof(*m->e));
	for (i = 0; i < oldsize; i++)
		if (old[i].hash)
			*find(m, old[i].key, old[i].hash) = old[i];
	if (!was_mapped)
		free(old);
}

void *strmap_put(struct strmap *m, const char *key, void *value)
{
	struct strmap_entry *e;
	uint64_t h = str_hash(key);
	void *prev;

	if ((m->nr + 1) * 4 > m->size * 3)
		grow(m);
	e = find(m, key, h);
	if (e->hash) {
		prev = e->value;
		e->value = value;
		return prev;
	}
	e->key = key;
	e->hash = h;
	e->value = value;
	m->nr++;
	return NULL;
}

void strmap_use_scratch(struct strmap *m, struct scratch *s)
{
	struct strmap_entry *e;

	m->scratch = s;
	if (m->mapped || !m->size)
		return;
	e = scratch_alloc(s, m->size * sizeof(*e));
	if (!e)
		return;		/* it stays here; scratch_error() says why */
	memcpy(e, m->e, m->size * sizeof(*e));
	free(m->e);
	m->e = e;
	m->mapped = true;
}

void strmap_release(struct strmap *m)
{
	if (!m->mapped)
		free(m->e);
	memset(m, 0, sizeof(*m));
}
