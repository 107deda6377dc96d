// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/diff.h"
#include "bot/git.h"
#include "bot/mail.h"

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

static void git_error_to(struct strbuf *err, const char *what)
{
	const git_error *e = git_error_last();

	strbuf_addf(err, "%s: %s", what, e && e->message ? e->message : "unknown error");
}

static int cfg_foreach(git_config *cfg, gitcfg_cb cb, void *data)
{
	git_config_iterator *it;
	git_config_entry *entry;
	int ret = 0;

	if (git_config_iterator_new(&it, cfg))
		return -1;
	while (!ret && !git_config_next(&entry, it))
		ret = cb(entry->name, entry->value, data);
	git_config_iterator_free(it);
	return ret;
}

int gitcfg_read_file(const char *path, gitcfg_cb cb, void *data,
		     struct strbuf *err)
{
	git_config *cfg;
	int ret;

	git_lib_init();
	if (git_config_new(&cfg))
		return -1;
	if (git_config_add_file_ondisk(cfg, path, GIT_CONFIG_LEVEL_APP, NULL, 1)) {
		git_error_to(err, path);
		git_config_free(cfg);
		return -1;
	}
	ret = cfg_foreach(cfg, cb, data);
	git_config_free(cfg);
	return ret;
}

int gitcfg_read_default(const char *repo_dir, gitcfg_cb cb, void *data,
			struct strbuf *err)
{
	git_repository *repo = NULL;
	git_config *cfg;
	int ret;

	git_lib_init();
	if (repo_dir) {
		if (git_repository_open_ext(&repo, repo_dir, 0, NULL)) {
			git_error_to(err, repo_dir);
			return -1;
		}
		ret = git_repository_config_snapshot(&cfg, repo);
	} else {
		ret = git_config_open_default(&cfg);
	}
	if (ret) {
		git_error_to(err, "git config");
		git_repository_free(repo);
		return -1;
	}
	ret = cfg_foreach(cfg, cb, data);
	git_config_free(cfg);
	git_repository_free(repo);
	return ret;
}

/* diffs */

static int file_cb(const git_diff_delta *delta, float progress, void *payload)
{
	struct diff *d = payload;
	struct diff_file *f;

	(void)progress;
	ALLOC_GROW(d->files, d->nr + 1, d->alloc);
	f = &d->files[d->nr++];
	memset(f, 0, sizeof(*f));
	switch (delta->status) {
	case GIT_DELTA_ADDED:
		f->status = DIFF_ADDED;
		break;
	case GIT_DELTA_DELETED:
		f->status = DIFF_DELETED;
		break;
	case GIT_DELTA_RENAMED:
		f->status = DIFF_RENAMED;
		break;
	case GIT_DELTA_COPIED:
		f->status = DIFF_COPIED;
		break;
	default:
		f->status = DIFF_MODIFIED;
		break;
	}
	if (delta->status != GIT_DELTA_ADDED && delta->old_file.path)
		f->old_path = xstrdup(delta->old_file.path);
	if (delta->status != GIT_DELTA_DELETED && delta->new_file.path)
		f->new_path = xstrdup(delta->new_file.path);
	f->old_mode = delta->old_file.mode;
	f->new_mode = delta->new_file.mode;
	git_oid_tostr(f->old_id, sizeof(f->old_id), &delta->old_file.id);
	git_oid_tostr(f->new_id, sizeof(f->new_id), &delta->new_file.id);
	if (delta->old_file.id_abbrev && delta->old_file.id_abbrev < 40)
		f->old_id[delta->old_file.id_abbrev] = '\0';
	if (delta->new_file.id_abbrev && delta->new_file.id_abbrev < 40)
		f->new_id[delta->new_file.id_abbrev] = '\0';
	f->binary = delta->flags & GIT_DIFF_FLAG_BINARY;
	return 0;
}

static int binary_cb(const git_diff_delta *delta, const git_diff_binary *b,
		     void *payload)
{
	struct diff *d = payload;

	(void)delta;
	(void)b;
	if (d->nr)
		d->files[d->nr - 1].binary = true;
	return 0;
}

