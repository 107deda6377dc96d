/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Config repair: the Kconfig symbols a series' changed lines need
 * (ci/needs.h, ci/cover.h), turned on (and off) over a build
 * directory's .config by Kconfig itself: each is set to y (or "is not
 * set"), olddefconfig decides, and the .config is read back to see what
 * stuck.  What did not stick is tried again with the symbols its
 * "depends on" names: those named plainly turned on, those named
 * negated ("!SLUB_TINY", "X = n") turned off; for a symbol without a
 * prompt, with those that select it (on), or, to turn it off, with
 * those of them that are on (off).  A few rounds; that is all the
 * dependency logic there is.  A symbol asked off is left on when a
 * symbol tried on depends on it, plainly, through the index.  What
 * still did not stick is reported with the reason the Kconfig index
 * gives (ci/kconf.h): not declared for this architecture, which of its
 * dependencies is not met, who selects it.
 *
 * The result is a fragment ("CONFIG_X=y" and "# CONFIG_X is not set"
 * lines) added to the profile: the repaired configuration's build
 * directory is another profile's directory, built once per base commit
 * (ci/kbuild.h).
 */
#ifndef LOREBOT_CI_REPAIR_H
#define LOREBOT_CI_REPAIR_H

#include "ci/cover.h"
#include "ci/kbuild.h"
#include "ci/kconf.h"

struct repair_fail {
	char *sym;		/* CONFIG_X */
	char *why;		/* "depends on PPC", "not declared for riscv" */
	bool arch;		/* the architecture's doing: declared or selected elsewhere */
	bool off;		/* asked off (it stayed on), not on */
};

struct repair {
	char **set;		/* the fragment: symbols set to y that stuck (sorted) */
	size_t set_nr, set_alloc;
	char **unset;		/* ... and turned off that stuck (sorted) */
	size_t unset_nr, unset_alloc;
	struct repair_fail *fail;	/* asked for, did not stick */
	size_t fail_nr, fail_alloc;
	struct kconf result;	/* the repaired .config */
	unsigned int rounds;	/* olddefconfig runs */
	uint64_t ms;
};

void repair_release(struct repair *r);

/*
 * Turn want->on (CONFIG_ names) on and want->off off over t's base
 * .config (config.base), with t's source tree as it is now (the
 * series' tip: its Kconfig).  0 (out filled; nothing stuck is no
 * error), or -1 with err when the Kconfig files cannot be read or
 * olddefconfig cannot run.
 */
int repair_run(struct kbuild_tree *t, const struct cover_needs *want,
	       struct repair *out, struct strbuf *err);

/*
 * The same over any tree: base (len bytes) is the .config to start
 * from, olddefconfig(data, config, len, result, err) what Kconfig makes
 * of a .config (0, or -1 with err); srcdir and srcarch give the Kconfig
 * index (kconf_index_build()).
 */
struct repair_kconfig {
	const char *srcdir, *srcarch;
	const char *base;
	size_t len;
	int (*olddefconfig)(void *data, const char *config, size_t len,
			    struct kconf *result, struct strbuf *err);
	void *data;
};

int repair_resolve(const struct repair_kconfig *k, const struct cover_needs *want,
		   struct repair *out, struct strbuf *err);

/*
 * The fragment's text: one "CONFIG_X=y" line per symbol set, one
 * "# CONFIG_X is not set" per symbol unset
 */
void repair_fragment(const struct repair *r, struct strbuf *out);

/* The fail entry of sym asked on, or NULL */
const struct repair_fail *repair_failed(const struct repair *r, const char *sym);
/* ... asked off, or NULL */
const struct repair_fail *repair_failed_off(const struct repair *r, const char *sym);

#endif
