/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel build directories: one per architecture, profile and base
 * commit, built once and then reused for every series on that base.
 *
 *   <cache>/builds/<arch>/<profile>-<base:12>-<recipe:8>/
 *	src/		private source tree (ci/srctree.h), read-only to builds
 *	src.index	its index
 *	obj/		O=, owned by the build user
 *	config.base	the profile's .config at the base
 *	base.diags	diagnostics of the full base build (ci/diag.h storage)
 *	w1/		base diagnostics of single objects built with W=1
 *	state		what src holds, whether the base build completed
 *   <cache>/builds/<arch>/<same name>.lock	flock(2) of the directory
 *   <cache>/ccache/				CCACHE_DIR of every build
 *
 * Every make runs through lib/run.h: in bubblewrap without network, with
 * the source tree read-only and only obj/ and the ccache writable, as the
 * build user (build.user) when lorebot runs as root, with a wall-clock
 * timeout (build.timeout, arch.<name>.timeout), CPU and address-space
 * limits and bounded output.  A step cut short (timeout, crash) leaves
 * a mark; the next open deletes what that step wrote, so make never
 * trusts a half-written object.
 *
 * Usage (the boot stage: an image and a source tree of one commit):
 *	struct kbuild_env env;
 *	struct kbuild_tree *t;
 *	struct kbuild_step step;
 *	kbuild_env_init(&env, cfg, &err);
 *	kbuild_open(&t, &env, arch_lookup("arm64"), "small", git_dir,
 *		    base_oid, log_dir, &err);	   (locks; builds the base once)
 *	kbuild_build_commit(t, commit_oid, "tip", &step, &err);
 *	... t->src, t->obj, kbuild_image(t) hold that commit until ...
 *	kbuild_step_release(&step);
 *	kbuild_close(t);
 */
#ifndef LOREBOT_CI_KBUILD_H
#define LOREBOT_CI_KBUILD_H

#include <sys/types.h>

#include "bot/conf/config.h"
#include "bot/base/arch.h"
#include "ci/diag.h"
#include "ci/profile.h"
#include "ci/srctree.h"
#include "ci/units.h"

struct kbuild_env {
	const struct config *cfg;
	char *cache;		/* build directories and the ccache */
	int jobs;
	uint64_t timeout_ms;	/* one make step (build.timeout) */
	uint64_t mem_bytes;	/* RLIMIT_AS of each build process */
	uint64_t nproc;		/* RLIMIT_NPROC of a make (build.processes) */
	size_t log_max;		/* output kept per step */
	bool ccache;
	bool ccache_all;	/* build.ccachewrite=all: every build writes it */
	bool trust_all;		/* every commit is trusted (a developer's own) */
	bool sandbox;
	uid_t uid;		/* the build user when run as root, else 0 */
	gid_t gid;
	unsigned int keep;	/* build directories kept per arch */
	uint64_t cache_size;	/* build.cachesize: all build directories, at most */
};

/* 0, or -1 with err (unknown build user, unusable cache directory) */
int kbuild_env_init(struct kbuild_env *env, const struct config *cfg,
		    struct strbuf *err);
void kbuild_env_release(struct kbuild_env *env);
/*
 * The arch with arch.<name>.* overrides applied (kernelarch,
 * crosscompile, image); strings borrowed from cfg and the table.
 */
int kbuild_arch(const struct config *cfg, const char *name, struct arch *out,
		struct strbuf *err);
/* The wall-clock limit of one step for this arch */
uint64_t kbuild_timeout_ms(const struct kbuild_env *env, const struct arch *arch);

enum kbuild_status {
	KBUILD_OK,
	KBUILD_FAILED,		/* make failed: the diagnostics say why */
	KBUILD_INFRA,		/* not the tree's fault: see infra */
};

struct kbuild_step {
	enum kbuild_status status;
	char *infra;		/* why, for KBUILD_INFRA */
	bool timed_out;
	struct diag_parse parse;	/* diagnostics, targets built */
	char *log_path;		/* NULL without a log directory */
	uint64_t elapsed_ms;
	unsigned int cc_hits, cc_misses;	/* ccache, this step */
	unsigned int cc_writes;	/* results it added to the shared ccache */
};

