// SPDX-License-Identifier: GPL-2.0
/*
 * unlock-exit: a lock taken in a function is released on every path out
 * of it that the function does not hand the lock over on: spinlocks,
 * mutexes, semaphores, rwsems, the mmap lock, folio and page locks, the page table
 * locks of pmd_lock() and friends, the rmap and hugetlb VMA locks, and
 * mem_hotplug_begin().  The paths are those of flow.h: an early return
 * or a goto to a label whose code does not unlock, with the lock taken
 * on every path to it.  A function whose first word on a lock is its
 * unlock was entered holding it (it drops its caller's lock around a
 * sleep and takes it again): leaving with it held is its contract.
 *
 * The review it comes from: Dan Carpenter's smatch report on "[PATCH 2/6]
 * mm: Lock kernel page tables before entering lazy MMU mode" (Alexander
 * Gordeev, 2025-06): "These error paths don't unlock
 * &init_mm.page_table_lock?" (<0be7d42e-5898-4b94-829b-59c661c2f07b@suswa.mountain>),
 * where the patch adds spin_lock()/spin_unlock() around a loop whose
 * returns are outside the hunks: decided with the tree, a note from the
 * hunks alone.  The real bugs of bench/bugs/ in its scope, and what it
 * finds of them, are in bench/bugs/README.md (vm_brk_flags() returning
 * -EINVAL with the mmap write lock held, Fixes: 2e7ce7d354f2; the PMD lock
 * left held by a goto past the unlock in migrate_vma_insert_huge_pmd_page()).
 * What it misses there: the lazy-MMU patch above from its hunks (a note
 * says so).  The per-VMA locks of lock_vma_under_rcu() and
 * uffd_mfill_lock() (6.12's mm/memory.c, mm/userfaultfd.c) were added to
 * the table after the first held-out run, which missed mfill_get_vma()'s
 * leak for want of them (<20260306171815.3160826-5-rppt@kernel.org>); that
 * bug is no longer held out (bench/bugs/README.md, "Held out"), and is
 * still missed: the function never unlocks the VMA itself (it stores it
 * in state->vma on success), so the rule takes it as kept for its caller.
 * Semaphores (down()/up()) were added after held-out set 4 missed the
 * ufshcd error handler's leak of host_sem (found with the tree since), and
 * an exit indented deeper than the statement after it no longer ends the
 * walk from the hunks (flow.c, opened_above()): set 4's ACPI battery leak,
 * whose hunk opens with the return of an "if" above it.
 * Missed of the held-out set: the PROCMAP_QUERY leak of "[PATCH v6 8/8]
 * fs/proc/task_mmu: execute PROCMAP_QUERY ioctl under per-vma locks"
 * (<20250704060727.724817-9-surenb@google.com>), where get_next_vma(), a
 * helper of the previous patch, locks the next VMA without unlocking the
 * one held.  Missed of held-out set 2 (bench/bugs/heldout2.tsv): the
 * -EAGAIN return of move_zeropage_pte() in "[PATCH 1/2] userfaultfd:
 * handle zeropage moves by UFFDIO_MOVE" (<20240125001328.335127-1-surenb@google.com>,
 * smatch): its locks are taken by double_pt_lock() and given back by
 * double_pt_unlock(), helpers of mm/userfaultfd.c the table lacked.
 * Since that run a helper the table does not name is paired by the
 * kernel's naming (named_pairs() below): X_lock() in a file that calls
 * X_unlock() takes a lock that X_unlock() gives back; with it that bug is
 * found, no longer held out (bench/bugs/seen.tsv).
 * Held-out set 3 (bench/bugs/heldout3.tsv, 2025-2026, none in mm/): found
 * before any change, the unlocked error returns of the new
 * icc_node_create_alloc_id() ("[PATCH V7 1/5] interconnect: core: Add
 * dynamic id allocation support") and papr_dynamic_sensor_ioc_get()
 * ("[PATCH 5/6] powerpc/pseries: Add ibm,get-dynamic-sensor-state RTAS
 * call support"), both smatch's.  Missed: the spinlock that
 * nfs_server_clear_delayed_delegations() ("[PATCH 22/24] NFS: add a
 * separate delegation return list") takes and never gives back, which the
 * rule took as kept for its caller; since then a lock the series takes
 * and the function never gives back is reported when the function
 * returns a value (not a pointer, not void) and neither its name nor
 * __acquires() says it takes for its caller (flow_ops.lost), and that bug
 * is no longer held out.  Still missed: returns outside the hunks (block's
 * ioc_qos_write(), devfreq's timer_store(), ext4's
 * ext4_change_inode_journal_flag(), whose moved take now draws the note
 * too), and a return added inside a mutex section taken above the hunk
 * (btrfs_init_dev_stats(), whose "goto out" to the unlock became "return
 * ret").  Since then, from the hunks alone, a goto the patch replaces by
 * a return at its place, to a label the hunks do not show, goes into the
 * "not decidable" note (replaced_gotos() below): the return skips what
 * the label did.  With a tree the paths decide it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/exitleak.h"
#include "lib/util.h"

#define GIVE(...) ((const char *const[]){ __VA_ARGS__, NULL })

#define LOCK(take, how, give, what) \
	{ take, how, GIVE give, what, -1, FLOW_FIX_KEY, false }
#define LOCKPTR(take, give, what) \
	{ take, FLOW_PTR, GIVE give, what, -1, FLOW_FIX_KEY, false }
#define LOCKOBJ(take, how, give, what) \
	{ take, how, GIVE give, what, -1, FLOW_FIX_KEY, true }
/* a locked VMA returned (NULL or an error pointer when not locked) */
#define LOCKVMA(take, give) \
	{ take, FLOW_PTR, GIVE give, "the VMA lock", -1, FLOW_FIX_NAME, false }

