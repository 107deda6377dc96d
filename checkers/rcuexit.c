// SPDX-License-Identifier: GPL-2.0
/*
 * rcu-unlock-exit: an RCU read-side section entered in a function must be
 * left on every path out of it that does not keep it on purpose (a
 * function that never leaves it, kmemleak's seq start, keeps it for its
 * caller).  From T.J. Mercier's
 * review of "[RFC 13/17] cgroup/drm: Ability to periodically scan cgroups
 * for over budget GPU usage": "I think this lock needs to come after the
 * return for the online check just below here to avoid missing the
 * rcu_read_unlock at out_retry"
 * (<CABdmKX3Kca4pbq+KN1RnV+Py1dDw9d_33x-zu7ex7FnE95p1ig@mail.gmail.com>),
 * and Shakeel Butt's of "[PATCH v2 23/28] mm: memcontrol: prepare for
 * reparenting LRU pages": "thus rcu read unlock is missed"
 * (<jdhf6h7weedyentvyaqsr3n3v7dlj4n6k3mrryn2hkyhc255cl@kmexszfblh6s>).
 * The real bugs of bench/bugs/ it finds: the return moved after
 * rcu_read_lock() in lru_gen_refault() by "[PATCH v13 1/3] workingset:
 * refactor LRU refault to expose refault recency check"
 * (<20230503013608.2431726-2-nphamcs@gmail.com>; fixed by "workingset: add
 * missing rcu_read_unlock() in lru_gen_refault()"), and T.J. Mercier's.
 * Of the held-out set (bench/bugs/heldout.tsv, collected after the rule
 * was frozen) it finds the one in its class, at the line: the !task->fs
 * return inside rcu_read_lock() of "[PATCH bpf-next 1/2] bpf: Add
 * bpf_task_cwd_from_pid() kfunc" (<tencent_97F8B56B340F51DB604B482FEBF012460505@qq.com>,
 * reported by smatch).  Of held-out set 2 (bench/bugs/heldout2.tsv) it
 * finds the return inside list_for_each_entry_rcu() of "[PATCH v4 1/2]
 * ima: measure loaded policy after write on securityfs policy file"
 * (<20260617155832.434517-2-enrico.bravi@polito.it>, Mimi Zohar's review),
 * and misses the return added by "[PATCH v1 net] calipso: Don't call
 * calipso functions for AF_INET sk." (<20250522221858.91240-1-kuniyu@amazon.com>):
 * its rcu_read_lock() is above the hunk, and from hunks alone the rule
 * sees no section to leave (nor says it could not decide).
 * Held-out set 3 has no bug of its class; its brd fix drew a false alarm
 * (a function entered in the section, see rcuexit_run()).
 * The mmap lock is checked by unlock-exit, not here: its protocol crosses
 * functions (callees that drop it, "*locked" out-parameters), which that
 * rule's hand-overs allow for.
 */
#include "checkers/exitleak.h"

static const char *const give_rcu[] = { "rcu_read_unlock", NULL };
static const char *const give_rcu_bh[] = { "rcu_read_unlock_bh", NULL };
static const char *const give_rcu_sched[] = { "rcu_read_unlock_sched", NULL };

static const struct flow_pair rcu_pairs[] = {
	{ "rcu_read_lock", FLOW_PLAIN, give_rcu, "the RCU read lock", -1, FLOW_FIX_CALL, false },
	{ "rcu_read_lock_bh", FLOW_PLAIN, give_rcu_bh, "the RCU-bh read lock", -1,
	  FLOW_FIX_CALL, false },
	{ "rcu_read_lock_sched", FLOW_PLAIN, give_rcu_sched, "the RCU-sched read lock",
	  -1, FLOW_FIX_CALL, false },
};

/*
 * A function whose first word on the section is rcu_read_unlock() was
 * entered in it and takes it again before it returns (__releases(rcu)
 * __acquires(rcu)): brd_insert_page() drops it around a sleeping
 * allocation in the fix of held-out set 3's brd bug; leaving in the
 * section is its contract there
 */
static void rcuexit_run(struct check_ctx *c)
{
	exitleak_run_entered(c, rcu_pairs, ARRAY_SIZE(rcu_pairs));
}

const struct checker rcuexit_checker = {
	.name = "rcu-unlock-exit",
	.summary = "every path out of an RCU read-side section leaves it",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.run = rcuexit_run,
};
