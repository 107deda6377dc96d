/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building a series, patch after patch, for one architecture, and
 * keeping only what the series made worse.
 *
 * Per arch: open the build directory of the base (ci/kbuild.h: built
 * once, reused), then for each patch check its tree out, rebuild what it
 * changed (make -k), and compile the .c files the series touches once
 * more with W=1 (as .s targets, so the objects stay untouched) and
 * check them with sparse and Coccinelle (make C=2, ci/kcheck.h).  The
 * diagnostics of the tree at patch k are those of the last compile of
 * every unit; compared with the base (ci/delta.h) they give the new
 * ones.  A new diagnostic is a finding of the first patch that shows it;
 * an error that a later patch makes disappear is a bisection break.
 * Anything that is not the tree's fault (toolchain, timeout, disk) stops
 * the arch with status infra.
 */
#ifndef LOREBOT_CI_BUILDJOB_H
#define LOREBOT_CI_BUILDJOB_H

#include "ci/kcheck.h"
#include "ci/kbuild.h"
#include "ci/cover-run.h"
#include "ci/repair.h"

enum build_status {
	BUILD_OK,
	BUILD_WARNINGS,		/* new warnings only */
	BUILD_ERRORS,		/* errors (also: fixed later in the series) */
	BUILD_INFRA,		/* not the series' fault; incomplete */
	BUILD_SKIPPED,		/* not built (after an infra failure) */
	BUILD_PARTIAL,		/* no new diagnostics, but less of the change
				   compiled than build.mincoverage */
};

const char *buildjob_status_name(enum build_status s);

struct build_finding {
	struct diag d;
	unsigned int patch;	/* first patch showing it; 0: at the base */
	unsigned int fixed_by;	/* patch where it disappeared; 0: still there */
	bool is_new;		/* false: pre-existing, listed for context */
	bool w1;		/* only in the W=1 compile */
};

struct build_patch_result {
	unsigned int n;
	char commit[OID_HEX];
	const char *subject;	/* borrowed from the job's commits */
	enum build_status status;
	bool kconfig;		/* changed a Kconfig file: olddefconfig ran */
	uint64_t ms;		/* checkout + build + W=1 */
	unsigned int rebuilt;	/* objects compiled */
	unsigned int w1_units;
	unsigned int cc_hits, cc_misses;
	unsigned int cc_writes;	/* 0 unless build.ccachewrite = all */
	char *log, *w1_log;
	struct {
		unsigned int files;	/* files the checker checked */
		uint64_t ms;
		char *log;
	} check[KCHECK_NR];		/* ci/kcheck.h */
	struct cover_presult cover;	/* its changed lines compiled */
};

/* What the config repair did for one arch (ci/repair.h) */
struct build_repair {
	bool ran;		/* something was predicted not compiled */
	bool used;		/* the series was built with it */
	char *profile;		/* the profile built with ("small+r") */
	char *note;		/* why it was not used, or the branch it took, or NULL */
	struct repair r;	/* what stuck, what did not and why */
	int changed;		/* counted lines, predicted: */
	int small, repaired;	/* ... compiled with the profile, repaired */
	/*
	 * Turned off for the other branch (struct cover_predict): their
	 * lines are left to the build's first arch, job->first_arch
	 */
	struct cover_needs branched;
	bool seeded;		/* its base was a copy of the profile's */
	bool base_built;	/* ... and was made by this build */
	uint64_t ms;		/* prediction and Kconfig runs */
};

struct build_arch_result {
	char *arch;
	enum build_status status;
	char *infra;		/* for BUILD_INFRA: what went wrong */
	unsigned int infra_patch;	/* 0: while preparing the base */
	struct build_finding *findings;
	size_t nr, alloc;
	struct build_patch_result *patches;
	size_t patches_nr;
	char **bisect;		/* "patch 1/2 breaks bisection: ..." */
	size_t bisect_nr;
	char *build_dir, *src_dir, *obj_dir, *log_dir;
	char *image;		/* copy of the last patch's image, in log_dir */
	char *config;		/* copy of its .config, in log_dir */
	char *make;		/* the make lines without lorebot (kbuild_recipe()) */
	char *make_checks;	/* then those that show W=1's and the checkers' new findings */
	char *config_notes;
	char *check_skipped[KCHECK_NR];	/* asked for but not run: why */
	bool base_reused;
	bool base_refreshed;	/* made again over what the last job left */
	uint64_t refresh_ms;
	uint64_t base_ms;
	unsigned int base_cc_hits, base_cc_misses;
	uint64_t ms;		/* the whole arch */
	struct build_repair repair;
	int cover_changed, cover_compiled, cover_arch;	/* all patches */
	bool cover_measured;	/* every patch's lines were measured */
	char *cover_error;	/* why not, or NULL */
};

struct build_job {
	/* input */
	const struct kbuild_env *env;
	const char *git_dir;
	const char *profile;
	const char *log_dir;		/* per-arch logs under it; NULL: none */
	char base[OID_HEX];
	struct srctree_commits commits;	/* oldest first */
	bool w1;			/* W=1 pass over the touched files */
	/*
	 * Keep each patch's image where the boot stage finds it
	 * (bootkernel_keep()), so that bisection boots what was built
	 */
	bool keep_images;
	bool check[KCHECK_NR];		/* sparse, coccicheck (ci/kcheck.h) */
	bool repair;			/* build.repair */
	/*
	 * The first of the build's arches (build.arch, --arch), or NULL:
	 * the repair of every other takes the other branch of an #ifdef
	 * the first compiles (struct cover_predict), so that together they
	 * compile both
	 */
	const char *first_arch;
	int mincoverage;		/* build.mincoverage, percent */
	/* output */
	struct build_arch_result *archs;
	size_t archs_nr, archs_alloc;
};

/*
 * Build the job's commits for arch, appending a result to job->archs.
 * Returns that result's status.
 */
enum build_status buildjob_arch(struct build_job *job, const struct arch *arch);
/*
 * The config repair of job for one arch (ci/repair.h): predict which
 * changed lines *t (the profile's build directory, open) would not
 * compile, turn on what they need, and when that compiles more of them
 * open the repaired configuration's directory (its base seeded from
 * *t's) in *t's place.  0, out saying what happened (a repair that
 * cannot be made is a note, and *t stays), or -1 with err when Kconfig
 * could not run (infrastructure).
 */
int buildjob_repair(struct build_job *job, struct kbuild_tree **t,
		    char *const *touched, size_t touched_nr,
		    struct build_repair *out, struct strbuf *err);

/* The share of its arch's changed lines r compiled, percent; -1 when none is */
double buildjob_coverage(const struct build_arch_result *r);
void buildjob_release(struct build_job *job);

#endif
