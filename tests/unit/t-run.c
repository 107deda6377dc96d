// SPDX-License-Identifier: GPL-2.0
/*
 * run_cmd() under a memory limit: the child does all its allocating
 * (environment, sandbox argv) before the limits are set.  Under ASan,
 * whose address space is far beyond any RLIMIT_AS, an allocation after
 * the limit dies with "Failed to mmap", and the command looked failed.
 * A log planted as a link where run_cmd() writes its log is not followed.
 * The child has its three standard descriptors and nothing else: not one
 * that lorebot inherited without close-on-exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

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

	{
		char tmpl[] = "/tmp/t-run.XXXXXX", *target, *link, *text = NULL;
		const char *echo[] = { "echo", "written", NULL };
		struct run_cmd c = RUN_CMD_INIT;
		size_t len = 0;

		if (!mkdtemp(tmpl))
			return 1;
		target = xasprintf("%s/target", tmpl);
		link = xasprintf("%s/stage.log", tmpl);
		util_write_file(target, "precious\n", 9);
		if (symlink(target, link))
			return 1;
		c.argv = echo;
		c.log_path = link;
		is_int(run_cmd(&c), -ELOOP, "a log that is a link: not run");
		util_read_file(target, &text, &len, 100);
		is_str(text ? text : "", "precious\n", "... and what it points at untouched");
		run_cmd_release(&c);
		free(text);
		util_remove_tree(tmpl);
		free(target);
		free(link);
	}
	{
		/* inherited, without O_CLOEXEC, as from a shell's 7>file */
		const char *ls[] = { "sh", "-c", "ls /proc/self/fd", NULL };
		struct run_cmd c = RUN_CMD_INIT;
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 7) < 0)
			return 1;
		c.argv = ls;
		is_int(run_cmd(&c), 0, "a command with an fd 7 open in lorebot ran");
		/* 0, 1 and 2, and the directory ls reads (3) */
		is_str(c.out.buf, "0\n1\n2\n3\n", "... and saw 0, 1 and 2 only");
		run_cmd_release(&c);
		close(7);
		close(fd);
	}
	return done_testing();
}
