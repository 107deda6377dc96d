/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel configuration profiles: a base target of kbuild (tinyconfig,
 * defconfig) plus config fragments merged with the tree's
 * scripts/kconfig/merge_config.sh, then olddefconfig.
 *
 * Built in: "small" (tinyconfig + boot.config, boot-<arch>.config,
 * mm.config, kselftest.config: a bootable kernel with the mm features,
 * about 3 minutes at -j2) and "production" (defconfig + mm.config).
 * Configuration: profile.<name>.base, profile.<name>.fragment (replaces
 * the built-in list; "{arch}" in a name is the arch's name),
 * arch.<name>.fragment (added to every profile of that arch).  Fragment
 * names without a '/' are looked up in build.fragments (default: the
 * config/fragments directory next to the lorebot binary's source tree,
 * else <prefix>/share/lorebot/fragments beside an installed binary, else
 * /usr/share/lorebot/fragments).
 */
#ifndef LOREBOT_CI_PROFILE_H
#define LOREBOT_CI_PROFILE_H

#include "bot/conf/config.h"
#include "bot/base/arch.h"

struct profile {
	char *name;
	char *base;		/* kbuild target making the starting .config */
	char **fragments;	/* absolute paths, merged in this order */
	size_t nr;
	char hash[17];		/* of everything above, contents included */
	const char *repair;	/* the repair fragment (one of fragments), or NULL */
};

/* 0, or -1 with err naming the unknown profile or missing fragment */
int profile_load(const struct config *cfg, const char *name,
		 const struct arch *arch, struct profile *p, struct strbuf *err);
void profile_release(struct profile *p);

/*
 * Add the fragment at path (absolute) after the others, as name's
 * profile plus it: the config repair's (ci/repair.h).  The profile's
 * name becomes "<name>+r" and its hash covers the fragment, so that
 * each repaired configuration has a build directory of its own.  0, or
 * -1 with err.
 */
int profile_add_fragment(struct profile *p, const char *path,
			 const struct arch *arch, struct strbuf *err);

/* The directory fragment names are looked up in (caller frees) */
char *profile_fragment_dir(const struct config *cfg);

#endif
