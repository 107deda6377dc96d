// SPDX-License-Identifier: GPL-2.0
/*
 * A developer's repository (bot/git/gitdev.h), for lorebot check in a kernel
 * tree; format-patch is in gitdev-patch.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "bot/git/git-int.h"
#include "bot/git/gitdev.h"

static char *path_dup_trim(const char *p)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		n--;
	return xstrndup(p, n);
}

int gitdev_open(struct gitdev_repo *r, const char *dir, struct strbuf *err)
{
	git_reference *head = NULL;
	const char *wd;

	git_lib_init();
	memset(r, 0, sizeof(*r));
	if (git_repository_open_ext(&r->repo, dir, 0, NULL)) {
		strbuf_addf(err, "'%s' is not in a git repository", dir);
		return -1;
	}
	r->gitdir = path_dup_trim(git_repository_path(r->repo));
	wd = git_repository_workdir(r->repo);
	r->workdir = wd ? path_dup_trim(wd) : NULL;
	if (!git_repository_head(&head, r->repo)) {
		if (git_reference_is_branch(head))
			r->branch = xstrdup(git_reference_shorthand(head));
		git_oid_tostr(r->head, sizeof(r->head), git_reference_target(head));
		git_reference_free(head);
	} else if (git_repository_head_unborn(r->repo) == 1) {
		if (!git_repository_head(&head, r->repo))
			git_reference_free(head);
	}
	return 0;
}

void gitdev_release(struct gitdev_repo *r)
{
	git_repository_free(r->repo);
	free(r->gitdir);
	free(r->workdir);
	free(r->branch);
	memset(r, 0, sizeof(*r));
}

struct refspec_ctx {
	const char *merge;
	struct strbuf *out;
	bool found;
};

static int refspec_cb(const git_config_entry *e, void *data)
{
	struct refspec_ctx *rc = data;
	git_refspec *spec;
	git_buf dst = GIT_BUF_INIT;

	if (rc->found || git_refspec_parse(&spec, e->value, true))
		return 0;
	if (git_refspec_src_matches(spec, rc->merge) &&
	    !git_refspec_transform(&dst, spec, rc->merge)) {
		strbuf_add(rc->out, dst.ptr, dst.size);
		rc->found = true;
	}
	git_buf_dispose(&dst);
	git_refspec_free(spec);
	return 0;
}

/*
 * branch.<name>.remote and .merge through the remote's fetch refspecs,
 * as git does; read key by key (git_branch_upstream() lists the remotes
 * with a regular expression, and libgit2 1.5 leaks on every non-match)
 */
int gitdev_upstream(struct gitdev_repo *r, const char *branch, struct strbuf *out)
{
	struct strbuf key = STRBUF_INIT, ref = STRBUF_INIT;
	struct refspec_ctx rc = { .out = &ref };
	git_config *cfg = NULL;
	git_buf remote = GIT_BUF_INIT, merge = GIT_BUF_INIT;
	git_reference *target = NULL;
	int ret = -ENOENT;

	if (git_repository_config_snapshot(&cfg, r->repo))
		return -EIO;
	strbuf_addf(&key, "branch.%s.remote", branch);
	if (git_config_get_string_buf(&remote, cfg, key.buf))
		goto out;
	strbuf_reset(&key);
	strbuf_addf(&key, "branch.%s.merge", branch);
	if (git_config_get_string_buf(&merge, cfg, key.buf))
		goto out;
	if (!strcmp(remote.ptr, ".")) {
		strbuf_addstr(&ref, merge.ptr);
	} else {
		rc.merge = merge.ptr;
		strbuf_reset(&key);
		strbuf_addf(&key, "remote.%s.fetch", remote.ptr);
		git_config_get_multivar_foreach(cfg, key.buf, NULL, refspec_cb, &rc);
		if (!rc.found)
			goto out;
	}
	if (git_reference_lookup(&target, r->repo, ref.buf))
		goto out;
	strbuf_addstr(out, git_reference_shorthand(target));
	ret = 0;
out:
	git_reference_free(target);
	git_buf_dispose(&remote);
	git_buf_dispose(&merge);
	git_config_free(cfg);
	strbuf_release(&key);
	strbuf_release(&ref);
	return ret;
}

int gitdev_resolve(struct gitdev_repo *r, const char *rev, char out[41],
		   struct strbuf *err)
{
	git_commit *c;

	if (git_rev_commit(r->repo, rev, &c, err))
		return -ENOENT;
	git_oid_tostr(out, 41, git_commit_id(c));
	git_commit_free(c);
	return 0;
}

