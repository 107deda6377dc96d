/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "lorebot check --mbox FILE" and "--msgid ID": every current series of
 * the mbox (or the version --series names) and the diffs posted in
 * replies to it, through the checkers; with --repo, against the kernel
 * tree, the series applied without writing (checkers/tree.h).  The mbox
 * is read as apply reads it (bot/series/series-mbox.h).  The findings are
 * printed in compiler format, grouped by series, or as one JSON
 * document; errors are said on stderr.
 */
#ifndef LOREBOT_MBOXCHECK_H
#define LOREBOT_MBOXCHECK_H

#include "bot/conf/config.h"
#include "checkers/check.h"

/* Where the series are */
struct mboxcheck_src {
	const char *mbox;	/* --mbox FILE ("-": stdin), or NULL */
	const char *msgid;	/* --msgid ID (then url), or NULL */
	const char *url;
	const char *series;	/* --series ID, or NULL: the current versions */
};

/* How it went: what "lorebot check" makes its exit status of */
enum mboxcheck_result {
	MBOXCHECK_CLEAN,	/* no finding at o->fail_on or worse */
	MBOXCHECK_FINDINGS,	/* some */
	MBOXCHECK_REFUSED,	/* no such series, an unreadable mbox or --repo */
	MBOXCHECK_INFRA,	/* the thread of --msgid could not be fetched */
};

enum mboxcheck_result mboxcheck_run(const struct mboxcheck_src *src, const char *repo,
				   bool json, bool color, const struct check_opts *o,
				   const struct config *cfg);

#endif
