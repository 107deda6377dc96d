// SPDX-License-Identifier: GPL-2.0
/*
 * Confirmation and bisection with real boots (the decisions are
 * bisect.c's): what the tip showed new becomes candidates; the base runs
 * their tests until it has enough runs of them (cached, baseline.c); the
 * probes boot the series' own kernels with the candidates' tests run
 * boot.confirm times; and the arch's JSON says per finding which patch
 * and how sure, and moves what is not confirmed to "flaky".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/log.h"
#include "lib/jsonx.h"
#include "ci/bisect.h"
#include "ci/boot-report.h"

struct bb {
	const struct boot_opts *o;
	const struct arch *a;
	const struct boot_series *s;
	struct bisect_cand *c;
	struct bisect_cand **cp;
	json_object **f;		/* the finding of each candidate */
	size_t nr;
	json_object *kernels;		/* what each probe booted */
	unsigned int probes, base_boots, tip_boots;
};

static const char *strip_mm(const char *test)
{
	return test && !strncmp(test, "mm/", 3) ? test + 3 : test;
}

static bool is_end_kind(const char *kind)
{
	return !strcmp(kind, "boot-failure") || !strcmp(kind, "kernel-hang") ||
		!strcmp(kind, "kernel-crash");
}

/* The runs of test in which a report titled title came */
static unsigned int report_runs(const struct console *c, const char *test, const char *title)
{
	unsigned int n = 0;
	int at, last = 0;
	size_t i;

	for (at = 1; at <= 64; at++) {
		for (i = 0; i < c->splats_nr; i++) {
			const struct splat *s = &c->splats[i];

			if (s->test && !strcmp(s->test, test) && s->attempt == at &&
			    !strcmp(s->title, title) && last != at) {
				n++;
				last = at;
			}
		}
	}
	return n;
}

/* Does the boot r end as the finding of kind says? */
static bool boot_shows(const struct boot_result *r, const char *kind, const char *title)
{
	size_t i;

	if (!strcmp(kind, "boot-failure"))
		return r->end == BOOT_NO_INIT || (r->end == BOOT_HUNG && !r->con.userspace);
	if (!strcmp(kind, "kernel-hang"))
		return r->end == BOOT_HUNG && r->con.userspace;
	if (!strcmp(kind, "kernel-crash"))
		return r->end == BOOT_DIED;
	for (i = 0; title && i < r->con.splats_nr; i++)
		if (!strcmp(r->con.splats[i].title, title))
			return true;
	return false;
}

/* What candidate c showed in boot r */
static struct bisect_obs observe(const struct bisect_cand *c, json_object *f,
				 const struct boot_result *r)
{
	struct bisect_obs o = { 0 };
	const struct kst_run *t = c->test ? ktap_test(&r->con, c->test) : NULL;

	switch (c->kind) {
	case BISECT_TEST:
		if (t) {
			o.runs = t->runs ? (unsigned int)t->runs : 1;
			o.bad = t->runs ? (unsigned int)t->fails : t->result == KST_FAIL;
		}
		break;
	case BISECT_REPORT:
		if (t) {
			o.runs = (unsigned int)MAX(t->runs, 1);
			o.bad = MIN(report_runs(&r->con, c->test, c->title), o.runs);
		}
		break;
	case BISECT_BOOT:
		if (r->end != BOOT_INFRA) {
			o.runs = 1;
			o.bad = boot_shows(r, jx_strz(f, "kind"), c->title);
		}
		break;
	}
	return o;
}

/* The base's runs of c: its boot of the test list, and the cache */
static void base_obs(struct bb *b, const struct bisect_cand *c, json_object *f,
		     const struct boot_result *base, const struct boot_kernel *kb)
{
	struct bisect_obs *o = &((struct bisect_cand *)c)->base;
	struct base_runs br;

	*o = observe(c, f, base);
	if (c->kind == BISECT_BOOT) {
		/* what is new was not there: one clean boot */
		o->runs = 1;
		o->bad = 0;
		return;
	}
	baseline_runs(b->o, b->a, kb, c->test, &br);
	o->runs += br.runs;
	o->bad += c->kind == BISECT_TEST ? br.fails :
		(unsigned int)jx_int(br.reports, c->title, 0);
	baseline_runs_release(&br);
}

static const char *const no_tests[] = { NULL };

/*
 * Boot k with the tests of the nr candidates (each run confirm times);
 * obs[i] what candidate i showed.  0, or -1 with err.
 */
