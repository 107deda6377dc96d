// SPDX-License-Identifier: GPL-2.0
/*
 * Console analysis: KTAP from the guest init and the kernel's reports,
 * in the forms x86_64, arm64 and riscv print them.  Real consoles are
 * tested end to end by tests/t06*; these are the corner cases.
 */
#include <stdlib.h>

#include "ci/console.h"
#include "tests/unit/tap.h"

static void parse(struct console *c, const char *text)
{
	console_init(c);
	console_parse(c, text, strlen(text));
}

/* Feed one byte at a time: chunking must not matter */
static void parse_bytes(struct console *c, const char *text)
{
	size_t i;

	console_init(c);
	for (i = 0; text[i]; i++)
		console_feed(c, text + i, 1);
	console_finish(c);
}

static const char x86_warn[] =
	"[    0.000000] Linux version 6.12.117+ (root@vm) #1 SMP\n"
	"KTAP version 1\n"
	"# lorebot: init uptime ms 3012\n"
	"1..2\n"
	"# lorebot: run mkdirty attempt 1\n"
	"    TAP version 13\n"
	"    ok 1 mkdirty\n"
	"# lorebot: exit mkdirty attempt 1 status 0 ms 120\n"
	"ok 1 mkdirty\n"
	"# lorebot: run madv_populate attempt 1\n"
	"    TAP version 13\n"
	"    1..21\n"
	"[   12.345678] ------------[ cut here ]------------\n"
	"[   12.345690] WARNING: CPU: 0 PID: 77 at mm/madvise.c:958 madvise_populate+0x2a/0x1b0\n"
	"[   12.345700] Modules linked in:\n"
	"[   12.345710] CPU: 0 UID: 0 PID: 77 Comm: madv_populate Not tainted 6.12.117+ #1\n"
	"[   12.345720] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)\n"
	"[   12.345730] RIP: 0010:madvise_populate+0x2a/0x1b0\n"
	"[   12.345740] Code: 41 57 41 56 41 55 41 54 55 53 48 83 ec 10 <0f> 0b\n"
	"[   12.345750] RSP: 0018:ffffc900001f7e68 EFLAGS: 00010246\n"
	"[   12.345770] Call Trace:\n"
	"[   12.345780]  <TASK>\n"
	"[   12.345790]  ? __warn+0x7b/0x120\n"
	"[   12.345800]  ? madvise_populate+0x2a/0x1b0\n"
	"[   12.345820]  do_madvise+0x1f2/0x2a0\n"
	"[   12.345830]  __x64_sys_madvise+0x1c/0x30\n"
	"[   12.345840]  do_syscall_64+0x4b/0x110\n"
	"[   12.345850]  entry_SYSCALL_64_after_hwframe+0x76/0x7e\n"
	"[   12.345860] RIP: 0033:0x4a1b2b\n"
	"[   12.345880] RSP: 002b:00007ffd5d1f1e48 EFLAGS: 00000246\n"
	"[   12.345890]  </TASK>\n"
	"[   12.345900] ---[ end trace 0000000000000000 ]---\n"
	"    ok 1 range[   12.400000] random: crng init done\n"
	"    ok 2 WARNING: not from the kernel\n"
	"# lorebot: exit madv_populate attempt 1 status 0 ms 480\n"
	"ok 2 madv_populate\n"
	"# lorebot: done ms 700\n"
	"[   13.000000] reboot: Restarting system\n";

