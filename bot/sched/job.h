/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running one job: the stage's lorebot command (bot/stage/stage.h says which,
 * and with what input) as a subprocess through run.h, its JSON recorded
 * as the version's result of that stage; replies in process.
 *
 * Stage commands get no database: apply and check are given the
 * version's mail (its cover letter, patches and the replies to them) and
 * its id (--series ID), run in a sandbox without network (lib/run.h:
 * the host's programs and libraries, the rest of the host out of sight)
 * where only the repository and the job's directory are writable, lorebot
 * itself, its configuration, the repository's alternates (bot/git/gitdirs.h)
 * and, for check, the cache are read-only and the state directory is
 * hidden, and must answer about that version (the runner checks the
 * document's "send").  build and boot are given the branch
 * and base apply recorded and sandbox their own make and qemu.  Each job
 * has a directory <statedir>/jobs/<id> with its logs (and on a cluster
 * the executor's files), and work/ in it, made afresh for each attempt:
 * the stage's working directory, its input (series.mbox), and the only
 * directory its sandbox may write.
 */
#ifndef LOREBOT_JOB_H
#define LOREBOT_JOB_H

#include <json-c/json.h>

#include "bot/conf/config.h"
#include "bot/sched/queue.h"
#include "bot/store/store.h"

struct job_env {
	const char *self;	/* the lorebot binary */
	const char *config;	/* --config passed on, or NULL */
	const char *repo;	/* the kernel repository (git.repo) */
	const char *statedir;	/* jobs/, hidden from sandboxes */
	const char *cache;	/* the stages' cache (core.cachedir), or NULL */
	const char *outbox;	/* replies: a maildir, or NULL (reply.mode) */
	const char *archs;	/* replies: the daemon's --arch, or NULL (build.arch) */
	uint64_t timeout_ms;	/* daemon.jobtimeout */
	bool sandbox;		/* build.sandbox */
};

/*
 * Run the stage of j (claimed: running) and record what it found; the
 * result and the job's "done" are one transaction, so a crash leaves
 * either both or neither.  A failure of the infrastructure (a command
 * that could not run, exited 3, timed out, printed no JSON or answered
 * about another version) returns -1, leaves the job running for the
 * caller's retry policy and, when the command printed a document of an
 * infrastructure failure ("status": "infra"), hands it over in *infra
 * (the caller puts it).
 */
int job_execute(struct store *st, const struct config *cfg,
		const struct job_env *env, struct job *j, json_object **infra,
		struct strbuf *err);

/*
 * After the last attempt: record the stage as an infrastructure failure
 * (doc, the command's own infra document, or one made from why) and mark
 * the job failed with why, in one transaction.  0 or -1.
 */
int job_give_up(struct store *st, const struct job *j, json_object *doc,
		const char *why, struct strbuf *err);

/*
 * Workers that have no database (a cluster's nodes, daemon.executor =
 * slurm): job_prepare() writes what the database knows into the job's
 * directory (the inputs, and job.json: the stage command and how to run
 * it); "lorebot job work DIR" (job_work()) runs it there, on any node
 * that sees the directory, and leaves result.json; once the scheduler
 * says the job ended, the daemon records it with job_collect().
 * job_prepare() and job_work() return 0 or -1 with err; job_work()'s -1
 * is a failure of the infrastructure (result.json says which, when it
 * could be written).  job_collect() is job_execute() after the command:
 * 0 recorded done (result and "done" in one transaction), -1 with err
 * and maybe *infra when the job did not do its work.
 */
int job_prepare(struct store *st, const struct config *cfg, const struct job_env *env,
		struct job *j, struct strbuf *err);
int job_work(const char *dir, const struct config *cfg, struct strbuf *err);
int job_collect(struct store *st, const struct config *cfg, const struct job_env *env,
		struct job *j, json_object **infra, struct strbuf *err);

/* The job's directory, created; caller frees */
char *job_dir(const struct job_env *env, int64_t id);

#endif
