/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside series assembly: what bot/series/series.c (messages into sends) and
 * bot/series/series-link.c (sends into series) share.
 */
#ifndef LOREBOT_SERIES_INT_H
#define LOREBOT_SERIES_INT_H

#include "bot/series/series.h"

/* n zeroed elements that live as long as the assembly: in its pool */
#define POOL_ARRAY(a, n, type) \
	((type *)strpool_alloc(&(a)->pool, (n) * sizeof(type)))

/*
 * Room for n elements of size in *arr (which holds nr), taken from the
 * scratch file when there is one; *mapped says where *arr is.
 */
void series_array_resize(struct assembly *a, void **arr, size_t nr, size_t n,
			 size_t *alloc, size_t size, bool *mapped);

/* Room for one more, as ALLOC_GROW() */
#define ARRAY_GROW(a, x, nr, alloc, mapped)				\
	do {								\
		if ((size_t)(nr) + 1 > (alloc)) {			\
			void *p_ = (x);					\
			series_array_resize((a), &p_, (nr), (alloc) * 3 / 2 + 16,\
					    &(alloc), sizeof(*(x)), &(mapped));\
			(x) = p_;					\
		}							\
	} while (0)

/* m's kind, in m and in a->kinds */
static inline void series_kind_set(struct assembly *a, struct msg *m,
				   enum msg_kind kind)
{
	m->kind = kind;
	a->kinds[m->slot] = (unsigned char)kind;
}

/* The kind of message i, without reading the message */
static inline enum msg_kind series_kind_of(const struct assembly *a, size_t i)
{
	return (enum msg_kind)a->kinds[i];
}

/* What assembly found out about m (during series_build()) */
static inline struct msg_state *series_state(const struct assembly *a,
					     const struct msg *m)
{
	return &a->state[m->slot];
}

/* The send m is in, or NULL */
static inline struct send *series_send_of(const struct assembly *a,
					  const struct msg *m)
{
	return a->state[m->slot].send;
}

/* The parent, else the nearest known ancestor, or NULL */
struct msg *series_known_parent(struct assembly *a, const struct msg *m);
bool series_same_sender(const char *x, const char *y);

/*
 * What sorting looks at, copied out: qsort() makes n log n comparisons
 * in no order, and in a scratch file each would map pages back in.
 */
struct sort_key {
	int64_t date;
	size_t index;
	/*
	 * What a tie of dates compares, when it is not the index: its own
	 * pointer, so that a comparison reads it alone, not the chain of
	 * structs that leads to it
	 */
	const char *tie;
	void *it;
};

/* In place, without malloc (heapsort); the keys are all different */
void series_sort_keys(struct assembly *a, struct sort_key *k, size_t n,
		      int (*cmp)(const void *, const void *));

/* A send opened by its first message; one message more in it */
struct send *series_new_send(struct assembly *a, const struct msg *first);
void series_send_put(struct assembly *a, struct send *s, struct msg *m);
/* sort_key by date, then index */
int series_cmp_key(const void *x, const void *y);

/* bot/series/series-fallback.c: patches threading did not place */
void series_group_fallback(struct assembly *a);

/* bot/series/series-link.c: after replies are attached */
void series_complete_partial_resends(struct assembly *a);
void series_link(struct assembly *a);

#endif
