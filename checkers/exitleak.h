/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Early exits that leave something taken: the engine of pte-unmap-exit,
 * rcu-unlock-exit and unlock-exit (exitleak.c) over the paths of flow.h.
 * A rule is a table of what takes (pte_offset_map_lock(), rcu_read_lock(),
 * spin_lock()) and what gives back.
 */
#ifndef LOREBOT_EXITLEAK_H
#define LOREBOT_EXITLEAK_H

#include "checkers/flow.h"

/*
 * Report every exit that leaves with something of pairs held, on the
 * paths of each function (flow.h): at the return or goto, named, with the
 * give-back as the suggestion where the exit allows it
 */
void exitleak_run(struct check_ctx *c, const struct flow_pair *pairs, size_t n);
/*
 * The same, but a function whose first word on a lock is its give-back
 * was entered holding it (it drops and takes again its caller's lock):
 * leaving with it held is no leak.  For locks only: what a table of
 * pte_offset_map_lock() sees given back may have been taken by a call
 * not in it (spin_unlock(ptl) after pmd_trans_huge_lock()).
 */
void exitleak_run_entered(struct check_ctx *c, const struct flow_pair *pairs, size_t n);
/*
 * exitleak_run_entered(), and a lock the series takes that the function
 * never gives back is reported when the function cannot hand it to its
 * caller (flow_ops.lost)
 */
void exitleak_run_lost(struct check_ctx *c, const struct flow_pair *pairs, size_t n);

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