static void test_x86_warning(void)
{
	struct console c, b;
	const struct splat *s;
	const struct kst_run *t;

	parse(&c, x86_warn);
	ok(c.kernel, "x86: the kernel's banner");
	ok(c.userspace && c.done, "x86: the init ran and finished");
	is_int(c.planned, 2, "x86: plan 1..2");
	is_int(c.init_uptime_ms, 3012, "x86: boot time from the init");
	is_int(c.tests_ms, 700, "x86: test time");
	is_int(c.tests_nr, 2, "x86: two tests");
	is_int(c.splats_nr, 1, "x86: one report (not the test's own WARNING line)");
	s = &c.splats[0];
	is_str(s->kind, "warning", "x86: a warning");
	is_str(s->title, "WARNING in madvise_populate", "x86: title");
	is_str(s->where, "mm/madvise.c:958", "x86: where");
	is_str(s->test, "madv_populate", "x86: during madv_populate");
	ok(strstr(s->report.buf, "do_madvise+0x1f2/0x2a0") != NULL, "x86: trace kept");
	ok(strstr(s->report.buf, "---[ end trace") != NULL, "x86: up to its end");
	ok(strstr(s->report.buf, "</TASK>") != NULL, "x86: user registers inside <TASK> kept");
	ok(!strstr(s->report.buf, "crng"), "x86: the next kernel message is not part of it");
	ok(!strstr(s->report.buf, "[   12."), "x86: time stamps removed");
	t = ktap_test(&c, "madv_populate");
	ok(t && t->result == KST_PASS, "x86: madv_populate passed");
	ok(t && strstr(t->output.buf, "ok 1 range\n"), "x86: a line split at the kernel's time stamp");
	ok(t && strstr(t->output.buf, "ok 2 WARNING: not from the kernel"), "x86: output kept");
	ok(t && !strstr(t->output.buf, "cut here"), "x86: kernel lines not in the output");
	is_int(t ? (long long)t->ms : -1, 480, "x86: test time");

	parse_bytes(&b, x86_warn);
	ok(b.splats_nr == 1 && !strcmp(b.splats[0].title, c.splats[0].title) &&
	   !strcmp(b.splats[0].report.buf, c.splats[0].report.buf),
	   "x86: byte-by-byte feeding gives the same report");
	console_release(&b);
	console_release(&c);
}

static const char arm64_warn[] =
	"# lorebot: run madv_populate attempt 1\n"
	"[    5.123000] ------------[ cut here ]------------\n"
	"[    5.123001] WARNING: CPU: 1 PID: 80 at mm/madvise.c:958 madvise_populate.isra.0+0x3c/0x1e0\n"
	"[    5.123002] Modules linked in:\n"
	"[    5.123003] CPU: 1 UID: 0 PID: 80 Comm: madv_populate Not tainted 6.12.117 #1\n"
	"[    5.123004] Hardware name: linux,dummy-virt (DT)\n"
	"[    5.123005] pstate: 80000005 (Nzcv daif -PAN -UAO -TCO -DIT -SSBS BTYPE=--)\n"
	"[    5.123006] pc : madvise_populate.isra.0+0x3c/0x1e0\n"
	"[    5.123007] lr : do_madvise+0x1d8/0x2b0\n"
	"[    5.123008] sp : ffff80008012bd90\n"
	"[    5.123009] x29: ffff80008012bd90 x28: ffff000002d3c600 x27: 0000000000000000\n"
	"[    5.123010] Call trace:\n"
	"[    5.123011]  madvise_populate.isra.0+0x3c/0x1e0\n"
	"[    5.123012]  do_madvise+0x1d8/0x2b0\n"
	"[    5.123013]  __arm64_sys_madvise+0x28/0x3c\n"
	"[    5.123014]  invoke_syscall+0x48/0x110\n"
	"[    5.123015] ---[ end trace 0000000000000000 ]---\n"
	"# lorebot: exit madv_populate attempt 1 status 0 ms 300\n"
	"ok 1 madv_populate\n";

