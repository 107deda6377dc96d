/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which patch of a series broke a test, and whether it really did.
 *
 * A candidate is something the tip shows and the base does not: a
 * kselftest failing, a kernel report during a kselftest, a boot that
 * fails (or hangs, or crashes, or a report outside the tests).  It is a
 * regression only when it is confirmed:
 *	- on the tip it showed in every one of confirm runs (the guest init
 *	  runs a test that failed or made the kernel report up to confirm
 *	  times: boot.confirm; twice for a test that timed out, whose limit
 *	  is long);
 *	- on the base it never showed, in at least 2 * confirm runs (the
 *	  base's runs of the test are cached per base, configuration and
 *	  test, and added to only when a series needs them);
 * else it is flaky: shown, counted, never a finding.  A boot failure is
 * one run per boot: the tip's boot and the base's are what confirm it.
 *
 * Then bisection over the series' own kernels (patch k's tree, built
 * per patch by the build stage): lo passed (0: the base), hi failed (n:
 * the tip); each probe boots patch (lo + hi) / 2 once with every test
 * of the candidates it decides run confirm times (boot.confirm), and
 * moves lo or hi for every candidate it decides.  A candidate found
 * failing in some runs and passing in others of a probe is flaky; one
 * whose probe could not be booted stops (its culprit is unknown).  Each
 * candidate costs at most ceil(log2 n) probes, plus the tip's boot.
 *
 * This file decides; it boots nothing (bisect-boot.c does, through
 * bisect_run()'s probe function), so that the decisions can be tested on
 * recorded or simulated results (tests/unit/t-bisect.c).
 */
#ifndef LOREBOT_CI_BISECT_H
#define LOREBOT_CI_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/strbuf.h"
#include "ci/boot.h"

/* What one candidate showed on one kernel: in bad of runs runs */
struct bisect_obs {
	unsigned int runs;
	unsigned int bad;
};

enum bisect_verdict {
	BISECT_NONE,		/* not run */
	BISECT_GOOD,		/* passed every run, as many as needed */
	BISECT_BAD,		/* failed every run, as many as needed */
	BISECT_MIXED,		/* failed some runs and passed others */
	BISECT_SHORT,		/* fewer runs than needed */
};

const char *bisect_verdict_name(enum bisect_verdict v);

enum bisect_kind {
	BISECT_TEST,		/* a kselftest fails */
	BISECT_REPORT,		/* a kernel report during a kselftest */
	BISECT_BOOT,		/* no boot, a hang, a crash, a report outside the tests */
};

enum bisect_state {
	BISECT_OPEN,		/* confirmed; the culprit is being searched */
	BISECT_FOUND,		/* the culprit is patch hi */
	BISECT_FLAKY,		/* not in every run somewhere: never a finding */
	BISECT_STOPPED,		/* a probe could not be booted: culprit unknown */
};

const char *bisect_state_name(enum bisect_state s);

struct bisect_step {
	int patch;
	struct bisect_obs obs;
	enum bisect_verdict verdict;
};

struct bisect_cand {
	enum bisect_kind kind;
	char *test;		/* TEST, REPORT: the kselftest ("madv_populate") */
	char *title;		/* REPORT, BOOT: the report's title, or how the boot ended */
	bool timeout;		/* TEST: it timed out: twice is enough, its limit is long */
	struct bisect_obs tip, base;
	enum bisect_state state;
	int lo, hi;		/* lo passed (0: the base), hi failed (n: the tip) */
	unsigned int boots;	/* series kernels booted for it, the tip's included */
	char *why;		/* FLAKY, STOPPED: why, in a few words */
	struct bisect_step *steps;	/* the probes that decided something */
	size_t steps_nr, steps_alloc;
	void *data;		/* the caller's */
};

void bisect_cand_init(struct bisect_cand *c, enum bisect_kind kind,
		      const char *test, const char *title);
void bisect_cand_release(struct bisect_cand *c);

/* Runs a verdict on c needs: confirm, 2 for a test that timed out, 1 for a boot */
unsigned int bisect_need(const struct bisect_cand *c, unsigned int confirm);
enum bisect_verdict bisect_verdict(const struct bisect_obs *o, unsigned int need);

/*
 * More runs of the base c needs before it can be confirmed: 0 when the
 * base already has enough clean runs, or failed once (then it is flaky)
 */
unsigned int bisect_base_more(const struct bisect_cand *c, unsigned int confirm);

/*
 * Decide from c->tip and c->base whether c is a regression of a series
 * of n patches: OPEN (lo 0, hi n; FOUND at once when n is 1) or FLAKY.
 */
void bisect_confirm(struct bisect_cand *c, unsigned int confirm, int n);

/* The next patch to boot (1..n-1), 0 when every candidate is decided */
int bisect_next(struct bisect_cand *const *c, size_t nr);
/* Does booting patch decide something for c? */
bool bisect_wants(const struct bisect_cand *c, int patch);
/* What patch showed for c (bisect_wants() was true) */
void bisect_take(struct bisect_cand *c, int patch, const struct bisect_obs *o,
		 unsigned int confirm);
/* patch could not be booted: c's culprit stays unknown */
void bisect_stop(struct bisect_cand *c, int patch, const char *why);

/*
 * Boot patch and count, for each of the nr candidates (all of which want
 * it), its runs and bad runs in obs[i].  0, or -1 with err when the
 * kernel could not be had or booted.
 */
typedef int bisect_probe_fn(void *data, int patch, struct bisect_cand *const *cands,
			    size_t nr, struct bisect_obs *obs, struct strbuf *err);

/*
 * The search for the confirmed (OPEN) candidates of c, through probe;
 * returns the probes booted.
 */
unsigned int bisect_run(struct bisect_cand *const *c, size_t nr, unsigned int confirm,
			bisect_probe_fn *probe, void *data);

/*
 * With real boots, after baseline_boot_arch() made aj (the arch's JSON)
 * from tip and base: confirm what is new (the tip booted again when its
 * runs were too few, the base kb run more and cached), bisect it over
 * s, and annotate aj: each finding's "confirm" ({tip, base: {runs, bad},
 * runs}) and "culprit" ({state, patch, commit, subject, suspect, why,
 * boots, steps}); a culprit found (and not suspect: it only changes
 * comments or documentation) is the finding's "patch" and "commit"; what
 * is not confirmed moves from "findings" to "flaky" (with "why"); aj's
 * "bisection" counts the boots.
 */
void bisect_boot(const struct boot_opts *o, const struct arch *a,
		 const struct boot_result *tip, const struct boot_result *base,
		 const struct boot_kernel *kb, const struct boot_series *s,
		 json_object *aj);

/* "failed 5 of 5 runs" */
void bisect_obs_text(struct strbuf *sb, const struct bisect_obs *o, const char *bad);

#endif
