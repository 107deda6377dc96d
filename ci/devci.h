/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CI stages of "lorebot check --build/--boot" in a developer's tree:
 * which architectures, whether this machine has their tools (a missing
 * one is named with the Debian package that provides it), and the one
 * entry point into the build and boot engines (devci_run()).
 *
 * The engines read the commits from the developer's repository (never
 * its work tree, index or refs) and build each one in a source tree of
 * their own under the lorebot cache directory, with the same profiles
 * as the daemon; their findings come back as findings of the patch they
 * belong to, next to the checkers'.
 */
#ifndef LOREBOT_CI_DEVCI_H
#define LOREBOT_CI_DEVCI_H

#include "bot/conf/config.h"
#include "checkers/check.h"
#include "bot/base/arch.h"

#define DEVCI_MAX_ARCHES 8

struct devci_opts {
	const struct arch *build[DEVCI_MAX_ARCHES];	/* --build (and --boot) */
	size_t nr_build;
	const struct arch *boot[DEVCI_MAX_ARCHES];	/* --boot */
	size_t nr_boot;
	const char *profile;		/* build.profile */
	bool ccache;			/* build.ccache */
};

#define DEVCI_OPTS_INIT { .profile = "small", .ccache = true }

/*
 * Add the architectures of list ("x86_64,arm64,riscv"; aliases as
 * arch_lookup() knows them; NULL or "": build.arch, else all) to
 * what --build (boot false) or --boot (boot true, which builds them
 * too) runs.  0, or -1 with err naming the unknown architecture.
 */
int devci_add_arches(struct devci_opts *o, const char *list, bool boot,
		     const struct config *cfg, struct strbuf *err);

static inline bool devci_wanted(const struct devci_opts *o)
{
	return o->nr_build || o->nr_boot;
}

/*
 * What is missing on this machine for the stages asked for: one line
 * per missing program or file, with the package to install, and a
 * final "apt-get install ..." line.  The number of missing things.
 */
int devci_check_tools(const struct devci_opts *o, struct strbuf *missing);

/* The commits to build: the developer's repository, read-only */
struct devci_range {
	const char *git_dir;		/* the developer's repository */
	const char *base;		/* the commit the series applies to */
	const char *const *commits;	/* the patches' commits, oldest first */
	const char *const *subjects;
	size_t nr;
	const char *desc;		/* for messages: "origin/mm-new..port" */
};

/*
 * INTEGRATION POINT (issues 6 and 7): build every commit of r for each
 * architecture of o->build (each patch on its own, for bisectability),
 * boot the tip for o->boot, and append what they find to out as
 * findings of the patch they belong to (rule "build:<arch>" or
 * "boot:<arch>", file, line and message from the diagnostic).
 * Returns 0, -ENOSYS with err when this lorebot has no build engine, or
 * another -errno (with err) when the stages could not run.
 */
int devci_run(const struct devci_range *r, const struct devci_opts *o,
	      const struct config *cfg, struct findings *out,
	      struct strbuf *err);

#endif