static int hunk_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
		   void *payload)
{
	struct diff *d = payload;
	struct diff_file *f = &d->files[d->nr - 1];
	struct diff_hunk *h;
	size_t hl = hunk->header_len;

	(void)delta;
	ALLOC_GROW(f->hunks, f->nr + 1, f->alloc);
	h = &f->hunks[f->nr++];
	memset(h, 0, sizeof(*h));
	h->old_start = hunk->old_start;
	h->old_lines = hunk->old_lines;
	h->new_start = hunk->new_start;
	h->new_lines = hunk->new_lines;
	while (hl && (hunk->header[hl - 1] == '\n' || hunk->header[hl - 1] == '\r'))
		hl--;
	h->header = xstrndup(hunk->header, hl);
	return 0;
}

static int line_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
		   const git_diff_line *line, void *payload)
{
	struct diff *d = payload;
	struct diff_file *f = &d->files[d->nr - 1];
	struct diff_hunk *h;
	struct diff_line *l;
	size_t len = line->content_len;

	(void)delta;
	if (!hunk || !f->nr)
		return 0;
	h = &f->hunks[f->nr - 1];
	switch (line->origin) {
	case GIT_DIFF_LINE_CONTEXT:
	case GIT_DIFF_LINE_ADDITION:
	case GIT_DIFF_LINE_DELETION:
		break;
	case GIT_DIFF_LINE_CONTEXT_EOFNL:
	case GIT_DIFF_LINE_ADD_EOFNL:
	case GIT_DIFF_LINE_DEL_EOFNL:
		if (h->nr)
			h->lines[h->nr - 1].no_eol = true;
		return 0;
	default:
		return 0;
	}
	ALLOC_GROW(h->lines, h->nr + 1, h->alloc);
	l = &h->lines[h->nr++];
	l->kind = line->origin;
	l->old_no = line->old_lineno;
	l->new_no = line->new_lineno;
	if (len && line->content[len - 1] == '\n')
		len--;
	l->text = xstrndup(line->content, len);
	l->len = len;
	l->no_eol = false;
	return 0;
}

int diff_parse(const char *patch, size_t len, struct diff *d, struct strbuf *err)
{
	git_diff *gd;
	git_oid id;

	git_lib_init();
	memset(d, 0, sizeof(*d));
	if (git_diff_from_buffer(&gd, patch, len)) {
		git_error_to(err, "cannot parse diff");
		return -1;
	}
	if (git_diff_foreach(gd, file_cb, binary_cb, hunk_cb, line_cb, d)) {
		git_error_to(err, "cannot read diff");
		git_diff_free(gd);
		diff_release(d);
		return -1;
	}
	if (!git_diff_patchid(&id, gd, NULL))
		git_oid_tostr(d->patch_id, sizeof(d->patch_id), &id);
	git_diff_free(gd);
	return 0;
}

void diff_release(struct diff *d)
{
	size_t i, j, k;

	for (i = 0; i < d->nr; i++) {
		struct diff_file *f = &d->files[i];

		for (j = 0; j < f->nr; j++) {
			for (k = 0; k < f->hunks[j].nr; k++)
				free(f->hunks[j].lines[k].text);
			free(f->hunks[j].lines);
			free(f->hunks[j].header);
		}
		free(f->hunks);
		free(f->old_path);
		free(f->new_path);
	}
	free(d->files);
	memset(d, 0, sizeof(*d));
}

/* files and commits of a revision (the checkers' tree) */

static int git_open_rev(const char *repo_dir, const char *rev,
			git_repository **repo, git_object **obj)
{
	git_lib_init();
	*repo = NULL;
	*obj = NULL;
	if (git_repository_open_ext(repo, repo_dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL))
		return -EIO;
	if (git_revparse_single(obj, *repo, rev)) {
		git_repository_free(*repo);
		*repo = NULL;
		return -ENOENT;
	}
	return 0;
}

int git_read_file_at(const char *repo_dir, const char *rev, const char *path,
		     struct strbuf *out)
{
	git_repository *repo;
	git_object *obj, *tree_obj = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int ret = git_open_rev(repo_dir, rev, &repo, &obj);

