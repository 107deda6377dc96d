// SPDX-License-Identifier: GPL-2.0
/*
 * The decisions of ci/bisect.h over simulated boots, with a seeded
 * source of flakiness: what lorebot boot does with the runs the guest
 * reports, without qemu.  (The real boots of the same path are
 * tests/t0614-boot-bisect.t.)
 *
 * A world is a series of n patches and one kselftest, failing each run
 * with probability fail[m] on patch m's kernel (m = 0: the base).  One
 * series run is what the boot stage does: the tip boots with the test
 * run again while it keeps failing (boot.confirm runs at most); the base
 * booted once (its runs count too), plus the runs the candidate needs,
 * cached per world as lorebot caches them per base, config and test;
 * bisect_confirm(); bisect_run() over the patches.
 *
 * With LOREBOT_BISECT_REPLAY=FILE it decides instead series of one
 * patch over the runs a real guest made (tests/t0615-boot-flaky.t): the
 * runs are taken in order from what the file says the tip's and the
 * base's kernels gave, in place of the seeded draws (replay()).
 */
#include <unistd.h>

#include "ci/bisect.h"
#include "tests/unit/tap.h"

#define MAX_PATCHES 16

struct world {
	int n;
	double fail[MAX_PATCHES + 1];
	struct bisect_obs base_cache;	/* runs the base added for the test */
	uint64_t rng;
	unsigned int boots;		/* of series kernels, this run */
	/* replay: the runs of the base (0) and of the tip (1), 'F' failing */
	const char *real[2];
	size_t used[2];
	bool ran_out;			/* more runs needed than real has */
};

/* xorshift64*: the same numbers on every machine */
static double rnd(struct world *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return (double)((w->rng * 2685821657736338717ULL) >> 11) / (double)(1ULL << 53);
}

static bool run_fails(struct world *w, int m)
{
	if (w->real[0]) {
		int k = m == w->n;
		char c = w->real[k][w->used[k]];

		if (m && m != w->n)
			abort();	/* a replay is of series of one patch */
		if (!c) {
			w->ran_out = true;
			return false;
		}
		w->used[k]++;
		return c == 'F';
	}
	return rnd(w) < w->fail[m];
}

/* runs runs on patch m, every one of them */
static struct bisect_obs runs_on(struct world *w, int m, unsigned int runs)
{
	struct bisect_obs o = { 0 };

	while (o.runs < runs) {
		o.runs++;
		o.bad += run_fails(w, m);
	}
	return o;
}

/* retry mode: again while it fails, confirm runs at most */
static struct bisect_obs retried_on(struct world *w, int m, unsigned int confirm)
{
	struct bisect_obs o = { 0 };

	do {
		o.runs++;
		o.bad += run_fails(w, m);
	} while (o.bad == o.runs && o.runs < confirm);
	return o;
}

static int probe(void *data, int patch, struct bisect_cand *const *cands, size_t nr,
		 struct bisect_obs *obs, struct strbuf *err)
{
	struct world *w = data;
	size_t i;

	w->boots++;
	for (i = 0; i < nr; i++)
		obs[i] = runs_on(w, patch, 5);
	return 0;
}

struct outcome {
	bool candidate;		/* the tip showed something new */
	bool reported;		/* a finding */
	int culprit;
	unsigned int boots;	/* series kernels booted: the tip and the probes */
	enum bisect_state state;
};

/*
 * One series run; naive: the rule before boot.confirm (a failure rerun
 * once on the tip, the base's own boot the only comparison)
 */
static struct outcome series_run(struct world *w, unsigned int confirm, bool naive)
{
	struct outcome out = { .boots = 1 };
	struct bisect_obs tip, base_boot;
	struct bisect_cand c, *cp = &c;

	w->boots = 0;
	tip = retried_on(w, w->n, naive ? 2 : confirm);
	/* the base's own boot of the default list: the same rule */
	base_boot = retried_on(w, 0, naive ? 2 : confirm);
	/* what the tip passed is no candidate; a base failing every run is old */
	if (!tip.bad || base_boot.bad == base_boot.runs)
		return out;
	out.candidate = true;
	if (naive) {
		out.reported = tip.bad == tip.runs;
		out.culprit = w->n;
		return out;
	}
	bisect_cand_init(&c, BISECT_TEST, "flaky", NULL);
	c.tip = tip;
	/* the base's own boot counts, and the runs cached (base_obs()) */
	c.base = w->base_cache;
	c.base.runs += base_boot.runs;
	c.base.bad += base_boot.bad;
	/* the base is run more only for what the tip confirmed */
	if (bisect_verdict(&tip, confirm) == BISECT_BAD && bisect_base_more(&c, confirm)) {
		struct bisect_obs more = runs_on(w, 0, bisect_base_more(&c, confirm));

		w->base_cache.runs += more.runs;
		w->base_cache.bad += more.bad;
		c.base.runs += more.runs;
		c.base.bad += more.bad;
	}
	bisect_confirm(&c, confirm, w->n);
	bisect_run(&cp, 1, confirm, probe, w);
	out.state = c.state;
	out.reported = c.state == BISECT_FOUND || c.state == BISECT_STOPPED;
	out.culprit = c.hi;
	out.boots = c.boots;
	bisect_cand_release(&c);
	return out;
}

