/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repository operations of the apply step (implemented in bot/git/gitrepo*.c
 * and bot/git/gitoid.c, in the libgit2 module of bot/git/git.h): open or create the bot's repository, fetch
 * branches, resolve revisions, read and write blobs, trees and commits,
 * update refs, merge file contents and export a tree into a directory.
 *
 * Nothing here touches a working tree: objects are read from and written
 * to the object database only, so a patch can never reach a file outside
 * the repository through these calls.
 *
 * Object ids are struct gitoid (SHA-1, 20 bytes); gitoid_hex() gives the
 * 40-digit form.  Functions return 0 on success and a negative errno
 * value on failure with a message in err (lowercase, the object or path
 * quoted); -ENOENT means "no such object, path or ref".
 */
#ifndef LOREBOT_GITREPO_H
#define LOREBOT_GITREPO_H

#include <stdint.h>

#include "lib/strbuf.h"

#define GITOID_RAWSZ 20
#define GITOID_HEXSZ 40

struct gitoid {
	unsigned char raw[GITOID_RAWSZ];
};

/* File modes as git stores them */
enum {
	GITMODE_TREE = 0040000,
	GITMODE_FILE = 0100644,
	GITMODE_EXEC = 0100755,
	GITMODE_LINK = 0120000,
	GITMODE_GITLINK = 0160000,
};

void gitoid_hex(const struct gitoid *id, char out[GITOID_HEXSZ + 1]);
/* A full 40-digit id; 0 or -EINVAL */
int gitoid_parse(struct gitoid *id, const char *hex);
bool gitoid_eq(const struct gitoid *a, const struct gitoid *b);
bool gitoid_is_zero(const struct gitoid *id);
/* The id git gives these bytes as a blob (no repository needed) */
void gitoid_hash_blob(struct gitoid *id, const void *buf, size_t len);

struct gitrepo;

/*
 * Open the repository at path (bare or not).  With create, a missing
 * path is initialised as a bare repository.
 */
int gitrepo_open(struct gitrepo **out, const char *path, bool create,
		 struct strbuf *err);
void gitrepo_close(struct gitrepo *r);
const char *gitrepo_path(const struct gitrepo *r);
/* The git directory (the repository itself when bare), with a final '/' */
const char *gitrepo_gitdir(const struct gitrepo *r);

/*
 * Fetch branches from url into refs/remotes/<name>/<branch> (forced,
 * as a mirror of what the remote has now).  name must be a valid remote
 * name; url may be file://, a path, https:// or git://.
 */
int gitrepo_fetch(struct gitrepo *r, const char *name, const char *url,
		  const char *const *branches, size_t nr, struct strbuf *err);
/*
 * Fetch one commit by its full id from url into refs/lorebot/bases/<id>
 * (a series' base-commit that no fetched branch holds).  Servers refuse
 * it unless they allow ids in "want" lines (uploadpack.allowReachable-
 * SHA1InWant or allowAnySHA1InWant).
 */
int gitrepo_fetch_commit(struct gitrepo *r, const char *name, const char *url,
			 const char *hex, struct strbuf *err);

/*
 * Resolve a revision to a commit: a full or abbreviated id, a branch, a
 * remote-tracking branch, or "<name>" matching exactly one
 * refs/remotes/<remote>/<name>.  full_name (may be NULL) receives the
 * ref resolved ("refs/heads/mm-new") or the full hex id; caller frees.
 * -ENOENT: nothing by that name; -EINVAL: not a commit or ambiguous;
 * err says "'<rev>' is not a commit" or "'<rev>' is ambiguous" (the one
 * resolver of bot/git/git-rev.c, as git_rev_resolve() in bot/git/git.h).
 */
int gitrepo_resolve_commit(struct gitrepo *r, const char *rev,
			   struct gitoid *commit, char **full_name,
			   struct strbuf *err);
/* Does an object of any type with this (abbreviated, >= 4 digits) id exist? */
int gitrepo_find_object(struct gitrepo *r, const char *hex, struct gitoid *id);
/* The tree of a commit */
int gitrepo_commit_tree(struct gitrepo *r, const struct gitoid *commit,
			struct gitoid *tree, struct strbuf *err);

/*
 * The entry at path in tree: its id and mode.  -ENOENT when absent;
 * -ENOTDIR when a leading component is not a directory (a file or a
 * symlink: *blocker then names that component, caller frees).
 */
