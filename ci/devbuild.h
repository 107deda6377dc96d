/* SPDX-License-Identifier: GPL-2.0 */
/*
 * INTERIM kernel builds for "lorebot boot", until the build engine of
 * issue 6 is merged: it replaces this file and devbuild.c (one call,
 * devbuild_prepare(), behind struct boot_kernel's prepare hook).
 *
 * One source checkout per cache (a private index; "git read-tree
 * --reset -u" rewrites only the files that differ, so kbuild rebuilds
 * only what changed), one O= directory per arch, tinyconfig plus the
 * embedded fragments (ci/devbuild/<arch>.config for the serial console
 * and initrd, config/fragments/kselftest.config), and the image copied
 * to a cache entry per arch, commit and configuration.
 *
 * The git operations use the git program through run.h.
 */
#ifndef LOREBOT_CI_DEVBUILD_H
#define LOREBOT_CI_DEVBUILD_H

#include "bot/strbuf.h"
#include "ci/arch.h"
#include "ci/boot.h"

struct devbuild {
	const char *repo;	/* a git repository (bare is fine) */
	const char *cachedir;	/* the cache root */
	unsigned int jobs;
	uint64_t timeout_ms;
	bool sandbox;
	int lock;		/* held while the checkout is in use */
};

#define DEVBUILD_INIT { .jobs = 2, .timeout_ms = 2700000, .sandbox = true, \
			.lock = -1 }

/* One kernel to build: fills the struct boot_kernel the engine takes */
struct devkernel {
	struct devbuild *b;
	const struct arch *arch;
	char commit[41];
	char *label;
	char *id;		/* commit + configuration */
	char *kst_id;		/* the trees the selftests are built from */
	char *image;
	char *srcdir;
	char *objdir;
	struct boot_kernel k;
};

/* Full commit id of rev in repo; 0 or -errno with err set */
int devbuild_resolve(const char *repo, const char *rev, char out[41],
		     struct strbuf *err);
int devbuild_merge_base(const char *repo, const char *a, const char *b,
			char out[41], struct strbuf *err);

/* Take the cache's build lock for the life of b (devbuild_release) */
int devbuild_init(struct devbuild *b, struct strbuf *err);
void devbuild_release(struct devbuild *b);

/*
 * Describe commit for arch (ids only, nothing built yet): dk->k is then
 * ready for boot_arch(), which builds through its prepare hook only when
 * the kernel is needed (a cached base is not built again).
 */
int devkernel_init(struct devkernel *dk, struct devbuild *b,
		   const struct arch *a, const char *commit,
		   const char *label, struct strbuf *err);
void devkernel_release(struct devkernel *dk);

/* The embedded configuration fragment for arch, and kselftest.config */
const char *devbuild_fragment(const struct arch *a);
const char *devbuild_kselftest_fragment(void);

#endif
