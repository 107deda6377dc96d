// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox of lib/run.h: the bubblewrap command line, and the paths
 * no sandbox of this process may see (run_hide_always()).
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/run-int.h"

/*
 * The sizes of the sandbox's own tmpfs mounts: /tmp for a compiler's
 * temporary files, /dev/shm for semaphores, and the empty ones that
 * cover what it must not see (only the mount points of binds go there)
 */
#define SANDBOX_TMP_BYTES	(512ULL << 20)
#define SANDBOX_SHM_BYTES	(64ULL << 20)
#define SANDBOX_HIDE_BYTES	(1ULL << 20)

#define MAX_PRIVATE 16
static char *private_paths[MAX_PRIVATE];
static size_t nr_private;

void run_hide_always(const char *path)
{
	char *abs;
	size_t i;

	if (!path || !*path)
		return;
	abs = realpath(path, NULL);
	if (!abs) {
		/* one that is still to come (SQLite's -wal): its directory's */
		char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *d;

		if (slash)
			*slash = '\0';
		d = realpath(slash ? (*dir ? dir : "/") : ".", NULL);
		if (d)
			abs = xasprintf("%s/%s", strcmp(d, "/") ? d : "",
					slash ? slash + 1 : path);
		free(d);
		free(dir);
		if (!abs)
			return;
	}
	for (i = 0; i < nr_private; i++)
		if (!strcmp(private_paths[i], abs))
			break;
	if (i < nr_private || nr_private == MAX_PRIVATE || !strcmp(abs, "/"))
		free(abs);
	else
		private_paths[nr_private++] = abs;
}

static void tmpfs_argv(struct argv_vec *a, const char *dir, unsigned long long size)
{
	argv_push(a, "--size");
	argv_push(a, xasprintf("%llu", size));
	argv_push(a, "--tmpfs");
	argv_push(a, dir);
}

/* bubblewrap in front of argv; see struct run_sandbox */
void run_sandbox_argv(const struct run_cmd *cmd, struct argv_vec *a)
{
	const char *const *p;
	size_t i;

	argv_push(a, "bwrap");
	argv_push(a, "--die-with-parent");
	argv_push(a, "--new-session");
	argv_push(a, "--unshare-ipc");
	argv_push(a, "--unshare-pid");
	argv_push(a, "--unshare-uts");
	argv_push(a, "--unshare-cgroup-try");
	if (!cmd->sandbox.allow_net)
		argv_push(a, "--unshare-net");
	/*
	 * A user namespace of its own and no capability in it, root or
	 * not: the read-only binds stay read-only (they are locked to the
	 * namespace: no remount) and nothing overrides a file's mode.
	 */
	argv_push(a, "--unshare-user");
	argv_push(a, "--cap-drop");
	argv_push(a, "ALL");
	argv_push(a, "--ro-bind");
	argv_push(a, "/");
	argv_push(a, "/");
	argv_push(a, "--dev");
	argv_push(a, "/dev");
	argv_push(a, "--proc");
	argv_push(a, "/proc");
	/* memory-backed scratch space, bounded */
	tmpfs_argv(a, "/tmp", SANDBOX_TMP_BYTES);
	tmpfs_argv(a, "/dev/shm", SANDBOX_SHM_BYTES);
	/* the host's sockets (systemd, D-Bus, munge, docker) are not its */
	tmpfs_argv(a, "/run", SANDBOX_HIDE_BYTES);
	for (i = 0; i < nr_private; i++) {
		struct stat st;

		if (stat(private_paths[i], &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			tmpfs_argv(a, private_paths[i], SANDBOX_HIDE_BYTES);
		} else {
			argv_push(a, "--ro-bind");
			argv_push(a, "/dev/null");
			argv_push(a, private_paths[i]);
		}
	}
	for (p = cmd->sandbox.hide; p && *p; p++)
		tmpfs_argv(a, *p, SANDBOX_HIDE_BYTES);
	for (p = cmd->sandbox.ro; p && *p; p++) {
		argv_push(a, "--ro-bind");
		argv_push(a, *p);
		argv_push(a, *p);
	}
	for (p = cmd->sandbox.rw; p && *p; p++) {
		argv_push(a, "--bind");
		argv_push(a, *p);
		argv_push(a, *p);
	}
	if (cmd->cwd) {
		argv_push(a, "--chdir");
		argv_push(a, cmd->cwd);
	}
	argv_push(a, "--");
	for (p = cmd->argv; *p; p++)
		argv_push(a, *p);
}
