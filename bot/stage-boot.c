// SPDX-License-Identifier: GPL-2.0
/*
 * boot: the built kernel booted per arch with the mm kselftests (lorebot
 * boot)
 */
#include "bot/stage.h"

const struct stage_ops stage_boot = {
	.name = "boot",
	.per_arch = true,
	.heavy = true,
	.after = STAGE_BUILD,
	.after_on = ST(OK) | ST(WARNINGS) | ST(PARTIAL),
	.command = "boot",
	.input = STAGE_IN_BRANCH,
	.statuses = ST(OK) | ST(REGRESSIONS) | ST(BOOT_FAILURE) | ST(INFRA),
	.fails = "boot-failed",
	.fail_on = ST(BOOT_FAILURE),
	.fail_on_findings = ST(REGRESSIONS),
};