void kbuild_step_release(struct kbuild_step *s);

struct kbuild_tree {
	const struct kbuild_env *env;
	struct arch arch;
	struct profile profile;
	char base[OID_HEX];
	char cur[OID_HEX];	/* the commit src holds */
	bool cur_ours;		/* ... checked out by this open (kbuild_checkout()) */
	char trust_oid[OID_HEX];	/* kbuild_trusted(): for which commit */
	bool trust;		/* ... and what it found */
	char built[OID_HEX];	/* the last commit whose image was built */
	char *git_dir;		/* where commits are read from */
	char *dir, *src, *obj, *index;
	char *log_dir;		/* step logs (NULL: none) */
	unsigned int steps;	/* numbers the logs */
	int lock_fd;
	/* the base */
	bool base_built_now;	/* this open made the base build */
	bool base_seeded;	/* ... over a copy of another profile's base */
	bool base_refreshed;	/* ... or made it again over what was left */
	uint64_t refresh_ms;	/* how long that took */
	bool refresh_due;	/* ... which is done before the first untrusted step */
	uint64_t base_ms;	/* how long the base build took */
	unsigned int base_cc_hits, base_cc_misses;
	struct diag_list base_diags;	/* every unit's, after the base build */
	struct units units;		/* every unit's now (ci/units.h) */
	struct strbuf config_notes;	/* fragment options that did not stick */
};

/*
 * Lock (waiting for another user of the same directory) and open the
 * build directory of arch/profile/base, creating and building the base
 * when needed.  All failures are infrastructure failures (the base does
 * not build, no toolchain, timeout): -1 with err.  log_dir (may be NULL)
 * receives one log per make step.
 */
int kbuild_open(struct kbuild_tree **out, const struct kbuild_env *env,
		const struct arch *arch, const char *profile,
		const char *git_dir, const char *base, const char *log_dir,
		struct strbuf *err);
void kbuild_close(struct kbuild_tree *t);

/*
 * kbuild_open() of a loaded profile (taken: *profile is emptied), the
 * config repair's (ci/repair.h).  With seed (the open directory of the
 * same arch and base whose profile this one extends, e.g. "small"), a
 * directory without a base starts as a copy of the seed's base: its
 * source tree and obj/ copied, the seed's paths in obj/ made
 * its own, then the base is configured and made again, which rebuilds
 * only what the configuration's change touches.  A copy that cannot be
 * made falls back to a build from nothing.
 */
int kbuild_open_profile(struct kbuild_tree **out, const struct kbuild_env *env,
			const struct arch *arch, struct profile *profile,
			const char *git_dir, const char *base, const char *log_dir,
			struct kbuild_tree *seed, struct strbuf *err);

/*
 * When the open found obj/ not as the base left it, make the base again
 * now (t->base_refreshed, t->refresh_ms), then put back the commit src
 * held if this open checked it out (not another job's, which may not be
 * in this repository).  The first untrusted step after the open does it
 * by itself; a
 * job calls it before its untrusted steps to have it apart.  0 (also when
 * nothing is due, or the base could not be made: the next open tries
 * again), or -1 with err when src cannot be put back.
 */
int kbuild_refresh(struct kbuild_tree *t, struct strbuf *err);

/*
 * Remove the least recently used build directories of every arch until
 * those under <cache>/builds take at most build.cachesize; keep, and
 * keep2 (may be NULL), and any directory in use stay.  Returns how many
 * it removed.
 */
int kbuild_prune_size(const struct kbuild_env *env, const char *keep,
		      const char *keep2);

/*
 * Remove all but the keep most recently used build directories under
 * arch_dir (current, the one just opened, counts as one and stays), and
 * none that is in use (its .lock held).  Returns how many it removed.
 */
int kbuild_prune(const char *arch_dir, const char *current, unsigned int keep);

/*
 * Put commit into src (only changed files are rewritten) and bring the
 * .config along: the base's, with olddefconfig when the commit changes a
 * Kconfig file.  *kconfig_changed (may be NULL) says whether it did.
 * The config step's result is in step (a failure there is the tree's).
 */
