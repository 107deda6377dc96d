/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels "lorebot boot" boots come from the build engine
 * (ci/kbuild.h): the same build directory of arch, profile and base
 * that "lorebot build" used, so the daemon's boot job finds the tip it
 * has just built and makes nothing.  A bootkernel fills the struct
 * boot_kernel that ci/boot.h takes; its prepare hook checks the commit
 * out (for the selftests) or builds its image, only when the boot
 * engine needs it (a cached base needs neither).  The image is copied
 * out of O= into the cache, so that a later build in the directory
 * cannot change the kernel being booted.
 *
 *	kbuild_open(&t, &env, &arch, profile, git_dir, base, log_dir, &err);
 *	bootkernel_init(&kt, t, tip, "tip", cachedir, &err);
 *	bootkernel_init(&kb, t, base, "base", cachedir, &err);
 *	baseline_boot_arch(&opts, &arch, &kt.k, &kb.k, &json, &err);
 *	bootkernel_release(&kt); bootkernel_release(&kb); kbuild_close(t);
 */
#ifndef LOREBOT_CI_BOOTKERNEL_H
#define LOREBOT_CI_BOOTKERNEL_H

#include "ci/boot.h"
#include "ci/kbuild.h"

struct bootkernel {
	struct kbuild_tree *t;	/* borrowed; locked by its opener */
	char commit[OID_HEX];
	char *label;
	char *id;		/* arch, commit, profile recipe */
	char *kst_id;		/* the trees the selftests are built from */
	char *image;		/* the cache's copy of the image */
	char *objdir;		/* O= of headers_install for the selftests */
	struct boot_kernel k;
};

/* 0, or -1 with err (the commit's selftest trees cannot be read) */
int bootkernel_init(struct bootkernel *bk, struct kbuild_tree *t,
		    const char *commit, const char *label,
		    const char *cachedir, struct strbuf *err);
void bootkernel_release(struct bootkernel *bk);

/*
 * Keep the image t has just built for commit where the boot stage looks
 * for that commit's kernel (the build stage does it for every patch, so
 * that bisection boots what was built); 0 or -errno (logged).
 */
int bootkernel_keep(struct kbuild_tree *t, const char *commit, const char *cachedir);
/*
 * Remove all but the keep most recently used kernel images of arch
 * (boot.keepkernels), none used within the hour.  How many went.
 */
int bootkernel_prune(const char *cachedir, const char *arch, unsigned int keep);

/*
 * The whole boot stage of one arch for a series: the build directory of
 * (arch, build.profile, base), the tip and base kernels from it, and
 * baseline_boot_arch(), with the commits between base and tip as the
 * series to bisect.  base may be "" (no comparison: the tip's own build
 * directory); with o->runs the tip boots alone, built in the base's
 * directory (lorebot boot --runs).  Always an arch object
 * (see boot-report.h); what kept the kernels from being had is an
 * "infra" one.
 */
json_object *bootkernel_series_arch(const struct config *cfg,
				    const struct boot_opts *o,
				    const struct kbuild_env *env, const char *arch,
				    const char *git_dir, const char *tip,
				    const char *base);

#endif
