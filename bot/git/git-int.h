/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the libgit2 module (bot/git/git*.c, bot/git/diff.c): the only
 * header that includes git2.h, and the helpers those files share.
 */
#ifndef LOREBOT_GIT_INT_H
#define LOREBOT_GIT_INT_H

#include <git2.h>

#include "bot/git/git.h"
#include "bot/git/gitrepo.h"
#include "lib/strbuf.h"

/* bot/git/gitrepo.h's handle */
struct gitrepo {
	git_repository *repo;
	char *path;
};

static inline const git_oid *to_git(const struct gitoid *id)
{
	return (const git_oid *)id->raw;
}

static inline void from_git(struct gitoid *id, const git_oid *g)
{
	memcpy(id->raw, g->id, GITOID_RAWSZ);
}

/* Errors (git.c) */

/* "<what>: <libgit2's last error>" into err */
void git_error_to(struct strbuf *err, const char *what);
/* libgit2's error codes as errno values */
int git_errno(int code);
/* The message, ": <libgit2's last error>", into err; git_errno(code) */
int git_fail(int code, struct strbuf *err, const char *fmt, ...) PRINTF(3, 4);

/* Revisions (git-rev.c) */

/*
 * The one resolver: rev as git rev-parse takes it (a full or abbreviated
 * id, a branch, a remote-tracking branch, "HEAD~2"), or "<name>" matching
 * exactly one refs/remotes/<remote>/<name>, peeled to type
 * (GIT_OBJECT_COMMIT, or GIT_OBJECT_TREE for a tree-ish) into *out,
 * caller frees; ref (may be NULL) gets the reference rev named, if any.
 * 0; -ENOENT, no such name, and -EINVAL, ambiguous or not of type, with
 * "'<rev>' is not a commit" ("is ambiguous") in err (may be NULL); -EIO.
 */
int git_rev_lookup(git_repository *repo, const char *rev, git_object_t type,
		   git_object **out, git_reference **ref, struct strbuf *err);
/* git_rev_lookup() of a commit */
int git_rev_commit(git_repository *repo, const char *rev, git_commit **out,
		   struct strbuf *err);
/*
 * Open the repository at repo_dir (exactly there) and look rev up in it:
 * 0, -ENOENT (not there, ambiguous or not of type), -EIO.  Both freed
 * by the caller.
 */
int git_rev_open(const char *repo_dir, const char *rev, git_object_t type,
		 git_repository **repo, git_object **obj, struct strbuf *err);

/* Trees of a revision (git.c) */

/* path in the tree of obj (a commit or a tree) into out: 0, -ENOENT, -EIO */
int git_read_path_in(git_repository *repo, git_object *obj, const char *path,
		     struct strbuf *out);
/* git_walk_dir() from obj (a commit or a tree) */
int git_walk_dir_in(git_repository *repo, git_object *obj, struct git_walk *w);

#endif
