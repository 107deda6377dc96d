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

#include "lib/strbuf.h"

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
	/*
	 * When not 0, the uid and gid it has inside its user namespace
	 * (mapped to the caller's outside): a sandbox that root starts is
	 * then not uid 0 in there, so that it can make a user namespace of
	 * its own (mapping uid 0 takes a capability it has not got)
	 */
	uid_t uid_inside;
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
/*
 * A path no sandbox may see (the state directory, the database, the
 * configuration): a directory is covered by an empty tmpfs, a file by
 * /dev/null, in every sandbox of this process, before its own binds (a
 * sandbox that needs one binds it back, as the stages do the
 * configuration).  Paths that do not exist when a sandbox starts are
 * left out of it.
 */
void run_hide_always(const char *path);
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

/*
 * A pool of background tasks, polled from the caller's event loop (git's
 * run_processes_parallel, turned inside out: the daemon's loop also
 * waits for signals and timers, so the pool never blocks).  A task is
 * submitted with the resources it needs; the pool starts it through an
 * executor, polls it, kills it past its timeout (SIGTERM, then SIGKILL
 * after a grace period), cancels it on request, and reports how it
 * ended.  Limits (how many of a class at once) are the caller's:
 * run_pool_count() says how many run.
 *
 *	struct run_pool *p = run_pool_new(NULL);	(NULL: the local executor)
 *	struct run_task t = { .argv = argv, .log_path = log,
 *			      .res = { .klass = 1, .timeout_ms = 60000 }, .data = me };
 *	run_pool_submit(p, &t);
 *	... on SIGCHLD or a tick: run_pool_poll(p, ended, ctx) ...
 *	run_pool_stop(p, 10000, ended, ctx);	(at exit)
 *	run_pool_free(p);
 *
 * The local executor forks and execs here: stdout goes to out_path (or
 * log_path), stderr to log_path, stdin is /dev/null, the task has a
 * process group of its own and dies with the pool's process
 * (PR_SET_PDEATHSIG), so it cannot be reattached.  Another executor (a
 * cluster scheduler) is a struct run_executor in a file of its own; its
 * handle (run_pool_handle()) is what a restarted process reattaches.
 */
struct run_res {
	int klass;		/* the caller's class of task */
	unsigned int cpus;	/* for executors that reserve them (0: 1) */
	uint64_t mem_bytes;	/* 0: no reservation */
	uint64_t timeout_ms;	/* wall clock; 0: none */
	uint64_t limit_ms;	/* a scheduler's own time limit (0: none) */
	const char *const *flags;	/* the executor's own options (sbatch's) */
};

struct run_task {
	struct run_executor *x;		/* NULL: the pool's */
	const char *name;		/* for a scheduler's queue, or NULL */
	const char *workdir;		/* a directory the executor may write, or NULL */
	const char *const *argv;	/* NULL-terminated */
	const char *const *env;		/* added to the environment, as run_cmd's */
	const char *out_path;		/* stdout appended here; NULL: log_path */
	const char *log_path;		/* stderr appended here; NULL: the pool's stderr */
	/* the local executor only: run in this sandbox (run_cmd's), or NULL */
	const struct run_sandbox *sandbox;
	struct run_res res;
	void *data;			/* the caller's; names the task */
};

struct run_done {
	void *data;
	int status;		/* as run_cmd's: 0..255, 128+signal, -1 unknown */
	bool timed_out;		/* killed past res.timeout_ms */
	bool cancelled;		/* run_pool_cancel() or run_pool_stop() */
	bool detached;		/* run_pool_stop() left it running (persistent) */
	uint64_t elapsed_ms;
	char detail[160];	/* the executor's account of the end, or "" */
	char node[64];		/* where it ran, as the executor last knew; or "" */
};

/* An executor: how tasks are started, polled, signalled, taken over */
struct run_executor {
	const char *name;
	/* start t; *job is the executor's, *handle (malloc'ed) names it; 0 or -errno */
	int (*submit)(struct run_executor *x, const struct run_task *t, void **job,
		      char **handle);
	/* 1 while it runs, 0 once it ended (status in *d) */
	int (*poll)(struct run_executor *x, void *job, struct run_done *d);
	void (*signal)(struct run_executor *x, void *job, int sig);
	/* take over a task started by an earlier process; -ENOENT when it cannot */
	int (*reattach)(struct run_executor *x, const char *handle, void **job);
	void (*release)(struct run_executor *x, void *job);
	/* where it runs now (a node's name), or NULL; optional */
	const char *(*node)(struct run_executor *x, void *job);
	/* tasks outlive this process: run_pool_stop() leaves them running */
	bool persistent;
	void *priv;
};

struct run_pool;
typedef void run_pool_fn(void *ctx, const struct run_done *d);

/* x: NULL for the local executor (fork and exec) */
struct run_pool *run_pool_new(struct run_executor *x);
void run_pool_free(struct run_pool *p);
/* 0, or -errno when it could not start */
int run_pool_submit(struct run_pool *p, const struct run_task *t);
/* A task of an earlier process (its handle) to x (NULL: the pool's), as if
 * submitted; 0 or -errno (-ENOENT: the executor no longer knows it) */
int run_pool_reattach(struct run_pool *p, struct run_executor *x, const char *handle,
		      const struct run_res *res, void *data);
/* Collect what ended (fn for each, in no order); kills what is past its time */
size_t run_pool_poll(struct run_pool *p, run_pool_fn *fn, void *ctx);
/* Signal the task named data (SIGTERM: it ends cancelled) */
void run_pool_cancel(struct run_pool *p, void *data, int sig);
/* Tasks running of a class (klass < 0: all) */
size_t run_pool_count(const struct run_pool *p, int klass);
/* The executor's handle of the task named data, or NULL */
const char *run_pool_handle(const struct run_pool *p, void *data);
/* Where the task named data runs (the executor's node), or NULL */
const char *run_pool_node(const struct run_pool *p, void *data);
/* Each running task: its data and how long it has run */
void run_pool_each(const struct run_pool *p,
		   void (*fn)(void *ctx, void *data, uint64_t running_ms), void *ctx);
/*
 * Cancel everything: SIGTERM, SIGKILL after grace_ms; fn for each as it
 * ends.  Tasks of a persistent executor are left running instead (done
 * with .detached), for a later process to reattach.
 */
void run_pool_stop(struct run_pool *p, uint64_t grace_ms, run_pool_fn *fn, void *ctx);

/* Is a program in PATH? */
bool run_have_program(const char *name);

#endif
