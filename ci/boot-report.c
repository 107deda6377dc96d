// SPDX-License-Identifier: GPL-2.0
/* tip vs base of one arch as JSON, and as text; see boot-report.h */
#include <stdio.h>
#include <stdlib.h>

#include "ci/boot-report.h"
#include "lib/jsonx.h"

#define OUTPUT_MAX (64 * 1024)	/* of one test's output in the JSON */

/* What each kind of kernel report is called in findings */
static const struct {
	const char *splat;
	const char *kind;
	const char *noun;
} splat_kinds[] = {
	{ "warning", "kernel-warning", "kernel warning" },
	{ "bug", "kernel-bug", "kernel BUG" },
	{ "oops", "kernel-oops", "kernel oops" },
	{ "panic", "kernel-panic", "kernel panic" },
	{ "hung-task", "hung-task", "hung task" },
	{ "kasan", "kasan", "KASAN report" },
	{ "kfence", "kfence", "KFENCE report" },
	{ "kmsan", "kmsan", "KMSAN report" },
	{ "ubsan", "ubsan", "UBSAN report" },
	{ "soft-lockup", "soft-lockup", "soft lockup" },
	{ "rcu-stall", "rcu-stall", "RCU stall" },
};

static void splat_kind(const char *splat, const char **kind, const char **noun)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(splat_kinds); i++) {
		if (!strcmp(splat_kinds[i].splat, splat)) {
			*kind = splat_kinds[i].kind;
			*noun = splat_kinds[i].noun;
			return;
		}
	}
	*kind = "kernel-report";
	*noun = "kernel report";
}