static void world_flaky(struct world *w, int n, double p, uint64_t seed)
{
	int m;

	memset(w, 0, sizeof(*w));
	w->n = n;
	for (m = 0; m <= n; m++)
		w->fail[m] = p;
	w->rng = seed;
}

static void world_break(struct world *w, int n, int k, uint64_t seed)
{
	int m;

	memset(w, 0, sizeof(*w));
	w->n = n;
	for (m = 0; m <= n; m++)
		w->fail[m] = m >= k ? 1.0 : 0.0;
	w->rng = seed;
}

static unsigned int log2_ceil(int n)
{
	unsigned int l = 0;

	while ((1 << l) < n)
		l++;
	return l;
}

static void test_verdicts(void)
{
	struct bisect_obs o = { 5, 5 };
	struct bisect_cand c;

	is_int(bisect_verdict(&o, 5), BISECT_BAD, "5 of 5 bad: bad");
	o.bad = 0;
	is_int(bisect_verdict(&o, 5), BISECT_GOOD, "0 of 5: good");
	o.bad = 4;
	is_int(bisect_verdict(&o, 5), BISECT_MIXED, "4 of 5: flaky");
	o = (struct bisect_obs){ 3, 3 };
	is_int(bisect_verdict(&o, 5), BISECT_SHORT, "3 of 3 when 5 are needed: too few");
	o = (struct bisect_obs){ 0, 0 };
	is_int(bisect_verdict(&o, 5), BISECT_NONE, "no run: none");

	bisect_cand_init(&c, BISECT_TEST, "cow", NULL);
	c.tip = (struct bisect_obs){ 5, 5 };
	is_int(bisect_base_more(&c, 5), 10, "the base needs 10 clean runs");
	c.base = (struct bisect_obs){ 1, 0 };
	is_int(bisect_base_more(&c, 5), 9, "... 9 more after its own boot");
	c.base = (struct bisect_obs){ 3, 1 };
	is_int(bisect_base_more(&c, 5), 0, "none once it failed");
	bisect_confirm(&c, 5, 4);
	is_int(c.state, BISECT_FLAKY, "a base that failed once: flaky");
	is_str(c.why, "on the base too: shown in 1 of 3 runs", "saying so");
	c.base = (struct bisect_obs){ 10, 0 };
	c.tip = (struct bisect_obs){ 5, 4 };
	bisect_confirm(&c, 5, 4);
	is_str(c.why, "shown in 4 of 5 runs on the tip", "4 of 5 on the tip: flaky");
	c.tip = (struct bisect_obs){ 5, 5 };
	bisect_confirm(&c, 5, 4);
	is_int(c.state, BISECT_OPEN, "5 of 5 on the tip, 0 of 10 on the base: confirmed");
	is_int(c.lo * 100 + c.hi, 4, "between the base and patch 4");
	is_int(bisect_next(&(struct bisect_cand *){ &c }, 1), 2, "first probe: patch 2");
	bisect_take(&c, 2, &(struct bisect_obs){ 5, 0 }, 5);
	is_int(c.lo, 2, "patch 2 good");
	bisect_stop(&c, 3, "qemu failed");
	is_int(c.state, BISECT_STOPPED, "a probe that cannot boot stops it");
	ok(c.why && strstr(c.why, "patch 3 could not be booted: qemu failed"),
		     "with the reason");
	is_int(c.boots, 3, "the tip and two probes");
	bisect_cand_release(&c);

	bisect_cand_init(&c, BISECT_TEST, "slow", NULL);
	c.timeout = true;
	is_int(bisect_need(&c, 5), 2, "a test that timed out: two runs are enough");
	is_int(bisect_base_more(&c, 5), 4, "and four of the base");
	bisect_cand_release(&c);

	bisect_cand_init(&c, BISECT_BOOT, NULL, "no-init");
	c.tip = (struct bisect_obs){ 1, 1 };
	c.base = (struct bisect_obs){ 1, 0 };
	bisect_confirm(&c, 5, 1);
	is_int(c.state, BISECT_FOUND, "a boot failure: one boot each; a single patch is it");
	bisect_cand_release(&c);
}

