// SPDX-License-Identifier: GPL-2.0
/*
 * check: the review rules, checkpatch and the series' hygiene on the
 * version's mail (lorebot check)
 */
#include "bot/stage.h"

const struct stage_ops stage_check = {
	.name = "check",
	.after = STAGE_APPLY,
	.command = "check",
	.input = STAGE_IN_MBOX,
	.sandbox = true,
	.reads_cache = true,
	.statuses = ST(ERRORS) | ST(WARNINGS) | ST(NOTES) | ST(CLEAN) | ST(INFRA),
	.findings = true,
};
