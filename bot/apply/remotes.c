// SPDX-License-Identifier: GPL-2.0
/* The bot's tree kept fresh from the configured remotes; see remotes.h */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/apply/remotes.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define STAMP_FILE "lorebot-fetched"
/* the last fetch of every branch a base-commit not in the tree asked for */
#define FORCED_STAMP_FILE "lorebot-fetch-forced"
/*
 * A base-commit the tree lacks fetches every remote's branches whatever
 * git.fetchinterval says, at most once in this long: each version a
 * stranger mails naming a made-up commit did so (issue 38).  The commit
 * itself is still asked for by its id.
 */
#define FORCED_MIN_MS (60 * 1000)
#define LOCK_FILE "lorebot-fetch.lock"

struct remote {
	char *name;
	const char *url;
	const char **branches;
	size_t nr;
};

struct remotes {
	struct remote *v;
	size_t nr;
};

static void remotes_load(struct remotes *rs, const struct config *cfg)
{
	char **names = NULL;
	size_t i;

	rs->nr = config_subsections(cfg, CFG_SUB_remote_url, &names);
	rs->v = xcalloc(rs->nr + 1, sizeof(*rs->v));
	for (i = 0; i < rs->nr; i++) {
		struct remote *rm = &rs->v[i];
		rm->name = names[i];
		rm->url = config_sub(cfg, CFG_SUB_remote_url, names[i]);
		rm->nr = config_sub_all(cfg, CFG_SUB_remote_branch, names[i], &rm->branches);
	}
	free(names);
}

static void remotes_release(struct remotes *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++) {
		free(rs->v[i].name);
		free(rs->v[i].branches);
	}
	free(rs->v);
}

void remotes_refresh_release(struct remotes_refresh *rr)
{
	strbuf_release(&rr->log);
}

size_t remotes_count(const struct config *cfg)
{
	char **names = NULL;
	size_t nr = config_subsections(cfg, CFG_SUB_remote_url, &names), i;

	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return nr;
}

static bool have_commit(struct gitrepo *r, const char *hex)
{
	struct gitoid id;

	return hex && !gitrepo_find_object(r, hex, &id);
}