int gitrepo_tree_entry(struct gitrepo *r, const struct gitoid *tree,
		       const char *path, struct gitoid *id, unsigned int *mode,
		       char **blocker);

/* Blob contents, replacing out; -EFBIG when larger than max (0: any) */
int gitrepo_blob_read(struct gitrepo *r, const struct gitoid *id,
		      struct strbuf *out, size_t max, struct strbuf *err);
int gitrepo_blob_write(struct gitrepo *r, const void *buf, size_t len,
		       struct gitoid *id, struct strbuf *err);

struct gitrepo_update {
	const char *path;
	bool remove;
	struct gitoid id;	/* blob, for an upsert */
	unsigned int mode;
};

/* A new tree: base with the updates applied (paths in any order) */
int gitrepo_tree_update(struct gitrepo *r, const struct gitoid *base,
			const struct gitrepo_update *u, size_t nr,
			struct gitoid *out, struct strbuf *err);

struct gitrepo_sig {
	const char *name;
	const char *email;
	int64_t time;		/* seconds since the epoch */
	int tz;			/* minutes east of UTC */
};

/* A commit object (parent may be NULL for a root commit) */
int gitrepo_commit_create(struct gitrepo *r, const struct gitoid *tree,
			  const struct gitoid *parent,
			  const struct gitrepo_sig *author,
			  const struct gitrepo_sig *committer,
			  const char *message, struct gitoid *out,
			  struct strbuf *err);

/*
 * Quarantined writes (gitrepo-import.c).  gitrepo_quarantine(): from now
 * on new objects go to dir (a loose objects directory) and the
 * repository itself is only read: a sandbox can bind it read-only.
 * gitrepo_import(): the trusted side takes in what a quarantined writer
 * made: the objects reachable from tip that the repository lacks, each
 * read back with its hash checked and parsed (commits, trees whose
 * entries are single, non-".git" names of known modes, links that stay
 * inside the tree), within lim; nothing else of dir is read, and dir
 * must hold nothing but loose objects.  No ref is touched.  0 with the
 * count taken in, or -errno with err saying what was refused.
 */
struct gitrepo_import_limits {
	uint64_t max_objects;
	uint64_t max_bytes;	/* of the loose files */
};

int gitrepo_quarantine(struct gitrepo *r, const char *dir, struct strbuf *err);
int gitrepo_import(struct gitrepo *r, const char *dir, const struct gitoid *tip,
		   const struct gitrepo_import_limits *lim, size_t *nr_objects,
		   struct strbuf *err);

bool gitrepo_ref_name_ok(const char *name);
/* Create or force-update a ref (with a reflog entry "lorebot: <why>") */
int gitrepo_ref_set(struct gitrepo *r, const char *name,
		    const struct gitoid *id, const char *why,
		    struct strbuf *err);
int gitrepo_ref_get(struct gitrepo *r, const char *name, struct gitoid *id);

/*
 * Apply a binary file patch (one file's "diff --git" section holding a
 * "GIT binary patch") to the blob old at old_path (old NULL for a new
 * file) and write the result, the blob new_path gets.  Uses libgit2's
 * binary delta code on a one-file tree.
 */
int gitrepo_apply_binary(struct gitrepo *r, const char *old_path,
			 const struct gitoid *old, unsigned int old_mode,
			 const char *new_path, const char *section, size_t len,
			 struct gitoid *out, struct strbuf *err);

/*
 * Three-way merge of file contents (git merge-file): 1 when it merged
 * cleanly (result in out), 0 on conflicts, -errno on error.
 */
int gitrepo_merge_contents(const char *base, size_t base_len,
			   const char *ours, size_t ours_len,
			   const char *theirs, size_t theirs_len,
			   struct strbuf *out, struct strbuf *err);

/*
 * Write the tree into dir (created; it must not exist), regular files
 * with mode 0444 or 0555, symlinks as symlinks, submodules as empty
 * directories.  With reuse_dir and reuse_tree (the tree exported there
 * earlier, never modified since), files whose blob and mode are the same
 * at the same path are hard-linked from reuse_dir instead of written.
 * Entry names are checked (no "..", ".git" or "/"); nothing is written
 * outside dir and no symlink is followed.  Directories are left
 * writable: the caller seals them (see bot/git/checkout.h).
 */
int gitrepo_export(struct gitrepo *r, const struct gitoid *tree,
		   const char *dir, const char *reuse_dir,
		   const struct gitoid *reuse_tree, struct strbuf *err);

#endif
