// SPDX-License-Identifier: GPL-2.0
/*
 * The base kernel's run, cached per machine: its console log and how
 * qemu ended, keyed by the base kernel, the arch, the test plan, the
 * guest init and the boot parameters.  The log is parsed again on every
 * use, so a better console parser applies to cached bases too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "lib/log.h"
#include "ci/bisect.h"
#include "ci/boot-report.h"
#include "ci/guest-init.h"
#include "lib/jsonx.h"

static char *base_key(const struct boot_opts *o, const struct arch *a,
		      const struct boot_kernel *k)
{
	struct strbuf sb = STRBUF_INIT;
	struct kst_plan plan = KST_PLAN_INIT;
	char hex[17];

	strbuf_addf(&sb, "%s\n%s\n%s\n%u %u %u %u %llu %llu\n%s\n", k->id,
		    a->name, guest_init_hash(), o->mem_mb, o->smp,
		    o->hugepages, o->retries,
		    (unsigned long long)o->test_timeout_ms,
		    (unsigned long long)o->timeout_ms,
		    o->cmdline ? o->cmdline : "");
	if (!kselftest_select(a, o->tests, o->tests_nr, &plan, &sb))
		kselftest_plan_key(&plan, &sb);
	kselftest_plan_release(&plan);
	util_hash_hex(sb.buf, sb.len, hex);
	strbuf_release(&sb);
	return xstrdup(hex);
}

static void save_meta(const char *path, const struct boot_result *r)
{
	json_object *o = json_object_new_object(), *dropped;
	const struct kst_plan *p = &r->plan;
	const char *text;
	size_t i;

	json_object_object_add(o, "qemu_status", json_object_new_int(r->qemu_status));
	json_object_object_add(o, "timed_out", json_object_new_boolean(r->timed_out));
	json_object_object_add(o, "total_ms", json_object_new_int64(r->total_ms));
	json_object_object_add(o, "build_ms", json_object_new_int64(r->build_ms));
	json_object_object_add(o, "accel", json_object_new_string(r->accel ? r->accel : ""));
	dropped = json_object_new_array();
	for (i = 0; i < p->skipped_nr; i++) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "name", json_object_new_string(p->skipped[i].name));
		json_object_object_add(d, "reason", json_object_new_string(p->skipped[i].reason));
		json_object_array_add(dropped, d);
	}
	json_object_object_add(o, "skipped", dropped);
	text = jx_text(o, true);
	util_write_file(path, text, strlen(text));
	json_object_put(o);
}

/* Fill r from a cached run; 0, or -ENOENT when there is none */
static int load_cached(const struct boot_opts *o, const struct arch *a,
		       const char *dir, struct boot_result *r)
{
	char *meta = xasprintf("%s/meta.json", dir);
	char *logp = xasprintf("%s/console.log", dir);
	json_object *m = json_object_from_file(meta), *sk, *v;
	char *log = NULL;
	size_t len, i, j;
	int ret = -ENOENT;

	if (!m || util_read_file(logp, &log, &len, 64u << 20))
		goto out;
	if (kselftest_select(a, o->tests, o->tests_nr, &r->plan, &r->infra))
		goto out;
	/* the tests that did not build for the base then */
	sk = json_object_object_get(m, "skipped");
	for (i = 0; sk && i < json_object_array_length(sk); i++) {
		json_object *d = json_object_array_get_idx(sk, i);
		const char *name = json_object_get_string(json_object_object_get(d, "name"));
		const char *why = json_object_get_string(json_object_object_get(d, "reason"));

		for (j = 0; name && why && j < r->plan.nr; j++) {
			if (!strcmp(r->plan.tests[j]->name, name)) {
				kselftest_plan_drop(&r->plan, j, why);
				break;
			}
		}
	}
	r->qemu_status = (int)jx_int(m, "qemu_status", 0);
	v = json_object_object_get(m, "timed_out");
	r->timed_out = v && json_object_get_boolean(v);
	r->total_ms = jx_int(m, "total_ms", 0);
	r->build_ms = jx_int(m, "build_ms", 0);
	v = json_object_object_get(m, "accel");
	r->accel = xstrdup(v ? json_object_get_string(v) : "");
	r->log_path = xstrdup(logp);
	r->cached = true;
	boot_analyze(r, log, len, NULL);
	ret = 0;
out:
	if (m)
		json_object_put(m);
	free(log);
	free(meta);
	free(logp);
	return ret;
}

