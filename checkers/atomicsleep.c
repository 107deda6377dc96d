// SPDX-License-Identifier: GPL-2.0
/*
 * atomic-sleep: nothing that may sleep while a spinlock, the page table
 * lock (pte_offset_map_lock(), pmd_lock()), the RCU read lock or disabled
 * preemption is held: no GFP_KERNEL (GFP_NOFS, GFP_NOIO, GFP_USER,
 * GFP_HIGHUSER) allocation, no cond_resched(), mutex, rwsem, mmap lock,
 * folio lock, waiting or memcg stats flush.  From Anthony Yznaga's reply
 * on "[PATCH v2 13/20] x86/mm: enable page table sharing": "the callback
 * is not allowed to sleep due to holding a ptl spin lock"
 * (<3701bcd4-ad8e-4daf-9b1b-0bc1a7d5f2b0@oracle.com>), and Roman
 * Gushchin's review of "[PATCH v2 00/28] Eliminate Dying Memory Cgroup":
 * "Does calling workingset_test_recent() with flush=true while holding
 * rcu_read_lock() risk sleeping in atomic context?"
 * (<7ia4ldikrbsj.fsf@castle.c.googlers.com>).
 *
 * What is held at a call is what the paths of the function hold there
 * (flow.h): after a branch that unlocked, or under the NULL check of the
 * PTE pointer, nothing is.  With a tree the rule also looks one level
 * out: a call of a function of the tree whose own body sleeps, and, for
 * a sleeping call the series adds to a function that holds nothing, the
 * callers that call the function with something held (the shape of
 * "mm: workingset: move the stats flush into workingset_test_recent()",
 * whose caller filemap_cachestat() holds the RCU read lock: CVE-2024-41033).
 *
 * It catches no real bug of the benchmark's mm record (bench/bugs/README.md):
 * the mm bugs of its class found there sleep in a callee or a callback
 * the patch does not show.  Held-out set 3's one bug of its class
 * (bench/bugs/heldout3.tsv, drivers/block) was missed: brd_insert_page()
 * of "[PATCH v2] brd: avoid extra xarray lookups on first write"
 * (<20250507060700.3929430-1-hch@lst.de>, syzbot) passes a gfp variable
 * that may be GFP_NOIO to __xa_cmpxchg() inside rcu_read_lock().  Since
 * then a local mask variable every assignment of which names a sleeping
 * mask counts as one (variable_mask()), and the XArray's own lock is no
 * bar at its __xa_*() calls, which drop it to allocate; that bug is found
 * and no longer held out.  Held-out set 4's four bugs of its class were
 * all missed at the first run (bench/bugs/README.md, "Held out, set 4"):
 * the lock out of view, an IDR lock, sleeps one or two calls down; of
 * them only the list of sleepers was a class gap, semaphores (down()),
 * added since, which finds none of the four.
 */
#include <stdlib.h>

#include "checkers/callers.h"
#include "checkers/flow.h"
#include "lib/strmap.h"

#define GIVE(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define HOLD(take, how, give, what) \
	{ take, how, GIVE give, what, -1, FLOW_FIX_NONE, false }
#define HOLDPTR(take, give, what, lock) \
	{ take, FLOW_PTR, GIVE give, what, lock, FLOW_FIX_NONE, false }
#define MAX_CALLERS 8

