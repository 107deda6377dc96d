/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Early exits that leave something taken: the engine of pte-unmap-exit
 * and rcu-unlock-exit (exitleak.c).  A rule is a table of what takes
 * (pte_offset_map_lock(), rcu_read_lock()) and what gives back.
 */
#ifndef LOREBOT_EXITLEAK_H
#define LOREBOT_EXITLEAK_H

#include "checkers/rules.h"

struct leak_pair {
	const char *take;		/* the call that takes */
	const char *const *give;	/* the calls that give back, NULL-ended */
	bool result;			/* what is held is the call's result:
					 * "pte = pte_offset_map_lock(...)",
					 * NULL when it failed */
	const char *what;		/* "the PTE table mapped and locked" */
	enum {
		FIX_NONE,
		FIX_CALL,		/* "give[0]()" */
		FIX_PTR,		/* "give[0](pte)" */
		FIX_PTR_LOCK,		/* "give[0](pte, ptl)": &ptl, argument 4 */
	} fix;
};

void exitleak_run(struct check_ctx *c, const struct leak_pair *pairs, size_t n);

/* Do tokens first..last test one of names for NULL ("!pte", "pte == NULL")? */
bool exitleak_cond_tests_null(const struct cview *v, int first, int last,
			      const int *names, int nr);
/*
 * Each call in the bodies of c's file (each function's block, or with hunks
 * only, each top-level block whose head is outside them): fn(c, body, tok,
 * data) with the call's name at tok; bodies skip() says yes to are left out
 */
void exitleak_each_call(struct check_ctx *c,
			bool (*skip)(const struct cview *v, int b, const char *name, int len),
			void (*fn)(struct check_ctx *c, int body, int tok, void *data),
			void *data);
/* The names "a = b = take(...)" assigns before token t (at most max) */
int exitleak_held_names(const struct cview *v, int t, int *names, int max);

#endif