static void add_int(json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static void add_bool(json_object *o, const char *key, bool v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

/* The last OUTPUT_MAX bytes: a failure's end says most */
static void add_output(json_object *o, const char *key, const struct strbuf *sb)
{
	if (sb->len <= OUTPUT_MAX) {
		jx_add_str(o, key, sb->buf);
	} else {
		char *s = xasprintf("[... %zu bytes ...]\n%s",
				    sb->len - OUTPUT_MAX,
				    sb->buf + sb->len - OUTPUT_MAX);

		jx_add_str(o, key, s);
		free(s);
	}
}

static char *mm_name(const char *name)
{
	return xasprintf("mm/%s", name);
}

static const struct splat *base_splat(const struct boot_result *base,
				      const struct splat *s)
{
	size_t i;

	if (!base)
		return NULL;
	for (i = 0; i < base->con.splats_nr; i++)
		if (!strcmp(base->con.splats[i].title, s->title))
			return &base->con.splats[i];
	return NULL;
}

/* Did the same report (title) come earlier during the same test? */
static bool seen_before(const struct console *c, size_t i)
{
	const struct splat *s = &c->splats[i];
	size_t j;

	for (j = 0; j < i; j++) {
		const struct splat *o = &c->splats[j];

		if (!strcmp(o->title, s->title) &&
		    ((!o->test && !s->test) || (o->test && s->test && !strcmp(o->test, s->test))))
			return true;
	}
	return false;
}

static const char *during(const struct splat *s, const struct console *c,
			  char **buf)
{
	if (s->test) {
		*buf = xasprintf("during mm/%s", s->test);
		return *buf;
	}
	*buf = NULL;
	return c->userspace && c->tests_nr ? "outside the tests" : "during boot";
}

static json_object *splat_json(const struct splat *s, const struct console *c,
			       bool is_new)
{
	json_object *f = json_object_new_object();
	const char *kind, *noun, *when;
	char *msg, *tmp, *test = s->test ? mm_name(s->test) : NULL;

	splat_kind(s->kind, &kind, &noun);
	when = during(s, c, &tmp);
	msg = xasprintf("%s%s: %s%s%s%s %s", is_new ? "new " : "", noun,
			s->title, s->where ? " (" : "", s->where ? s->where : "",
			s->where ? ")" : "", when);
	jx_add_str(f, "kind", kind);
	jx_add_str(f, "message", msg);
	add_bool(f, "new", is_new);
	jx_add_str(f, "title", s->title);
	jx_add_str(f, "where", s->where);
	jx_add_str(f, "test", test);
	jx_add_str(f, "first_line", s->first);
	add_output(f, "trace", &s->report);
	add_int(f, "console_line", (int64_t)s->line);
	free(msg);
	free(tmp);
	free(test);
	return f;
}

static enum kst_result base_result(const struct boot_result *base,
				   const char *name, bool *found)
{
	const struct kst_run *t = base ? ktap_test(&base->con, name) : NULL;

	*found = t != NULL;
	return t ? t->result : KST_NOTRUN;
}

/* tests and the findings of new failures */
static void add_tests(json_object *o, json_object *findings,
		      const struct boot_result *tip,
		      const struct boot_result *base, size_t *new_fail)
{
	json_object *arr = json_object_new_array();
	const struct console *c = &tip->con;
	size_t i;

	for (i = 0; i < tip->plan.nr; i++) {
		const char *name = tip->plan.tests[i]->name;
		const struct kst_run *t = ktap_test(c, name);
		json_object *j = json_object_new_object();
		enum kst_result r = t ? t->result : KST_NOTRUN;
		enum kst_result br;
		bool found, is_new;
		char *full = mm_name(name);

		br = base_result(base, name, &found);
		is_new = r == KST_FAIL && br != KST_FAIL;
		jx_add_str(j, "name", full);
		jx_add_str(j, "result", ktap_result_name(r));
		add_bool(j, "new", is_new);
		if (base)
			jx_add_str(j, "base", found ? ktap_result_name(br) : "none");
		if (t && t->reason)
			jx_add_str(j, "reason", t->reason);
		else if (!t)
			jx_add_str(j, "reason", c->userspace && tip->end != BOOT_DONE ?
				"not run: the guest stopped before it" : "not run");
		if (t) {
			add_int(j, "ms", (int64_t)t->ms);
			add_int(j, "attempts", t->attempts);
			/* the runs that ended, and the failing ones among them */
			add_int(j, "runs", t->runs);
			add_int(j, "fails", t->fails);
			if (r != KST_PASS)
				add_output(j, "output", &t->output);
		}
		json_object_array_add(arr, j);
		if (is_new) {
			json_object *f = json_object_new_object();
			char *msg = t && t->reason ?
				xasprintf("new kselftest failure: %s (%s)", full,
					  t->reason) :
				xasprintf("new kselftest failure: %s", full);
			jx_add_str(f, "kind", "kselftest-failure");
			jx_add_str(f, "message", msg);
			add_bool(f, "new", true);
			jx_add_str(f, "test", full);
			if (t)
				add_output(f, "output", &t->output);
			json_object_array_add(findings, f);
			(*new_fail)++;
			free(msg);
		}
		free(full);
	}
	json_object_object_add(o, "tests", arr);
}

static void add_skipped(json_object *o, const struct kst_plan *plan)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < plan->skipped_nr; i++) {
		json_object *j = json_object_new_object();
		char *full = mm_name(plan->skipped[i].name);

		jx_add_str(j, "name", full);
		jx_add_str(j, "reason", plan->skipped[i].reason);
		json_object_array_add(arr, j);
		free(full);
	}
	json_object_object_add(o, "skipped", arr);
}

static json_object *timings(const struct boot_result *r)
{
	json_object *t = json_object_new_object();

	add_int(t, "build_ms", (int64_t)r->build_ms);
	add_int(t, "boot_ms", (int64_t)r->con.init_uptime_ms);
	add_int(t, "tests_ms", (int64_t)r->con.tests_ms);
	add_int(t, "total_ms", (int64_t)r->total_ms);
	return t;
}

