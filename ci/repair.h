/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Config repair: the Kconfig symbols a series' changed lines need
 * (ci/needs.h, ci/cover.h), turned on over a build directory's .config
 * by Kconfig itself: each is set to y, olddefconfig decides, and the
 * .config is read back to see what stuck.  What did not stick is tried
 * again with the symbols its "depends on" names (and, for a symbol
 * without a prompt, those that select it), a few rounds; that is all
 * the dependency logic there is.  What still did not stick is reported
 * with the reason the Kconfig index gives (ci/kconf.h): not declared
 * for this architecture, or which of its dependencies is not met.
 *
 * The result is a fragment ("CONFIG_X=y" lines) added to the profile:
 * the repaired configuration's build directory is another profile's
 * directory, built once per base commit (ci/kbuild.h).
 */
#ifndef LOREBOT_CI_REPAIR_H
#define LOREBOT_CI_REPAIR_H

#include "ci/kbuild.h"
#include "ci/kconf.h"

struct repair_fail {
	char *sym;		/* CONFIG_X */
	char *why;		/* "depends on PPC", "not declared for riscv" */
	bool arch;		/* the architecture's doing: declared or selected elsewhere */
};

struct repair {
	char **set;		/* the fragment: symbols set to y that stuck (sorted) */
	size_t set_nr, set_alloc;
	struct repair_fail *fail;	/* asked for, did not stick */
	size_t fail_nr, fail_alloc;
	struct kconf result;	/* the repaired .config */
	unsigned int rounds;	/* olddefconfig runs */
	uint64_t ms;
};

void repair_release(struct repair *r);

/*
 * Turn want[] (CONFIG_ names) on over t's base .config (config.base),
 * with t's source tree as it is now (the series' tip: its Kconfig).
 * 0 (out filled; nothing stuck is no error), or -1 with err when the
 * Kconfig files cannot be read or olddefconfig cannot run.
 */
int repair_run(struct kbuild_tree *t, char *const *want, size_t nr,
	       struct repair *out, struct strbuf *err);

/* The fragment's text: one "CONFIG_X=y" line per symbol */
void repair_fragment(const struct repair *r, struct strbuf *out);

/* The fail entry of sym, or NULL */
const struct repair_fail *repair_failed(const struct repair *r, const char *sym);

#endif
