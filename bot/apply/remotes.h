/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bot's tree kept fresh from the configured remotes
 * (remote.<name>.url, remote.<name>.branch): their branches are fetched
 * before a series is applied, at most every git.fetchinterval, and a
 * base-commit the tree lacks is looked for on every remote before a
 * failure to apply can be put on the series (issue 19: a stale tree is
 * the bot's gap, not the author's).
 */
#ifndef LOREBOT_REMOTES_H
#define LOREBOT_REMOTES_H

#include <stdbool.h>

#include "bot/conf/config.h"
#include "bot/git/gitrepo.h"
#include "lib/strbuf.h"

struct remotes_refresh {
	/* in */
	bool force;			/* fetch whatever the interval says */
	const char *base_commit;	/* the series' base-commit, or NULL */
	/* out */
	int fetched;			/* remotes fetched */
	int failed;			/* remotes that could not be fetched */
	bool fresh;			/* within git.fetchinterval: nothing fetched */
	bool base_known;		/* base_commit is in the tree now */
	struct strbuf log;		/* what was done, a line each */
};

#define REMOTES_REFRESH_INIT { .log = STRBUF_INIT }

void remotes_refresh_release(struct remotes_refresh *rr);

/* How many remotes the configuration names */
size_t remotes_count(const struct config *cfg);

/*
 * Fetch what the tree needs.  Every remote's branches are fetched when
 * rr->force, when the last complete fetch is older than
 * git.fetchinterval, or when rr->base_commit is not in the tree (at most
 * once a minute for that: a base-commit anyone can make up); then,
 * if the base-commit is still missing and is a full id, the commit
 * itself is asked of each remote (servers that allow ids in "want"
 * lines give it).  Serialised by a lock file in the git directory; the
 * time of the last complete fetch is the mtime of
 * <gitdir>/lorebot-fetched.  Returns 0 when nothing failed, -EIO when a
 * remote could not be fetched (the others still are; err names it),
 * -EINVAL for a remote without url or branch, other -errno for the lock.
 */
int remotes_refresh(struct gitrepo *r, const struct config *cfg,
		    struct remotes_refresh *rr, struct strbuf *err);

/*
 * Whether the commit ids a series names can be looked up in the tree
 * (issue 19: an id the bot's stale tree lacks is the bot's gap): NULL
 * when git.fetch is on and the remotes were all fetched within
 * REMOTES_FRESH_MS (or git.fetchinterval, if longer), else why not, in
 * words for "lorebot check --stale-tree"; the caller frees it.
 */
#define REMOTES_FRESH_MS (24ULL * 3600 * 1000)
char *remotes_stale(struct gitrepo *r, const struct config *cfg);

/*
 * git.base, with each branch that a remote fetches and the tree has as
 * refs/remotes/<remote>/<branch> named "<remote>/<branch>": the tip
 * fetched, not a local branch of that name left behind.  *out and its
 * strings are the caller's to free.
 */
size_t remotes_bases(struct gitrepo *r, const struct config *cfg, char ***out);

#endif