/* The base's run: from the cache, or booted now and cached if it finished */
static int base_run(const struct boot_opts *o, const struct arch *a,
		    const struct boot_kernel *k, struct boot_result *r)
{
	char *key = base_key(o, a, k);
	char *dir = xasprintf("%s/boot/base/%s/%s", o->cachedir, a->name, key);
	char *lockp = xasprintf("%s.lock", dir);
	struct boot_opts bo = *o;
	int ret, lock = -1;

	ret = util_mkdir_p(dir, 0755);
	if (ret) {
		strbuf_addf(&r->infra, "cannot create '%s': %s", dir, strerror(-ret));
		r->end = BOOT_INFRA;
		goto out;
	}
	lock = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock >= 0)
		flock(lock, LOCK_EX);
	if (!load_cached(o, a, dir, r)) {
		log_debug("base %s: cached in %s", a->name, dir);
		goto out;
	}
	boot_result_release(r);
	boot_result_init(r);
	bo.workdir = dir;
	ret = boot_kernel(&bo, a, k, r);
	if (!ret && r->end == BOOT_DONE) {
		char *from = xasprintf("%s/%s-%s.console.log", dir, k->label, a->name);
		char *to = xasprintf("%s/console.log", dir);
		char *meta = xasprintf("%s/meta.json", dir);

		if (!rename(from, to)) {
			free(r->log_path);
			r->log_path = xstrdup(to);
			save_meta(meta, r);
		}
		free(from);
		free(to);
		free(meta);
	}
out:
	if (lock >= 0)
		close(lock);
	free(key);
	free(dir);
	free(lockp);
	return ret;
}

int baseline_boot_arch(const struct boot_opts *o, const struct arch *a,
		       const struct boot_kernel *tip, const struct boot_kernel *base,
		       const struct boot_series *series, json_object **out,
		       struct strbuf *err)
{
	struct boot_result rt, rb;

	boot_result_init(&rt);
	boot_result_init(&rb);
	if (base)
		base_run(o, a, base, &rb);
	if (!base || rb.end != BOOT_INFRA)
		boot_kernel(o, a, tip, &rt);
	else
		strbuf_addstr(&rt.infra, "not booted: the base could not be");
	*out = boot_report_json(a, &rt, base ? &rb : NULL);
	if (base && series && strcmp(boot_report_status(*out), "infra"))
		bisect_boot(o, a, &rt, &rb, base, series, *out);
	boot_result_release(&rt);
	boot_result_release(&rb);
	return 0;
}

/* The base's runs of single tests: what a key of them holds */
static char *runs_dir(const struct boot_opts *o, const struct arch *a,
		      const struct boot_kernel *k)
{
	struct strbuf sb = STRBUF_INIT;
	char hex[17], *dir;

	strbuf_addf(&sb, "%s\n%s\n%s\n%u %u %u %llu %llu\n%s\n", k->id, a->name,
		    guest_init_hash(), o->mem_mb, o->smp, o->hugepages,
		    (unsigned long long)o->test_timeout_ms,
		    (unsigned long long)o->timeout_ms, o->cmdline ? o->cmdline : "");
	util_hash_hex(sb.buf, sb.len, hex);
	dir = xasprintf("%s/boot/base/%s/runs-%s", o->cachedir, a->name, hex);
	strbuf_release(&sb);
	return dir;
}

void baseline_runs_release(struct base_runs *r)
{
	if (r->reports)
		json_object_put(r->reports);
	memset(r, 0, sizeof(*r));
}