static const char riscv_oops[] =
	"KTAP version 1\n"
	"# lorebot: run cow attempt 1\n"
	"[    3.100000] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008\n"
	"[    3.100001] Oops [#1]\n"
	"[    3.100002] Modules linked in:\n"
	"[    3.100003] CPU: 0 UID: 0 PID: 70 Comm: cow Not tainted 6.12.117 #1\n"
	"[    3.100004] Hardware name: riscv-virtio,qemu (DT)\n"
	"[    3.100005] epc : folio_add_anon_rmap_ptes+0x22/0x19a\n"
	"[    3.100006]  ra : do_wp_page+0x1c4/0x2a2\n"
	"[    3.100007] epc : ffffffff800c7b2a ra : ffffffff800c8b1e sp : ff2000000012bd10\n"
	"[    3.100008] status: 0000000200000120 badaddr: 0000000000000008 cause: 000000000000000d\n"
	"[    3.100009] [<ffffffff800c7b2a>] folio_add_anon_rmap_ptes+0x22/0x19a\n"
	"[    3.100010] [<ffffffff800c8b1e>] do_wp_page+0x1c4/0x2a2\n"
	"[    3.100011] [<ffffffff800c9000>] handle_mm_fault+0x100/0x200\n"
	"[    3.100012] Code: 8082 1141 e406 e022 0800 (6508) 8b85\n"
	"[    3.100013] ---[ end trace 0000000000000000 ]---\n"
	"[    3.100014] Kernel panic - not syncing: Fatal exception\n"
	"[    3.100015] ---[ end Kernel panic - not syncing: Fatal exception ]---\n";

static void test_arm64_riscv(void)
{
	struct console c;

	parse(&c, arm64_warn);
	is_int(c.splats_nr, 1, "arm64: one report");
	is_str(c.splats[0].title, "WARNING in madvise_populate", "arm64: title without .isra.0");
	ok(strstr(c.splats[0].report.buf, "__arm64_sys_madvise") != NULL, "arm64: trace kept");
	console_release(&c);

	parse(&c, riscv_oops);
	is_int(c.splats_nr, 2, "riscv: an oops and the panic after it");
	is_str(c.splats[0].kind, "oops", "riscv: oops");
	is_str(c.splats[0].title,
	       "Unable to handle kernel NULL pointer dereference in folio_add_anon_rmap_ptes",
	       "riscv: title from epc");
	ok(strstr(c.splats[0].report.buf, "do_wp_page+0x1c4") != NULL, "riscv: frames kept");
	ok(strstr(c.splats[0].report.buf, "Oops [#1]") != NULL, "riscv: the Oops line joins the fault");
	is_str(c.splats[1].kind, "panic", "riscv: then a panic");
	is_str(c.splats[1].title, "Kernel panic: Fatal exception", "riscv: panic title");
	is_str(c.splats[1].test, "cow", "riscv: during cow");
	ok(!c.done && c.running && !strcmp(c.running, "cow"), "riscv: cow was running at the end");
	ok(ktap_test(&c, "cow") && ktap_test(&c, "cow")->result == KST_FAIL,
	   "riscv: an unfinished test failed");
	console_release(&c);
}

static const char x86_hung[] =
	"[   45.000000] INFO: task uffd-stress:99 blocked for more than 30 seconds.\n"
	"[   45.000001]       Not tainted 6.12.117+ #1\n"
	"[   45.000002] \"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\n"
	"[   45.000003] task:uffd-stress     state:D stack:0     pid:99    tgid:97    ppid:1      flags:0x00004002\n"
	"[   45.000004] Call Trace:\n"
	"[   45.000005]  <TASK>\n"
	"[   45.000006]  __schedule+0x2c3/0x6f0\n"
	"[   45.000007]  schedule+0x27/0xa0\n"
	"[   45.000008]  handle_userfault+0x3b1/0x4c0\n"
	"[   45.000009]  do_anonymous_page+0x33/0x3a0\n"
	"[   45.000010]  </TASK>\n"
	"[   45.100000] BUG: Bad rss-counter state mm:00000000a1b2c3d4 type:MM_ANONPAGES val:1\n"
	"[   45.200000] random: fast init done\n"
	"[   46.000000] BUG: KASAN: slab-use-after-free in vma_merge+0x12/0x300\n"
	"[   46.000001] Read of size 8 at addr ffff888003a1b2c0 by task mremap_test/88\n"
	"[   46.000002] Call Trace:\n"
	"[   46.000003]  <TASK>\n"
	"[   46.000004]  dump_stack_lvl+0x5d/0x80\n"
	"[   46.000005]  print_report+0xc1/0x5e0\n"
	"[   46.000006]  kasan_report+0xb9/0xf0\n"
	"[   46.000007]  vma_merge+0x12/0x300\n"
	"[   46.000008]  </TASK>\n";