static const struct flow_pair lock_pairs[] = {
	LOCK("spin_lock", FLOW_PLAIN, ("spin_unlock"), "a spinlock"),
	LOCK("spin_lock_nested", FLOW_PLAIN, ("spin_unlock"), "a spinlock"),
	LOCK("spin_lock_irq", FLOW_PLAIN, ("spin_unlock_irq"), "a spinlock"),
	LOCK("spin_lock_irqsave", FLOW_PLAIN, ("spin_unlock_irqrestore"), "a spinlock"),
	LOCK("spin_lock_bh", FLOW_PLAIN, ("spin_unlock_bh"), "a spinlock"),
	LOCK("spin_trylock", FLOW_TRUE_OK, ("spin_unlock"), "a spinlock"),
	LOCK("raw_spin_lock", FLOW_PLAIN, ("raw_spin_unlock"), "a spinlock"),
	LOCK("raw_spin_lock_irq", FLOW_PLAIN, ("raw_spin_unlock_irq"), "a spinlock"),
	LOCK("raw_spin_lock_irqsave", FLOW_PLAIN, ("raw_spin_unlock_irqrestore"),
	     "a spinlock"),
	LOCK("read_lock", FLOW_PLAIN, ("read_unlock"), "an rwlock"),
	LOCK("write_lock", FLOW_PLAIN, ("write_unlock"), "an rwlock"),
	LOCK("read_lock_irq", FLOW_PLAIN, ("read_unlock_irq"), "an rwlock"),
	LOCK("write_lock_irq", FLOW_PLAIN, ("write_unlock_irq"), "an rwlock"),
	LOCK("read_lock_irqsave", FLOW_PLAIN, ("read_unlock_irqrestore"), "an rwlock"),
	LOCK("write_lock_irqsave", FLOW_PLAIN, ("write_unlock_irqrestore"), "an rwlock"),
	LOCK("xa_lock", FLOW_PLAIN, ("xa_unlock"), "an XArray lock"),
	LOCK("xa_lock_irq", FLOW_PLAIN, ("xa_unlock_irq"), "an XArray lock"),
	LOCK("xas_lock", FLOW_PLAIN, ("xas_unlock"), "an XArray lock"),
	LOCK("xas_lock_irq", FLOW_PLAIN, ("xas_unlock_irq"), "an XArray lock"),
	LOCK("mutex_lock", FLOW_PLAIN, ("mutex_unlock"), "a mutex"),
	LOCK("mutex_lock_nested", FLOW_PLAIN, ("mutex_unlock"), "a mutex"),
	LOCK("mutex_lock_killable", FLOW_ZERO_OK, ("mutex_unlock"), "a mutex"),
	LOCK("mutex_lock_interruptible", FLOW_ZERO_OK, ("mutex_unlock"), "a mutex"),
	LOCK("mutex_trylock", FLOW_TRUE_OK, ("mutex_unlock"), "a mutex"),
	LOCK("down", FLOW_PLAIN, ("up"), "a semaphore"),
	LOCK("down_interruptible", FLOW_ZERO_OK, ("up"), "a semaphore"),
	LOCK("down_killable", FLOW_ZERO_OK, ("up"), "a semaphore"),
	LOCK("down_trylock", FLOW_ZERO_OK, ("up"), "a semaphore"),
	LOCK("down_read", FLOW_PLAIN, ("up_read"), "an rwsem"),
	LOCK("down_write", FLOW_PLAIN, ("up_write", "downgrade_write"), "an rwsem"),
	LOCK("down_read_killable", FLOW_ZERO_OK, ("up_read"), "an rwsem"),
	LOCK("down_write_killable", FLOW_ZERO_OK, ("up_write", "downgrade_write"),
	     "an rwsem"),
	LOCK("down_read_trylock", FLOW_TRUE_OK, ("up_read"), "an rwsem"),
	LOCK("down_write_trylock", FLOW_TRUE_OK, ("up_write", "downgrade_write"),
	     "an rwsem"),
	LOCK("mmap_read_lock", FLOW_PLAIN, ("mmap_read_unlock"), "the mmap lock"),
	LOCK("mmap_write_lock", FLOW_PLAIN, ("mmap_write_unlock", "mmap_write_downgrade"),
	     "the mmap lock"),
	LOCK("mmap_read_lock_killable", FLOW_ZERO_OK, ("mmap_read_unlock"),
	     "the mmap lock"),
	LOCK("mmap_write_lock_killable", FLOW_ZERO_OK,
	     ("mmap_write_unlock", "mmap_write_downgrade"), "the mmap lock"),
	LOCK("mmap_read_trylock", FLOW_TRUE_OK, ("mmap_read_unlock"), "the mmap lock"),
	LOCKOBJ("folio_lock", FLOW_PLAIN, ("folio_unlock"), "the folio lock"),
	LOCKOBJ("folio_lock_killable", FLOW_ZERO_OK, ("folio_unlock"), "the folio lock"),
	LOCKOBJ("folio_trylock", FLOW_TRUE_OK, ("folio_unlock"), "the folio lock"),
	LOCKOBJ("lock_page", FLOW_PLAIN, ("unlock_page"), "the page lock"),
	LOCKOBJ("trylock_page", FLOW_TRUE_OK, ("unlock_page"), "the page lock"),
	LOCK("i_mmap_lock_read", FLOW_PLAIN, ("i_mmap_unlock_read"), "the i_mmap lock"),
	LOCK("i_mmap_lock_write", FLOW_PLAIN, ("i_mmap_unlock_write"), "the i_mmap lock"),
	LOCK("anon_vma_lock_read", FLOW_PLAIN, ("anon_vma_unlock_read"),
	     "the anon_vma lock"),
	LOCK("anon_vma_lock_write", FLOW_PLAIN, ("anon_vma_unlock_write"),
	     "the anon_vma lock"),
	LOCK("hugetlb_vma_lock_read", FLOW_PLAIN, ("hugetlb_vma_unlock_read"),
	     "the hugetlb VMA lock"),
	LOCK("hugetlb_vma_lock_write", FLOW_PLAIN, ("hugetlb_vma_unlock_write"),
	     "the hugetlb VMA lock"),
	LOCK("mem_hotplug_begin", FLOW_PLAIN, ("mem_hotplug_done"),
	     "the memory hotplug lock"),
	LOCKPTR("pmd_lock", ("spin_unlock"), "the PMD lock"),
	LOCKPTR("pud_lock", ("spin_unlock"), "the PUD lock"),
	LOCKPTR("huge_pte_lock", ("spin_unlock"), "the huge PTE lock"),
	LOCKPTR("pmd_trans_huge_lock", ("spin_unlock"), "the PMD lock"),
	LOCKVMA("lock_vma_under_rcu", ("vma_end_read")),
	LOCKVMA("uffd_mfill_lock", ("uffd_mfill_unlock")),
	LOCKPTR("folio_lruvec_lock_irq", ("unlock_page_lruvec_irq", "lruvec_unlock_irq"),
		"the LRU lock"),
	LOCKPTR("folio_lruvec_lock_irqsave",
		("unlock_page_lruvec_irqrestore", "lruvec_unlock_irqrestore"),
		"the LRU lock"),
};

