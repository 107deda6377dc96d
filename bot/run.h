/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one subprocess API (as git's run-command.h): argv and environment
 * vectors, a working directory, a wall-clock timeout, rlimits, bounded
 * output capture, an optional sandbox (bubblewrap: no network, read-only
 * root, private /tmp, dropped privileges), and an exit status as the
 * shell reports it (128 + signal for a signalled child).
 *
 * Usage:
 *	struct run_cmd cmd = RUN_CMD_INIT;
 *	const char *argv[] = { "make", "-j2", NULL };
 *	cmd.argv = argv;
 *	cmd.limits.timeout_ms = 600000;
 *	if (run_cmd(&cmd) < 0) ... could not start ...
 *	if (cmd.timed_out || cmd.status) ... cmd.out.buf ...
 *	run_cmd_release(&cmd);
 */
#ifndef LOREBOT_RUN_H
#define LOREBOT_RUN_H

#include <stdint.h>
#include <sys/types.h>

#include "bot/strbuf.h"

struct run_limits {
	uint64_t timeout_ms;	/* wall clock; 0: none */
	uint64_t cpu_s;		/* RLIMIT_CPU; 0: unchanged */
	uint64_t mem_bytes;	/* RLIMIT_AS per process; 0: unchanged */
	uint64_t fsize_bytes;	/* RLIMIT_FSIZE; 0: unchanged */
	uint64_t nproc;		/* RLIMIT_NPROC; 0: unchanged */
	size_t max_output;	/* bytes kept of each stream; 0: 1 MiB */
};

struct run_sandbox {
	bool enabled;
	bool allow_net;		/* default: a network namespace of its own */
	const char *const *rw;	/* NULL-terminated; bound read-write */
	const char *const *hide; /* NULL-terminated; covered by an empty tmpfs */
	const char *const *ro;	/* NULL-terminated; bound read-only again (under /tmp) */
	uid_t uid;		/* when run as root: the unprivileged user */
	gid_t gid;
};

struct run_cmd {
	/* input */
	const char *const *argv;	/* NULL-terminated, argv[0] looked up in PATH */
	const char *const *env;	/* NULL-terminated "KEY=VALUE" added (or "KEY" removed) */
	bool clean_env;		/* start from PATH, HOME, LANG=C only */
	const char *cwd;
	const char *in;		/* bytes fed to stdin (or NULL: /dev/null) */
	size_t in_len;
	bool merge_stderr;	/* stderr goes to out, in order */
	bool pass_stderr;	/* stderr is inherited (progress of a child) */
	const char *log_path;	/* also written here (bounded, stdout+stderr) */
	struct run_limits limits;
	struct run_sandbox sandbox;

	/* output */
	struct strbuf out;
	struct strbuf err;
	int status;		/* 0..255, 128+signal, -1 before it ran */
	bool timed_out;
	bool truncated;		/* output beyond max_output was dropped */
	uint64_t elapsed_ms;
};

#define RUN_CMD_INIT { .out = STRBUF_INIT, .err = STRBUF_INIT, .status = -1 }

/* Run to completion.  0 when the command ran (see status), -errno if not. */
int run_cmd(struct run_cmd *cmd);
void run_cmd_release(struct run_cmd *cmd);

/* Describe how it ended: "exit 2", "killed by signal 9", "timed out after 30 s" */
void run_describe(const struct run_cmd *cmd, struct strbuf *sb);

/*
 * Background processes (the daemon's jobs): start with stdout and stderr
 * appended to log_path, then poll.  run_bg_poll() returns 1 while the
 * child runs, 0 once it ended (status filled in), and kills it
 * (process group) once the timeout passed.  The child is killed when
 * its parent dies (PR_SET_PDEATHSIG).
 */
struct run_bg {
	pid_t pid;
	uint64_t started_ms;
	uint64_t timeout_ms;
	uint64_t kill_sent_ms;
	int status;
	bool timed_out;
};

int run_bg_start(struct run_bg *bg, const char *const *argv,
		 const char *const *env, const char *log_path,
		 uint64_t timeout_ms);
int run_bg_poll(struct run_bg *bg);
void run_bg_kill(struct run_bg *bg, int sig);

/* Is a program in PATH? */
bool run_have_program(const char *name);

#endif
