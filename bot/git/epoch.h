/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A public-inbox v2 inbox is a series of git repositories ("epochs",
 * /<inbox>/git/<N>.git); every message imported is one commit whose
 * tree holds it as the file "m" (a removed one as "d").  Following the
 * epochs gives every message exactly once, in import order, with no
 * search index in between.  This mirrors them with the git command
 * (through run.h: libgit2 1.5 has no shallow fetch, and a first fetch
 * of lore's epochs must be shallow).
 */
#ifndef LOREBOT_EPOCH_H
#define LOREBOT_EPOCH_H

#include <stdint.h>

#include "lib/strbuf.h"

struct epoch_opts {
	const char *user_agent;
	uint64_t timeout_ms;	/* one git fetch */
	int attempts;
	uint64_t retry_delay_ms;
	uint64_t backoff_max_ms;
	void (*sleep_ms)(uint64_t ms);
};

/*
 * Bring the bare mirror at dir (created when missing) up to date with
 * url's master.  A first fetch with since > 0 is shallow: only commits
 * after since.  0, or -1 with err.
 */
int epoch_sync(const char *dir, const char *url, int64_t since,
	       const struct epoch_opts *o, struct strbuf *err);

/* The mirror's master, or "" when it has none yet.  0 or -1. */
int epoch_head(const char *dir, struct strbuf *head, struct strbuf *err);

/*
 * Commits after `from` (NULL or "": all) up to `to`, oldest first.  When
 * `from` is no longer an ancestor (the inbox was purged and rewritten),
 * all commits.  The caller frees the array and its strings.
 */
int epoch_commits(const char *dir, const char *from, const char *to,
		  char ***commits, size_t *nr, struct strbuf *err);

/* Called per message; return non-zero to stop */
typedef int (*epoch_msg_fn)(void *data, const char *commit, const char *raw,
			    size_t len);

/*
 * The messages of commits[0..nr-1] in that order (removals skipped).
 * Returns the number of messages, or -1.
 */
int64_t epoch_read(const char *dir, char *const *commits, size_t nr,
		   epoch_msg_fn fn, void *data, struct strbuf *err);

#endif
