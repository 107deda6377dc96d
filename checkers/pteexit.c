// SPDX-License-Identifier: GPL-2.0
/*
 * pte-unmap-exit: a PTE table mapped (and locked) by pte_offset_map()
 * or pte_offset_map_lock() must be unmapped (and unlocked) on every path
 * out, with pte_unmap() or pte_unmap_unlock(): an early return between
 * the two leaks the kmap and leaves the page table lock held, so the next
 * fault on that PMD deadlocks.  The shape of mainline's fix "mm/damon/
 * vaddr: fix missing pte_unmap_unlock in damos_va_migrate_pmd_entry()",
 * and the one T.J. Mercier caught in review for an RCU section ("I think
 * this lock needs to come after the return ... to avoid missing the
 * rcu_read_unlock", <CABdmKX3Kca4pbq+KN1RnV+Py1dDw9d_33x-zu7ex7FnE95p1ig@mail.gmail.com>).
 * Hugh Dickins' series that let pte_offset_map[_lock]() fail
 * (<8218ffdc-8be-54e5-0a8-83f5542af283@google.com>) made these early
 * exits common: the NULL check's own exit is not one.  The real bug of
 * bench/bugs/ it finds: the return in the PTE loop of
 * damos_va_migrate_pmd_entry() added by "[PATCH 5/9] mm/damon/vaddr:
 * consistently use only pmd_entry for damos_migrate"
 * (<20251112154114.66053-6-sj@kernel.org>; fixed by "mm/damon/vaddr: fix
 * missing pte_unmap_unlock in damos_va_migrate_pmd_entry()"); the rule
 * was changed to find it (a callee reading a locked table does not take
 * it over), so it is not a held-out find (bench/bugs/seen.tsv).
 */
#include "checkers/exitleak.h"

/* giving back part of it ends what is checked: spin_unlock(), pte_unmap() */
static const char *const give_lock[] = {
	"pte_unmap_unlock", "spin_unlock", "pte_unmap", NULL,
};
static const char *const give_map[] = { "pte_unmap", "pte_unmap_unlock", NULL };

static const struct flow_pair pte_pairs[] = {
	{ "pte_offset_map_lock", FLOW_PTR, give_lock,
	  "the PTE table mapped and its lock held", 3, FLOW_FIX_NAME_LOCK, false },
	{ "pte_alloc_map_lock", FLOW_PTR, give_lock,
	  "the PTE table mapped and its lock held", 3, FLOW_FIX_NAME_LOCK, false },
	{ "pte_offset_map", FLOW_PTR, give_map, "the PTE table mapped", -1, FLOW_FIX_NAME, false },
	{ "pte_offset_map_ro_nolock", FLOW_PTR, give_map, "the PTE table mapped", -1,
	  FLOW_FIX_NAME, false },
	{ "pte_offset_map_rw_nolock", FLOW_PTR, give_map, "the PTE table mapped", -1,
	  FLOW_FIX_NAME, false },
	{ "pte_offset_map_nolock", FLOW_PTR, give_map, "the PTE table mapped", -1,
	  FLOW_FIX_NAME, false },
};

static void pteexit_run(struct check_ctx *c)
{
	exitleak_run(c, pte_pairs, ARRAY_SIZE(pte_pairs));
}

const struct checker pteexit_checker = {
	.name = "pte-unmap-exit",
	.summary = "every path out unmaps and unlocks a mapped PTE table",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.run = pteexit_run,
};