/* A boot that did not end well, as a finding; NULL if it did */
static json_object *end_finding(const struct boot_result *r,
				const struct boot_result *base,
				const char **status, char **message)
{
	const struct console *c = &r->con;
	json_object *f;
	char *msg, *test = c->running ? mm_name(c->running) : NULL;
	const char *kind;
	bool is_new;

	switch (r->end) {
	case BOOT_HUNG:
		if (!c->kernel && !c->userspace) {
			kind = "boot-failure";
			msg = xasprintf("boot failure: the kernel printed "
					"nothing in %.0f s%s, stopped at the "
					"time limit", r->total_ms / 1000.0,
					r->boots > 1 ? ", twice" : "");
		} else if (!c->userspace) {
			kind = "boot-failure";
			msg = xasprintf("boot failure: no init after %.0f s, "
					"stopped at the time limit",
					r->total_ms / 1000.0);
		} else {
			kind = "kernel-hang";
			msg = xasprintf("kernel hang: the guest stopped "
					"responding %s%s, stopped at the time "
					"limit after %.0f s",
					test ? "during " : "after the tests",
					test ? test : "", r->total_ms / 1000.0);
		}
		break;
	case BOOT_NO_INIT:
		kind = "boot-failure";
		msg = xasprintf("boot failure: the kernel stopped before the "
				"init ran%s%s", c->splats_nr ? ": " : "",
				c->splats_nr ? c->splats[c->splats_nr - 1].title : "");
		break;
	case BOOT_DIED:
		kind = "kernel-crash";
		msg = xasprintf("the guest stopped %s%s%s%s",
				test ? "during " : "before the tests finished",
				test ? test : "", c->splats_nr ? ": " : "",
				c->splats_nr ? c->splats[c->splats_nr - 1].title : "");
		break;
	default:
		free(test);
		return NULL;
	}
	if (!strcmp(kind, "boot-failure")) {
		*status = "boot-failure";
		is_new = !base || base->end != BOOT_NO_INIT;
	} else {
		is_new = !base || base->end != r->end ||
			!base->con.running || !c->running ||
			strcmp(base->con.running, c->running);
	}
	*message = xstrdup(msg);
	f = json_object_new_object();
	jx_add_str(f, "kind", kind);
	jx_add_str(f, "message", msg);
	add_bool(f, "new", is_new);
	jx_add_str(f, "test", test);
	jx_add_str(f, "console_tail", r->tail.buf);
	free(msg);
	free(test);
	return f;
}

json_object *boot_report_json(const struct arch *a,
			      const struct boot_result *tip,
			      const struct boot_result *base)
{
	json_object *o = json_object_new_object();
	json_object *findings = json_object_new_array();
	json_object *known = json_object_new_array();
	const char *status = "ok";
	char *message = NULL;
	size_t i, new_fail = 0, new_splats = 0;

	jx_add_str(o, "arch", a->name);
	if (tip->end == BOOT_INFRA || (base && base->end == BOOT_INFRA)) {
		const struct boot_result *bad = tip->end == BOOT_INFRA ? tip : base;

		jx_add_str(o, "status", "infra");
		message = xasprintf("%s%s", bad == base ? "base: " : "",
				    bad->infra.buf);
		jx_add_str(o, "message", message);
		json_object_object_add(o, "tests", json_object_new_array());
		json_object_object_add(o, "findings", findings);
		json_object_put(known);
		jx_add_str(o, "console_log", tip->log_path);
		free(message);
		return o;
	}
	for (i = 0; i < tip->con.splats_nr; i++) {
		const struct splat *s = &tip->con.splats[i];
		bool is_new = !base_splat(base, s);

		/* a test run again reports again: one finding, its first report */
		if (seen_before(&tip->con, i))
			continue;

		json_object_array_add(is_new ? findings : known,
				      splat_json(s, &tip->con, is_new));
		new_splats += is_new;
	}
	add_tests(o, findings, tip, base, &new_fail);
	{
		json_object *f = end_finding(tip, base, &status, &message);

		if (f) {
			if (strcmp(status, "boot-failure") &&
			    json_object_get_boolean(json_object_object_get(f, "new")))
				status = "regressions";
			json_object_array_add(findings, f);
		}
	}
	if (!strcmp(status, "ok") && (new_fail || new_splats)) {
		status = "regressions";
		message = xasprintf("%zu new kselftest failure%s, %zu new "
				    "kernel report%s", new_fail,
				    new_fail == 1 ? "" : "s", new_splats,
				    new_splats == 1 ? "" : "s");
	}
	jx_add_str(o, "status", status);
	jx_add_str(o, "message", message);
	json_object_object_add(o, "findings", findings);
	json_object_object_add(o, "known", known);
	add_skipped(o, &tip->plan);
	jx_add_str(o, "accel", tip->accel);
	jx_add_str(o, "qemu", tip->qemu);
	jx_add_str(o, "cmdline", tip->cmdline);
	jx_add_str(o, "end", boot_end_name(tip->end));
	json_object_object_add(o, "timings", timings(tip));
	jx_add_str(o, "console_log", tip->log_path);
	add_int(o, "boots", tip->boots);
	if (tip->first_log)
		jx_add_str(o, "first_console_log", tip->first_log);
	if (tip->end != BOOT_DONE)
		jx_add_str(o, "console_tail", tip->tail.buf);
	if (base) {
		json_object *b = json_object_new_object();

		jx_add_str(b, "end", boot_end_name(base->end));
		add_bool(b, "cached", base->cached);
		jx_add_str(b, "console_log", base->log_path);
		json_object_object_add(b, "timings", timings(base));
		json_object_object_add(o, "base", b);
	}
	free(message);
	return o;
}

