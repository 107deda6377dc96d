// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "bot/strpool.h"

#define CHUNK_SIZE (64 * 1024)
#define ALIGN 16

struct strpool_chunk {
	struct strpool_chunk *next;
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

		free(c);
		c = next;
	}
	strmap_release(&p->interned);
	memset(p, 0, sizeof(*p));
}

static struct strpool_chunk *new_chunk(struct strpool *p, size_t size)
{
	p->bytes += sizeof(struct strpool_chunk) + size;
	return xcalloc(1, sizeof(struct strpool_chunk) + size);
}

/* size bytes, not aligned: for strings */
static char *take(struct strpool *p, size_t size)
{
	char *r;

	if (size > CHUNK_SIZE / 4) {
		/* a large piece gets a chunk of its own, behind the current */
		struct strpool_chunk *c = new_chunk(p, size);

		if (p->chunks) {
			c->next = p->chunks->next;
			p->chunks->next = c;
		} else {
			p->chunks = c;
		}
		return (char *)c->space;
	}
	if (size > p->left) {
		struct strpool_chunk *c = new_chunk(p, CHUNK_SIZE);

		c->next = p->chunks;
		p->chunks = c;
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

char *strpool_strdup(struct strpool *p, const char *s)
{
	size_t n;
	char *r;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	r = take(p, n);
	memcpy(r, s, n);
	return r;
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