static void test_other_reports(void)
{
	struct console c;

	parse(&c, x86_hung);
	is_int(c.splats_nr, 3, "hung task, rss-counter and KASAN");
	is_str(c.splats[0].kind, "hung-task", "hung task kind");
	is_str(c.splats[0].title, "INFO: task hung in handle_userfault",
	       "hung task: first frame past the scheduler");
	ok(!c.splats[0].test, "hung task: no test running");
	is_str(c.splats[1].title, "BUG: Bad rss-counter state", "BUG: title up to its detail");
	is_str(c.splats[2].kind, "kasan", "KASAN kind");
	is_str(c.splats[2].title, "BUG: KASAN: slab-use-after-free in vma_merge", "KASAN title");
	ok(!c.userspace, "no init on this console");
	console_release(&c);
}

static const char ktap_results[] =
	"KTAP version 1\n"
	"1..4\n"
	"# lorebot: run a attempt 1\n"
	"    not ok 1 first try\n"
	"# lorebot: exit a attempt 1 status 1 ms 10\n"
	"# lorebot: run a attempt 2\n"
	"    ok 1 second try\n"
	"# lorebot: exit a attempt 2 status 0 ms 12\n"
	"ok 1 a\n"
	"# lorebot: run b attempt 1\n"
	"    1..0 # SKIP needs one and only one page\n"
	"# lorebot: exit b attempt 1 status 4 ms 3\n"
	"ok 2 b # SKIP\n"
	"# lorebot: run c attempt 1\n"
	"    still going\n"
	"# lorebot: exit c attempt 1 status 137 ms 60000 timeout\n"
	"# lorebot: run c attempt 2\n"
	"# lorebot: exit c attempt 2 status 137 ms 60000 timeout\n"
	"not ok 3 c # TIMEOUT after 60 s\n"
	"# lorebot: run d attempt 1\n"
	"# lorebot: exit d attempt 1 status 1 ms 5\n"
	"# lorebot: run d attempt 2\n"
	"# lorebot: exit d attempt 2 status 1 ms 5\n"
	"not ok 4 d # exit status 1\n"
	"# lorebot: done ms 120077\n";

static void test_ktap(void)
{
	struct console c;
	const struct kst_run *t;

	parse(&c, ktap_results);
	ok(c.done, "ktap: done");
	t = ktap_test(&c, "a");
	ok(t && t->result == KST_FLAKY, "ktap: failed then passed is flaky");
	is_int(t ? t->first_status : -2, 1, "ktap: first attempt's status");
	ok(t && strstr(t->reason, "failed 1 of 2 runs"), "ktap: flaky reason");
	is_int(t ? t->runs : 0, 2, "ktap: two runs");
	is_int(t ? t->fails : 0, 1, "ktap: one failed");
	ok(t && strstr(t->output.buf, "not ok 1 first try\n# attempt 2\nok 1 second try"),
	   "ktap: both attempts' output");
	is_int(t ? (long long)t->ms : 0, 22, "ktap: time of both attempts");
	t = ktap_test(&c, "b");
	ok(t && t->result == KST_SKIP, "ktap: skip");
	t = ktap_test(&c, "c");
	ok(t && t->result == KST_FAIL && t->timeout, "ktap: a timeout is a failure");
	is_str(t ? t->reason : NULL, "TIMEOUT after 60 s", "ktap: timeout reason");
	t = ktap_test(&c, "d");
	ok(t && t->result == KST_FAIL, "ktap: failed twice is a failure");
	is_int(t ? t->fails : 0, 2, "ktap: both runs failed");
	is_int(c.splats_nr, 0, "ktap: no kernel reports");
	console_release(&c);
}

