// SPDX-License-Identifier: GPL-2.0
/*
 * Tip against base: only new failures and new kernel reports are
 * findings; flaky and known results are not; how a boot ended decides
 * the status.  Console logs here are short but in the real formats.
 */
#include <json-c/json.h>

#include "ci/boot-report.h"
#include "tests/unit/tap.h"

#define WARN(fn, file)						\
	"[    9.000000] WARNING: CPU: 0 PID: 9 at " file " " fn "+0x1/0x2\n" \
	"[    9.000001] Call Trace:\n"					\
	"[    9.000002]  <TASK>\n"					\
	"[    9.000003]  do_" fn "+0x1/0x2\n"				\
	"[    9.000004]  </TASK>\n"					\
	"[    9.000005] ---[ end trace 0000000000000000 ]---\n"

#define RUN(t, n, st, res)						\
	"# lorebot: run " t " attempt " #n "\n"				\
	"    output of " t " attempt " #n "\n"			\
	"# lorebot: exit " t " attempt " #n " status " #st " ms 5\n" res

static const char base_log[] =
	"KTAP version 1\n1..4\n"
	RUN("mkdirty", 1, 0, "ok 1 mkdirty\n")
	"# lorebot: run cow attempt 1\n"
	WARN("old_fn", "mm/old.c:1")
	"# lorebot: exit cow attempt 1 status 1 ms 5\n"
	RUN("cow", 2, 1, "not ok 2 cow # exit status 1\n")
	RUN("madv_populate", 1, 0, "ok 3 madv_populate\n")
	RUN("droppable", 1, 0, "ok 4 droppable\n")
	"# lorebot: done ms 100\n";

static const char tip_log[] =
	"KTAP version 1\n1..4\n"
	RUN("mkdirty", 1, 1, "")
	RUN("mkdirty", 2, 0, "ok 1 mkdirty\n")
	"# lorebot: run cow attempt 1\n"
	WARN("old_fn", "mm/old.c:3")
	"# lorebot: exit cow attempt 1 status 1 ms 5\n"
	RUN("cow", 2, 1, "not ok 2 cow # exit status 1\n")
	"# lorebot: run madv_populate attempt 1\n"
	WARN("new_fn", "mm/madvise.c:958")
	"# lorebot: exit madv_populate attempt 1 status 0 ms 5 report\n"
	"# lorebot: run madv_populate attempt 2\n"
	WARN("new_fn", "mm/madvise.c:958")
	"# lorebot: exit madv_populate attempt 2 status 0 ms 5 report\n"
	"ok 3 madv_populate\n"
	RUN("droppable", 1, 1, "")
	RUN("droppable", 2, 1, "not ok 4 droppable # exit status 1\n")
	"# lorebot: done ms 100\n";

static const char *const names[] = { "mkdirty", "cow", "madv_populate", "droppable" };

static void result(struct boot_result *r, const char *log, bool timed_out)
{
	struct strbuf err = STRBUF_INIT;

	boot_result_init(r);
	kselftest_select(arch_lookup("x86_64"), names, ARRAY_SIZE(names), &r->plan, &err);
	r->timed_out = timed_out;
	boot_analyze(r, log, strlen(log), NULL);
	r->log_path = xstrdup("/x/console.log");
	strbuf_release(&err);
}

static json_object *get(json_object *o, const char *key)
{
	return json_object_object_get(o, key);
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v ? json_object_get_string(v) : NULL;
}

static json_object *test_of(json_object *arch, const char *name)
{
	json_object *tests = get(arch, "tests");
	size_t i;

	for (i = 0; tests && i < json_object_array_length(tests); i++)
		if (!strcmp(str(json_object_array_get_idx(tests, i), "name"), name))
			return json_object_array_get_idx(tests, i);
	return NULL;
}

static void test_compare(void)
{
	struct boot_result tip, base;
	json_object *o, *f, *t;

	result(&base, base_log, false);
	result(&tip, tip_log, false);
	o = boot_report_json(arch_lookup("x86_64"), &tip, &base);
	is_str(str(o, "status"), "regressions", "status: regressions");
	f = get(o, "findings");
	is_int(json_object_array_length(f), 2, "two findings: the new warning (once, though "
	       "it came in both runs) and droppable");
	is_str(str(json_object_array_get_idx(f, 0), "kind"), "kernel-warning", "a kernel warning");
	is_str(str(json_object_array_get_idx(f, 0), "message"),
	       "new kernel warning: WARNING in new_fn (mm/madvise.c:958) during mm/madv_populate",
	       "its message names the function, the line and the test");
	is_str(str(json_object_array_get_idx(f, 0), "test"), "mm/madv_populate", "its test");
	ok(strstr(str(json_object_array_get_idx(f, 0), "trace"), "do_new_fn") != NULL,
	   "its trace");
	is_str(str(json_object_array_get_idx(f, 1), "message"),
	       "new kselftest failure: mm/droppable (exit status 1)", "the new failure");
	ok(strstr(str(json_object_array_get_idx(f, 1), "output"), "output of droppable") != NULL,
	   "with the test's output");
	is_int(json_object_array_length(get(o, "known")), 1,
	       "the base's warning is known, though at another line");
	t = test_of(o, "mm/mkdirty");
	is_str(str(t, "result"), "flaky", "failed then passed: flaky");
	ok(!json_object_get_boolean(get(t, "new")), "flaky is not new");
	t = test_of(o, "mm/cow");
	is_str(str(t, "result"), "fail", "cow fails");
	ok(!json_object_get_boolean(get(t, "new")), "but fails on the base too");
	is_str(str(t, "base"), "fail", "base result recorded");
	t = test_of(o, "mm/droppable");
	ok(json_object_get_boolean(get(t, "new")), "droppable's failure is new");
	ok(get(o, "skipped") && json_object_array_length(get(o, "skipped")) > 10,
	   "the catalog's other tests are listed as skipped");
	json_object_put(o);

	/* the same kernel twice: nothing new */
	o = boot_report_json(arch_lookup("x86_64"), &base, &base);
	is_str(str(o, "status"), "ok", "base against itself: ok");
	is_int(json_object_array_length(get(o, "findings")), 0, "no findings");
	json_object_put(o);
	boot_result_release(&tip);
	boot_result_release(&base);
}

