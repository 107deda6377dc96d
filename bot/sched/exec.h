/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engines of the daemon's job pool (daemon.executor).  An engine is
 * a struct run_executor (lib/run.h: submit, poll, signal, reattach,
 * release, node) and what the daemon asks of it besides (the stages it
 * runs, their resources, the scheduler's id in a handle), one file each:
 *
 *	local	fork and exec on this machine (lib/run.c, the pool's
 *		default): tasks die with the daemon, nothing to reattach
 *	slurm	sbatch on a Slurm cluster (bot/sched/exec-slurm.c): tasks
 *		outlive the daemon and are reattached at its next start
 *
 * Another engine (LAVA for boots on boards) is a row of exec_engines[]
 * and a file.  Every program an engine runs goes through run_cmd()
 * with a timeout (slurm.timeout).
 */
#ifndef LOREBOT_EXEC_H
#define LOREBOT_EXEC_H

#include "bot/conf/config.h"
#include "bot/stage/stage.h"
#include "lib/run.h"

/* The executor of daemon.executor, as the daemon holds it */
struct exec {
	const struct exec_engine *engine;
	struct run_executor *x;		/* NULL: the pool's local executor */
	bool stage[STAGE_NR];		/* the stages x runs (none: local) */
	int max_jobs;			/* its heavy ones at once; 0: daemon.builds */
};

struct exec_engine {
	const char *name;
	/* NULL: the pool's local executor */
	struct run_executor *(*create)(const struct config *cfg);
	void (*destroy)(struct run_executor *x);
	/* e->stage and e->max_jobs from cfg; NULL: none of them */
	void (*configure)(struct exec *e, const struct config *cfg);
	/* the resources of a job of the stage kind, res->flags malloc'ed */
	void (*res)(const struct config *cfg, enum stage kind, struct run_res *res);
	/* the scheduler's id of a task from its handle, or 0 */
	long (*task_id)(const char *handle);
};

/* The engine of daemon.executor into e (exec_configure() next): 0, or -EINVAL with *err */
int exec_open(struct exec *e, const struct config *cfg, struct strbuf *err);
/* The stages it runs and how many at once, of cfg (again on a reload) */
void exec_configure(struct exec *e, const struct config *cfg);
void exec_close(struct exec *e);
/* Does e's executor (not the pool's local one) run the stage kind? */
bool exec_runs(const struct exec *e, enum stage kind);
/* The name of e's executor ("local" for the pool's) */
const char *exec_name(const struct exec *e);
/* Is handle (of the jobs table) a task of e's executor? */
bool exec_owns(const struct exec *e, const char *handle);
/* The scheduler's id of the task of handle (for the log, the jobs table), or 0 */
long exec_task_id(const struct exec *e, const char *handle);
/* The resources of a job of the stage kind on e's executor (res->klass kept) */
void exec_res(const struct exec *e, const struct config *cfg, enum stage kind,
	      struct run_res *res);
void exec_res_release(struct run_res *res);

/* Slurm, its parts exposed for the unit tests */

struct slurm_cfg {
	char *partition;	/* slurm.partition, or NULL */
	char *account;		/* slurm.account, or NULL */
	const char **flags;	/* slurm.flags: every job's extra sbatch options */
	size_t nr_flags;
	uint64_t poll_ms;	/* slurm.pollinterval: squeue at most this often */
	uint64_t cmd_timeout_ms; /* slurm.timeout: of one sbatch, squeue... */
};

/* What Slurm says of a job */
struct slurm_state {
	long id;
	char state[32];		/* JobState: PENDING, RUNNING, COMPLETED... */
	char node[64];		/* NodeList, "" while pending */
	char reason[64];
	int exit_code;		/* ExitCode N:S, -1 unknown */
	int exit_signal;
};

/* The job states (squeue's %T, scontrol's JobState) */
struct slurm_state_def {
	const char *name;
	bool ended;		/* final: the job does not run any more */
	bool timed_out;		/* it ran into its time limit */
	bool lost;		/* the node, not the job, failed */
};

/* NULL for a state this table does not know (treated as active) */
const struct slurm_state_def *exec_slurm_state_lookup(const char *name);

/* "123" or "123;cluster" (sbatch --parsable): 0 with *id, else -EINVAL */
int exec_slurm_parse_sbatch(const char *out, long *id);
/*
 * squeue --noheader --format='%i|%T|%N|%r' lines: every well-formed
 * line into *v (caller frees); returns the number of entries.
 */
size_t exec_slurm_parse_squeue(const char *out, struct slurm_state **v);
/* scontrol -o show job ID: 0 with st filled, -ENOENT without a JobId= */
int exec_slurm_parse_scontrol(const char *out, struct slurm_state *st);

/*
 * The sbatch command line of t (options from its resources, the
 * configuration and t->res.flags, then script) into argv (NULL-terminated,
 * the strings malloc'ed; free with exec_slurm_argv_free()).
 */
void exec_slurm_sbatch_argv(const struct slurm_cfg *c, const struct run_task *t,
			    const char *script, char ***argv);
void exec_slurm_argv_free(char **argv);
/* The batch script: a shell line that execs t->argv, each word quoted */
void exec_slurm_script(const struct run_task *t, struct strbuf *sb);

/* The executor itself; c is copied */
struct run_executor *exec_slurm_new_cfg(const struct slurm_cfg *c);
/* ... with the slurm.* keys of cfg */
struct run_executor *exec_slurm_create(const struct config *cfg);
void exec_slurm_destroy(struct run_executor *x);
/* slurm.stages (else the heavy stages), slurm.maxjobs */
void exec_slurm_configure(struct exec *e, const struct config *cfg);
/* slurm.<stage>.cpus, .mem, .time, .flags, else derived */
void exec_slurm_res(const struct config *cfg, enum stage kind, struct run_res *res);
/* "slurm:ID:DIR" -> ID, else 0 */
long exec_slurm_task_id(const char *handle);

#endif
