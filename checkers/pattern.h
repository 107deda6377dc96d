/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Regular expressions for the checkers (the only user of libpcre2).
 * A pattern is declared once, statically, and compiled on first use:
 *
 *	static struct pattern fixes_re = PATTERN("^Fixes:\\s*([0-9a-f]+)", PAT_CASELESS);
 *	struct pattern_match m;
 *	if (pattern_match(&fixes_re, line, len, &m))
 *		... m.start[1], m.end[1] ...
 *
 * A pattern that does not compile is a programming error: it is
 * reported on stderr once and never matches.  pattern_release_all()
 * frees every compiled pattern (the end of a run, leak checkers).
 */
#ifndef LOREBOT_PATTERN_H
#define LOREBOT_PATTERN_H

#include <stddef.h>

#include "lib/util.h"

#define PAT_CASELESS	0x1
#define PAT_MULTILINE	0x2

#define PATTERN_GROUPS 10

struct pattern {
	const char *re;
	unsigned int flags;
	/* private */
	void *code;
	void *md;
	bool failed;
	struct pattern *next;
};

#define PATTERN(re_, flags_) { .re = (re_), .flags = (flags_) }

struct pattern_match {
	int groups;			/* groups set, including group 0 */
	size_t start[PATTERN_GROUPS];	/* offsets into the subject; */
	size_t end[PATTERN_GROUPS];	/* start == end == -1 when unset */
};

/* Does p match s[0..len)?  Groups in m (may be NULL). */
bool pattern_match(struct pattern *p, const char *s, size_t len,
		   struct pattern_match *m);
/* The same from offset start (for repeated matching) */
bool pattern_match_at(struct pattern *p, const char *s, size_t len,
		      size_t start, struct pattern_match *m);
/* Is group g set? */
static inline bool pattern_group(const struct pattern_match *m, int g)
{
	return g < m->groups && m->start[g] != (size_t)-1;
}
void pattern_release_all(void);

#endif
