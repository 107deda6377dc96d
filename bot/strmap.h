/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A string-keyed hash map (open addressing).  Keys are borrowed: they
 * must stay valid while the map holds them.
 */
#ifndef LOREBOT_STRMAP_H
#define LOREBOT_STRMAP_H

#include "bot/util.h"

struct strmap_entry {
	const char *key;
	uint64_t hash;
	void *value;
};

struct scratch;

struct strmap {
	struct strmap_entry *e;
	size_t nr, size;
	struct scratch *scratch;	/* set: tables grow there */
	bool mapped;			/* e is in scratch */
};

#define STRMAP_INIT { 0 }

void *strmap_get(const struct strmap *m, const char *key);
/* Returns the previous value, or NULL */
void *strmap_put(struct strmap *m, const char *key, void *value);
void strmap_release(struct strmap *m);
/* Move the table to s (which outlives the map), and grow it there */
void strmap_use_scratch(struct strmap *m, struct scratch *s);

#endif
