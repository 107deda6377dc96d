/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What comes next for a series version: the stage table (bot/stage/stage.h)
 * applied to what is stored.  Nothing is remembered between calls: the
 * plan of a version is derived from its results each time, so calling
 * these after any crash, any number of times, queues exactly what is
 * missing and never repeats a stage (jobs are unique per stage, version
 * and arch).
 *
 * A version is ready once it is complete, or once it waited
 * daemon.window for its missing patches (it is then tested as
 * incomplete, and the reply says so); versions older than
 * daemon.maxage are left alone.  A superseded or gone version's queued
 * jobs are cancelled.  A job that failed for good without a result (its
 * runner crashed, it was interrupted too often) gets an "infra" result
 * with the reason, so the version still ends.
 */
#ifndef LOREBOT_PIPELINE_H
#define LOREBOT_PIPELINE_H

#include "bot/conf/config.h"
#include "bot/sched/queue.h"
#include "bot/store/store.h"

struct pipeline_cfg {
	char **archs;
	size_t nr_archs;
	bool boot;		/* boot.enable */
	int64_t window_s;	/* daemon.window */
	int64_t maxage_s;	/* daemon.maxage, 0: any age */
};

/* archs: a comma-separated list overriding build.arch, or NULL */
void pipeline_cfg_init(struct pipeline_cfg *pc, const struct config *cfg,
		       const char *archs);
void pipeline_cfg_release(struct pipeline_cfg *pc);

/*
 * Queue what the version needs now.  Returns the number of jobs newly
 * queued (0 also when it is not ready yet or needs nothing), or -1.
 */
int pipeline_plan(struct store *st, const struct pipeline_cfg *pc, const char *version,
		  int64_t now, struct strbuf *err);

/* 1 when the version is superseded or gone (its jobs are of no use), 0, -1 */
int pipeline_version_over(struct store *st, const char *version);

/* Version ids, owned by the struct */
struct pipeline_ids {
	char **v;
	size_t nr, alloc;
};

#define PIPELINE_IDS_INIT { 0 }

void pipeline_ids_release(struct pipeline_ids *ids);

/*
 * At start-up: the versions that may still need something (no reply job
 * of theirs ended), newest first, appended to ids; the daemon plans them
 * a few at a time, so that a backlog of any size never keeps it from its
 * signals.  Returns 0 or -1.
 */
int pipeline_pending(struct store *st, const struct pipeline_cfg *pc, int64_t now,
		     struct pipeline_ids *ids, struct strbuf *err);

/*
 * The versions whose completeness window ended in (from, to] (unix
 * seconds): plan them.  The daemon calls it as time passes, so that no
 * scan of every version is needed.  Returns the jobs queued, or -1.
 */
int pipeline_plan_window(struct store *st, const struct pipeline_cfg *pc, int64_t from,
			 int64_t to, struct strbuf *err);

#endif
