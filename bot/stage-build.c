// SPDX-License-Identifier: GPL-2.0
/*
 * build: each patch of the applied branch built per arch (lorebot build)
 */
#include "bot/stage.h"

const struct stage_ops stage_build = {
	.name = "build",
	.per_arch = true,
	.heavy = true,
	.after = STAGE_APPLY,
	.after_on = ST(APPLIED),
	.command = "build",
	.input = STAGE_IN_BRANCH,
	.statuses = ST(OK) | ST(WARNINGS) | ST(ERRORS) | ST(INFRA) | ST(PARTIAL),
	.fails = "build-failed",
	.fail_on = ST(ERRORS),
	.findings = true,
};
