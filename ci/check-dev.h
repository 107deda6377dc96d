/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "lorebot check" in a developer's kernel tree (no --mbox): the range
 * (ci/devrange.h), the checkers on whole files of its commits, the
 * output, --fix (ci/devfix.h) and the CI stages (ci/devci.h).  Only
 * --fix --apply writes to the repository.
 */
#ifndef LOREBOT_CHECK_DEV_H
#define LOREBOT_CHECK_DEV_H

#include "bot/config.h"
#include "checkers/check.h"
#include "ci/devci.h"

struct check_dev_opts {
	const char *dir;	/* in the repository: "." or --repo */
	const char *range;	/* "A..B", a commit, or NULL: the branch's own */
	bool json;
	bool color;
	bool fix;		/* print the one-line-args fixes */
	bool apply;		/* and commit them as fixup! commits */
	struct devci_opts ci;	/* --build, --boot */
};

/* How it went: what "lorebot check" makes its exit status of */
enum check_dev_result {
	CHECK_DEV_CLEAN,	/* no finding at o->fail_on or worse */
	CHECK_DEV_FINDINGS,	/* some */
	CHECK_DEV_REFUSED,	/* nothing to check, --apply refused: the user's */
	CHECK_DEV_INFRA,	/* the repository, or the tools of --build and --boot */
};

/* Run it: the findings printed, errors said on stderr */
enum check_dev_result check_dev(const struct check_dev_opts *d,
				const struct check_opts *o, const struct config *cfg);

#endif
