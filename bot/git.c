// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/diff.h"
#include "bot/git.h"

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