/* When the last complete fetch ended (the stamp's mtime, in ms); -1: never */
static int fetched_at(const char *stamp, uint64_t *then)
{
	struct stat st;

	if (stat(stamp, &st))
		return -1;
	*then = (uint64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	return 0;
}

/* Was the last complete fetch within the interval? */
static bool fetched_lately(const char *stamp, uint64_t interval_ms)
{
	uint64_t then;

	if (!interval_ms || fetched_at(stamp, &then))
		return false;
	return util_wall_ms() < then + interval_ms && util_wall_ms() >= then;
}

/* The remotes as the forced stamp records them: "name url" a line each */
static void remotes_key(const struct remotes *rs, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		strbuf_addf(sb, "%s %s\n", rs->v[i].name, rs->v[i].url ? rs->v[i].url : "");
}

/*
 * Was the forced fetch of the last FORCED_MIN_MS one of these remotes?
 * Remotes configured since (another URL, another remote) are fetched.
 */
static bool forced_lately(const char *forced, const struct remotes *rs)
{
	struct strbuf key = STRBUF_INIT;
	char *buf = NULL;
	size_t len = 0;
	bool same;

	if (!fetched_lately(forced, FORCED_MIN_MS) ||
	    util_read_file(forced, &buf, &len, 1 << 20))
		return false;
	remotes_key(rs, &key);
	same = len == key.len && !memcmp(buf, key.buf, len);
	strbuf_release(&key);
	free(buf);
	return same;
}

static int fetch_branches(struct gitrepo *r, const struct remotes *rs,
			  struct remotes_refresh *rr, struct strbuf *err)
{
	size_t i, k;
	int ret = 0;

	for (i = 0; i < rs->nr; i++) {
		const struct remote *rm = &rs->v[i];
		struct strbuf why = STRBUF_INIT;

		if (!rm->url || !rm->nr) {
			strbuf_addf(err, "%sremote '%s' has no %s", err->len ? "; " : "",
				    rm->name, rm->url ? "branch" : "url");
			rr->failed++;
			if (!ret)
				ret = -EINVAL;
			continue;
		}
		if (gitrepo_fetch(r, rm->name, rm->url, rm->branches, rm->nr, &why)) {
			strbuf_addf(err, "%s%s", err->len ? "; " : "", why.buf);
			rr->failed++;
			ret = -EIO;
		} else {
			strbuf_addf(&rr->log, "fetched");
			for (k = 0; k < rm->nr; k++)
				strbuf_addf(&rr->log, "%s %s", k ? "," : "", rm->branches[k]);
			strbuf_addf(&rr->log, " from %s (%s)\n", rm->name, rm->url);
			rr->fetched++;
		}
		strbuf_release(&why);
	}
	return ret;
}

/* The base-commit by its id, from the first remote that gives it */
static void fetch_base(struct gitrepo *r, const struct remotes *rs,
		       struct remotes_refresh *rr)
{
	struct gitoid id;
	size_t i;

	if (gitoid_parse(&id, rr->base_commit))
		return;		/* an abbreviated id cannot be asked for */
	for (i = 0; i < rs->nr && !rr->base_known; i++) {
		struct strbuf why = STRBUF_INIT;

		if (rs->v[i].url &&
		    !gitrepo_fetch_commit(r, rs->v[i].name, rs->v[i].url,
					  rr->base_commit, &why) &&
		    have_commit(r, rr->base_commit)) {
			rr->base_known = true;
			strbuf_addf(&rr->log, "fetched base-commit %s from %s (%s)\n",
				    rr->base_commit, rs->v[i].name, rs->v[i].url);
		} else if (rs->v[i].url) {
			strbuf_addf(&rr->log, "base-commit %s not given by %s: %s\n",
				    rr->base_commit, rs->v[i].name,
				    why.len ? why.buf : "not a commit");
		}
		strbuf_release(&why);
	}
}

int remotes_refresh(struct gitrepo *r, const struct config *cfg,
		    struct remotes_refresh *rr, struct strbuf *err)
{
	struct remotes rs;
	char *stamp, *lock, *forced;
	uint64_t then = 0;
	int fd, ret = 0;

	rr->base_known = have_commit(r, rr->base_commit);
	remotes_load(&rs, cfg);
	if (!rs.nr) {
		remotes_release(&rs);
		return 0;
	}
	stamp = xasprintf("%s%s", gitrepo_gitdir(r), STAMP_FILE);
	forced = xasprintf("%s%s", gitrepo_gitdir(r), FORCED_STAMP_FILE);
	lock = xasprintf("%s%s", gitrepo_gitdir(r), LOCK_FILE);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		ret = -errno;
		strbuf_addf(err, "cannot lock '%s': %s", lock, strerror(errno));
		goto out;
	}
	/* after the lock: another process may have fetched meanwhile */
	rr->base_known = have_commit(r, rr->base_commit);
	if (!rr->force && (!rr->base_commit || rr->base_known) &&
	    fetched_lately(stamp, config_v(cfg)->git_fetchinterval)) {
		rr->fresh = true;
		goto out;
	}
	if (!rr->force && rr->base_commit && !rr->base_known &&
	    fetched_lately(stamp, config_v(cfg)->git_fetchinterval) &&
	    forced_lately(forced, &rs)) {
		fetched_at(forced, &then);
		strbuf_addf(&rr->log, "base-commit %s is not in the tree; the branches were "
			    "fetched for a base-commit %llu s ago: not again within %d s\n",
			    rr->base_commit, (unsigned long long)(util_wall_ms() - then) / 1000,
			    FORCED_MIN_MS / 1000);
		goto by_id;
	}
	if (!rr->force && rr->base_commit && !rr->base_known) {
		struct strbuf key = STRBUF_INIT;

		remotes_key(&rs, &key);
		util_write_file(forced, key.buf, key.len);
		strbuf_release(&key);
	}
	ret = fetch_branches(r, &rs, rr, err);
	if (!ret) {
		int t = open(stamp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (t >= 0) {
			futimens(t, NULL);
			close(t);
		}
	}
by_id:
	if (rr->base_commit) {
		rr->base_known = have_commit(r, rr->base_commit);
		if (!rr->base_known)
			fetch_base(r, &rs, rr);
	}
out:
	if (fd >= 0)
		close(fd);
	free(stamp);
	free(forced);
	free(lock);
	remotes_release(&rs);
	return ret;
}

char *remotes_stale(struct gitrepo *r, const struct config *cfg)
{
	uint64_t window = MAX(config_v(cfg)->git_fetchinterval, REMOTES_FRESH_MS);
	uint64_t now = util_wall_ms(), then;
	char *stamp, *why = NULL;

	if (!config_v(cfg)->git_fetch)
		return xstrdup("git.fetch is off");
	if (!remotes_count(cfg))
		return xstrdup("no remote.<name>.url is configured");
	stamp = xasprintf("%s%s", gitrepo_gitdir(r), STAMP_FILE);
	if (fetched_at(stamp, &then))
		why = xstrdup("the tree was never fetched from its remotes");
	else if (now >= then + window)
		why = xasprintf("the tree was last fetched from its remotes "
				"%llu hours ago",
				(unsigned long long)((now - then) / 3600000));
	free(stamp);
	return why;
}

size_t remotes_bases(struct gitrepo *r, const struct config *cfg, char ***out)
{
	const char *const *bases = config_v(cfg)->git_base.v;
	size_t nr = config_v(cfg)->git_base.nr, i, k, j;
	struct remotes rs;

	remotes_load(&rs, cfg);
	*out = xcalloc(nr + 1, sizeof(**out));
	for (i = 0; i < nr; i++) {
		for (k = 0; k < rs.nr && !(*out)[i]; k++) {
			for (j = 0; j < rs.v[k].nr; j++) {
				char *ref = xasprintf("refs/remotes/%s/%s", rs.v[k].name,
						      bases[i]);
				struct gitoid id;

				if (!strcmp(rs.v[k].branches[j], bases[i]) &&
				    !gitrepo_ref_get(r, ref, &id)) {
					(*out)[i] = xasprintf("%s/%s", rs.v[k].name, bases[i]);
					free(ref);
					break;
				}
				free(ref);
			}
		}
		if (!(*out)[i])
			(*out)[i] = xstrdup(bases[i]);
	}
	remotes_release(&rs);
	return nr;
}