	if (ret)
		return ret;
	ret = -ENOENT;
	if (git_object_peel(&tree_obj, obj, GIT_OBJECT_TREE))
		goto out;
	if (git_tree_entry_bypath(&entry, (git_tree *)tree_obj, path) ||
	    git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
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
	git_object_free(tree_obj);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

int git_commit_subject(const char *repo_dir, const char *id, struct strbuf *out)
{
	git_repository *repo;
	git_object *obj, *commit = NULL;
	int ret = git_open_rev(repo_dir, id, &repo, &obj);

	if (ret)
		return ret;
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT)) {
		ret = -ENOENT;
	} else {
		const char *s = git_commit_summary((git_commit *)commit);

		strbuf_addstr(out, s ? s : "");
	}
	git_object_free(commit);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

/* a developer's repository (lorebot check in a kernel tree) */

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

static int lookup_commit(git_repository *repo, const char *rev, git_commit **out)
{
	git_object *obj = NULL, *c = NULL;

	*out = NULL;
	if (git_revparse_single(&obj, repo, rev))
		return -ENOENT;
	if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT)) {
		git_object_free(obj);
		return -ENOENT;
	}
	git_object_free(obj);
	*out = (git_commit *)c;
	return 0;
}

int gitdev_resolve(struct gitdev_repo *r, const char *rev, char out[41])
{
	git_commit *c;

	if (lookup_commit(r->repo, rev, &c))
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

	if (lookup_commit(r->repo, a, &ca))
		return -ENOENT;
	if (!lookup_commit(r->repo, b, &cb)) {
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

	if (lookup_commit(r->repo, tip, &t)) {
		strbuf_addf(err, "'%s' is not a commit", tip);
		return -ENOENT;
	}
	if (hide && lookup_commit(r->repo, hide, &h)) {
		strbuf_addf(err, "'%s' is not a commit", hide);
		goto out;
	}
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

	if (lookup_commit(r->repo, tip, &c))
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

	if (lookup_commit(r->repo, id, &c))
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
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int ret = -ENOENT;

	if (lookup_commit(r->repo, rev, &c))
		return -ENOENT;
	if (git_commit_tree(&tree, c) || git_tree_entry_bypath(&e, tree, path) ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		goto out;
	ret = -EIO;
	if (git_blob_lookup(&blob, r->repo, git_tree_entry_id(e)))
		goto out;
	strbuf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	ret = 0;
out:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(c);
	return ret;
}

int gitdev_subject(struct gitdev_repo *r, const char *id, struct strbuf *out)
{
	git_commit *c;
	const char *s;

	if (lookup_commit(r->repo, id, &c))
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

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

struct paths {
	char **v;
	size_t nr, alloc;
};

static void paths_add(struct paths *p, const char *prefix, const char *name)
{
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr++] = xasprintf("%s%s", prefix, name);
}

static void paths_release(struct paths *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->v[i]);
	free(p->v);
}

/*
 * The paths that differ between trees a and b (either may be NULL),
 * descending only into subtrees whose ids differ: a commit of a kernel
 * tree reads a handful of trees, not its 5,000.
 */
static int changed_paths(git_repository *repo, git_tree *a, git_tree *b,
			 const char *prefix, struct paths *out)
{
	size_t na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < na && !ret; i++) {
		const git_tree_entry *ea = git_tree_entry_byindex(a, i);
		const git_tree_entry *eb = b ? git_tree_entry_byname(b, git_tree_entry_name(ea)) : NULL;
		bool ta = git_tree_entry_type(ea) == GIT_OBJECT_TREE;
		bool tb = eb && git_tree_entry_type(eb) == GIT_OBJECT_TREE;
		git_tree *sa = NULL, *sb = NULL;
		char *sub;

		if (eb && git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)) &&
		    git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb))
			continue;
		if (!ta && !tb) {
			paths_add(out, prefix, git_tree_entry_name(ea));
			continue;
		}
		if (!ta || !tb)		/* a file became a directory, or back */
			paths_add(out, prefix, git_tree_entry_name(ea));
		sub = xasprintf("%s%s/", prefix, git_tree_entry_name(ea));
		if ((ta && git_tree_lookup(&sa, repo, git_tree_entry_id(ea))) ||
		    (tb && git_tree_lookup(&sb, repo, git_tree_entry_id(eb))))
			ret = -1;
		else
			ret = changed_paths(repo, sa, sb, sub, out);
		git_tree_free(sa);
		git_tree_free(sb);
		free(sub);
	}
	for (i = 0; i < nb && !ret; i++) {
		const git_tree_entry *eb = git_tree_entry_byindex(b, i);
		git_tree *sb = NULL;
		char *sub;

		if (a && git_tree_entry_byname(a, git_tree_entry_name(eb)))
			continue;
		if (git_tree_entry_type(eb) != GIT_OBJECT_TREE) {
			paths_add(out, prefix, git_tree_entry_name(eb));
			continue;
		}
		sub = xasprintf("%s%s/", prefix, git_tree_entry_name(eb));
		if (git_tree_lookup(&sb, repo, git_tree_entry_id(eb)))
			ret = -1;
		else
			ret = changed_paths(repo, NULL, sb, sub, out);
		git_tree_free(sb);
		free(sub);
	}
	return ret;
}

