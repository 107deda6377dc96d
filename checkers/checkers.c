// SPDX-License-Identifier: GPL-2.0
/*
 * The table of checkers.  A new checker is one line here plus its file;
 * the names are what --checkers, check.enable and check.disable take,
 * and what findings carry as their rule.
 */
#include "checkers/rules.h"

const struct checker checkers[] = {
	/* the mm review rules */
	{ "lazyfree-droppable",
	  "lazyfree folios kept or skipped by dirtiness must allow for VM_DROPPABLE",
	  CHECK_SCOPE_FILE, CHECK_WARNING, true,
	  lazyfree_begin, lazyfree_run, lazyfree_end },
	{ "progress-accounting",
	  "scan functions must report what they scanned through their counter",
	  CHECK_SCOPE_FILE, CHECK_WARNING, true,
	  progress_begin, progress_run, progress_end },
	{ "one-line-args",
	  "parameters of a changed prototype packed onto as few lines as fit",
	  CHECK_SCOPE_FILE, CHECK_WARNING, true, NULL, oneline_run, NULL },
	{ "pte-map-null", "pte_offset_map*() results are tested for NULL before use",
	  CHECK_SCOPE_FILE, CHECK_ERROR, true, NULL, ptemapnull_run, NULL },
	{ "pte-unmap-exit", "every path out unmaps and unlocks a mapped PTE table",
	  CHECK_SCOPE_FILE, CHECK_WARNING, true, NULL, pteexit_run, NULL },
	{ "rcu-unlock-exit", "every path out of an RCU read-side section leaves it",
	  CHECK_SCOPE_FILE, CHECK_WARNING, true, NULL, rcuexit_run, NULL },
	{ "atomic-sleep", "nothing sleeps under a spinlock, the PTL or rcu_read_lock()",
	  CHECK_SCOPE_FILE, CHECK_WARNING, true, NULL, atomicsleep_run, NULL },
	{ "lock-assert", "a function whose caller must hold a lock asserts it",
	  CHECK_SCOPE_FILE, CHECK_NOTE, true, NULL, lockassert_run, NULL },

	/* the standard ones */
	{ "checkpatch", "scripts/checkpatch.pl of the target tree, as b4 runs it",
	  CHECK_SCOPE_SERIES, CHECK_WARNING, true,
	  checkpatch_begin, NULL, checkpatch_end },
	{ "signed-off-by", "the author signs off every patch",
	  CHECK_SCOPE_PATCH, CHECK_ERROR, true, NULL, signoff_run, NULL },
	{ "fixes-tag", "Fixes: tags name an existing commit as 12+ hex and its subject",
	  CHECK_SCOPE_PATCH, CHECK_WARNING, true, NULL, fixes_run, NULL },
	{ "subject", "subject lines are \"[PATCH ...] subsystem: summary\"",
	  CHECK_SCOPE_PATCH, CHECK_WARNING, true, NULL, subject_run, NULL },
	{ "numbering", "patches are numbered 1/N..N/N without gaps",
	  CHECK_SCOPE_SERIES, CHECK_ERROR, true, NULL, numbering_run, NULL },
	{ "cover-letter", "a series of 3 or more patches has a cover letter, not its template",
	  CHECK_SCOPE_SERIES, CHECK_WARNING, true, NULL, cover_run, NULL },
	{ "base-commit", "the series says what it applies to (git format-patch --base)",
	  CHECK_SCOPE_SERIES, CHECK_NOTE, true, NULL, base_run, NULL },
	{ "codespell", "typos in commit messages and the cover letter",
	  CHECK_SCOPE_SERIES, CHECK_WARNING, true, NULL, codespell_run, NULL },
};

const size_t checkers_nr = ARRAY_SIZE(checkers);
