/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A string-keyed hash map (open addressing).  Keys are borrowed: they
 * must stay valid while the map holds them.
 *
 * With a scratch file (strmap_use_scratch()), the map keeps locality:
 * a hashed table has none, and once it is larger than the window every
 * lookup would map a page back in.  The newest entries stay in a small
 * table in memory.  Every m->gen of them (STRMAP_GEN, or a KB of window
 * an entry for a window under 32 MB), that table is copied to the
 * scratch file as a generation, frozen, with a Bloom filter (two bytes
 * an entry) that says whether it may hold a key.  A filter of all the
 * generations (a byte an entry; in memory up to an eighth of the
 * window, in the file past that) says first whether any may: most keys
 * looked up are new.  A lookup reads only the generations that may
 * have the key, newest first: mail mostly refers to recent mail.  What
 * is found deep is copied to the table in memory, so that names and
 * addresses are not looked for deep again.
 */
#ifndef LOREBOT_STRMAP_H
#define LOREBOT_STRMAP_H

#include "lib/util.h"

struct strmap_entry {
	const char *key;
	uint64_t hash;
	void *value;
};

struct scratch;
struct strmap_gen;

/* A Bloom filter (lib/strmap.c) */
struct bloom {
	uint64_t *w;		/* blocks of 8 words */
	size_t blocks;		/* of 512 bits */
	bool mapped;		/* w is in a scratch file */
};

struct strmap {
	struct strmap_entry *e;
	size_t nr, size;
	struct scratch *scratch;	/* set: generations go there */
	size_t gen;			/* entries a generation */
	struct strmap_gen *gens;	/* oldest first */
	size_t nr_gens, alloc_gens;
	size_t old;			/* entries in them */
	struct bloom all;		/* which keys any of them may hold */
	size_t all_for;			/* entries all was made for */
	size_t all_max;			/* bytes of all kept in memory */
};

#define STRMAP_INIT { 0 }
/* Entries of a generation, at most */
#define STRMAP_GEN (32 * 1024)

void *strmap_get(const struct strmap *m, const char *key);
/* Returns the previous value, or NULL */
void *strmap_put(struct strmap *m, const char *key, void *value);
void strmap_release(struct strmap *m);
/*
 * From now on, keep the map in generations in s (which outlives the
 * map), what it holds now the first.
 */
void strmap_use_scratch(struct strmap *m, struct scratch *s);

#endif