const char *boot_report_status(json_object *arch)
{
	json_object *s = json_object_object_get(arch, "status");

	return s ? json_object_get_string(s) : "infra";
}

void boot_report_text(json_object *report, struct strbuf *sb)
{
	json_object *archs = json_object_object_get(report, "archs");
	size_t i, j, n = archs ? json_object_array_length(archs) : 0;

	for (i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(archs, i);
		json_object *tests = json_object_object_get(a, "tests");
		json_object *fs = json_object_object_get(a, "findings");
		size_t counts[5] = { 0 }, nt = tests ? json_object_array_length(tests) : 0;
		const char *msg = jx_str(a, "message");

		for (j = 0; j < nt; j++) {
			const char *r = jx_str(json_object_array_get_idx(tests, j),
					     "result");

			counts[!strcmp(r, "pass") ? 0 : !strcmp(r, "fail") ? 1 :
			       !strcmp(r, "skip") ? 2 : 3]++;
		}
		strbuf_addf(sb, "%s: %s%s%s (%zu passed, %zu failed, %zu "
			    "skipped, %zu flaky)\n", jx_str(a, "arch"),
			    jx_str(a, "status"), msg ? ": " : "", msg ? msg : "",
			    counts[0], counts[1], counts[2], counts[3]);
		for (j = 0; fs && j < json_object_array_length(fs); j++) {
			json_object *f = json_object_array_get_idx(fs, j);
			json_object *cu = jx_object(f, "culprit");

			strbuf_addf(sb, "  %s\n", jx_strz(f, "message"));
			if (jx_int(f, "patch", 0) > 0)
				strbuf_addf(sb, "    first bad patch: %lld/%lld %s (%lld boots)\n",
					    (long long)jx_int(f, "patch", 0),
					    (long long)jx_int(jx_object(a, "bisection"), "patches", 0),
					    jx_strz(cu, "subject"), (long long)jx_int(cu, "boots", 0));
			else if (jx_bool(cu, "suspect", false))
				strbuf_addf(sb, "    bisection points at patch %lld, which only "
					    "changes comments or documentation: suspect\n",
					    (long long)jx_int(cu, "patch", 0));
			else if (jx_str(cu, "why"))
				strbuf_addf(sb, "    first bad patch not found: %s\n", jx_str(cu, "why"));
		}
		fs = jx_array(a, "flaky");
		for (j = 0; fs && j < json_object_array_length(fs); j++) {
			json_object *f = json_object_array_get_idx(fs, j);

			strbuf_addf(sb, "  flaky, not counted: %s (%s)\n", jx_strz(f, "message"),
				    jx_strz(f, "why"));
		}
		if (jx_str(a, "console_log"))
			strbuf_addf(sb, "  console: %s\n", jx_str(a, "console_log"));
	}
}
