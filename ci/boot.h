/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boot a kernel under qemu and run the mm kselftests in it; compare
 * with the base kernel.  The engine's inputs per kernel are the
 * bootable image, a source tree of the same commit (the selftests are
 * built from it) and that tree's O= directory (for headers_install):
 * how they were built is the build engine's business.
 *
 *	baseline_boot_arch(&opts, arch, &tip, &base, &json, &err)
 *
 * builds the selftests for tip and base, boots both (the base's console
 * log is cached per base kernel, arch and test plan, so a base boots
 * once per machine), and returns the arch's JSON object (see
 * boot-report.h for its keys).
 */
#ifndef LOREBOT_CI_BOOT_H
#define LOREBOT_CI_BOOT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bot/conf/config.h"
#include "lib/strbuf.h"
#include "bot/base/arch.h"
#include "ci/console.h"
#include "ci/kselftest.h"

enum boot_kvm {
	BOOT_KVM_AUTO,
	BOOT_KVM_ON,
	BOOT_KVM_OFF,
};

struct boot_opts {
	const char *cachedir;		/* per machine: base logs, selftests, init */
	const char *workdir;		/* this run: initrds, console logs */
	const char *const *tests;	/* NULL: the default list */
	size_t tests_nr;
	unsigned int mem_mb;
	unsigned int smp;
	unsigned int retries;		/* reruns of a failing test (confirm - 1) */
	unsigned int confirm;		/* runs that confirm a regression (boot.confirm) */
	unsigned int runs;		/* > 0: run every test this many times, */
	const char *const *short_runs;	/* ... but these (NULL-terminated) twice */
	unsigned int keep_kernels;	/* images kept per arch (boot.keepkernels) */
	unsigned int hugepages;		/* reserved in the guest */
	unsigned int jobs;		/* make -j of the selftest build */
	uint64_t timeout_ms;		/* one boot, wall clock */
	uint64_t test_timeout_ms;	/* one test in the guest */
	uint64_t build_timeout_ms;	/* the selftest build */
	uint64_t nproc;			/* RLIMIT_NPROC of its make and of qemu */
	const char *cmdline;		/* extra kernel command line */
	enum boot_kvm kvm;
	bool sandbox;			/* bubblewrap, no network */
	uid_t uid;			/* when root: run qemu as this user */
	gid_t gid;
	bool gzip;			/* compress the initramfs */
};

/* Runs of each test in one boot at most (runs, lorebot boot --runs) */
#define BOOT_RUNS_MAX 1000

#define BOOT_OPTS_INIT {						\
	.mem_mb = 1024, .smp = 2, .retries = 4, .confirm = 5, .hugepages = 32,	\
	.keep_kernels = 200,	\
	.jobs = 2, .timeout_ms = 300000, .test_timeout_ms = 60000,	\
	.build_timeout_ms = 1200000, .nproc = 4096, .sandbox = true,	\
}

enum boot_need {
	BOOT_NEED_IMAGE,	/* image must be set and built */
	BOOT_NEED_SOURCE,	/* srcdir and objdir must hold the commit */
};

struct boot_kernel {
	const char *label;	/* "tip", "base": names files in workdir */
	const char *image;	/* bzImage, Image */
	const char *srcdir;	/* source tree of the same commit */
	const char *objdir;	/* its O= directory */
	const char *id;		/* identifies the kernel (commit + config) */
	const char *kst_id;	/* identifies what its selftest build reads; NULL: id */
	/*
	 * Its tree is one the bot trusts (a commit on a git.base branch, or
	 * a developer's own): only such a build fills the selftest cache
	 */
	bool trusted;
	/*
	 * Optional: called when the image or the source is first needed
	 * (a cached base needs neither); it fills in the fields above.
	 */
	int (*prepare)(void *data, enum boot_need need, struct strbuf *err);
	void *data;
	bool built;		/* prepare() had to build the image */
};

enum boot_end {
	BOOT_DONE,		/* the init ran its plan and rebooted */
	BOOT_NO_INIT,		/* qemu ended before the init started */
	BOOT_DIED,		/* qemu ended while tests were running */
	BOOT_HUNG,		/* the time limit stopped it */
	BOOT_INFRA,		/* qemu could not run, or nothing to boot */
};

const char *boot_end_name(enum boot_end e);

