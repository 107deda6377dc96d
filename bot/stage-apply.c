// SPDX-License-Identifier: GPL-2.0
/*
 * apply: the version's mail applied onto its base (lorebot apply), the
 * branch every later stage reads
 */
#include "bot/stage.h"

const struct stage_ops stage_apply = {
	.name = "apply",
	.after = STAGE_NONE,
	.command = "apply",
	.input = STAGE_IN_MBOX,
	.sandbox = true,
	.statuses = ST(APPLIED) | ST(FAILED) | ST(INFRA),
	.fails = "apply-failed",
	.fail_on = ST(FAILED),
};