int gitdev_merge_base(struct gitdev_repo *r, const char *a, const char *b,
		      char out[41])
{
	git_commit *ca, *cb;
	git_oid base;
	int ret = -ENOENT;

	if (git_rev_commit(r->repo, a, &ca, NULL))
		return -ENOENT;
	if (!git_rev_commit(r->repo, b, &cb, NULL)) {
		if (!git_merge_base(&base, r->repo, git_commit_id(ca), git_commit_id(cb))) {
			git_oid_tostr(out, 41, &base);
			ret = 0;
		}
		git_commit_free(cb);
	}
	git_commit_free(ca);
	return ret;
}

void gitdev_commits_release(struct gitdev_commits *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->v[i].subject);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int gitdev_rev_list(struct gitdev_repo *r, const char *hide, const char *tip,
		    size_t max, struct gitdev_commits *out, struct strbuf *err)
{
	git_revwalk *walk = NULL;
	git_commit *t = NULL, *h = NULL;
	git_oid id;
	int ret = -ENOENT;

	if (git_rev_commit(r->repo, tip, &t, err))
		return -ENOENT;
	if (hide && git_rev_commit(r->repo, hide, &h, err))
		goto out;
	ret = -EIO;
	if (git_revwalk_new(&walk, r->repo) ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) ||
	    git_revwalk_push(walk, git_commit_id(t)) ||
	    (h && git_revwalk_hide(walk, git_commit_id(h)))) {
		git_error_to(err, "cannot walk the history");
		goto out;
	}
	ret = 0;
	while (!git_revwalk_next(&id, walk)) {
		struct gitdev_commit *gc;
		git_commit *c;

		if (out->nr >= max) {
			strbuf_addf(err, "more than %zu commits in the range", max);
			ret = -E2BIG;
			break;
		}
		if (git_commit_lookup(&c, r->repo, &id)) {
			git_error_to(err, "cannot read a commit");
			ret = -EIO;
			break;
		}
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		gc = &out->v[out->nr++];
		memset(gc, 0, sizeof(*gc));
		git_oid_tostr(gc->id, sizeof(gc->id), &id);
		gc->parents = git_commit_parentcount(c);
		if (gc->parents) {
			git_commit *p;

			git_oid_tostr(gc->parent, sizeof(gc->parent),
				      git_commit_parent_id(c, 0));
			if (!git_commit_parent(&p, c, 0)) {
				gc->empty = git_oid_equal(git_commit_tree_id(p),
							  git_commit_tree_id(c));
				git_commit_free(p);
			}
		}
		gc->subject = xstrdup(git_commit_summary(c) ? git_commit_summary(c) : "");
		git_commit_free(c);
	}
out:
	git_revwalk_free(walk);
	git_commit_free(t);
	git_commit_free(h);
	return ret;
}

int gitdev_find_message(struct gitdev_repo *r, const char *tip,
			const char *needle, size_t max, char out[41])
{
	git_commit *c, *parent;
	size_t n;

	if (git_rev_commit(r->repo, tip, &c, NULL))
		return -ENOENT;
	for (n = 0; c && n < max; n++) {
		const char *msg = git_commit_message(c);

		if (msg && strstr(msg, needle)) {
			git_oid_tostr(out, 41, git_commit_id(c));
			git_commit_free(c);
			return 0;
		}
		if (!git_commit_parentcount(c) || git_commit_parent(&parent, c, 0))
			parent = NULL;
		git_commit_free(c);
		c = parent;
	}
	git_commit_free(c);
	return -ENOENT;
}

int gitdev_message(struct gitdev_repo *r, const char *id, struct strbuf *out)
{
	git_commit *c;
	const char *msg;

	if (git_rev_commit(r->repo, id, &c, NULL))
		return -ENOENT;
	msg = git_commit_message(c);
	strbuf_addstr(out, msg ? msg : "");
	git_commit_free(c);
	return 0;
}

int gitdev_read_file(struct gitdev_repo *r, const char *rev, const char *path,
		     struct strbuf *out)
{
	git_commit *c;
	int ret;

	if (git_rev_commit(r->repo, rev, &c, NULL))
		return -ENOENT;
	ret = git_read_path_in(r->repo, (git_object *)c, path, out);
	git_commit_free(c);
	return ret;
}

int gitdev_walk_dir(struct gitdev_repo *r, const char *rev, struct git_walk *w)
{
	git_commit *c;
	int ret;

	if (git_rev_commit(r->repo, rev, &c, NULL))
		return -ENOENT;
	ret = git_walk_dir_in(r->repo, (git_object *)c, w);
	git_commit_free(c);
	return ret;
}