/* patch k breaks the test on every run: reported 20 of 20, on patch k */
static void test_break(int n, int k)
{
	struct world w;
	unsigned int reported = 0, right = 0, max_boots = 0, i;

	world_break(&w, n, k, 0x9e3779b97f4a7c15ULL + n);
	for (i = 0; i < 20; i++) {
		struct outcome o = series_run(&w, 5, false);

		reported += o.reported;
		right += o.reported && o.culprit == k;
		max_boots = MAX(max_boots, o.boots);
	}
	is_int(reported, 20, "%d patches, patch %d breaks it: reported in 20 of 20 runs", n, k);
	is_int(right, 20, "... on patch %d every time", k);
	ok(max_boots <= log2_ceil(n) + 1, "... in at most ceil(log2 %d) + 1 = %u boots (%u)",
	   n, log2_ceil(n) + 1, max_boots);
}

/*
 * A test failing one run in three on every kernel, the base's included:
 * never a regression in 20 runs of a series on one base.  The seeds are
 * the first 50, not chosen; and over 20,000 series (1,000 bases) the
 * rate of false findings is measured against the rule before
 * boot.confirm, so that a weaker rule would fail here.
 */
static void test_flaky(int n)
{
	unsigned int seed, i, ours = 0, naive = 0, candidates = 0, bad_seeds = 0;
	struct world w;

	for (seed = 1; seed <= 50; seed++) {
		unsigned int reported = 0;

		world_flaky(&w, n, 1.0 / 3, seed);
		for (i = 0; i < 20; i++) {
			struct outcome o = series_run(&w, 5, false);

			reported += o.reported;
			candidates += o.candidate;
		}
		bad_seeds += reported > 0;
		if (seed == 1)
			is_int(reported, 0, "%d patch(es), a test failing 1 run in 3: "
			       "no regression in 20 runs (seed 1)", n);
	}
	is_int(bad_seeds, 0, "... nor with any of the seeds 1-50 (%u candidates "
	       "the tip showed)", candidates);
	for (seed = 1; seed <= 1000; seed++) {
		struct world wn;

		world_flaky(&w, n, 1.0 / 3, seed + 1000);
		world_flaky(&wn, n, 1.0 / 3, seed + 1000);
		for (i = 0; i < 20; i++) {
			ours += series_run(&w, 5, false).reported;
			naive += series_run(&wn, 5, true).reported;
		}
	}
	printf("# %d patch(es): false findings in 20,000 series: %u (before boot.confirm: %u)\n",
	       n, ours, naive);
	ok(ours * 50 < naive, "%d patch(es): 20,000 series: %u false findings, "
	   "against %u by the rule before boot.confirm", n, ours, naive);
}

/*
 * What boot.confirm's default rests on (bench/README.md): the false
 * findings of a test failing one run in three, per confirm, over 100,000
 * series of one patch (100 on each of 1,000 bases)
 */
static void confirm_table(void)
{
	unsigned int confirm, seed, i;

	for (confirm = 2; confirm <= 6; confirm++) {
		unsigned int ours = 0;
		struct world w;

		for (seed = 1; seed <= 1000; seed++) {
			world_flaky(&w, 1, 1.0 / 3, seed + 7000);
			for (i = 0; i < 100; i++)
				ours += series_run(&w, confirm, false).reported;
		}
		printf("# boot.confirm = %u: %u false findings in 100,000 series\n",
		       confirm, ours);
	}
}

/* What replay() came to */
struct replayed {
	unsigned int series, reported;
	unsigned int passed;		/* the tip passed its first run */
	unsigned int tip_flaky;		/* failed, then passed on the tip */
	unsigned int base_flaky;	/* confirmed on the tip, not on the base */
	unsigned int known;		/* failed every run of the base's boot too */
	size_t used[2], had[2];		/* runs of the base and of the tip */
};

/*
 * Series of one patch decided over real runs: FILE's lines "tip RUNS"
 * and "base RUNS", RUNS the outcome of each run in order ('p' passed,
 * 'F' failed), as lorebot boot --runs gave them; "series N" (20) and
 * "confirm N" (5); "fresh" gives each series a base cache of its own, as
 * if no series had run on that base before (else they share it, as
 * series on one base do).  0; 1 when the runs ran out (r->series: the
 * series decided), 2 when FILE cannot be read.
 */