static const struct flow_pair holds[] = {
	HOLD("spin_lock", FLOW_PLAIN, ("spin_unlock"), "a spinlock"),
	HOLD("spin_lock_nested", FLOW_PLAIN, ("spin_unlock"), "a spinlock"),
	HOLD("spin_lock_irq", FLOW_PLAIN, ("spin_unlock_irq"), "a spinlock"),
	HOLD("spin_lock_irqsave", FLOW_PLAIN, ("spin_unlock_irqrestore"), "a spinlock"),
	HOLD("spin_lock_bh", FLOW_PLAIN, ("spin_unlock_bh"), "a spinlock"),
	HOLD("spin_trylock", FLOW_TRUE_OK, ("spin_unlock"), "a spinlock"),
	HOLD("raw_spin_lock", FLOW_PLAIN, ("raw_spin_unlock"), "a spinlock"),
	HOLD("raw_spin_lock_irq", FLOW_PLAIN, ("raw_spin_unlock_irq"), "a spinlock"),
	HOLD("raw_spin_lock_irqsave", FLOW_PLAIN, ("raw_spin_unlock_irqrestore"),
	     "a spinlock"),
	HOLD("read_lock", FLOW_PLAIN, ("read_unlock"), "an rwlock"),
	HOLD("write_lock", FLOW_PLAIN, ("write_unlock"), "an rwlock"),
	HOLD("read_lock_irq", FLOW_PLAIN, ("read_unlock_irq"), "an rwlock"),
	HOLD("write_lock_irq", FLOW_PLAIN, ("write_unlock_irq"), "an rwlock"),
	HOLD("read_lock_irqsave", FLOW_PLAIN, ("read_unlock_irqrestore"), "an rwlock"),
	HOLD("write_lock_irqsave", FLOW_PLAIN, ("write_unlock_irqrestore"), "an rwlock"),
	HOLD("xa_lock", FLOW_PLAIN, ("xa_unlock"), "an XArray lock"),
	HOLD("xa_lock_irq", FLOW_PLAIN, ("xa_unlock_irq"), "an XArray lock"),
	HOLD("xas_lock", FLOW_PLAIN, ("xas_unlock"), "an XArray lock"),
	HOLD("xas_lock_irq", FLOW_PLAIN, ("xas_unlock_irq"), "an XArray lock"),
	HOLDPTR("pte_offset_map_lock", ("pte_unmap_unlock", "spin_unlock"),
		"the page table lock", 3),
	HOLDPTR("pte_alloc_map_lock", ("pte_unmap_unlock", "spin_unlock"),
		"the page table lock", 3),
	HOLDPTR("pmd_lock", ("spin_unlock"), "the page table lock", -1),
	HOLDPTR("pud_lock", ("spin_unlock"), "the page table lock", -1),
	HOLDPTR("huge_pte_lock", ("spin_unlock"), "the page table lock", -1),
	HOLDPTR("pmd_trans_huge_lock", ("spin_unlock"), "the page table lock", -1),
	HOLD("rcu_read_lock", FLOW_PLAIN, ("rcu_read_unlock"), "the RCU read lock"),
	HOLD("preempt_disable", FLOW_PLAIN, ("preempt_enable", "preempt_enable_no_resched"),
	     "preemption disabled"),
	HOLD("local_irq_disable", FLOW_PLAIN, ("local_irq_enable"), "interrupts disabled"),
	HOLD("local_irq_save", FLOW_PLAIN, ("local_irq_restore"), "interrupts disabled"),
};

static const char *const sleepers[] = {
	"cond_resched", "schedule", "schedule_timeout", "msleep", "ssleep",
	"usleep_range", "mutex_lock", "mutex_lock_interruptible",
	"mutex_lock_killable", "down", "down_interruptible", "down_killable",
	"down_read", "down_write", "down_read_killable",
	"down_write_killable", "mmap_read_lock", "mmap_write_lock",
	"mmap_read_lock_killable", "folio_lock", "lock_page", "folio_lock_killable",
	"folio_wait_writeback", "wait_on_page_writeback", "folio_wait_locked",
	"wait_for_completion", "synchronize_rcu", "flush_work", "flush_workqueue",
	"lru_add_drain_all", "might_sleep", "vmalloc", "vzalloc",
	"mem_cgroup_flush_stats", "mem_cgroup_flush_stats_ratelimited",
	"cgroup_rstat_flush", "css_rstat_flush", NULL,
};
static const char *const sleeping_gfp[] = {
	"GFP_KERNEL", "GFP_KERNEL_ACCOUNT", "GFP_USER", "GFP_NOFS", "GFP_NOIO",
	"GFP_HIGHUSER", "GFP_HIGHUSER_MOVABLE",
};