static int commit_diff(git_repository *repo, git_commit *c, git_diff **diff)
{
	git_diff_options opts;
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	struct paths paths = { 0 };
	int ret = -1;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (git_commit_parentcount(c) && git_commit_parent(&parent, c, 0))
		return -1;
	if ((parent && git_commit_tree(&old, parent)) || git_commit_tree(&new, c))
		goto out;
	/* only the paths that changed: the diff then walks no other tree */
	if (changed_paths(repo, old, new, "", &paths))
		goto out;
	opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	opts.pathspec.strings = paths.v;
	opts.pathspec.count = paths.nr;
	if (!paths.nr) {
		/* an empty pathspec means everything; nothing changed at all */
		static char *none[] = { "" };

		opts.pathspec.strings = none;
		opts.pathspec.count = 1;
	}
	if (git_diff_tree_to_tree(diff, repo, old, new, &opts))
		goto out;
	ret = git_diff_find_similar(*diff, NULL);
out:
	paths_release(&paths);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	return ret;
}

struct stat_line {
	char *name;
	size_t adds, dels;
	bool binary;
};

/* The diffstat as format-patch writes it (72 columns) */
static void diffstat(const struct stat_line *v, size_t nr, struct strbuf *out)
{
	size_t i, name_w = 0, max = 0, adds = 0, dels = 0, num_w = 1, graph_w, n;

	for (i = 0; i < nr; i++) {
		name_w = MAX(name_w, strlen(v[i].name));
		max = MAX(max, v[i].adds + v[i].dels);
		adds += v[i].adds;
		dels += v[i].dels;
	}
	for (n = max; n >= 10; n /= 10)
		num_w++;
	name_w = MIN(name_w, (size_t)50);
	graph_w = 72 - MIN((size_t)60, name_w + num_w + 4);
	for (i = 0; i < nr; i++) {
		size_t len = strlen(v[i].name), total = v[i].adds + v[i].dels;
		size_t pa = v[i].adds, pd = v[i].dels;
		const char *name = v[i].name;

		if (len > name_w) {
			strbuf_addstr(out, " ...");
			name += len - name_w + 3;
			len = name_w - 3;
		} else {
			strbuf_addch(out, ' ');
		}
		strbuf_addf(out, "%-*s | ", (int)len + (int)(name_w - MIN(len, name_w)), name);
		if (v[i].binary) {
			strbuf_addstr(out, "Bin\n");
			continue;
		}
		if (total > graph_w) {
			/* as git: each side scaled, a change never shown as nothing */
			pa = pa ? 1 + pa * (graph_w - 1) / max : 0;
			pd = pd ? 1 + pd * (graph_w - 1) / max : 0;
		}
		strbuf_addf(out, "%*zu%s", (int)num_w, total, total ? " " : "");
		strbuf_addchars(out, '+', pa);
		strbuf_addchars(out, '-', pd);
		strbuf_addch(out, '\n');
	}
	strbuf_addf(out, " %zu file%s changed", nr, nr == 1 ? "" : "s");
	if (adds)
		strbuf_addf(out, ", %zu insertion%s(+)", adds, adds == 1 ? "" : "s");
	if (dels)
		strbuf_addf(out, ", %zu deletion%s(-)", dels, dels == 1 ? "" : "s");
	strbuf_addch(out, '\n');
}

