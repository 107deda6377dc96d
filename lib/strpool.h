/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An arena for what lives exactly as long as one series assembly, and
 * interned strings in it.  A large mbox holds tens of thousands of small
 * strings (Message-IDs, names, addresses, trailers): one malloc each
 * costs more in allocator overhead than the strings themselves, and the
 * same few thousand names and addresses recur in every thread.
 * Everything is freed at once by strpool_release().
 */
#ifndef LOREBOT_STRPOOL_H
#define LOREBOT_STRPOOL_H

#include "lib/strmap.h"

struct strpool_chunk;
struct scratch;

struct strpool {
	struct strpool_chunk *chunks;
	char *cur;		/* free space in the newest chunk */
	size_t left;
	size_t bytes;		/* in chunks: what the pool holds */
	struct strmap interned;
	/* set: chunks are there, and the interned in generations there */
	struct scratch *scratch;
};

#define STRPOOL_INIT { 0 }

void strpool_init(struct strpool *p);
void strpool_release(struct strpool *p);
/*
 * Move what the pool holds into s (which outlives the pool), in place:
 * every pointer into it stays good.  New space comes from s too.
 */
void strpool_use_scratch(struct strpool *p, struct scratch *s);

/* size bytes, aligned for any object, zeroed */
void *strpool_alloc(struct strpool *p, size_t size);
/*
 * A larger array: n zeroed elements of size, the first nr copied from
 * arr.  The old array stays behind in the pool: for short lists.
 */
void *strpool_grow(struct strpool *p, const void *arr, size_t nr, size_t n,
		   size_t size);
/* A copy of s (NULL stays NULL) */
char *strpool_strdup(struct strpool *p, const char *s);
/* The one copy of s in the pool (NULL stays NULL); never modify it */
char *strpool_intern(struct strpool *p, const char *s);

#endif
