// SPDX-License-Identifier: GPL-2.0
/*
 * plan_make(): what a version needs, derived from its results alone,
 * by the stage table's rows (what follows what, on which status).
 */
#include "bot/stage/stage.h"
#include "tests/unit/tap.h"

static const char *const archs[] = { "x86_64", "arm64" };
static const struct plan_cfg cfg = { .archs = archs, .nr_archs = 2, .boot = true };

int main(void)
{
	struct plan_result rs[8];
	struct plan p;
	enum stage s;
	size_t nr = 0;

	stage_register();
	is_int(plan_stage_parse("build", &s), 0, "a stage name parses");
	is_int(s, STAGE_BUILD, "to its row");
	ok(plan_stage_parse("sparse", &s) < 0, "an unknown name does not");
	is_int(plan_status_parse("boot-failure"), STATUS_BOOT_FAILURE, "a status parses");
	is_int(plan_status_parse("great"), STATUS_NONE, "an unknown status is none");
	ok(plan_has_status(STAGE_BUILD, STATUS_INFRA), "every stage may end infra");
	ok(!plan_has_status(STAGE_APPLY, STATUS_OK), "apply has no 'ok'");

	plan_make(rs, nr, &cfg, &p);
	is_int(p.need[STAGE_APPLY][0], NEED_RUN, "nothing recorded: apply runs");
	is_int(p.need[STAGE_CHECK][0], NEED_WAIT, "check waits for it");
	is_int(p.need[STAGE_BUILD][1], NEED_WAIT, "so do the builds");
	is_int(p.need[STAGE_REPLY][0], NEED_WAIT, "and the reply");
	ok(!p.started && !p.ended, "not started, not ended");

	rs[nr++] = (struct plan_result){ STAGE_APPLY, "", STATUS_APPLIED, 0 };
	plan_make(rs, nr, &cfg, &p);
	is_int(p.need[STAGE_APPLY][0], NEED_DONE, "applied: apply is done");
	is_int(p.need[STAGE_CHECK][0], NEED_RUN, "check runs");
	ok(p.need[STAGE_BUILD][0] == NEED_RUN && p.need[STAGE_BUILD][1] == NEED_RUN,
	   "a build per arch runs");
	is_int(p.need[STAGE_BOOT][0], NEED_WAIT, "boots wait for their builds");

	rs[nr++] = (struct plan_result){ STAGE_CHECK, "", STATUS_WARNINGS, 3 };
	rs[nr++] = (struct plan_result){ STAGE_BUILD, "x86_64", STATUS_OK, 0 };
	rs[nr++] = (struct plan_result){ STAGE_BUILD, "arm64", STATUS_ERRORS, 1 };
	plan_make(rs, nr, &cfg, &p);
	is_int(p.need[STAGE_BOOT][0], NEED_RUN, "built ok: its boot runs");
	is_int(p.need[STAGE_BOOT][1], NEED_SKIP, "build errors: no boot");
	ok(!p.ended && p.need[STAGE_REPLY][0] == NEED_WAIT, "the reply waits for the boot");

	rs[nr++] = (struct plan_result){ STAGE_BOOT, "x86_64", STATUS_INFRA, 0 };
	plan_make(rs, nr, &cfg, &p);
	ok(p.ended && p.need[STAGE_REPLY][0] == NEED_RUN,
	   "an infra result ends its stage: the reply is due");
	ok(plan_all_ended(&p, STAGE_BOOT), "every boot ended (done or skipped)");

	nr = 0;
	rs[nr++] = (struct plan_result){ STAGE_APPLY, "", STATUS_FAILED, 1 };
	rs[nr++] = (struct plan_result){ STAGE_CHECK, "", STATUS_CLEAN, 0 };
	plan_make(rs, nr, &cfg, &p);
	ok(p.need[STAGE_BUILD][0] == NEED_SKIP && p.need[STAGE_BOOT][1] == NEED_SKIP,
	   "apply failed: no builds and no boots");
	ok(p.ended && p.need[STAGE_REPLY][0] == NEED_RUN, "so the reply is due");

	nr = 0;
	rs[nr++] = (struct plan_result){ STAGE_APPLY, "", STATUS_INFRA, 0 };
	plan_make(rs, nr, &cfg, &p);
	is_int(p.need[STAGE_CHECK][0], NEED_RUN, "apply infra: check still runs");
	is_int(p.need[STAGE_BUILD][0], NEED_SKIP, "builds do not (nothing applied)");

	{
		struct plan_cfg noboot = cfg;

		noboot.boot = false;
		nr = 0;
		rs[nr++] = (struct plan_result){ STAGE_APPLY, "", STATUS_APPLIED, 0 };
		plan_make(rs, nr, &noboot, &p);
		is_int(p.need[STAGE_BOOT][0], NEED_SKIP, "boot.enable false: no boots");
	}
	return done_testing();
}
