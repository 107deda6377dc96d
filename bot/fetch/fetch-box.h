/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sandbox of the daemon's fetch passes (lorebot fetch as its child).
 * A pass parses what anyone mailed the list (issue 18), so it runs in a
 * sandbox (build.sandbox) that shows it what it needs and nothing more:
 * the network (lore), the database (it stores what lore sends) and the
 * list's git mirrors read-write, a scratch directory of its own (TMPDIR:
 * series assembly spills there), the configuration read-only; not the
 * rest of the state directory (jobs, outbox), the repository, check's
 * cache, the SMTP credentials, nor any of the host but its programs.
 * The database is bound with SQLite's -wal and -shm, which the daemon's
 * own connection keeps in place; without them the child would make
 * files of its own beside a database the daemon writes, so the pass is
 * not started.
 */
#ifndef LOREBOT_FETCH_BOX_H
#define LOREBOT_FETCH_BOX_H

#include "bot/conf/config.h"
#include "lib/run.h"

/* What the pass is shown, absolute paths */
struct fetch_box_paths {
	const struct config *cfg;	/* lore.gitdir */
	const char *db;		/* the database (and its -wal and -shm) */
	const char *dir;	/* the passes' directory: dir/tmp is theirs */
	bool git;		/* the list is fetched by git (FETCH_GIT): its mirrors */
	const char *config;	/* read-only, or NULL */
	/* the rest of the state, hidden where it exists (NULL: none) */
	const char *statedir, *outbox, *repo, *cache;
};

struct fetch_box {
	struct run_sandbox sb;	/* for run_task.sandbox */
	const char *env[2];	/* for run_task.env: TMPDIR */
	const char *rw[6], *ro[2], *hide[5];
	char *own[5];
	size_t nr_own;
};

/*
 * b (zeroed) for a pass: 0, or -1 with err saying why none may run (a
 * missing -wal, a directory that cannot be made); fetch_box_release()
 * either way
 */
int fetch_box_make(struct fetch_box *b, const struct fetch_box_paths *p,
		   struct strbuf *err);
void fetch_box_release(struct fetch_box *b);

#endif