int gitdev_subject(struct gitdev_repo *r, const char *id, struct strbuf *out)
{
	git_commit *c;
	const char *s;

	if (git_rev_commit(r->repo, id, &c, NULL))
		return -ENOENT;
	s = git_commit_summary(c);
	strbuf_addstr(out, s ? s : "");
	git_commit_free(c);
	return 0;
}

int gitdev_identity(struct gitdev_repo *r, struct strbuf *name,
		    struct strbuf *email)
{
	git_signature *sig;

	if (git_signature_default(&sig, r->repo))
		return -ENOENT;
	strbuf_addstr(name, sig->name);
	strbuf_addstr(email, sig->email);
	git_signature_free(sig);
	return 0;
}

int gitdev_changed(struct gitdev_repo *r, const char *const *paths, size_t nr,
		   struct strbuf *which, struct strbuf *err)
{
	size_t i;
	int n = 0;

	if (!r->workdir) {
		strbuf_addf(err, "'%s' is a bare repository", r->gitdir);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		unsigned int flags = 0;

		if (git_status_file(&flags, r->repo, paths[i])) {
			git_error_to(err, paths[i]);
			return -EIO;
		}
		if (flags != GIT_STATUS_CURRENT) {
			strbuf_addf(which, "%s\n", paths[i]);
			n++;
		}
	}
	return n;
}

int gitdev_commit_files(struct gitdev_repo *r, const struct gitdev_file *files,
			size_t nr, const char *message, char out[41],
			struct strbuf *err)
{
	git_checkout_options co;
	git_tree_update *up = xcalloc(nr, sizeof(*up));
	git_reference *head = NULL;
	git_commit *parent = NULL;
	git_tree *base = NULL, *tree = NULL;
	git_signature *me = NULL;
	git_oid tree_id, commit_id;
	char **paths = xcalloc(nr, sizeof(*paths));
	size_t i;
	int ret = -EBUSY;

	if (git_repository_head(&head, r->repo) || !git_reference_is_branch(head)) {
		strbuf_addstr(err, "HEAD is not on a branch");
		goto out;
	}
	if (strcmp(git_oid_tostr_s(git_reference_target(head)), r->head)) {
		strbuf_addstr(err, "HEAD moved while lorebot was checking");
		goto out;
	}
	ret = -EIO;
	if (git_rev_commit(r->repo, r->head, &parent, NULL) ||
	    git_commit_tree(&base, parent)) {
		git_error_to(err, "cannot read HEAD");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		git_tree_entry *e;

		if (git_tree_entry_bypath(&e, base, files[i].path)) {
			strbuf_addf(err, "'%s' is not in HEAD", files[i].path);
			goto out;
		}
		up[i].action = GIT_TREE_UPDATE_UPSERT;
		up[i].filemode = git_tree_entry_filemode(e);
		up[i].path = files[i].path;
		paths[i] = (char *)files[i].path;
		git_tree_entry_free(e);
		if (git_blob_create_from_buffer(&up[i].id, r->repo, files[i].data,
						files[i].len)) {
			git_error_to(err, files[i].path);
			goto out;
		}
	}
	if (git_signature_default(&me, r->repo)) {
		strbuf_addstr(err, "no identity to commit as (set user.name and user.email)");
		ret = -ENOENT;
		goto out;
	}
	if (git_tree_create_updated(&tree_id, r->repo, base, nr, up) ||
	    git_tree_lookup(&tree, r->repo, &tree_id) ||
	    git_commit_create(&commit_id, r->repo, "HEAD", me, me, NULL, message,
			      tree, 1, (const git_commit **)&parent)) {
		git_error_to(err, "cannot commit");
		goto out;
	}
	git_oid_tostr(out, 41, &commit_id);
	git_oid_tostr(r->head, sizeof(r->head), &commit_id);
	/* the files concerned follow the new commit in the index and work tree */
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	co.paths.strings = paths;
	co.paths.count = nr;
	co.baseline = base;
	if (git_checkout_tree(r->repo, (git_object *)tree, &co)) {
		git_error_to(err, "committed, but the work tree was not updated");
		goto out;
	}
	ret = 0;
out:
	git_signature_free(me);
	git_tree_free(tree);
	git_tree_free(base);
	git_commit_free(parent);
	git_reference_free(head);
	free(up);
	free(paths);
	return ret;
}
