/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lorebot reproduce: a report's build diagnostic made again on this
 * machine from the report's permanent record (bot/report/report-snap.c, served
 * at <dashboard>/r/<id>): the series (its mbox), applied with git am onto
 * the base in a worktree of the user's kernel tree (the base fetched
 * from the record's tree URL when the tree lacks it), the exact .config
 * and the make lines the bot built with, then the compiler's output read
 * as the build stage reads it (ci/diag.h) and the diagnostics the report
 * mailed looked for, each printed as the reply gave it.
 */
#ifndef LOREBOT_CI_REPRODUCE_H
#define LOREBOT_CI_REPRODUCE_H

#include <json-c/json.h>

#include "bot/conf/config.h"

struct reproduce_opts {
	const char *target;	/* a report URL, a report id, or either with #N */
	const char *url;	/* the dashboard when target is an id (else core.dashboardurl) */
	const char *repo;	/* the kernel tree (default ".") */
	const char *dir;	/* the work directory (default ./lorebot-reproduce-<id>) */
	const char *arch;	/* NULL: the arch of the first build finding */
	int jobs;		/* make -j; 0: build.jobs */
	bool full;		/* the record's make lines as they are (the whole image) */
	bool keep;		/* keep the worktree and the build */
	bool quiet;		/* no diagnostic on stdout (the caller prints *out) */
	const struct config *cfg;
};

enum reproduce_outcome {
	REPRODUCE_ALL,		/* every diagnostic looked for was printed again */
	REPRODUCE_NOT_ALL,	/* some were not: the build said something else */
	REPRODUCE_INPUT,	/* the target, the record or the tree is not usable */
	REPRODUCE_INFRA,	/* the network, git or make could not run */
};

/*
 * Reproduce o->target; progress on stderr, the diagnostics found into
 * *out ({"report", "arch", "patch", "base", "commands": [...],
 * "findings": [{"text", "reproduced", "got"}]}, caller puts it).  The
 * outcome, with why in err for the last two.
 */
enum reproduce_outcome reproduce_run(const struct reproduce_opts *o, json_object **out,
				     struct strbuf *err);

#endif
