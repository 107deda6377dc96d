// SPDX-License-Identifier: GPL-2.0
/* A developer's commits as the mails of git format-patch (bot/git/gitdev.h) */
#include <errno.h>
#include <stdlib.h>

#include "bot/git/git-int.h"
#include "bot/git/gitdev.h"
#include "bot/mail/mail.h"

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

	if (git_rev_commit(r->repo, id, &c, err))
		return -ENOENT;
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
