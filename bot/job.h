/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running one job: the stage commands of lorebot (apply, check, build,
 * boot) as subprocesses through run.h, their JSON recorded as the
 * version's stage results; replies in process.
 *
 * Stage commands get no database: apply and check run in a sandbox
 * without network where only the repository and the job's directory
 * are writable and the state directory is hidden; build and boot
 * sandbox their own make and qemu (no network, unprivileged user).
 * Each job has a directory <statedir>/jobs/<id> with its inputs, the
 * command's JSON and its log.
 */
#ifndef LOREBOT_JOB_H
#define LOREBOT_JOB_H

#include "bot/config.h"
#include "bot/queue.h"
#include "bot/store.h"

struct job_env {
	const char *self;	/* the lorebot binary */
	const char *config;	/* --config passed on, or NULL */
	const char *repo;	/* the kernel repository (git.repo) */
	const char *statedir;	/* jobs/, hidden from sandboxes */
	const char *outbox;	/* replies: a maildir, or NULL (reply.mode) */
	uint64_t timeout_ms;	/* daemon.jobtimeout */
	bool sandbox;		/* build.sandbox */
};

/*
 * Run the stage of j (claimed: running) and record what it found.  The
 * job is marked done, or failed with the reason; a failure of the
 * infrastructure (a command that could not run, a timeout) returns -1
 * and leaves the job running for the caller's retry policy.
 */
int job_execute(struct store *st, const struct config *cfg,
		const struct job_env *env, struct job *j, struct strbuf *err);

/* The job's directory, created; caller frees */
char *job_dir(const struct job_env *env, int64_t id);

#endif
