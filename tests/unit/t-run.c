// SPDX-License-Identifier: GPL-2.0
/*
 * run_cmd() under a memory limit: the child does all its allocating
 * (environment, sandbox argv) before the limits are set.  Under ASan,
 * whose address space is far beyond any RLIMIT_AS, an allocation after
 * the limit dies with "Failed to mmap", and the command looked failed.
 */
#include "lib/run.h"
#include "tests/unit/tap.h"

#define NR_ENV 4000

int main(void)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	const char *argv[] = { "sh", "-c", "echo \"$K3999\"", NULL };
	const char **env = xcalloc(NR_ENV + 1, sizeof(*env));
	int i, ret;

	/* a large environment: the child's vector grows past what it had */
	for (i = 0; i < NR_ENV; i++)
		env[i] = xasprintf("K%d=v%d", i, i);
	cmd.argv = argv;
	cmd.env = env;
	cmd.limits.mem_bytes = 1ULL << 30;
	cmd.limits.timeout_ms = 60000;
	ret = run_cmd(&cmd);
	is_int(ret, 0, "the command ran");
	is_int(cmd.status, 0, "and exited 0 under a 1 GiB RLIMIT_AS");
	is_str(cmd.out.buf, "v3999\n", "with the environment it was given");
	if (cmd.status)
		printf("# stderr: %s\n", cmd.err.buf);
	run_cmd_release(&cmd);
	for (i = 0; i < NR_ENV; i++)
		free((char *)env[i]);
	free(env);
	return done_testing();
}
