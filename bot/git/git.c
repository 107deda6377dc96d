// SPDX-License-Identifier: GPL-2.0
/*
 * libgit2's set-up and errors, shared by bot/git/git*.c and bot/git/diff.c (the
 * only files that include git2.h, through bot/git/git-int.h), and the files
 * and commits of a revision that the checkers read (bot/git/git.h).
 */
#include <errno.h>

#include "bot/git/git-int.h"

void git_lib_init(void)
{
	static bool done;

	if (done)
		return;
	git_libgit2_init();
	/* our repositories are ours; do not chase ownership of others */
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	done = true;
}

void git_error_to(struct strbuf *err, const char *what)
{
	const git_error *e = git_error_last();

	strbuf_addf(err, "%s: %s", what, e && e->message ? e->message : "unknown error");
}

int git_errno(int code)
{
	switch (code) {
	case GIT_ENOTFOUND:
		return -ENOENT;
	case GIT_EAMBIGUOUS:
	case GIT_EINVALIDSPEC:
	case GIT_EINVALID:
		return -EINVAL;
	case GIT_EEXISTS:
		return -EEXIST;
	default:
		return -EIO;
	}
}

int git_fail(int code, struct strbuf *err, const char *fmt, ...)
{
	const git_error *e = git_error_last();
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	if (e && e->message)
		strbuf_addf(err, ": %s", e->message);
	return git_errno(code);
}

/* files and commits of a revision (the checkers' tree) */

/* The entry of type at path in the tree of obj (a commit or a tree), or NULL */
static git_tree_entry *entry_at(git_object *obj, const char *path,
				git_object_t type)
{
	git_object *tree_obj = NULL;
	git_tree_entry *e = NULL;

	if (!git_object_peel(&tree_obj, obj, GIT_OBJECT_TREE) &&
	    !git_tree_entry_bypath(&e, (git_tree *)tree_obj, path) &&
	    git_tree_entry_type(e) != type) {
		git_tree_entry_free(e);
		e = NULL;
	}
	git_object_free(tree_obj);
	return e;
}

int git_read_path_in(git_repository *repo, git_object *obj, const char *path,
		     struct strbuf *out)
{
	git_tree_entry *entry = entry_at(obj, path, GIT_OBJECT_BLOB);
	git_blob *blob = NULL;
	int ret = -ENOENT;

	if (!entry)
		goto out;
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(entry))) {
		ret = -EIO;
		goto out;
	}
	strbuf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	ret = 0;
out:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	return ret;
}

int git_read_file_at(const char *repo_dir, const char *rev, const char *path,
		     struct strbuf *out)
{
	git_repository *repo;
	git_object *obj;
	int ret = git_rev_open(repo_dir, rev, GIT_OBJECT_TREE, &repo, &obj, NULL);

	if (ret)
		return ret;
	ret = git_read_path_in(repo, obj, path, out);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

struct walk_ctx {
	git_repository *repo;
	const struct git_walk *w;
	struct strbuf path;
	int ret;
};

static int walk_tree(struct walk_ctx *c, git_tree *t)
{
	size_t i, n = git_tree_entrycount(t), base = c->path.len;

	for (i = 0; i < n && !c->ret; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		git_object_t type = git_tree_entry_type(e);

		strbuf_setlen(&c->path, base);
		strbuf_addf(&c->path, "/%s", git_tree_entry_name(e));
		if (type == GIT_OBJECT_TREE) {
			git_tree *sub;

			if (git_tree_lookup(&sub, c->repo, git_tree_entry_id(e))) {
				c->ret = -EIO;
				break;
			}
			c->ret = walk_tree(c, sub);
			git_tree_free(sub);
		} else if (type == GIT_OBJECT_BLOB) {
			char id[GIT_OID_HEXSZ + 1];
			git_blob *b;

			git_oid_tostr(id, sizeof(id), git_tree_entry_id(e));
			if (!c->w->want(c->path.buf, id, c->w->data))
				continue;

			if (git_blob_lookup(&b, c->repo, git_tree_entry_id(e))) {
				c->ret = -EIO;
				break;
			}
			c->ret = c->w->file(c->path.buf, git_blob_rawcontent(b),
					    (size_t)git_blob_rawsize(b), c->w->data);
			git_blob_free(b);
		}
	}
	strbuf_setlen(&c->path, base);
	return c->ret;
}

int git_walk_dir_in(git_repository *repo, git_object *obj, struct git_walk *w)
{
	struct walk_ctx c = { .repo = repo, .w = w, .path = STRBUF_INIT };
	git_tree_entry *e = entry_at(obj, w->dir, GIT_OBJECT_TREE);
	git_tree *t = NULL;
	int ret = -ENOENT;

	if (!e)
		goto out;
	git_oid_tostr(w->tree_id, sizeof(w->tree_id), git_tree_entry_id(e));
	ret = 0;
	if (!w->file)
		goto out;
	if (git_tree_lookup(&t, repo, git_tree_entry_id(e))) {
		ret = -EIO;
		goto out;
	}
	strbuf_addstr(&c.path, w->dir);
	ret = walk_tree(&c, t);
out:
	strbuf_release(&c.path);
	git_tree_free(t);
	git_tree_entry_free(e);
	return ret;
}

int git_walk_dir(const char *repo_dir, const char *rev, struct git_walk *w)
{
	git_repository *repo;
	git_object *obj;
	int ret = git_rev_open(repo_dir, rev, GIT_OBJECT_TREE, &repo, &obj, NULL);

	if (ret)
		return ret;
	ret = git_walk_dir_in(repo, obj, w);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

int git_commit_subject(const char *repo_dir, const char *id, struct strbuf *out)
{
	git_repository *repo;
	git_object *commit;
	int ret = git_rev_open(repo_dir, id, GIT_OBJECT_COMMIT, &repo, &commit, NULL);
	const char *s;

	if (ret)
		return ret;
	s = git_commit_summary((git_commit *)commit);
	strbuf_addstr(out, s ? s : "");
	git_object_free(commit);
	git_repository_free(repo);
	return ret;
}
