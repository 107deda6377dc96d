/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result of one arch as JSON, tip compared with base.  Keys:
 *	arch		"x86_64", "arm64", "riscv"
 *	status		"ok", "regressions", "boot-failure" or "infra"
 *	message		one line saying why, unless ok
 *	tests		[{name ("mm/cow"), result (pass, fail, skip, flaky),
 *			  new (a failure the base does not have), base (the
 *			  base's result), reason, ms, attempts, runs and
 *			  fails (the attempts that ended, and failed), output
 *			  (for fail, flaky and skip)}]
 *	findings	[{kind, message, new, test, title, where, trace,
 *			  output, console_tail}]: new kernel reports, new
 *			  test failures, boot failures and hangs
 *	known		kernel reports the base has too (same title)
 *	skipped		[{name, reason}]: catalog tests not run here
 *	accel		"tcg: ..." or "kvm: ...": what qemu used and why
 *	qemu, cmdline	the qemu command line (the kernel as built in O=build,
 *			the initrd by its name) and the kernel's
 *	timings		{build_ms, boot_ms, tests_ms, total_ms}
 *	console_log, base_console_log	paths
 *	boots		qemu runs of the tip: 2 when the first stopped at the
 *			time limit before the kernel printed anything
 *	first_console_log	that first run's console, when booted twice
 *	base		{status, end, cached, timings}
 */
#ifndef LOREBOT_CI_BOOT_REPORT_H
#define LOREBOT_CI_BOOT_REPORT_H

#include <json-c/json.h>

#include "ci/boot.h"

/* base may be NULL (no comparison: everything counts as new) */
json_object *boot_report_json(const struct arch *a,
			      const struct boot_result *tip,
			      const struct boot_result *base);

/* "regressions" etc. of an arch object; "infra" when missing */
const char *boot_report_status(json_object *arch);

/* A human summary of the report of all arches */
void boot_report_text(json_object *report, struct strbuf *sb);

#endif
