// SPDX-License-Identifier: GPL-2.0
/*
 * The table of checkers, in the order they run and are listed.  A new
 * checker is its file, which defines its descriptor (checkers/rules.h),
 * plus one line here; the names are what --checkers, check.enable and
 * check.disable take, and what findings carry as their rule.
 */
#include "checkers/rules.h"

const struct checker *const checkers[] = {
	/* the mm review rules */
	&lazyfree_checker,
	&progress_checker,
	&oneline_checker,
	&ptemapnull_checker,
	&pteexit_checker,
	&rcuexit_checker,
	&unlockexit_checker,
	&atomicsleep_checker,
	&lockassert_checker,

	/* the standard ones */
	&checkpatch_checker,
	&seriescheck_signoff,
	&seriescheck_fixes,
	&seriescheck_subject,
	&seriescheck_numbering,
	&seriescheck_cover,
	&seriescheck_base,
	&codespell_checker,
};

const size_t checkers_nr = ARRAY_SIZE(checkers);
