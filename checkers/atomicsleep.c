// SPDX-License-Identifier: GPL-2.0
/*
 * atomic-sleep: nothing that may sleep while a spinlock, the page table
 * lock (pte_offset_map_lock(), pmd_lock()), the RCU read lock or disabled
 * preemption is held: no GFP_KERNEL (GFP_NOFS, GFP_NOIO, GFP_USER,
 * GFP_HIGHUSER) allocation, no cond_resched(), mutex, rwsem, mmap lock,
 * folio lock or waiting.  From Anthony Yznaga's reply on "[PATCH v2 13/20]
 * x86/mm: enable page table sharing": "the callback is not allowed to
 * sleep due to holding a ptl spin lock"
 * (<3701bcd4-ad8e-4daf-9b1b-0bc1a7d5f2b0@oracle.com>), and Roman
 * Gushchin's review of "[PATCH v2 00/28] Eliminate Dying Memory Cgroup":
 * "Does calling workingset_test_recent() with flush=true while holding
 * rcu_read_lock() risk sleeping in atomic context?"
 * (<7ia4ldikrbsj.fsf@castle.c.googlers.com>).
 *
 * What is held is the region after the statement that takes it, among
 * the statements that follow it in its block, up to the first call that
 * gives anything back (any "unlock" call for locks): code after a branch
 * that unlocked, or under the NULL check of the PTE pointer, is not in it.
 */
#include <stdlib.h>

#include "checkers/exitleak.h"

struct hold {
	const char *const *take;
	const char *const *give;	/* NULL: any call named like "unlock" */
	const char *what;
};

static const char *const take_spin[] = {
	"spin_lock", "spin_lock_irq", "spin_lock_irqsave", "spin_lock_bh",
	"raw_spin_lock", "raw_spin_lock_irq", "raw_spin_lock_irqsave",
	"read_lock", "write_lock", "read_lock_irq", "write_lock_irq",
	"read_lock_irqsave", "write_lock_irqsave", NULL,
};
static const char *const take_ptl[] = {
	"pte_offset_map_lock", "pmd_lock", "pud_lock", "huge_pte_lock", NULL,
};
static const char *const take_rcu[] = { "rcu_read_lock", NULL };
static const char *const give_rcu[] = { "rcu_read_unlock", NULL };
static const char *const take_preempt[] = {
	"preempt_disable", "local_irq_disable", "local_irq_save", NULL,
};
static const char *const give_preempt[] = {
	"preempt_enable", "preempt_enable_no_resched", "local_irq_enable",
	"local_irq_restore", NULL,
};

static const struct hold holds[] = {
	{ take_ptl, NULL, "the page table lock" },
	{ take_spin, NULL, "a spinlock" },
	{ take_rcu, give_rcu, "the RCU read lock" },
	{ take_preempt, give_preempt, "preemption or interrupts disabled" },
};

static const char *const sleepers[] = {
	"cond_resched", "schedule", "schedule_timeout", "msleep", "ssleep",
	"usleep_range", "mutex_lock", "mutex_lock_interruptible",
	"mutex_lock_killable", "down_read", "down_write", "down_read_killable",
	"down_write_killable", "mmap_read_lock", "mmap_write_lock",
	"mmap_read_lock_killable", "folio_lock", "lock_page", "folio_lock_killable",
	"folio_wait_writeback", "wait_on_page_writeback", "folio_wait_locked",
	"wait_for_completion", "synchronize_rcu", "flush_work", "flush_workqueue",
	"lru_add_drain_all", "might_sleep", "vmalloc", "vzalloc", NULL,
};
static const char *const sleeping_gfp[] = {
	"GFP_KERNEL", "GFP_KERNEL_ACCOUNT", "GFP_USER", "GFP_NOFS", "GFP_NOIO",
	"GFP_HIGHUSER", "GFP_HIGHUSER_MOVABLE",
};

static bool in(const struct ctok *t, const char *const *tab)
{
	for (; *tab; tab++)
		if (ctok_is(t, *tab))
			return true;
	return false;
}

