// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <sys/mman.h>

#include "lib/scratch.h"
#include "lib/strpool.h"

/* A chunk is one mapping of 16 pages, its header included */
#define CHUNK_MAP (64 * 1024)
#define CHUNK_SIZE (CHUNK_MAP - sizeof(struct strpool_chunk))
#define ALIGN 16

/*
 * Chunks are mappings of their own, not malloc'ed: strpool_use_scratch()
 * can then move them into a scratch file where they are.
 */
struct strpool_chunk {
	struct strpool_chunk *next;	/* mapped here, not in a scratch */
	size_t map;			/* bytes mapped, this header included */
	/* the space follows, aligned */
	max_align_t space[];
};

void strpool_init(struct strpool *p)
{
	memset(p, 0, sizeof(*p));
}

void strpool_release(struct strpool *p)
{
	struct strpool_chunk *c = p->chunks;

	while (c) {
		struct strpool_chunk *next = c->next;

		munmap(c, c->map);
		c = next;
	}
	strmap_release(&p->interned);
	memset(p, 0, sizeof(*p));
}

void strpool_use_scratch(struct strpool *p, struct scratch *s)
{
	struct strpool_chunk *c;

	p->scratch = s;
	/* what is here already goes to the file too, in place */
	for (c = p->chunks; c; c = c->next)
		scratch_adopt(s, c, c->map);
	strmap_use_scratch(&p->interned, s);
}

/*
 * A chunk of at least size bytes.  The list is for strpool_release():
 * chunks taken from a scratch file go with it, and stay off the list,
 * so that releasing touches none of them.
 */
static struct strpool_chunk *new_chunk(struct strpool *p, size_t size)
{
	size_t map = (sizeof(struct strpool_chunk) + size + 4095) & ~(size_t)4095;
	struct strpool_chunk *c = NULL;

	p->bytes += map;
	if (p->scratch)
		c = scratch_alloc(p->scratch, map);
	if (c)
		return c;
	/* no scratch, or it is full: the caller looks at scratch_error() */
	c = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		oom(map);
	c->map = map;
	c->next = p->chunks;
	p->chunks = c;
	return c;
}

/* size bytes, not aligned: for strings */
static char *take(struct strpool *p, size_t size)
{
	struct strpool_chunk *c;
	char *r;

	/* a large piece gets a chunk of its own */
	if (size > CHUNK_SIZE / 4)
		return (char *)new_chunk(p, size)->space;
	if (size > p->left) {
		c = new_chunk(p, CHUNK_SIZE);
		p->cur = (char *)c->space;
		p->left = CHUNK_SIZE;
	}
	r = p->cur;
	p->cur += size;
	p->left -= size;
	return r;
}

void *strpool_alloc(struct strpool *p, size_t size)
{
	size_t pad;

	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (size > CHUNK_SIZE / 4)
		return take(p, size);	/* a chunk of its own is aligned */
	pad = -(uintptr_t)p->cur & (ALIGN - 1);
	if (pad + size > p->left) {
		p->left = 0;		/* a fresh chunk starts aligned */
	} else {
		p->cur += pad;
		p->left -= pad;
	}
	return take(p, size);		/* never handed out before: zero */
}

void *strpool_grow(struct strpool *p, const void *arr, size_t nr, size_t n,
		   size_t size)
{
	void *to = strpool_alloc(p, n * size);

	if (nr)
		memcpy(to, arr, nr * size);
	return to;
}

char *strpool_strdup(struct strpool *p, const char *s)
{
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	return memcpy(take(p, n), s, n);
}

char *strpool_intern(struct strpool *p, const char *s)
{
	char *r;

	if (!s)
		return NULL;
	r = strmap_get(&p->interned, s);
	if (r)
		return r;
	r = strpool_strdup(p, s);
	strmap_put(&p->interned, r, r);
	return r;
}
