/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory that lives in a scratch file: for more mail than memory should
 * hold.
 *
 * Assembling series has to keep something of every message until the
 * end (a review can answer a patch, and a v8 can supersede a v1, any
 * number of messages later).  Past series.memory, what the assembly
 * allocates comes from here instead: pieces of a private file in
 * $TMPDIR, else /var/tmp (unlinked at once), mapped shared.  The code
 * that uses it is the same pointer code as in memory; only where the
 * bytes live differs.  Every so often (scratch_tick()), when more of
 * the file is mapped in than the window allows, it is all unmapped from
 * this process (madvise MADV_DONTNEED: the data stays in the file, and
 * the next touch maps a page back), so the resident set stays within
 * the window however large the file grows.
 *
 * Space in the file is reserved (fallocate) before it is handed out: a
 * full disk is an error here, never a SIGBUS later.
 */
#ifndef LOREBOT_SCRATCH_H
#define LOREBOT_SCRATCH_H

#include "lib/strbuf.h"

struct scratch_seg {
	char *base;
	size_t size;
	bool adopted;		/* its owner unmaps it */
};

struct scratch {
	int fd;
	int statm;		/* /proc/self/statm, or -1 */
	size_t window;
	size_t page;
	size_t baseline;	/* pages mapped in from files before */
	struct scratch_seg *segs;
	size_t nr_segs, alloc_segs;
	/* the segments as runs of adjacent addresses: what a drop unmaps */
	struct scratch_seg *runs;
	size_t nr_runs, runs_of;	/* runs_of: nr_segs they were made of */
	char *cur;		/* free space in the open segment */
	size_t left;
	size_t next_seg;	/* size of the next segment */
	size_t total;		/* bytes handed out */
	size_t filed;		/* bytes of the file */
	size_t drops, checks;
	unsigned int ticks, next_check;	/* ticks since the last check, and till the next */
	struct strbuf err;
};

/*
 * A scratch file that keeps at most about window bytes of itself
 * mapped in; 0 or -1 with err saying what failed (and what is needed).
 */
int scratch_open(struct scratch **sp, size_t window, struct strbuf *err);
void scratch_close(struct scratch *s);

/*
 * size zeroed bytes, aligned to 16, that live until scratch_close(); or
 * NULL once the file cannot grow (scratch_error() says why: callers
 * fall back to malloc and let the caller of the whole stop).
 */
void *scratch_alloc(struct scratch *s, size_t size);
/*
 * Move len bytes at addr (page-aligned, mapped privately by the caller,
 * who will unmap them) into the file, in place: the same bytes at the
 * same address, from then on in the window.  0, or -1 when they stay
 * where they are (too many pieces, or the file cannot grow: then
 * scratch_error() says so).
 */
int scratch_adopt(struct scratch *s, void *addr, size_t len);
/* Bytes handed out */
static inline size_t scratch_used(const struct scratch *s)
{
	return s->total;
}

/* NULL, or why the file could not grow */
static inline const char *scratch_error(const struct scratch *s)
{
	return s && s->err.len ? s->err.buf : NULL;
}

/*
 * Call once per unit of work (a message, a send) where the file is
 * read or written: every few calls it looks at how much is mapped in,
 * and empties the window when that is more than it allows.  The fuller
 * the window, the sooner the next look (scratch.c: SCRATCH_TICK_BYTES).
 */
void scratch_check(struct scratch *s);
static inline void scratch_tick(struct scratch *s)
{
	if (s && ++s->ticks >= s->next_check)
		scratch_check(s);
}
/*
 * About to touch len bytes of the file in one go (an array copied to a
 * larger one, a table made again), with no tick in between: the window
 * is emptied first if they would not fit beside what is mapped in.
 * Without it, a copy of 13 MB at 1,000,000 messages went past the
 * window by as much.
 */
void scratch_room(struct scratch *s, size_t len);
/* len bytes at addr, in the file, will not be read again: unmap them */
void scratch_forget(struct scratch *s, void *addr, size_t len);

#endif