struct sleep_state {
	struct strmap callees;	/* name -> 1 + (what it calls that sleeps), or 1 */
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

/*
 * The sleeping mask a local variable passed to the call at t holds: every
 * assignment of it in the function body (from its declaration on) names
 * one ("gfp_t gfp = (opf & REQ_NOWAIT) ? GFP_NOWAIT : GFP_NOIO;" may be
 * GFP_NOIO: brd_insert_page() of "[PATCH v2] brd: avoid extra xarray
 * lookups on first write", held-out set 3, passed it to __xa_cmpxchg()
 * inside rcu_read_lock()).  NULL when one assignment names none
 * ("gfp = GFP_ATOMIC;"), or there is none (a parameter); *line: the
 * first assignment's line
 */
static const char *variable_mask(const struct flow *f, int call, int *line)
{
	const struct cview *v = f->v;
	int close = v->toks[call + 1].match, first = v->nodes[f->body].first;
	int last = v->nodes[f->body].last, nr, k, i, j, depth;
	struct cterm a[16];

	if (close < 0)
		return NULL;
	nr = cview_split(v, call + 2, close - 1, ",", a, 16);
	for (k = 0; k < nr && nr < 16; k++) {
		const struct ctok *name = &v->toks[a[k].first];
		const char *hit = NULL;
		bool all = true;

		if (a[k].first != a[k].last || name->kind != CT_IDENT ||
		    !strncmp(name->s, "GFP_", 4))
			continue;
		for (i = first; i < call && all; i++) {
			const char *got = NULL;

			if (v->toks[i].kind != CT_IDENT || v->toks[i].len != name->len ||
			    memcmp(v->toks[i].s, name->s, name->len))
				continue;
			if (!cv_is(v, i + 1, "=") || cv_is(v, i - 1, ".") || cv_is(v, i - 1, "->"))
				continue;
			for (j = i + 2, depth = 0; j < last; j++) {
				size_t g;

				if (cv_is(v, j, "(") || cv_is(v, j, "["))
					depth++;
				else if (cv_is(v, j, ")") || cv_is(v, j, "]"))
					depth--;
				if (depth < 0 || (!depth && (cv_is(v, j, ";") || cv_is(v, j, ","))))
					break;
				if (depth)
					continue;
				/* "p = kzalloc(n, GFP_KERNEL)": a call's value, no mask */
				if (v->toks[j].kind == CT_IDENT && cv_is(v, j + 1, "(")) {
					got = NULL;
					break;
				}
				for (g = 0; g < ARRAY_SIZE(sleeping_gfp); g++)
					if (ctok_is(&v->toks[j], sleeping_gfp[g]))
						got = sleeping_gfp[g];
			}
			if (!got)
				all = false;
			else if (!hit) {
				hit = got;
				*line = v->lines[v->toks[i].line].no;
			}
		}
		if (hit && all)
			return hit;
	}
	return NULL;
}

/*
 * The XArray's own lock at a call of its __xa_*() or __xas_*() API is no
 * bar to a sleeping mask: those drop it to allocate (__xas_nomem()).  The
 * resources of held other than that lock
 */
static unsigned int beyond_xa_lock(const struct flow *f, int t, unsigned int held)
{
	const struct ctok *k = &f->v->toks[t];
	int r;

	if (!(k->len > 5 && (!strncmp(k->s, "__xa_", 5) || !strncmp(k->s, "__xas_", 6))))
		return held;
	for (r = 0; r < f->nr_res; r++)
		if (!strncmp(f->res[r].pair->take, "xa_lock", 7) ||
		    !strncmp(f->res[r].pair->take, "xas_lock", 8))
			held &= ~(1u << r);
	return held;
}

/* Why the call at t of v may sleep by itself ("GFP_KERNEL"), or NULL */
static const char *direct(const struct cview *v, int t, const char **mask)
{
	*mask = NULL;
	if (in(&v->toks[t], sleepers))
		return "";
	return (*mask = sleeping_mask(v, t));
}

/*
 * With a tree: does the function called at t sleep in its own body, before
 * it releases anything?  The name of what sleeps in it ("mutex_lock"), or
 * NULL; each name once.  A callee that unlocks first (percpu's balance
 * helpers, scan_swap_map_slots(), folio_seek_hole_data()) drops the
 * caller's lock to sleep: all of mm/ in 6.12 drew 16 such notes.
 */
/* A call that gives a lock or a section back ("spin_unlock_irq", "up_read") */
static bool released(const struct ctok *t)
{
	int i;

	if (ctok_is(t, "up_read") || ctok_is(t, "up_write") || ctok_is(t, "up"))
		return true;
	for (i = 0; i + 6 <= t->len; i++)
		if (!memcmp(t->s + i, "unlock", 6))
			return true;
	return false;
}

static const char *callee(struct check_ctx *c, struct sleep_state *st, const struct ctok *t)
{
	char *name = xstrndup(t->s, t->len);
	const char *got = strmap_get(&st->callees, name);
	const struct cview *v;
	int fn, i;

	if (got) {
		free(name);
		return *got ? got : NULL;
	}
	got = "";
	if (callers_have_tree(c) && callers_def(c, t->s, t->len, &v, &fn) &&
	    v->nodes[fn].child >= 0)
		for (i = v->nodes[v->nodes[fn].child].first;
		     i < v->nodes[v->nodes[fn].child].last; i++) {
			const char *mask;

			if (v->toks[i].kind == CT_IDENT && cv_is(v, i + 1, "(") &&
			    released(&v->toks[i]))
				break;
			if (v->toks[i].kind == CT_IDENT && cv_is(v, i + 1, "(") &&
			    direct(v, i, &mask)) {
				got = xstrndup(v->toks[i].s, v->toks[i].len);
				break;
			}
		}
	strmap_put(&st->callees, name, (void *)got);
	return *got ? got : NULL;
}

/* The held resource to name: one taken on an added line first */
static int pick(const struct flow *f, unsigned int held)
{
	int r, best = -1;

	for (r = 0; r < f->nr_res; r++)
		if (held & (1u << r)) {
			if (best < 0)
				best = r;
			if (f->v->lines[f->v->toks[f->res[r].tok].line].added)
				return r;
		}
	return best;
}

/* A sleeping call the series adds where nothing is held: its callers */
static void check_callers(struct flow *f, int t, const char *why)
{
	struct check_ctx *c = f->c;
	const struct cview *v = f->v;
	struct call_sites cs = CALL_SITES_INIT;
	size_t i, n = 0;

	if (!f->fname || !callers_have_tree(c))
		return;
	callers_find(c, f->fname, f->fname_len, &cs);
	for (i = 0; i < cs.nr && n < MAX_CALLERS; i++) {
		struct strbuf what = STRBUF_INIT;
		const struct call_site *s = &cs.v[i];

		if (s->fn < 0 || cview_node_func_is(s->v, s->fn, f->fname, f->fname_len))
			continue;
		n++;
		if (flow_held_at(c, s->v, s->fn, s->tok, holds, ARRAY_SIZE(holds), &what)) {
			check_report_at(c, CHECK_WARNING, t, t, v->toks[t + 1].match,
					"'%.*s()'%s may sleep, but '%.*s()' is called with "
					"%s held, by %.*s() in %s:%d: sleeping in atomic "
					"context", v->toks[t].len, v->toks[t].s, why,
					f->fname_len, f->fname, what.buf,
					s->v->nodes[s->fn].fname_len,
					s->v->nodes[s->fn].fname ? s->v->nodes[s->fn].fname : "",
					s->path, s->v->lines[s->v->toks[s->tok].line].no);
			strbuf_release(&what);
			break;
		}
		strbuf_release(&what);
	}
	callers_sites_release(&cs);
}

static void sleep_call(struct flow *f, int t, unsigned int held)
{
	const struct cview *v = f->v;
	struct sleep_state *st = f->data;
	const struct ctok *k = &v->toks[t];
	struct strbuf why = STRBUF_INIT, what = STRBUF_INIT;
	const char *mask, *via = NULL, *var = NULL;
	int r, line = 0;

	if (held && !(held = beyond_xa_lock(f, t, held)))
		goto out;
	if (!direct(v, t, &mask) && !(held && (var = variable_mask(f, t, &line))) &&
	    !(held && (via = callee(f->c, st, k))))
		goto out;
	if (mask)
		strbuf_addf(&why, " with %s", mask);
	else if (var)
		strbuf_addf(&why, " with a mask that may be %s (line %d)", var, line);
	else if (via)
		strbuf_addf(&why, " (it calls %s())", via);
	if (!held) {
		/* one level out: who calls this function holding something */
		if (v->lines[k->line].added && !via)
			check_callers(f, t, why.buf);
		goto out;
	}
	r = pick(f, held);
	if (!check_sees(f->c, v->lines[k->line].added ||
			v->lines[v->toks[f->res[r].tok].line].added))
		goto out;
	flow_res_name(f, r, &what);
	check_report_caused(f->c, CHECK_WARNING, t, f->res[r].tok, t, v->toks[t + 1].match,
			    "'%.*s()'%s may sleep, but %s of line %d is held here: "
			    "sleeping in atomic context", k->len, k->s, why.buf, what.buf,
			    v->lines[v->toks[f->res[r].tok].line].no);
out:
	strbuf_release(&why);
	strbuf_release(&what);
}

static const struct flow_ops sleep_ops = { .call = sleep_call };

static void atomicsleep_run(struct check_ctx *c)
{
	struct sleep_state st = { STRMAP_INIT };
	size_t i;

	flow_run(c, holds, ARRAY_SIZE(holds), &sleep_ops, &st);
	for (i = 0; i < st.callees.size; i++)
		if (st.callees.e[i].hash) {
			const char *val = st.callees.e[i].value;

			if (*val)
				free((char *)val);
			free((char *)st.callees.e[i].key);
		}
	strmap_release(&st.callees);
}

const struct checker atomicsleep_checker = {
	.name = "atomic-sleep",
	.summary = "nothing sleeps under a spinlock, the PTL or rcu_read_lock()",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.run = atomicsleep_run,
};