/* At most this many lock helpers of a file are paired by their names */
#define MAX_NAMED 8

/* Is the name t..t+len a take of the table? */
static bool in_table(const struct ctok *t)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(lock_pairs); k++)
		if (ctok_is(t, lock_pairs[k].take))
			return true;
	return false;
}

/* Does the value of the call at token i go somewhere ("err = f(", "if (f(")? */
static bool value_used(const struct cview *v, int i)
{
	static const char *const users[] = { "=", "(", "!", "return", "&&", "||" };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(users); k++)
		if (cv_is(v, i - 1, users[k]))
			return true;
	return false;
}

/* A call of name (len bytes) in view (one whose value is used, if used)? */
static bool called(const struct cview *v, const char *name, int len, bool used)
{
	int i;

	for (i = 1; i + 1 < v->nr_toks; i++)
		if (v->toks[i].kind == CT_IDENT && v->toks[i].len == len &&
		    !memcmp(v->toks[i].s, name, len) && cv_is(v, i + 1, "(") &&
		    (!used || value_used(v, i)))
			return true;
	return false;
}

/*
 * The lock helpers the table does not name, by the kernel's naming: a
 * call X_lock(a, ...) in a file that also calls X_unlock() is a take
 * whose give-back is X_unlock(a, ...): double_pt_lock()/double_pt_unlock()
 * of mm/userfaultfd.c (held-out set 2), cgroup_lock(), inode_lock(),
 * filemap_invalidate_lock(), called as statements.  rcu_read_lock() and
 * its kind are rcu-unlock-exit's.  The new pairs go after the table's in
 * pairs; their names are in take[] and give[] (n of them)
 */