/* "runs 3": every test three times; a report in each passing run */
static const char ktap_runs[] =
	"KTAP version 1\n"
	"1..2\n"
	"# lorebot: run p attempt 1\n"
	"[   10.000000] ------------[ cut here ]------------\n"
	"[   10.000001] WARNING: CPU: 0 PID: 70 at mm/madvise.c:959 madvise_populate+0x1/0x2\n"
	"[   10.000002] ---[ end trace 0000000000000000 ]---\n"
	"# lorebot: exit p attempt 1 status 0 ms 5 report\n"
	"# lorebot: run p attempt 2\n"
	"[   11.000000] ------------[ cut here ]------------\n"
	"[   11.000001] WARNING: CPU: 0 PID: 71 at mm/madvise.c:959 madvise_populate+0x1/0x2\n"
	"[   11.000002] ---[ end trace 0000000000000000 ]---\n"
	"# lorebot: exit p attempt 2 status 0 ms 5 report\n"
	"# lorebot: run p attempt 3\n"
	"# lorebot: exit p attempt 3 status 0 ms 5\n"
	"ok 1 p\n"
	"# lorebot: run q attempt 1\n"
	"# lorebot: exit q attempt 1 status 0 ms 5\n"
	"# lorebot: run q attempt 2\n"
	"# lorebot: exit q attempt 2 status 1 ms 5\n"
	"# lorebot: run q attempt 3\n"
	"# lorebot: exit q attempt 3 status 0 ms 5\n"
	"not ok 2 q # exit status 1\n"
	"# lorebot: done ms 30\n";

static void test_ktap_runs(void)
{
	struct console c;
	const struct kst_run *t;

	parse(&c, ktap_runs);
	t = ktap_test(&c, "p");
	ok(t && t->result == KST_PASS, "runs: passed three times is a pass, not flaky");
	is_int(t ? t->runs : 0, 3, "runs: three runs");
	is_int(t ? t->reported : 0, 2, "runs: a report seen in two");
	is_int(c.splats_nr, 2, "runs: two warnings");
	is_int(c.splats_nr == 2 ? c.splats[0].attempt : 0, 1, "runs: the first in attempt 1");
	is_int(c.splats_nr == 2 ? c.splats[1].attempt : 0, 2, "runs: the second in attempt 2");
	is_str(c.splats_nr == 2 ? c.splats[1].test : NULL, "p", "runs: during p");
	t = ktap_test(&c, "q");
	ok(t && t->result == KST_FLAKY, "runs: one failure in three is flaky");
	ok(t && strstr(t->reason, "failed 1 of 3 runs"), "runs: says how often");
	console_release(&c);
}

static void test_tail(void)
{
	struct strbuf sb = STRBUF_INIT;

	console_tail("a\nb\nc\nd\n", 8, 2, &sb);
	is_str(sb.buf, "c\nd\n", "tail: last two lines");
	strbuf_reset(&sb);
	console_tail("a\nb", 3, 5, &sb);
	is_str(sb.buf, "a\nb\n", "tail: fewer lines than asked");
	strbuf_release(&sb);
}

