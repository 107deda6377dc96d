// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "bot/strmap.h"

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
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

	m->size = m->size ? m->size * 2 : 64;
	m->e = xcalloc(m->size, sizeof(*m->e));
	for (i = 0; i < oldsize; i++)
		if (old[i].hash)
			*find(m, old[i].key, old[i].hash) = old[i];
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

void strmap_release(struct strmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}
