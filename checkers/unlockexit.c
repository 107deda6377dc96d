// SPDX-License-Identifier: GPL-2.0
/*
 * unlock-exit: a lock taken in a function is released on every path out
 * of it that the function does not hand the lock over on: spinlocks,
 * mutexes, rwsems, the mmap lock, folio and page locks, the page table
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
 * Missed of the held-out set: the PROCMAP_QUERY leak of "[PATCH v6 8/8]
 * fs/proc/task_mmu: execute PROCMAP_QUERY ioctl under per-vma locks"
 * (<20250704060727.724817-9-surenb@google.com>), where get_next_vma(), a
 * helper of the previous patch, locks the next VMA without unlocking the
 * one held.  Missed of held-out set 2 (bench/bugs/heldout2.tsv): the
 * -EAGAIN return of move_zeropage_pte() in "[PATCH 1/2] userfaultfd:
 * handle zeropage moves by UFFDIO_MOVE" (<20240125001328.335127-1-surenb@google.com>,
 * smatch): its locks are taken by double_pt_lock() and given back by
 * double_pt_unlock(), helpers of mm/userfaultfd.c the table lacks.
 */
#include "checkers/exitleak.h"

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

static void unlockexit_run(struct check_ctx *c)
{
	exitleak_run_entered(c, lock_pairs, ARRAY_SIZE(lock_pairs));
}

const struct checker unlockexit_checker = {
	.name = "unlock-exit",
	.summary = "every path out releases the locks the function took",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.run = unlockexit_run,
};
