/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For unit tests that make a git repository: a shell script run in dir
 * (sh -e), with git's identity set and no user or system configuration.
 * 0, or -1 with the script and its output printed as a TAP comment.
 */
#ifndef LOREBOT_TAP_SH_H
#define LOREBOT_TAP_SH_H

#include <stdio.h>

#include "lib/run.h"

static int sh(const char *dir, const char *script)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	const char *argv[] = { "sh", "-ec", script, NULL };
	const char *env[] = {
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org",
		"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent", NULL,
	};
	int ret;

	cmd.argv = argv;
	cmd.env = env;
	cmd.cwd = dir;
	cmd.merge_stderr = true;
	cmd.limits.timeout_ms = 60000;
	ret = run_cmd(&cmd) || cmd.status ? -1 : 0;
	if (ret)
		printf("# %s: %s\n", script, cmd.out.buf);
	run_cmd_release(&cmd);
	return ret;
}

#endif