static void runs_load(const char *path, struct base_runs *r)
{
	json_object *j = json_object_from_file(path), *rep;

	memset(r, 0, sizeof(*r));
	if (j) {
		r->runs = (unsigned int)jx_int(j, "runs", 0);
		r->fails = (unsigned int)jx_int(j, "fails", 0);
		rep = json_object_object_get(j, "reports");
		if (rep && json_object_is_type(rep, json_type_object))
			r->reports = json_object_get(rep);
		json_object_put(j);
	}
	if (!r->reports)
		r->reports = json_object_new_object();
}

int baseline_runs(const struct boot_opts *o, const struct arch *a,
		  const struct boot_kernel *base, const char *test,
		  struct base_runs *r)
{
	char *dir = runs_dir(o, a, base), *path = xasprintf("%s/%s.json", dir, test);

	runs_load(path, r);
	free(dir);
	free(path);
	return 0;
}

/* Add to path what the console says of test */
static void runs_add(const char *path, const struct console *c, const char *test)
{
	const struct kst_run *t = ktap_test(c, test);
	struct base_runs r;
	json_object *out;
	const char *text;
	size_t i, at;

	if (!t || !t->runs)
		return;
	runs_load(path, &r);
	r.runs += t->runs;
	r.fails += t->fails;
	/* each report title once per run it came in */
	for (at = 1; at <= (size_t)t->runs; at++) {
		for (i = 0; i < c->splats_nr; i++) {
			const struct splat *s = &c->splats[i];
			size_t j;
			bool seen = false;

			if (!s->test || strcmp(s->test, test) || (size_t)s->attempt != at)
				continue;
			for (j = 0; j < i && !seen; j++)
				seen = c->splats[j].test && !strcmp(c->splats[j].test, test) &&
					(size_t)c->splats[j].attempt == at &&
					!strcmp(c->splats[j].title, s->title);
			if (!seen)
				json_object_object_add(r.reports, s->title, json_object_new_int64(
					jx_int(r.reports, s->title, 0) + 1));
		}
	}
	out = json_object_new_object();
	json_object_object_add(out, "runs", json_object_new_int64(r.runs));
	json_object_object_add(out, "fails", json_object_new_int64(r.fails));
	json_object_object_add(out, "reports", json_object_get(r.reports));
	text = jx_text(out, true);
	util_write_file(path, text, strlen(text));
	json_object_put(out);
	baseline_runs_release(&r);
}

int baseline_runs_more(const struct boot_opts *o, const struct arch *a,
		       const struct boot_kernel *base, const char *const *tests,
		       size_t nr, unsigned int runs, struct strbuf *err)
{
	char *dir = runs_dir(o, a, base), *lockp = xasprintf("%s.lock", dir);
	struct boot_opts bo = *o;
	struct boot_result r;
	int ret, lock = -1;
	size_t i;

	boot_result_init(&r);
	ret = util_mkdir_p(dir, 0755);
	if (ret) {
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(-ret));
		goto out;
	}
	lock = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock >= 0)
		flock(lock, LOCK_EX);
	bo.workdir = dir;
	bo.tests = tests;
	bo.tests_nr = nr;
	bo.runs = runs;
	log_progress("booting the %s base again: %zu test%s, %u runs each", a->name, nr,
		     nr == 1 ? "" : "s", runs);
	ret = boot_kernel(&bo, a, base, &r);
	if (!ret && r.end != BOOT_DONE) {
		strbuf_addf(err, "the base did not finish its runs (%s)", boot_end_name(r.end));
		ret = -EIO;
	} else if (ret) {
		strbuf_addstr(err, r.infra.buf);
	}
	for (i = 0; !ret && i < nr; i++) {
		char *path = xasprintf("%s/%s.json", dir, tests[i]);

		runs_add(path, &r.con, tests[i]);
		free(path);
	}
out:
	boot_result_release(&r);
	if (lock >= 0)
		close(lock);
	free(dir);
	free(lockp);
	return ret;
}