static size_t named_pairs(const struct cview *v, struct flow_pair *pairs,
			  char **take, char **give, const char *(*gives)[2])
{
	size_t n = 0, k;
	int i;

	for (i = 1; i + 1 < v->nr_toks && n < MAX_NAMED; i++) {
		const struct ctok *t = &v->toks[i];
		bool seen = false;

		if (t->kind != CT_IDENT || t->len < 6 || !cv_is(v, i + 1, "(") ||
		    memcmp(t->s + t->len - 5, "_lock", 5) || cv_is(v, i - 1, ".") ||
		    cv_is(v, i - 1, "->") || in_table(t) ||
		    (t->len >= 8 && !memcmp(t->s, "rcu_read", 8)))
			continue;
		for (k = 0; k < n && !seen; k++)
			seen = ctok_is(t, take[k]);
		if (seen)
			continue;
		give[n] = xmalloc(t->len + 3);
		memcpy(give[n], t->s, t->len - 4);
		memcpy(give[n] + t->len - 4, "unlock", 7);
		if (!called(v, give[n], t->len + 2, false)) {
			free(give[n]);
			continue;
		}
		/*
		 * a helper whose result is used may fail without the lock
		 * ("err = uffd_move_lock(...); if (err) goto out") or hold it
		 * through what it returns ("ci = swap_cluster_lock(si, off)",
		 * given back as swap_cluster_unlock(ci)): not paired
		 */
		if (called(v, t->s, t->len, true)) {
			free(give[n]);
			continue;
		}
		take[n] = xstrndup(t->s, t->len);
		gives[n][0] = give[n];
		gives[n][1] = NULL;
		/*
		 * no suggestion: the give-back may need every argument; the
		 * lock goes with what it locks, which a callee may take over
		 * (z3fold's put_z3fold_locked(zhdr))
		 */
		pairs[n] = (struct flow_pair){ take[n], FLOW_PLAIN, gives[n], "a lock",
					       -1, FLOW_FIX_NONE, true };
		n++;
	}
	return n;
}

/* A diff line's text from byte i on, its blanks skipped */
static size_t skip_blanks(const struct diff_line *l, size_t i)
{
	while (i < l->len && isspace((unsigned char)l->text[i]))
		i++;
	return i;
}

static bool ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* Does l hold keyword kw as a word at byte i? */
static bool word_at(const struct diff_line *l, size_t i, const char *kw)
{
	size_t n = strlen(kw);

	return i + n <= l->len && !memcmp(l->text + i, kw, n) &&
	       (i == 0 || !ident_char(l->text[i - 1])) &&
	       (i + n == l->len || !ident_char(l->text[i + n]));
}

/* The byte of a word kw on line l, or -1 */
static long find_word(const struct diff_line *l, const char *kw)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (word_at(l, i, kw))
			return (long)i;
	return -1;
}

/*
 * A removed line "PREFIX goto LABEL;": the label's bytes (*lab, *lab_len)
 * and where goto starts; -1 when it is not one
 */
static long goto_line(const struct diff_line *l, const char **lab, size_t *lab_len)
{
	long g = find_word(l, "goto");
	size_t i, s;

	if (g < 0)
		return -1;
	s = i = skip_blanks(l, g + 4);
	while (i < l->len && ident_char(l->text[i]))
		i++;
	if (i == s || skip_blanks(l, i) >= l->len || l->text[skip_blanks(l, i)] != ';' ||
	    skip_blanks(l, skip_blanks(l, i) + 1) != l->len)
		return -1;
	*lab = l->text + s;
	*lab_len = i - s;
	return g;
}