static int replay(const char *path, struct replayed *r)
{
	unsigned int series = 20, confirm = 5, i;
	char line[8192], *real[2] = { NULL, NULL };
	bool fresh = false;
	struct world w;
	FILE *f = fopen(path, "r");

	memset(r, 0, sizeof(*r));
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "fresh"))
			fresh = true;
		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(line, "base") || !strcmp(line, "tip")) {
			int k = !strcmp(line, "tip");

			free(real[k]);
			real[k] = xstrdup(v);
		} else if (!strcmp(line, "series")) {
			series = (unsigned int)atoi(v);
		} else if (!strcmp(line, "confirm")) {
			confirm = (unsigned int)atoi(v);
		}
	}
	fclose(f);
	if (!real[0] || !real[1] || strspn(real[0], "pF") != strlen(real[0]) ||
	    strspn(real[1], "pF") != strlen(real[1])) {
		fprintf(stderr, "replay: '%s' needs lines \"tip RUNS\" and \"base RUNS\" "
			"of p and F\n", path);
		free(real[0]);
		free(real[1]);
		return 2;
	}
	memset(&w, 0, sizeof(w));
	w.n = 1;
	w.real[0] = real[0];
	w.real[1] = real[1];
	for (i = 0; i < series; i++) {
		size_t tip_at = w.used[1];
		struct outcome o;

		if (fresh)
			memset(&w.base_cache, 0, sizeof(w.base_cache));
		o = series_run(&w, confirm, false);
		if (w.ran_out)
			break;
		r->series++;
		r->reported += o.reported;
		if (!o.candidate && real[1][tip_at] == 'p')
			r->passed++;
		else if (!o.candidate)
			r->known++;
		else if (w.used[1] - tip_at < confirm || real[1][w.used[1] - 1] == 'p')
			r->tip_flaky++;
		else if (!o.reported)
			r->base_flaky++;
	}
	r->used[0] = w.used[0];
	r->used[1] = w.used[1];
	r->had[0] = strlen(real[0]);
	r->had[1] = strlen(real[1]);
	free(real[0]);
	free(real[1]);
	return w.ran_out;
}

/* LOREBOT_BISECT_REPLAY=FILE: replay() and say what it came to */
static int replay_main(const char *path)
{
	struct replayed r;
	int ret = replay(path, &r);

	if (ret == 1)
		printf("replay: the runs ran out after %u series: tip %zu, base %zu\n",
		       r.series, r.had[1], r.had[0]);
	else if (!ret)
		printf("replay: %u series, %u reported; %u passed on the tip, %u flaky on "
		       "the tip, %u flaky against the base, %u failing on the base too; "
		       "runs used: tip %zu of %zu, base %zu of %zu\n", r.series, r.reported,
		       r.passed, r.tip_flaky, r.base_flaky, r.known, r.used[1], r.had[1],
		       r.used[0], r.had[0]);
	return ret;
}

/* replay() itself: what it decides, and runs that run out */
static void test_replay(void)
{
	static const struct {
		const char *file;
		int ret;
		unsigned int series, reported;
		size_t base_used;
		const char *name;
	} cases[] = {
		{ "series 2\nfresh\ntip FFFFFpFFFFF\nbase pppppppppppppppppppp\n", 0, 2, 1, 11,
		  "replay: a break in 5 of 5 runs reported, then a pass on the tip" },
		{ "series 2\nfresh\ntip FFFFFFFFFF\nbase pppppppppppppppppppp\n", 0, 2, 2, 20,
		  "... two breaks, each base of its own run 10 times" },
		{ "series 2\nfresh\ntip FFFFFFFFFF\nbase ppppppppppppppppppp\n", 1, 1, 1, 19,
		  "... 19 runs of the base for two fresh bases: they ran out" },
		{ "series 2\ntip FFFFFFFFFF\nbase ppppppppppppppppppp\n", 0, 2, 2, 11,
		  "... enough for one shared base cache" },
		{ "series 2\nfresh\ntip FFFFFFFFFF\nbase pFpppppppppppppppppp\n", 0, 2, 1, 20,
		  "... a failure of the first base: that series is flaky" },
		{ "tip FFFFFx\nbase pp\n", 2, 0, 0, 0, "a run that is not p or F: refused" },
	};
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = xasprintf("%s/t-bisect-replay.%d", dir, (int)getpid());
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct replayed r;
		FILE *f = fopen(path, "w");
		int ret;

		fputs(cases[i].file, f);
		fclose(f);
		ret = replay(path, &r);
		ok(ret == cases[i].ret && r.series == cases[i].series &&
		   r.reported == cases[i].reported && r.used[0] == cases[i].base_used,
		   "%s (exit %d, %u series, %u reported, %zu base runs)", cases[i].name, ret,
		   r.series, r.reported, r.used[0]);
	}
	unlink(path);
	free(path);
}

int main(void)
{
	if (getenv("LOREBOT_BISECT_REPLAY"))
		return replay_main(getenv("LOREBOT_BISECT_REPLAY"));
	test_verdicts();
	test_break(2, 2);
	test_break(5, 3);
	test_break(12, 7);
	test_break(12, 1);
	test_flaky(1);
	test_flaky(5);
	test_replay();
	if (getenv("LOREBOT_CONFIRM_TABLE"))
		confirm_table();
	return done_testing();
}