/* An argument that is a sleeping GFP mask ("GFP_KERNEL | __GFP_ZERO") */
static const char *sleeping_mask(const struct cview *v, int call)
{
	struct cterm a[16];
	int close = v->toks[call + 1].match, nr, k, i;
	size_t g;

	if (close < 0)
		return NULL;
	nr = cview_split(v, call + 2, close - 1, ",", a, 16);
	for (k = 0; k < nr && nr < 16; k++) {
		const char *hit = NULL;
		bool plain = true;

		for (i = a[k].first; i <= a[k].last; i++) {
			const struct ctok *t = &v->toks[i];

			if (ctok_is(t, "|"))
				continue;
			for (g = 0; g < ARRAY_SIZE(sleeping_gfp); g++)
				if (ctok_is(t, sleeping_gfp[g]))
					hit = sleeping_gfp[g];
			if (!(t->kind == CT_IDENT && !strncmp(t->s, "GFP_", 4)) &&
			    !(t->kind == CT_IDENT && !strncmp(t->s, "__GFP_", 6)))
				plain = false;
		}
		if (hit && plain)
			return hit;
	}
	return NULL;
}

static bool gives(const struct cview *v, int i, const struct hold *h)
{
	const struct ctok *t = &v->toks[i];

	if (t->kind != CT_IDENT || !cv_is(v, i + 1, "("))
		return false;
	return h->give ? in(t, h->give) : check_ident_has(t, "unlock");
}

/* The name "pte = pte_offset_map_lock(...)" holds, for its NULL check */
static int held_name(const struct cview *v, int t)
{
	int names[1];

	return exitleak_held_names(v, t, names, 1) ? names[0] : -1;
}

static bool under_test_of(const struct cview *v, int x, int stop, int name)
{
	int p;

	if (name < 0)
		return false;
	for (p = v->nodes[x].parent; p >= 0 && p != stop; p = v->nodes[p].parent) {
		const struct cnode *n = &v->nodes[p];

		if (n->kind == CN_IF && n->cond_open >= 0 &&
		    exitleak_cond_tests_null(v, n->cond_open, n->cond_close, &name, 1))
			return true;
	}
	return false;
}

static void check_hold(struct check_ctx *c, const struct hold *h, int t)
{
	const struct cview *v = &c->file->view;
	int s = callers_node_at(v, t), blk, x, i, name;
	const struct cnode *st;

	if (s < 0 || v->nodes[s].kind != CN_EXPR)
		return;
	st = &v->nodes[s];
	blk = st->parent;
	if (blk < 0 || (v->nodes[blk].kind != CN_BLOCK && v->nodes[blk].kind != CN_OPEN))
		return;
	name = held_name(v, t);
	for (x = st->next; x >= 0; x = v->nodes[x].next) {
		const struct cnode *n = &v->nodes[x];

		for (i = n->first; i <= n->last; i++) {
			const struct ctok *k = &v->toks[i];
			const char *mask = NULL;
			int in_node;

			if (gives(v, i, h))
				return;
			if (k->kind != CT_IDENT || !cv_is(v, i + 1, "("))
				continue;
			if (!in(k, sleepers) && !(mask = sleeping_mask(v, i)))
				continue;
			in_node = callers_node_at(v, i);
			if (in_node >= 0 && under_test_of(v, in_node, blk, name))
				continue;
			if (!check_sees(c, v->lines[k->line].added ||
				       v->lines[v->toks[t].line].added))
				continue;
			if (mask)
				check_report_at(c, CHECK_WARNING, i, i, v->toks[i + 1].match,
						"'%.*s()' with %s may sleep, but %s taken "
						"at line %d (%.*s()) is held here: sleeping "
						"in atomic context", k->len, k->s, mask, h->what,
						v->lines[v->toks[t].line].no, v->toks[t].len,
						v->toks[t].s);
			else
				check_report_at(c, CHECK_WARNING, i, i, v->toks[i + 1].match,
						"'%.*s()' may sleep, but %s taken at line %d "
						"(%.*s()) is held here: sleeping in atomic "
						"context", k->len, k->s, h->what,
						v->lines[v->toks[t].line].no, v->toks[t].len,
						v->toks[t].s);
		}
	}
}

static void hold_call(struct check_ctx *c, int body, int t, void *data)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(holds); k++)
		if (in(&c->file->view.toks[t], holds[k].take))
			check_hold(c, &holds[k], t);
}

static void atomicsleep_run(struct check_ctx *c)
{
	exitleak_each_call(c, NULL, hold_call, NULL);
}

const struct checker atomicsleep_checker = {
	.name = "atomic-sleep",
	.summary = "nothing sleeps under a spinlock, the PTL or rcu_read_lock()",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.run = atomicsleep_run,
};