int kbuild_checkout(struct kbuild_tree *t, const char *commit,
		    bool *kconfig_changed, struct kbuild_step *step,
		    struct strbuf *err);

struct kbuild_make_opts {
	const char *name;		/* names the log: "base", "patch-2" */
	const char *const *targets;	/* NULL: the image (and modules) */
	const char *const *vars;	/* "W=1", "INSTALL_HDR_PATH=..." */
	const char *const *rw;		/* more directories the step may write */
	bool keep_going;		/* make -k */
	bool no_ccache;			/* CC without ccache: it only probes the compiler */
	const char *top;		/* unit of untargeted output: "make" */
	uint64_t timeout_ms;		/* 0: the arch's */
	/*
	 * Called on what the step printed before it becomes the tree's
	 * units: an analyzer's step (ci/kcheck.h) renames its units and
	 * tools there.  NULL: none.
	 */
	void (*filter)(struct diag_parse *p, void *data);
	void *filter_data;
	const char *obj;		/* O= other than t->obj (kbuild_probe_config()) */
};

/*
 * Run make in obj; 0 when it ran (see step->status), -1 with err if not.
 * The diagnostics of what it built become t->units' (kept in the
 * directory).  A failed make without an error message gets one ("the
 * build failed: ..."), so that the failure is a diagnostic like others.
 */
int kbuild_make(struct kbuild_tree *t, const struct kbuild_make_opts *o,
		struct kbuild_step *step, struct strbuf *err);

/* Record what a step (not a make: kernel-doc) printed for its units */
void kbuild_units_update(struct kbuild_tree *t, const struct diag_parse *p,
			 const char *top);

/*
 * What olddefconfig makes of config (a .config's text) in t's source
 * tree as it is: the resulting .config in out.  A step like the others
 * (sandbox, build user, limits, a log), in <dir>/kconfig, an O=
 * directory of its own: obj/ and the units are not touched.  0 when it
 * ran (see step->status), -1 with err if not.
 */
int kbuild_probe_config(struct kbuild_tree *t, const char *config, size_t len,
			struct strbuf *out, struct kbuild_step *step,
			struct strbuf *err);

/*
 * Preprocess one compiled unit of obj/ ("mm/rmap.o") as kbuild compiled
 * it: the command of its .o.cmd with -E -dD instead of -c, its output
 * (line markers, #defines) in out.  Run like a make step, in obj/.
 * 0 when it ran (see step->status; a unit without a C command is
 * KBUILD_FAILED), -1 with err if not.
 */
int kbuild_preprocess(struct kbuild_tree *t, const char *unit, struct strbuf *out,
		      struct kbuild_step *step, struct strbuf *err);

/* Checkout plus a make of the image: what the boot stage calls */
int kbuild_build_commit(struct kbuild_tree *t, const char *commit,
			const char *name, struct kbuild_step *step,
			struct strbuf *err);

/*
 * The make lines that build what t builds without lorebot, in a kernel
 * tree with the .config of t in obj (the developer's O= directory):
 * "make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build olddefconfig"
 * and the build of the image (and modules), a line each
 */
void kbuild_recipe(const struct kbuild_tree *t, const char *obj, struct strbuf *sb);
/* Their common start: "make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build" */
void kbuild_recipe_head(const struct kbuild_tree *t, const char *obj, struct strbuf *sb);

/* <dir>/config.base: the profile's .config at the base (allocated) */
char *kbuild_base_config(const struct kbuild_tree *t);

/* obj/arch/.../Image (allocated); exists after a successful build */
char *kbuild_image(const struct kbuild_tree *t);
/*
 * Is the commit src holds on a git.base branch (the tree the bot
 * trusts)?  Only such builds write the shared ccache, unless
 * build.ccachewrite = all: a series' build reads it and keeps what it
 * compiles to itself, so that no series can plant an object another
 * series' build takes from the cache.
 */
bool kbuild_trusted(struct kbuild_tree *t);
/* Is oid on a git.base branch (or is every commit trusted)? */
bool kbuild_commit_trusted(const struct kbuild_tree *t, const char *oid);
/* Was path (a .c of the source tree) compiled in this configuration? */
bool kbuild_compiled(const struct kbuild_tree *t, const char *c_path);

#endif