static int boot_probe(struct bb *b, const struct boot_kernel *k,
		      struct bisect_cand *const *c, size_t nr, struct bisect_obs *obs,
		      json_object *log, struct strbuf *err)
{
	const char **tests = xcalloc(nr + 1, sizeof(*tests));
	const char **slow = xcalloc(nr + 1, sizeof(*slow));
	struct boot_opts o = *b->o;
	struct boot_result r;
	size_t i, j, nt = 0, ns = 0;
	bool runs = false;
	int ret;

	for (i = 0; i < nr; i++) {
		if (!c[i]->test)
			continue;
		runs |= c[i]->kind != BISECT_BOOT;
		if (c[i]->timeout)
			slow[ns++] = c[i]->test;
		for (j = 0; j < nt && strcmp(tests[j], c[i]->test); j++)
			;
		if (j == nt)
			tests[nt++] = c[i]->test;
	}
	o.tests = nt ? tests : no_tests;
	o.tests_nr = nt;
	o.runs = runs ? o.confirm : 0;
	o.short_runs = slow;
	boot_result_init(&r);
	log_progress("booting %s %s for bisection (%zu test%s%s)", b->a->name, k->label, nt,
		     nt == 1 ? "" : "s", runs ? ", each run boot.confirm times" : "");
	ret = boot_kernel(&o, b->a, k, &r);
	if (log) {
		/* the build stage kept its image, or it was built now */
		jx_add_str(log, "image", k->built ? "built" : "kept");
		json_object_object_add(log, "end", json_object_new_string(boot_end_name(r.end)));
		json_object_object_add(log, "boot_ms", json_object_new_int64((int64_t)r.total_ms));
		jx_add_str(log, "console_log", r.log_path);
	}
	if (ret || r.end == BOOT_INFRA) {
		strbuf_addstr(err, r.infra.len ? r.infra.buf : "infrastructure error");
		ret = -1;
	} else {
		for (i = 0; i < nr; i++)
			obs[i] = observe(c[i], c[i]->data, &r);
	}
	boot_result_release(&r);
	free(tests);
	free(slow);
	return ret;
}

static int probe(void *data, int patch, struct bisect_cand *const *c, size_t nr,
		 struct bisect_obs *obs, struct strbuf *err)
{
	struct bb *b = data;
	struct boot_kernel *k = NULL;
	json_object *log = json_object_new_object();
	int ret;

	b->probes++;
	json_object_object_add(log, "patch", json_object_new_int(patch));
	jx_add_str(log, "commit", b->s->commits[patch - 1]);
	json_object_array_add(b->kernels, log);
	ret = b->s->get(b->s->data, (size_t)patch, &k, err);
	if (!ret)
		ret = boot_probe(b, k, c, nr, obs, log, err);
	if (k)
		b->s->put(b->s->data, k);
	if (ret)
		jx_add_str(log, "error", err->buf);
	return ret;
}

/* Candidates of what the tip showed new */
static void candidates(struct bb *b, json_object *aj, const struct boot_result *tip)
{
	json_object *fs = jx_array(aj, "findings");
	size_t i, n = fs ? json_object_array_length(fs) : 0;

	b->c = xcalloc(n + 1, sizeof(*b->c));
	b->cp = xcalloc(n + 1, sizeof(*b->cp));
	b->f = xcalloc(n + 1, sizeof(*b->f));
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(fs, i);
		const char *kind = jx_strz(f, "kind"), *test = strip_mm(jx_str(f, "test"));
		struct bisect_cand *c = &b->c[b->nr];

		if (!jx_bool(f, "new", false))
			continue;
		if (!strcmp(kind, "kselftest-failure") && test) {
			const struct kst_run *t = ktap_test(&tip->con, test);

			bisect_cand_init(c, BISECT_TEST, test, NULL);
			c->timeout = t && t->timeout;
		}
		else if (!is_end_kind(kind) && test && jx_str(f, "title"))
			bisect_cand_init(c, BISECT_REPORT, test, jx_str(f, "title"));
		else
			bisect_cand_init(c, BISECT_BOOT, is_end_kind(kind) ? test : NULL,
					 is_end_kind(kind) ? kind : jx_str(f, "title"));
		c->data = f;
		c->tip = observe(c, f, tip);
		b->f[b->nr] = f;
		b->cp[b->nr] = c;
		b->nr++;
	}
}