static void test_ends(void)
{
	struct boot_result base, r;
	json_object *o, *f;

	result(&base, base_log, false);
	result(&r, "[    0.500000] Kernel panic - not syncing: VFS: Unable to mount root fs\n"
		   "[    0.500001] ---[ end Kernel panic - not syncing: VFS ]---\n", false);
	o = boot_report_json(arch_lookup("x86_64"), &r, &base);
	is_str(str(o, "status"), "boot-failure", "panic before the init: boot failure");
	f = get(o, "findings");
	ok(json_object_array_length(f) == 2, "the panic and the boot failure");
	ok(strstr(str(json_object_array_get_idx(f, 1), "message"),
		  "boot failure: the kernel stopped before the init ran: Kernel panic: VFS") != NULL,
	   "boot failure names the panic");
	ok(strstr(str(o, "console_tail"), "Unable to mount root fs") != NULL,
	   "with the end of the console");
	json_object_put(o);
	boot_result_release(&r);

	result(&r, "[    0.100000] Linux version 6.12\n[    0.200000] lorebot fixture: hanging\n", true);
	o = boot_report_json(arch_lookup("x86_64"), &r, &base);
	is_str(str(o, "status"), "boot-failure", "hang before the init: boot failure");
	ok(strstr(str(json_object_array_get_idx(get(o, "findings"), 0), "message"),
		  "stopped at the time limit") != NULL, "stopped at the time limit");
	ok(strstr(str(json_object_array_get_idx(get(o, "findings"), 0), "console_tail"),
		  "hanging") != NULL, "tail in the finding");
	json_object_put(o);
	boot_result_release(&r);

	/* booted twice, the firmware's banner and nothing from the kernel */
	result(&r, "OpenSBI v1.2\nDomain0 Next Mode         : S-mode\n", true);
	r.boots = 2;
	o = boot_report_json(arch_lookup("riscv"), &r, &base);
	is_str(str(o, "status"), "boot-failure", "silent hang: boot failure");
	ok(strstr(str(json_object_array_get_idx(get(o, "findings"), 0), "message"),
		  "the kernel printed nothing in ") != NULL &&
	   strstr(str(o, "message"), ", twice, stopped at the time limit") != NULL,
	   "silent hang: the kernel printed nothing, twice");
	is_int(json_object_get_int(json_object_object_get(o, "boots")), 2,
	       "silent hang: two boots");
	json_object_put(o);
	boot_result_release(&r);

	result(&r, "KTAP version 1\n1..4\n" RUN("mkdirty", 1, 0, "ok 1 mkdirty\n")
		   "# lorebot: run cow attempt 1\n    1..640\n", true);
	o = boot_report_json(arch_lookup("x86_64"), &r, &base);
	is_str(str(o, "status"), "regressions", "hang during a test: regressions");
	f = get(o, "findings");
	ok(strstr(str(json_object_array_get_idx(f, json_object_array_length(f) - 1), "message"),
		  "kernel hang: the guest stopped responding during mm/cow") != NULL,
	   "the hang names the test");
	is_str(str(test_of(o, "mm/madv_populate"), "result"), "skip", "tests after it: not run");
	is_str(str(test_of(o, "mm/madv_populate"), "reason"),
	       "not run: the guest stopped before it", "and say why");
	json_object_put(o);
	boot_result_release(&r);
	boot_result_release(&base);
}

/* The text of an arch whose finding was bisected, and a flaky one */
static void test_text(void)
{
	json_object *report = json_tokener_parse(
		"{\"archs\": [{\"arch\": \"x86_64\", \"status\": \"regressions\","
		" \"message\": \"0 new kselftest failures, 1 new kernel report\","
		" \"tests\": [], \"bisection\": {\"patches\": 12},"
		" \"findings\": [{\"kind\": \"kernel-warning\", \"message\": \"new kernel warning\","
		"   \"patch\": 9, \"culprit\": {\"state\": \"found\", \"patch\": 9,"
		"   \"subject\": \"mm/madvise: warn\", \"suspect\": false, \"boots\": 5}},"
		"  {\"kind\": \"kernel-warning\", \"message\": \"another\","
		"   \"culprit\": {\"state\": \"found\", \"patch\": 2, \"suspect\": true}}],"
		" \"flaky\": [{\"message\": \"new kselftest failure: mm/cow\","
		"   \"why\": \"shown in 2 of 5 runs on the tip\"}]}]}");
	struct strbuf sb = STRBUF_INIT;

	boot_report_text(report, &sb);
	ok(strstr(sb.buf, "    first bad patch: 9/12 mm/madvise: warn (5 boots)\n") != NULL,
	   "text: the first bad patch, of how many, in how many boots");
	ok(strstr(sb.buf, "bisection points at patch 2, which only changes comments or "
		  "documentation: suspect") != NULL, "text: a suspect is not blamed");
	ok(strstr(sb.buf, "  flaky, not counted: new kselftest failure: mm/cow (shown in 2 of "
		  "5 runs on the tip)") != NULL, "text: the flaky one, not counted");
	strbuf_release(&sb);
	json_object_put(report);
}

int main(void)
{
	test_text();
	test_compare();
	test_ends();
	return done_testing();
}
