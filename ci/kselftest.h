/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mm kselftests lorebot runs in its guests: a catalog of what
 * tools/testing/selftests/mm offers (binary, arguments, time limit, the
 * arches it applies to, and why a test is not in the default list), the
 * selection for one boot, and the static cross build of the selected
 * binaries from the kernel tree under test.
 */
#ifndef LOREBOT_CI_KSELFTEST_H
#define LOREBOT_CI_KSELFTEST_H

#include <stdbool.h>

#include "lib/strbuf.h"
#include "bot/base/arch.h"

struct kst_def {
	const char *name;	/* reported as mm/<name> */
	const char *bin;	/* in tools/testing/selftests/mm */
	const char *args;	/* NULL or space-separated arguments */
	unsigned int timeout_s;	/* 0: the boot's default test timeout */
	unsigned int hugepages;	/* reserved for this test; 0: the default */
	const char *archs;	/* NULL: every arch, else "x86_64 riscv" */
	bool dflt;		/* in the default list */
	const char *skip_on;	/* arches where the default list leaves it out */
	const char *skip_why;	/* why */
	const char *note;	/* why it is not (or where it is special) */
};

extern const struct kst_def kst_catalog[];
extern const size_t kst_catalog_nr;

/* By name, with or without "mm/" in front; NULL if unknown */
const struct kst_def *kselftest_lookup(const char *name);

struct kst_skip {
	char *name;
	char *reason;
};

/* The tests of one boot, and the ones left out, with reasons */
struct kst_plan {
	const struct kst_def **tests;
	size_t nr, alloc;
	struct kst_skip *skipped;
	size_t skipped_nr, skipped_alloc;
};

#define KST_PLAN_INIT { 0 }

/*
 * Select names (NULL: the default list) for arch a.  A name may be a
 * test or "default" (the default list).  Unknown names are an error
 * (-EINVAL, err names them); tests that do not apply to a are skipped
 * with a reason.  Catalog tests not selected are recorded as skipped.
 */
int kselftest_select(const struct arch *a, const char *const *names, size_t nr,
		     struct kst_plan *plan, struct strbuf *err);
void kselftest_plan_release(struct kst_plan *plan);
void kselftest_plan_skip(struct kst_plan *plan, const char *name, const char *why);
/* Drop tests[i] from the plan, recording why */
void kselftest_plan_drop(struct kst_plan *plan, size_t i, const char *why);
/* A stable text describing the plan (for cache keys) */
void kselftest_plan_key(const struct kst_plan *plan, struct strbuf *sb);

/*
 * Where a kselftest build reads and writes.  srcdir is the kernel tree
 * (never written: OUTPUT and the headers go elsewhere), objdir an O= dir
 * of that tree for headers_install, hdrdir where the headers go, outdir
 * where the binaries go.  sandbox: run make in bubblewrap (no network,
 * the host's programs, srcdir read-only, outdir/hdrdir/objdir writable).
 */
struct kst_build {
	const struct arch *arch;
	const char *srcdir;
	const char *objdir;
	const char *hdrdir;
	const char *outdir;
	const char *log;	/* make's output (appended), or NULL */
	unsigned int jobs;
	uint64_t timeout_ms;
	uint64_t nproc;		/* RLIMIT_NPROC (0: none) */
	bool sandbox;
	uid_t uid;		/* when root: build as this user (0: as root) */
	gid_t gid;
};

/*
 * Install the headers and build the plan's binaries statically with
 * the arch's cross compiler ("make -k": one broken test does not stop
 * the others).  Tests whose binary did not appear are dropped from the
 * plan with the compiler's first error as the reason.  0, or -errno
 * when the toolchain could not run at all (err says why).
 */
int kselftest_build(const struct kst_build *b, struct kst_plan *plan,
		    struct strbuf *err);

#endif
