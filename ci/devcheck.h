/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "lorebot check" in a developer's kernel tree (no --mbox): the range
 * (ci/devrange.h), the checkers on whole files of its commits, the
 * output, --fix (ci/devfix.h) and the CI stages (ci/devci.h).  Only
 * --fix --apply writes to the repository.
 */
#ifndef LOREBOT_DEVCHECK_H
#define LOREBOT_DEVCHECK_H

#include "bot/conf/config.h"
#include "checkers/check.h"
#include "ci/devci.h"

struct devcheck_opts {
	const char *dir;	/* in the repository: "." or --repo */
	const char *range;	/* "A..B", a commit, or NULL: the branch's own */
	bool json;
	bool color;
	bool fix;		/* print the one-line-args fixes */
	bool apply;		/* and commit them as fixup! commits */
	struct devci_opts ci;	/* --build, --boot */
};

/* How it went: what "lorebot check" makes its exit status of */
enum devcheck_result {
	DEVCHECK_CLEAN,	/* no finding at o->fail_on or worse */
	DEVCHECK_FINDINGS,	/* some */
	DEVCHECK_REFUSED,	/* nothing to check, --apply refused: the user's */
	DEVCHECK_INFRA,	/* the repository, or the tools of --build and --boot */
};

/* Run it: the findings printed, errors said on stderr */
enum devcheck_result devcheck_run(const struct devcheck_opts *d,
				  const struct check_opts *o, const struct config *cfg);

#endif
