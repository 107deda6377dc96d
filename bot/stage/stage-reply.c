// SPDX-License-Identifier: GPL-2.0
/*
 * reply: once every other stage ended, the reply the results call for,
 * composed and delivered in the job runner itself (bot/report/report.h)
 */
#include "bot/stage/stage.h"

const struct stage_ops stage_reply = {
	.name = "reply",
	.after = STAGE_NONE,
	.last = true,
	.input = STAGE_IN_NONE,
};