/* The tip showed a candidate in fewer runs than it needs: boot it again */
static void tip_more(struct bb *b)
{
	struct bisect_cand **want = xcalloc(b->nr + 1, sizeof(*want));
	struct bisect_obs *obs = xcalloc(b->nr + 1, sizeof(*obs));
	struct strbuf err = STRBUF_INIT;
	struct boot_kernel *k = NULL;
	size_t i, n = 0;

	for (i = 0; i < b->nr; i++)
		if (bisect_verdict(&b->c[i].tip, bisect_need(&b->c[i], b->o->confirm)) ==
		    BISECT_SHORT)
			want[n++] = &b->c[i];
	if (!n)
		goto out;
	b->tip_boots++;
	if (b->s->get(b->s->data, b->s->n, &k, &err) ||
	    boot_probe(b, k, want, n, obs, NULL, &err)) {
		log_warn("%s: the tip could not be booted again: %s", b->a->name, err.buf);
	} else {
		for (i = 0; i < n; i++) {
			want[i]->tip.runs += obs[i].runs;
			want[i]->tip.bad += obs[i].bad;
		}
	}
	if (k)
		b->s->put(b->s->data, k);
out:
	strbuf_release(&err);
	free(want);
	free(obs);
}

/* Run the base more for the candidates the tip confirmed */
static void base_more(struct bb *b, const struct boot_result *base,
		      const struct boot_kernel *kb)
{
	const char **tests = xcalloc(b->nr + 1, sizeof(*tests));
	struct strbuf err = STRBUF_INIT;
	unsigned int runs = 0;
	size_t i, j, nt = 0;

	for (i = 0; i < b->nr; i++) {
		struct bisect_cand *c = &b->c[i];
		unsigned int more;

		base_obs(b, c, b->f[i], base, kb);
		if (bisect_verdict(&c->tip, bisect_need(c, b->o->confirm)) != BISECT_BAD)
			continue;
		more = bisect_base_more(c, b->o->confirm);
		if (!more || !c->test)
			continue;
		runs = MAX(runs, more);
		for (j = 0; j < nt && strcmp(tests[j], c->test); j++)
			;
		if (j == nt)
			tests[nt++] = c->test;
	}
	if (nt) {
		b->base_boots++;
		if (baseline_runs_more(b->o, b->a, kb, tests, nt, runs, &err))
			log_warn("%s: the base could not be run again: %s", b->a->name, err.buf);
		for (i = 0; i < b->nr; i++)
			base_obs(b, &b->c[i], b->f[i], base, kb);
	}
	strbuf_release(&err);
	free(tests);
}

static json_object *obs_json(const struct bisect_obs *o)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "runs", json_object_new_int64(o->runs));
	json_object_object_add(j, "bad", json_object_new_int64(o->bad));
	return j;
}

static json_object *culprit_json(struct bb *b, const struct bisect_cand *c)
{
	json_object *j = json_object_new_object(), *steps = json_object_new_array();
	size_t i;

	jx_add_str(j, "state", bisect_state_name(c->state));
	if (c->state == BISECT_FOUND) {
		json_object_object_add(j, "patch", json_object_new_int(c->hi));
		jx_add_str(j, "commit", b->s->commits[c->hi - 1]);
		if (b->s->subjects)
			jx_add_str(j, "subject", b->s->subjects[c->hi - 1]);
		json_object_object_add(j, "suspect", json_object_new_boolean(
			b->s->cosmetic && b->s->cosmetic(b->s->data, (size_t)c->hi) == 1));
	}
	jx_add_str(j, "why", c->why);
	json_object_object_add(j, "boots", json_object_new_int64(c->boots));
	for (i = 0; i < c->steps_nr; i++) {
		json_object *s = obs_json(&c->steps[i].obs);

		json_object_object_add(s, "patch", json_object_new_int(c->steps[i].patch));
		jx_add_str(s, "verdict", bisect_verdict_name(c->steps[i].verdict));
		json_object_array_add(steps, s);
	}
	json_object_object_add(j, "steps", steps);
	return j;
}

/* A test the candidate was about: flaky now, not new */
static void test_flaky(json_object *aj, const struct bisect_cand *c)
{
	json_object *ts = jx_array(aj, "tests");
	char *name = xasprintf("mm/%s", c->test);
	size_t i;

	for (i = 0; ts && i < json_object_array_length(ts); i++) {
		json_object *t = json_object_array_get_idx(ts, i);

		if (strcmp(jx_strz(t, "name"), name))
			continue;
		json_object_object_add(t, "result", json_object_new_string("flaky"));
		json_object_object_add(t, "new", json_object_new_boolean(false));
		jx_add_str(t, "reason", c->why);
	}
	free(name);
}