/* One boot of one kernel */
struct boot_result {
	enum boot_end end;
	struct console con;
	struct kst_plan plan;
	char *log_path;		/* the console log */
	struct strbuf tail;	/* its end, when the boot did not finish */
	struct strbuf infra;	/* what went wrong, for BOOT_INFRA */
	char *accel;		/* "tcg" or "kvm", and why */
	char *qemu;		/* the qemu command line, to run without lorebot */
	char *cmdline;		/* the kernel command line */
	uint64_t total_ms;	/* qemu's wall clock */
	uint64_t build_ms;	/* building the selftests and the initramfs */
	int qemu_status;	/* as the shell reports it */
	bool timed_out;		/* stopped at the time limit */
	bool cached;		/* the log came from the base cache */
	int boots;		/* qemu runs: 2 after a silent hang */
	char *first_log;	/* the first run's console, when booted twice */
};

void boot_result_init(struct boot_result *r);
void boot_result_release(struct boot_result *r);

/*
 * Build k's selftests and initramfs and boot it.  Returns 0 when the
 * boot happened (see r->end), -errno on an infrastructure problem (also
 * r->end == BOOT_INFRA, r->infra says what).
 */
int boot_kernel(const struct boot_opts *o, const struct arch *a,
		const struct boot_kernel *k, struct boot_result *r);

/*
 * The selftests of r->plan for k.  The cache (one directory per arch and
 * k->kst_id) is made only by builds of trusted trees: the make of a
 * series' tree runs its top-level Makefile (headers_install) and could
 * leave anything in the directories it writes, for the next kernel with
 * the same selftest sources to boot.  An untrusted k uses the cache's
 * binaries when a trusted build of the same inputs made them all, else
 * builds its own in a private directory under o->workdir (*scratch, for
 * the caller to remove after use; NULL when none).  *bindir holds the
 * binaries.  0, or -errno with r->infra.
 */
int boot_selftests(const struct boot_opts *o, const struct arch *a,
		   const struct boot_kernel *k, struct boot_result *r,
		   char **bindir, char **scratch);

/*
 * Fill r from a console log: the parsed console, how the boot ended
 * (r->timed_out and r->qemu_status must be set) and the log's tail.
 */
void boot_analyze(struct boot_result *r, const char *log, size_t len,
		  const char *qemu_err);

/*
 * Fill o from configuration: boot.memory, boot.smp, boot.retries,
 * boot.hugepages, build.jobs, build.sandbox, build.user, and the limits
 * and command line not set yet; kvm (NULL: boot.kvm) is auto, on or
 * off.  0, or -1 with err.
 */
int boot_opts_config(struct boot_opts *o, const struct config *cfg,
		     const char *kvm, struct strbuf *err);

/*
 * The series under the tip, for finding the patch that broke something
 * (ci/bisect.h).  get() makes the kernel of patch m (1..n-1; the build
 * stage has kept its image, else it is built), valid until put();
 * cosmetic() says whether patch m changes only comments or
 * documentation (1), not (0), or cannot tell (-1).
 */
struct boot_series {
	size_t n;			/* patches; the tip is patch n */
	const char *const *commits;	/* n ids, oldest first */
	const char *const *subjects;	/* n subjects, or NULL */
	int (*get)(void *data, size_t m, struct boot_kernel **k, struct strbuf *err);
	void (*put)(void *data, struct boot_kernel *k);
	int (*cosmetic)(void *data, size_t m);
	void *data;
};

/*
 * tip and base (base may be NULL) of one arch, as JSON; with series
 * (may be NULL) and a base, what is new is confirmed and bisected
 * (bisect_boot()).  0 or -errno
 */
int baseline_boot_arch(const struct boot_opts *o, const struct arch *a,
		       const struct boot_kernel *tip, const struct boot_kernel *base,
		       const struct boot_series *series, json_object **out,
		       struct strbuf *err);

/*
 * A test's runs on the base besides the base's boot of the test list:
 * cached per base kernel, arch, boot parameters and test, so that a
 * regression is confirmed on a base once, not per series
 */
struct base_runs {
	unsigned int runs, fails;
	json_object *reports;	/* {"title": runs it came in} */
};

void baseline_runs_release(struct base_runs *r);
/* What the cache holds for test (nothing yet: zeros); 0 */
int baseline_runs(const struct boot_opts *o, const struct arch *a,
		  const struct boot_kernel *base, const char *test,
		  struct base_runs *r);
/*
 * Boot the base once with each of tests run runs times, and add what
 * came to the cache.  0, or -errno with err.
 */
int baseline_runs_more(const struct boot_opts *o, const struct arch *a,
		       const struct boot_kernel *base, const char *const *tests,
		       size_t nr, unsigned int runs, struct strbuf *err);


#endif