/* Is "label:" the start of a line of df's hunks (of any kind)? */
static bool label_in_hunks(const struct diff_file *df, const char *lab, size_t n)
{
	size_t h, k, i;

	for (h = 0; h < df->nr; h++)
		for (k = 0; k < df->hunks[h].nr; k++) {
			const struct diff_line *l = &df->hunks[h].lines[k];

			i = skip_blanks(l, 0);
			if (i + n > l->len || memcmp(l->text + i, lab, n) ||
			    (i + n < l->len && ident_char(l->text[i + n])))
				continue;
			i = skip_blanks(l, i + n);
			if (i < l->len && l->text[i] == ':' &&
			    (i + 1 == l->len || l->text[i + 1] != ':'))
				return true;
		}
	return false;
}

/*
 * Is added line a "PREFIX return ...;" at the place of removed line r,
 * "PREFIX goto ...;" with goto at byte g: the same indentation and prefix
 */
static bool replaces(const struct diff_line *r, long g, const struct diff_line *a)
{
	long ret = find_word(a, "return");
	size_t ri = skip_blanks(r, 0), ai = skip_blanks(a, 0);

	return ret >= 0 && ri == ai && (size_t)g - ri == (size_t)ret - ai &&
	       !memcmp(r->text, a->text, g) && a->len && a->text[a->len - 1] == ';';
}

/* The "return" token of post-image line no in view v, or -1 */
static int return_tok(const struct cview *v, int no)
{
	int t;

	for (t = 0; t < v->nr_toks; t++)
		if (v->lines[v->toks[t].line].no == no && v->lines[v->toks[t].line].added &&
		    ctok_is(&v->toks[t], "return"))
			return t;
	return -1;
}

/*
 * From the hunks alone: a "goto LABEL;" the patch replaces by a return
 * at its place, LABEL nowhere in the hunks.  What the label did (an
 * unlock, a free) the return skips, and the paths cannot see it:
 * btrfs_init_dev_stats() of held-out set 3, whose "goto out" before
 * mutex_unlock() became "return ret".  With a tree the paths decide
 */
static void replaced_gotos(struct check_ctx *c)
{
	const struct diff_file *df = c->file->df;
	const struct cview *v = &c->file->view;
	size_t h, a, b, k, m;

	for (h = 0; df && !v->complete && h < df->nr; h++) {
		const struct diff_hunk *hk = &df->hunks[h];

		for (k = 0; k < hk->nr; k++) {
			const struct diff_line *r = &hk->lines[k];
			const char *lab;
			size_t n;
			long g;
			int t = -1;

			if (r->kind != '-' || (g = goto_line(r, &lab, &n)) < 0 ||
			    label_in_hunks(df, lab, n))
				continue;
			/* the return that replaces it is in its block of changed lines */
			diff_hunk_block(hk, k, &a, &b);
			for (m = a; m < b && t < 0; m++)
				if (hk->lines[m].kind == '+' && replaces(r, g, &hk->lines[m]))
					t = return_tok(v, hk->lines[m].new_no);
			if (t >= 0)
				check_undecided(c, t, "whether the return of line %d "
						"skips what label %.*s did (the goto it "
						"replaces; the label is outside the hunks)",
						v->lines[v->toks[t].line].no, (int)n, lab);
		}
	}
}

static void unlockexit_run(struct check_ctx *c)
{
	struct flow_pair pairs[ARRAY_SIZE(lock_pairs) + MAX_NAMED];
	char *take[MAX_NAMED], *give[MAX_NAMED];
	const char *gives[MAX_NAMED][2];
	size_t n, k;

	memcpy(pairs, lock_pairs, sizeof(lock_pairs));
	n = c->file->is_c ? named_pairs(&c->file->view, pairs + ARRAY_SIZE(lock_pairs),
					take, give, gives) : 0;
	exitleak_run_lost(c, pairs, ARRAY_SIZE(lock_pairs) + n);
	if (c->file->is_c)
		replaced_gotos(c);
	for (k = 0; k < n; k++) {
		free(take[k]);
		free(give[k]);
	}
}

const struct checker unlockexit_checker = {
	.name = "unlock-exit",
	.summary = "every path out releases the locks the function took",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.run = unlockexit_run,
};
