/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What comes next for a series version: the daemon's stage graph.
 *
 *	apply -> check
 *	      -> build <arch> -> boot <arch>	(when it applied)
 *	everything ended -> reply
 *
 * A version is queued once it is complete, or once it waited
 * daemon.window for its missing patches (it is then tested as
 * incomplete, and the reply says so).  A superseded version's queued
 * jobs are cancelled.  Jobs are unique per stage, version and arch, so
 * calling these again never repeats a stage.
 */
#ifndef LOREBOT_PIPELINE_H
#define LOREBOT_PIPELINE_H

#include "bot/config.h"
#include "bot/queue.h"
#include "bot/store.h"

struct pipeline_cfg {
	char **archs;
	size_t nr_archs;
	bool boot;		/* boot.enable */
	int64_t window_s;	/* daemon.window */
};

/* archs: a comma-separated list overriding build.arch, or NULL */
void pipeline_cfg_init(struct pipeline_cfg *pc, const struct config *cfg,
		       const char *archs);
void pipeline_cfg_release(struct pipeline_cfg *pc);

/*
 * Queue versions that are ready and not queued yet, cancel superseded
 * ones.  Returns the number of versions newly queued, or -1.
 */
int pipeline_sweep(struct store *st, const struct pipeline_cfg *pc,
		   int64_t now, struct strbuf *err);

/* A job ended (done or failed): queue what follows.  0 or -1. */
int pipeline_advance(struct store *st, const struct pipeline_cfg *pc,
		     const struct job *j, struct strbuf *err);

#endif
