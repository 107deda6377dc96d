/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's persistent job queue (table "jobs", migration daemon-1).
 *
 * A job is one stage (bot/stage/stage.h) of one series version, for one
 * architecture where the stage is per arch.  (kind, version, arch) is
 * unique, so a stage recorded done is never run again; a job that was
 * running when the process died is found by queue_recover() and queued
 * again without counting the attempt (the job did not fail: the daemon
 * went away), up to a bounded number of interruptions.  Heavy jobs
 * (builds, boots) and light ones are claimed separately so the daemon
 * can limit each; the newest versions go first.
 */
#ifndef LOREBOT_QUEUE_H
#define LOREBOT_QUEUE_H

#include <stdint.h>

#include "bot/base/db.h"
#include "bot/stage/stage.h"

enum job_state {
	JOB_QUEUED,
	JOB_RUNNING,
	JOB_DONE,
	JOB_FAILED,
	JOB_CANCELLED,
	JOB_STATE_NR,
};

struct job {
	int64_t id;
	enum stage kind;
	char *version;
	char *arch;		/* "" when the stage is not per arch */
	enum job_state state;
	int attempts;
	int interrupts;		/* times the daemon died while it ran */
	int64_t pid;
	char *handle;		/* the executor's id of the running job, or NULL */
	int64_t slurm_job;	/* Slurm's job id of the last attempt, 0: local */
	char *node;		/* where it ran, or NULL */
	char *log;
	char *error;
	int64_t priority;
	int64_t queued, started, finished;
};

const char *queue_job_state_name(enum job_state s);
void queue_job_release(struct job *j);

/*
 * Queue a job unless (kind, version, arch) exists.  *added says whether
 * it was new.  0 or -1 with err.
 */
int queue_add(struct db *db, enum stage kind, const char *version,
	      const char *arch, int64_t priority, bool *added,
	      struct strbuf *err);
/*
 * Claim the next queued job of the class (heavy or light, as the stage
 * table says): highest priority, then oldest; it becomes running,
 * attempts + 1.  A reply waits while another reply runs (they share the
 * reply lock).  1 with j filled, 0 when there is none, -1 on error.
 */
int queue_claim(struct db *db, bool heavy, struct job *j, struct strbuf *err);
int queue_set_pid(struct db *db, int64_t id, int64_t pid, const char *log,
		  struct strbuf *err);
/* The executor's handle of a running job (run_pool_reattach() takes it) */
int queue_set_handle(struct db *db, int64_t id, const char *handle, struct strbuf *err);
/* Where the job runs: a Slurm job id (0: local) and a node (NULL: unknown) */
int queue_set_where(struct db *db, int64_t id, int64_t slurm_job, const char *node,
		    struct strbuf *err);
/* Running -> done, failed or cancelled (error may be NULL) */
int queue_finish(struct db *db, int64_t id, enum job_state state,
		 const char *error, struct strbuf *err);
/* Back to queued (a retry), keeping the attempt count */
int queue_requeue(struct db *db, int64_t id, const char *error, struct strbuf *err);
/* Back to queued without counting the attempt (the daemon is stopping) */
int queue_release(struct db *db, int64_t id, struct strbuf *err);
/* ... for another reason (the job could not be handed to its executor) */
int queue_giveback(struct db *db, int64_t id, const char *why, struct strbuf *err);
/*
 * After a crash: every running job goes back to queued, its attempt
 * given back and counted as an interruption, or to failed once it was
 * interrupted max_interrupts times.  Returns how many were touched, or -1.
 */
int queue_recover(struct db *db, int max_interrupts, struct strbuf *err);
/* ... except the jobs of keep (reattached to their executor) */
int queue_recover_except(struct db *db, int max_interrupts, const int64_t *keep,
			 size_t nr_keep, struct strbuf *err);
/* The running jobs (to reattach), in id order; caller frees */
int queue_running(struct db *db, struct job **jobs, size_t *nr, struct strbuf *err);
/* Cancel the queued jobs of a version; running ones are the caller's */
int queue_cancel_version(struct db *db, const char *version, struct strbuf *err);

int queue_get(struct db *db, int64_t id, struct job *j, struct strbuf *err);
/* Every job of a version, in id order; caller frees with queue_free_jobs */
int queue_version_jobs(struct db *db, const char *version, struct job **jobs,
		       size_t *nr, struct strbuf *err);
void queue_free_jobs(struct job *jobs, size_t nr);
/* Count jobs by state (counts[JOB_STATE_NR]) */
int queue_counts(struct db *db, int64_t *counts, struct strbuf *err);

#endif