/* Consoles of the 6.12 stand-in with the fixture warn-madvise-populate.patch */
static void test_real(void)
{
	static const char *const arches[] = { "x86_64", "arm64", "riscv" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arches); i++) {
		char *path = xasprintf("%s/tests/fixtures/boot/%s-warn.console.log",
				       tap_src(), arches[i]);
		struct console c;
		const struct kst_run *t;
		char *buf = NULL;
		size_t len, j, passed = 0;

		if (util_read_file(path, &buf, &len, 1 << 20)) {
			ok(0, "%s: cannot read %s", arches[i], path);
			free(path);
			continue;
		}
		parse(&c, buf);
		ok(c.kernel, "%s: real console: the kernel's banner", arches[i]);
		ok(c.userspace && c.done, "%s: real console: the init ran its plan", arches[i]);
		is_int(c.splats_nr, 1, "%s: real console: one kernel report", arches[i]);
		if (c.splats_nr) {
			const struct splat *s = &c.splats[0];

			is_str(s->title, "WARNING in do_madvise", "%s: real console: title", arches[i]);
			is_str(s->where, "mm/madvise.c:959", "%s: real console: where", arches[i]);
			is_str(s->test, "madv_populate", "%s: real console: test", arches[i]);
			ok(strstr(s->report.buf, "sys_madvise+0x") &&
			   strstr(s->report.buf, "---[ end trace"),
			   "%s: real console: the trace to its end", arches[i]);
		}
		t = ktap_test(&c, "madv_populate");
		ok(t && t->result == KST_PASS && strstr(t->output.buf, "# Totals: pass:"),
		   "%s: real console: madv_populate passed, output kept", arches[i]);
		for (j = 0; j < c.tests_nr; j++)
			passed += c.tests[j].result == KST_PASS;
		is_int(passed, c.tests_nr, "%s: real console: every test passed", arches[i]);
		console_release(&c);
		free(buf);
		free(path);
	}
}

/* O= next to the source and ccache's base_dir: __FILE__ is "../src/mm/x.c" */
static void test_paths(void)
{
	static const struct {
		const char *line, *where;
	} cases[] = {
		{ "WARNING: CPU: 1 PID: 80 at ../src/mm/madvise.c:959 do_madvise+0x1/0x2\n",
		  "mm/madvise.c:959" },
		{ "WARNING: CPU: 0 PID: 1 at /var/cache/lorebot/builds/x/src/arch/x86/mm/tlb.c:3 f+0x1/0x2\n",
		  "arch/x86/mm/tlb.c:3" },
		{ "WARNING: CPU: 0 PID: 1 at mm/rmap.c:12 f+0x1/0x2\n", "mm/rmap.c:12" },
		{ "kernel BUG at ../../linux/mm/slub.c:42!\n", "mm/slub.c:42" },
		{ "WARNING: CPU: 0 PID: 1 at ../odd/place.c:7 f+0x1/0x2\n", "../odd/place.c:7" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct console c;

		parse(&c, cases[i].line);
		ok(c.splats_nr == 1 && c.splats[0].where &&
		   !strcmp(c.splats[0].where, cases[i].where),
		   "case %zu: where is %s", i + 1, cases[i].where);
		console_release(&c);
	}
}

/* OpenSBI's banner and nothing after it: the kernel never printed */
static void test_firmware_only(void)
{
	static const char sbi[] =
		"OpenSBI v1.2\n"
		"Platform Name             : riscv-virtio,qemu\n"
		"Domain0 Next Address      : 0x0000000080200000\n"
		"Domain0 Next Mode         : S-mode\n"
		"Boot HART MEDELEG         : 0x0000000000f0b509\n";
	static const char quoted[] =
		"OpenSBI v1.2\n"
		"echo Linux version 6.12 in a line of its own\n";
	struct console c;

	parse(&c, sbi);
	ok(!c.kernel, "firmware only: no kernel banner");
	ok(c.lines == 5 && !c.userspace, "firmware only: five lines, no init");
	console_release(&c);
	parse(&c, quoted);
	ok(!c.kernel, "the banner counts only at the start of a line");
	console_release(&c);
	/* "quiet" hides the banner, not the time stamps */
	parse(&c, "OpenSBI v1.2\n[    0.012000] Run /init as init process\n");
	ok(c.kernel, "a time-stamped line is the kernel's");
	console_release(&c);
}

int main(void)
{
	test_paths();
	test_x86_warning();
	test_arm64_riscv();
	test_other_reports();
	test_ktap();
	test_ktap_runs();
	test_tail();
	test_real();
	test_firmware_only();
	return done_testing();
}
