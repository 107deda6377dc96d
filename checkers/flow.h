/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The paths of a function (flow.c): what is held at each exit and at each
 * call, for the rules about locks, RCU sections and mapped page tables.
 *
 * A rule gives a table of pairs (what takes, how, what gives back).  For
 * each function of a touched file (with a tree the whole post-image, from
 * hunks each function or block they show) the walk follows the statement
 * tree: sequences, both branches of an if (a conditional take such as
 * "if (mmap_write_lock_killable(mm)) return -EINTR;" or "if (!pte)" after
 * pte_offset_map_lock() held on one side only), loops run zero or more
 * times, switch cases, and every forward goto into the code after its
 * label.  Where paths join, what is held is what is held on all of them:
 * code that takes a lock only under a condition and drops it under the
 * same one is never reported.  A resource handed to another function
 * (passed, stored, returned) counts as given back, and so does a lock a
 * callee in view drops (its first word on it is the unlock).
 *
 * From hunks alone the walk knows what it does not see: an exit after a
 * take whose function goes on beyond the hunk, a goto to a label outside
 * it.  Those are reported with check_undecided(), not guessed.
 */
#ifndef LOREBOT_FLOW_H
#define LOREBOT_FLOW_H

#include "checkers/rules.h"

#define FLOW_MAX 32

enum flow_how {
	FLOW_PLAIN,	/* rcu_read_lock(); spin_lock(l); */
	FLOW_ZERO_OK,	/* taken when it returns 0: mmap_write_lock_killable() */
	FLOW_TRUE_OK,	/* taken when it returns true: spin_trylock() */
	FLOW_PTR,	/* taken when it returns a pointer: pte_offset_map_lock() */
};

enum flow_fix {
	FLOW_FIX_NONE,
	FLOW_FIX_CALL,		/* "give()" */
	FLOW_FIX_KEY,		/* "give(<first argument of the take>)" */
	FLOW_FIX_NAME,		/* "give(pte)" */
	FLOW_FIX_NAME_LOCK,	/* "give(pte, ptl)" */
};

struct flow_pair {
	const char *take;
	enum flow_how how;
	const char *const *give;	/* NULL-ended; the first is suggested */
	const char *what;		/* "the RCU read lock" */
	int lock_arg;			/* the "&ptl" argument holding the lock, -1 */
	enum flow_fix fix;
	/*
	 * the lock goes with its object: a folio or page passed to a function
	 * (not a folio_*() accessor) may be unlocked or kept locked there
	 */
	bool object;
};

/* A resource the function takes: one take call */
struct flow_res {
	const struct flow_pair *pair;
	int tok;		/* the take's name */
	char *key;		/* its first argument, blanks removed ("" none) */
	int names[4];		/* names holding it: "pte = ...", "&ptl" */
	int nr_names;
	int lock_name;		/* the "&ptl" argument's name (also in names); -1 */
	int var;		/* "ret = mutex_lock_killable(m);": ret; -1 */
	bool in_cond;		/* taken inside the condition of an if */
};

struct flow;

struct flow_ops {
	/*
	 * An exit with resources held (bits of f->res): a return or goto
	 * node, or -1 for the end of the function; label: the label node a
	 * goto led through, -1
	 */
	void (*exit)(struct flow *f, int exit, int label, unsigned int held);
	/* each call at token t, with the resources held (maybe none) */
	void (*call)(struct flow *f, int t, unsigned int held);
	/*
	 * a lock the series takes and the function never gives back is
	 * lost, not kept for its caller, when the function returns a value
	 * (not a pointer, not void) and neither its name nor __acquires()
	 * says it takes for its caller (flow.c, lost_takes())
	 */
	bool lost;
};

struct flow {
	struct check_ctx *c;
	const struct cview *v;
	const struct flow_pair *pairs;
	size_t nr_pairs;
	const struct flow_ops *ops;
	void *data;
	int fn;			/* the function (or open block) node */
	int body;		/* its block */
	const char *fname;	/* its name, or NULL */
	int fname_len;
	bool end_seen;		/* its closing brace is in the view */
	struct flow_res res[FLOW_MAX];
	int nr_res;
	unsigned int keep;	/* resources the function gives back somewhere */
	unsigned int lost;	/* never given back, not kept for the caller */
	int depth;		/* of goto walks */
	int label;		/* the label of the goto walked, -1 */
};

/* Walk every function of c's file */
void flow_run(struct check_ctx *c, const struct flow_pair *pairs, size_t nr,
	      const struct flow_ops *ops, void *data);

/*
 * Is something of pairs held at the call at token tok of function node fn
 * of view v (a caller's file of the tree)?  what gets its name and line
 */
bool flow_held_at(struct check_ctx *c, const struct cview *v, int fn, int tok,
		  const struct flow_pair *pairs, size_t nr, struct strbuf *what);

/* "the RCU read lock", "spin_lock(&x->lock)", "'pte' of pte_offset_map_lock()" */
void flow_res_name(const struct flow *f, int r, struct strbuf *sb);
/* Is r given back by a call in tokens first..last? */
bool flow_gives(const struct flow *f, int r, int first, int last);
/* Does tokens first..last mention a name holding resource r? */
bool flow_mentions(const struct flow *f, int r, int first, int last);
/*
 * The give-back for r before token at ("spin_unlock(ptl)"), naming what
 * still holds it there (not "pte" after "pte++"); empty when unknown
 */
void flow_fix_text(const struct flow *f, int r, int at, struct strbuf *sb);

#endif