/* The diff of a commit as text, its diffstat and summary: one xdiff pass */
static int diff_text(git_diff *diff, struct strbuf *stat, struct strbuf *text)
{
	size_t i, nr = git_diff_num_deltas(diff);
	struct stat_line *v = xcalloc(nr + 1, sizeof(*v));
	struct strbuf summary = STRBUF_INIT;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_buf buf = GIT_BUF_INIT;
		git_patch *p;
		size_t adds = 0, dels = 0;

		if (git_patch_from_diff(&p, diff, i)) {
			ret = -1;
			break;
		}
		git_patch_line_stats(NULL, &adds, &dels, p);
		if (git_patch_to_buf(&buf, p))
			ret = -1;
		else
			strbuf_add(text, buf.ptr, buf.size);
		git_buf_dispose(&buf);
		git_patch_free(p);
		v[i].adds = adds;
		v[i].dels = dels;
		v[i].binary = d->flags & GIT_DIFF_FLAG_BINARY;
		if (d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED) {
			v[i].name = xasprintf("%s => %s", d->old_file.path, d->new_file.path);
			strbuf_addf(&summary, " %s %s (%d%%)\n",
				    d->status == GIT_DELTA_RENAMED ? "rename" : "copy",
				    v[i].name, d->similarity);
		} else {
			v[i].name = xstrdup(d->new_file.path);
		}
		if (d->status == GIT_DELTA_ADDED)
			strbuf_addf(&summary, " create mode %06o %s\n",
				    d->new_file.mode, d->new_file.path);
		else if (d->status == GIT_DELTA_DELETED)
			strbuf_addf(&summary, " delete mode %06o %s\n",
				    d->old_file.mode, d->old_file.path);
	}
	if (!ret) {
		diffstat(v, nr, stat);
		strbuf_addbuf(stat, &summary);
	}
	for (i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
	strbuf_release(&summary);
	return ret;
}

int gitdev_format_patch(struct gitdev_repo *r, const char *id, const char *tags,
			struct strbuf *mail, struct strbuf *err)
{
	struct strbuf patch = STRBUF_INIT, stat = STRBUF_INIT;
	git_diff *diff = NULL;
	git_commit *c;
	const git_signature *a;
	const char *summary, *body;
	int ret = -EIO;

	if (lookup_commit(r->repo, id, &c)) {
		strbuf_addf(err, "'%s' is not a commit", id);
		return -ENOENT;
	}
	if (commit_diff(r->repo, c, &diff) || diff_text(diff, &stat, &patch)) {
		git_error_to(err, id);
		goto out;
	}
	a = git_commit_author(c);
	summary = git_commit_summary(c);
	body = git_commit_body(c);
	strbuf_addf(mail, "From %s Mon Sep 17 00:00:00 2001\n", git_oid_tostr_s(git_commit_id(c)));
	strbuf_addf(mail, "From: %s <%s>\nDate: ", a->name, a->email);
	mail_format_date(a->when.time, a->when.offset, mail);
	strbuf_addf(mail, "\nSubject: [%s] %s\n", tags, summary ? summary : "");
	if (!is_ascii(a->name) || (summary && !is_ascii(summary)) ||
	    (body && !is_ascii(body)))
		strbuf_addstr(mail, "MIME-Version: 1.0\n"
			      "Content-Type: text/plain; charset=UTF-8\n"
			      "Content-Transfer-Encoding: 8bit\n");
	strbuf_addch(mail, '\n');
	if (body && *body) {
		strbuf_addstr(mail, body);
		strbuf_complete_line(mail);
	}
	strbuf_addstr(mail, "---\n");
	strbuf_addbuf(mail, &stat);
	strbuf_addch(mail, '\n');
	strbuf_addbuf(mail, &patch);
	strbuf_addstr(mail, "-- \nlorebot\n\n");
	ret = 0;
out:
	strbuf_release(&patch);
	strbuf_release(&stat);
	git_diff_free(diff);
	git_commit_free(c);
	return ret;
}

int gitdev_diff_text(const char *path, const char *old, size_t old_len,
		     const char *new, size_t new_len, struct strbuf *out)
{
	git_patch *patch = NULL;
	git_buf buf = GIT_BUF_INIT;
	int ret = -EIO;

	git_lib_init();
	if (git_patch_from_buffers(&patch, old, old_len, path, new, new_len, path,
				   NULL))
		return ret;
	if (!git_patch_to_buf(&buf, patch)) {
		strbuf_add(out, buf.ptr, buf.size);
		ret = 0;
	}
	git_buf_dispose(&buf);
	git_patch_free(patch);
	return ret;
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
	if (lookup_commit(r->repo, r->head, &parent) || git_commit_tree(&base, parent)) {
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