/* The arch's status and message once the flaky ones are gone */
static void restate(json_object *aj, size_t removed)
{
	json_object *fs = jx_array(aj, "findings");
	size_t i, n = fs ? json_object_array_length(fs) : 0, tests = 0, reports = 0;
	json_object *end = NULL;
	char *msg;

	if (!removed || !strcmp(jx_strz(aj, "status"), "boot-failure"))
		return;
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(fs, i);
		const char *kind = jx_strz(f, "kind");

		if (is_end_kind(kind))
			end = f;
		else if (!strcmp(kind, "kselftest-failure"))
			tests++;
		else
			reports++;
	}
	if (!n) {
		json_object_object_add(aj, "status", json_object_new_string("ok"));
		json_object_object_del(aj, "message");
		return;
	}
	if (end)
		msg = xstrdup(jx_strz(end, "message"));
	else
		msg = xasprintf("%zu new kselftest failure%s, %zu new kernel report%s",
				tests, tests == 1 ? "" : "s", reports, reports == 1 ? "" : "s");
	json_object_object_add(aj, "message", json_object_new_string(msg));
	free(msg);
}

/* Annotate each finding; move the flaky ones out of the findings */
static void annotate(struct bb *b, json_object *aj)
{
	json_object *fs = jx_array(aj, "findings"), *flaky = json_object_new_array();
	size_t i, j, removed = 0;

	for (i = 0; i < b->nr; i++) {
		struct bisect_cand *c = &b->c[i];
		json_object *f = b->f[i], *conf = json_object_new_object();

		json_object_object_add(conf, "tip", obs_json(&c->tip));
		json_object_object_add(conf, "base", obs_json(&c->base));
		json_object_object_add(conf, "runs", json_object_new_int(
			(int)bisect_need(c, b->o->confirm)));
		json_object_object_add(f, "confirm", conf);
		if (c->state != BISECT_FLAKY) {
			json_object *cu = culprit_json(b, c);

			if (c->state == BISECT_FOUND && !jx_bool(cu, "suspect", false)) {
				json_object_object_add(f, "patch", json_object_new_int(c->hi));
				jx_add_str(f, "commit", b->s->commits[c->hi - 1]);
			}
			json_object_object_add(f, "culprit", cu);
			continue;
		}
		jx_add_str(f, "why", c->why);
		if (c->kind == BISECT_TEST)
			test_flaky(aj, c);
		json_object_array_add(flaky, json_object_get(f));
		for (j = 0; j < json_object_array_length(fs); j++) {
			if (json_object_array_get_idx(fs, j) == f) {
				json_object_array_del_idx(fs, j, 1);
				removed++;
				break;
			}
		}
	}
	json_object_object_add(aj, "flaky", flaky);
	restate(aj, removed);
}

void bisect_boot(const struct boot_opts *o, const struct arch *a,
		 const struct boot_result *tip, const struct boot_result *base,
		 const struct boot_kernel *kb, const struct boot_series *s,
		 json_object *aj)
{
	struct bb b = { .o = o, .a = a, .s = s, .kernels = json_object_new_array() };
	json_object *bj = json_object_new_object();
	unsigned int confirm = MAX(o->confirm, 1u);
	size_t i;

	candidates(&b, aj, tip);
	if (b.nr) {
		uint64_t t0 = util_now_ms(), t1, t2;

		tip_more(&b);
		t1 = util_now_ms();
		base_more(&b, base, kb);
		t2 = util_now_ms();
		for (i = 0; i < b.nr; i++) {
			bisect_confirm(&b.c[i], confirm, (int)s->n);
			b.c[i].boots += b.tip_boots;
		}
		bisect_run(b.cp, b.nr, confirm, probe, &b);
		annotate(&b, aj);
		/* what confirming and bisecting cost, after the tip's own boot */
		json_object_object_add(bj, "tip_ms", json_object_new_int64((int64_t)(t1 - t0)));
		json_object_object_add(bj, "base_ms", json_object_new_int64((int64_t)(t2 - t1)));
		json_object_object_add(bj, "probes_ms", json_object_new_int64(
			(int64_t)(util_now_ms() - t2)));
	} else {
		json_object_object_add(aj, "flaky", json_object_new_array());
	}
	json_object_object_add(bj, "patches", json_object_new_int64((int64_t)s->n));
	json_object_object_add(bj, "confirm", json_object_new_int64(confirm));
	json_object_object_add(bj, "candidates", json_object_new_int64((int64_t)b.nr));
	json_object_object_add(bj, "probes", json_object_new_int64(b.probes));
	json_object_object_add(bj, "boots", json_object_new_int64(1 + b.tip_boots + b.probes));
	json_object_object_add(bj, "base_boots", json_object_new_int64(b.base_boots));
	json_object_object_add(bj, "kernels", b.kernels);
	json_object_object_add(aj, "bisection", bj);
	for (i = 0; i < b.nr; i++)
		bisect_cand_release(&b.c[i]);
	free(b.c);
	free(b.cp);
	free(b.f);
}
