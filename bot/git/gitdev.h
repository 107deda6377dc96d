/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A developer's repository, for "lorebot check" in a kernel tree: found
 * from a directory, its branch and upstream, the commits of a range and
 * each of them as the mail "git format-patch" would write.  All of it
 * reads; the one write is gitdev_commit_files() (--fix --apply), which
 * adds a commit on top of the current branch and updates the index and
 * work tree for the files it changes, nothing else.
 */
#ifndef LOREBOT_GITDEV_H
#define LOREBOT_GITDEV_H

#include "bot/git/git.h"
#include "lib/strbuf.h"

struct git_repository;

struct gitdev_repo {
	struct git_repository *repo;
	char *gitdir;		/* absolute, without a trailing '/' */
	char *workdir;		/* absolute, without a trailing '/'; NULL: bare */
	char *branch;		/* short name ("b4/foo"); NULL: HEAD detached */
	char head[41];		/* "" while the branch has no commit */
};

/* The repository holding dir (searching upwards): 0, or -1 with err */
int gitdev_open(struct gitdev_repo *r, const char *dir, struct strbuf *err);
void gitdev_release(struct gitdev_repo *r);

/* The upstream of a branch as a revision ("origin/mm-new"): 0, -ENOENT */
int gitdev_upstream(struct gitdev_repo *r, const char *branch, struct strbuf *out);
/*
 * rev as a full commit id: 0, or -ENOENT with "'<rev>' is not a commit"
 * in err (may be NULL); see git_rev_resolve() in bot/git/git.h
 */
int gitdev_resolve(struct gitdev_repo *r, const char *rev, char out[41],
		   struct strbuf *err);
/* The best common ancestor of two commits: 0, -ENOENT when they have none */
int gitdev_merge_base(struct gitdev_repo *r, const char *a, const char *b,
		      char out[41]);

struct gitdev_commit {
	char id[41];
	char parent[41];	/* first parent; "" for a root commit */
	unsigned int parents;
	bool empty;		/* the same tree as its first parent */
	char *subject;
};

struct gitdev_commits {
	struct gitdev_commit *v;
	size_t nr, alloc;
};

/*
 * The commits reachable from tip but not from hide (NULL: none), oldest
 * first, as "git rev-list --reverse --topo-order hide..tip".  More than
 * max: -E2BIG.  0, or -errno with err.
 */
int gitdev_rev_list(struct gitdev_repo *r, const char *hide, const char *tip,
		    size_t max, struct gitdev_commits *out, struct strbuf *err);
void gitdev_commits_release(struct gitdev_commits *c);

/*
 * The first commit whose message contains needle, following first
 * parents from tip, looking at max commits at most: 0, -ENOENT.
 */
int gitdev_find_message(struct gitdev_repo *r, const char *tip,
			const char *needle, size_t max, char out[41]);
/* The whole message of a commit: 0, -ENOENT */
int gitdev_message(struct gitdev_repo *r, const char *id, struct strbuf *out);
/* As git_read_file_at() and git_commit_subject(), on the open repository */
int gitdev_read_file(struct gitdev_repo *r, const char *rev, const char *path,
		     struct strbuf *out);
int gitdev_subject(struct gitdev_repo *r, const char *id, struct strbuf *out);
int gitdev_walk_dir(struct gitdev_repo *r, const char *rev, struct git_walk *w);
/* The user's identity (user.name, user.email): 0, -ENOENT when not set */
int gitdev_identity(struct gitdev_repo *r, struct strbuf *name,
		    struct strbuf *email);

/*
 * Commit id as the mail "git format-patch" writes: the author, date and
 * subject ("[<tags>] <summary>"), the message, "---", the diffstat and
 * the diff (from git_diff_tree_to_tree() against the first parent, with
 * rename detection).
 */
int gitdev_format_patch(struct gitdev_repo *r, const char *id, const char *tags,
			struct strbuf *mail, struct strbuf *err);

/* A git-format diff turning old into new for path (a/path, b/path) */
int gitdev_diff_text(const char *path, const char *old, size_t old_len,
		     const char *new, size_t new_len, struct strbuf *out);

/*
 * Which of paths have changes in the index or the work tree (staged or
 * not, relative to HEAD): their names, one per line, in which.  The
 * count, or -errno with err.
 */
int gitdev_changed(struct gitdev_repo *r, const char *const *paths, size_t nr,
		   struct strbuf *which, struct strbuf *err);

struct gitdev_file {
	const char *path;
	const char *data;
	size_t len;
};

/*
 * Commit files (new contents of existing files) on top of HEAD as the
 * user, moving the current branch; then the index and the work tree are
 * updated for those files only.  Refuses (-EBUSY) when HEAD is detached
 * or moved since r was opened.  0 with the new commit in out.
 */
int gitdev_commit_files(struct gitdev_repo *r, const struct gitdev_file *files,
			size_t nr, const char *message, char out[41],
			struct strbuf *err);

#endif
