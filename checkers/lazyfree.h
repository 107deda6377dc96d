/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the lazyfree-droppable rule: what a condition says about a
 * folio (lazyfree.c) and the fix for a decision (lazyfree-fix.c).
 */
#ifndef LOREBOT_LAZYFREE_H
#define LOREBOT_LAZYFREE_H

#include "lib/strmap.h"
#include "checkers/rules.h"

/* Mentions: what tokens test */
enum {
	T_LAZYFREE = 1,		/* a lazyfree test */
	T_ANON = 2,
	T_SWAPBACKED = 4,
	T_DIRTY = 8,
	T_DROPPABLE = 16,
	T_KNOWN = 32,		/* helper map: looked up, maybe nothing */
};

/* Facts: what holds where a decision runs */
enum {
	F_LAZYFREE = 1,		/* the folio is lazyfree */
	F_ANON = 2,
	F_NOSWAPBACKED = 4,
	F_SWAPBACKED = 8,	/* it is not lazyfree */
	F_NOTANON = 16,
	F_DROP = 32,		/* VM_DROPPABLE was decided on the way */
};

struct lazyfree_state {
	struct strmap helpers;	/* name -> T_* it stands for (| T_KNOWN) */
	struct strmap sites;	/* function name -> F_* of all its callers, +1 */
	struct check_ctx *c;	/* for helper and caller look-ups */
};

/* T_* of what tokens first..last of v test, helpers included */
unsigned int lazyfree_mentions(struct lazyfree_state *st, const struct cview *v,
			       int first, int last);

/* The action a decision's branch takes, for the polarity of the fix */
enum lazyfree_action {
	ACT_UNKNOWN,
	ACT_KEEP,	/* keep, skip, re-mark, remap: return, continue, goto out */
	ACT_DISCARD,	/* drop the folio: goto discard, dec_mm_counter() */
};

enum lazyfree_action lazyfree_action_of(const struct cview *v, int branch);

/*
 * The condition of decision node n rewritten to allow for VM_DROPPABLE
 * VMAs, or NULL when no rewrite is known to be right (lazyfree-fix.c).
 */
char *lazyfree_fix(struct lazyfree_state *st, const struct check_ctx *c,
		   const struct cview *v, int n);

#endif
