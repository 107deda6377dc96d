// SPDX-License-Identifier: GPL-2.0
/*
 * One patch onto one tree, file by file, in memory: read each pre-image
 * blob, place the hunks (apply-hunk.c), fall back to a three-way merge
 * when the pre-image blob is known, write the new blobs and one new
 * tree.  Every hunk that does not fit is recorded (as git apply
 * --reject would find them), with the tree's lines where it should go.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/apply/apply.h"

#define EXCERPT_LINES 6
#define LINK_MAX_HOPS 40

struct pctx {
	struct gitrepo *r;
	const struct apply_opts *o;
	const struct gitoid *tree;
	const struct apply_input *in;
	struct diff d;
	struct apply_patch *pr;
	struct gitrepo_update *u;
	size_t nr_u, alloc_u;
	bool binary;		/* a binary patch was applied */
	char **links;		/* symlinks written, checked in the new tree */
	size_t nr_links, alloc_links;
	struct strbuf *err;
};

void apply_hunks_release(struct apply_hunk *h, size_t nr)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		free(h[i].file);
		free(h[i].header);
		free(h[i].message);
		free(h[i].excerpt);
		for (j = 0; j < h[i].nr_near; j++)
			free(h[i].near[j].text);
		free(h[i].near);
	}
	free(h);
}

void apply_patch_release(struct apply_patch *pr)
{
	free(pr->subject);
	free(pr->msgid);
	free(pr->message);
	apply_hunks_release(pr->hunks, pr->nr_hunks);
	apply_hunks_release(pr->alone_hunks, pr->nr_alone);
	free(pr->alone_message);
	memset(pr, 0, sizeof(*pr));
}

static struct apply_hunk *new_hunk(struct apply_patch *pr, const char *file,
				   const struct diff_hunk *h, int index)
{
	struct apply_hunk *ah;

	pr->hunks = xrealloc(pr->hunks, (pr->nr_hunks + 1) * sizeof(*pr->hunks));
	ah = &pr->hunks[pr->nr_hunks++];
	memset(ah, 0, sizeof(*ah));
	ah->file = xstrdup(file);
	if (h) {
		ah->header = xstrdup(h->header);
		ah->old_start = h->old_start;
		ah->new_start = h->new_start;
		ah->line = h->new_start;
	}
	ah->index = index;
	return ah;
}

/* A problem with a whole file (or the whole patch when file is "") */
static void file_fails(struct pctx *c, const char *file, const char *fmt, ...)
	PRINTF(3, 4);

static void file_fails(struct pctx *c, const char *file, const char *fmt, ...)
{
	struct apply_hunk *ah = new_hunk(c->pr, file, NULL, 0);
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ah->message = strbuf_detach(&sb, NULL);
	c->pr->nr_failed++;
}

static void excerpt(const struct diff_hunk *h, struct apply_hunk *ah)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < h->nr && i < EXCERPT_LINES; i++) {
		strbuf_addch(&sb, h->lines[i].kind);
		strbuf_add(&sb, h->lines[i].text, h->lines[i].len);
		strbuf_addch(&sb, '\n');
	}
	ah->excerpt = strbuf_detach(&sb, NULL);
}

static void describe_failure(const struct image *img, const struct diff_hunk *h,
			     struct apply_hunk *ah)
{
	struct hunk_near near;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	apply_hunk_near(img, h, &near);
	ah->near_found = near.found;
	ah->near_start = near.start;
	ah->near_end = near.end;
	ah->near_matched = near.matched;
	ah->near_total = near.total;
	ah->near = xcalloc(near.nr ? near.nr : 1, sizeof(*ah->near));
	for (i = 0; i < near.nr; i++) {
		ah->near[i].kind = near.lines[i].kind;
		ah->near[i].file_no = near.lines[i].file_no;
		ah->near[i].text = xstrndup(near.lines[i].text, near.lines[i].len);
	}
	ah->nr_near = near.nr;
	if (!img->nr)
		strbuf_addstr(&sb, "does not apply: the file is empty");
	else if (near.found && near.matched == near.total && near.gaps)
		strbuf_addf(&sb, "does not apply: its %d lines are at lines %d-%d "
			    "of the tree, with other lines among them",
			    near.total, near.start, near.end);
	else if (near.found && near.matched == near.total && near.loose)
		strbuf_addf(&sb, "does not apply: its lines are at lines %d-%d of "
			    "the tree, but %d of them differ in whitespace",
			    near.start, near.end, near.loose);
	else if (near.found && near.matched == near.total && near.at_end)
		strbuf_addf(&sb, "does not apply: its lines are at lines %d-%d of "
			    "the tree, but a hunk without trailing context must "
			    "apply at the end of the file", near.start, near.end);
	else if (near.found && near.matched == near.total && near.at_start)
		strbuf_addf(&sb, "does not apply: its lines are at lines %d-%d of "
			    "the tree, but a hunk starting at line 1 must apply "
			    "at the start of the file", near.start, near.end);
	else if (near.found && near.matched == near.total)
		strbuf_addf(&sb, "does not apply: its lines are at lines %d-%d of "
			    "the tree, but an earlier hunk changed some of them",
			    near.start, near.end);
	else if (near.found)
		strbuf_addf(&sb, "does not apply: closest match at lines %d-%d "
			    "of the tree (%d of %d expected lines found there%s)",
			    near.start, near.end, near.matched, near.total,
			    near.loose ? ", some with other whitespace" : "");
	else
		strbuf_addf(&sb, "does not apply: none of its lines are in the "
			    "file (%zu lines)", img->nr);
	ah->message = strbuf_detach(&sb, NULL);
	excerpt(h, ah);
	apply_hunk_near_release(&near);
}

static struct gitrepo_update *find_update(struct pctx *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nr_u; i++)
		if (!strcmp(c->u[i].path, path))
			return &c->u[i];
	return NULL;
}

static void add_update(struct pctx *c, const char *path, bool remove,
		       const struct gitoid *id, unsigned int mode)
{
	struct gitrepo_update *u = find_update(c, path);

	if (u) {
		/* a path removed (renamed away) and written again: keep the write */
		if (remove && !u->remove)
			return;
	} else {
		ALLOC_GROW(c->u, c->nr_u + 1, c->alloc_u);
		u = &c->u[c->nr_u++];
	}
	memset(u, 0, sizeof(*u));
	u->path = path;
	u->remove = remove;
	if (id)
		u->id = *id;
	u->mode = mode;
}

static bool removed_here(struct pctx *c, const char *path)
{
	struct gitrepo_update *u = find_update(c, path);

	return u && u->remove;
}

/*
 * May path be written?  No leading component may be a file or a
 * symbolic link, in the tree (unless this patch removes it) or written
 * by this patch.  0, 1 (recorded as a failure) or -errno.
 */
static int check_leading(struct pctx *c, const char *path)
{
	const char *slash;
	char *blocker = NULL;
	unsigned int mode = 0;
	int ret;

	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		char *prefix = xstrndup(path, slash - path);
		struct gitrepo_update *u = find_update(c, prefix);

		if (u && !u->remove) {
			file_fails(c, path, "'%s' is beyond a %s written by this patch ('%s')",
				   path, u->mode == GITMODE_LINK ? "symbolic link" : "file",
				   prefix);
			free(prefix);
			return 1;
		}
		free(prefix);
	}
	ret = gitrepo_tree_entry(c->r, c->tree, path, NULL, NULL, &blocker);
	if (ret != -ENOTDIR)
		return ret == -ENOENT || !ret ? 0 : ret;
	if (removed_here(c, blocker)) {
		free(blocker);
		return 0;
	}
	gitrepo_tree_entry(c->r, c->tree, blocker, NULL, &mode, NULL);
	file_fails(c, path, "'%s' is beyond a %s in the tree ('%s')", path,
		   mode == GITMODE_LINK ? "symbolic link" : "file", blocker);
	free(blocker);
	return 1;
}

/* The blob at path in the tree: 0, 1 (failure recorded) or -errno */
static int read_old(struct pctx *c, const char *path, struct gitoid *id,
		    unsigned int *mode)
{
	char *blocker = NULL;
	int ret = gitrepo_tree_entry(c->r, c->tree, path, id, mode, &blocker);

	if (ret == -ENOENT) {
		file_fails(c, path, "'%s' does not exist in the tree", path);
		return 1;
	}
	if (ret == -ENOTDIR) {
		unsigned int bmode = 0;

		gitrepo_tree_entry(c->r, c->tree, blocker, NULL, &bmode, NULL);
		file_fails(c, path, "'%s' is beyond a %s in the tree ('%s')", path,
			   bmode == GITMODE_LINK ? "symbolic link" : "file", blocker);
		free(blocker);
		return 1;
	}
	if (ret) {
		strbuf_addf(c->err, "cannot look up '%s'", path);
		return ret;
	}
	if (*mode == GITMODE_TREE) {
		file_fails(c, path, "'%s' is a directory in the tree", path);
		return 1;
	}
	if (*mode == GITMODE_GITLINK) {
		file_fails(c, path, "'%s' is a submodule in the tree", path);
		return 1;
	}
	return 0;
}

/* Does the tree already have path (and this patch does not remove it)? */
static bool exists(struct pctx *c, const char *path)
{
	struct gitrepo_update *u = find_update(c, path);

	if (u)
		return !u->remove;
	return !gitrepo_tree_entry(c->r, c->tree, path, NULL, NULL, NULL);
}

static bool mode_ok(unsigned int mode)
{
	return mode == GITMODE_FILE || mode == GITMODE_EXEC || mode == GITMODE_LINK;
}

/* "diff --git" section i of the patch text (for binary patches) */
static bool section(const char *text, size_t len, size_t i,
		    const char **start, size_t *slen)
{
	const char *p = text, *end = text + len, *s = NULL;
	size_t n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *next = nl ? nl + 1 : end;

		if ((size_t)(end - p) >= 11 && !memcmp(p, "diff --git ", 11)) {
			if (s) {
				*start = s;
				*slen = p - s;
				return true;
			}
			if (n++ == i)
				s = p;
		}
		p = next;
	}
	if (!s)
		return false;
	*start = s;
	*slen = end - s;
	return true;
}

static bool id_matches(const char *abbrev, const struct gitoid *id)
{
	char hex[GITOID_HEXSZ + 1];

	gitoid_hex(id, hex);
	return *abbrev && !strncmp(hex, abbrev, strlen(abbrev));
}

static bool id_known(const char *abbrev)
{
	return *abbrev && strspn(abbrev, "0") != strlen(abbrev);
}

static int apply_binary(struct pctx *c, size_t i, const char *path,
			const struct gitoid *old, unsigned int old_mode,
			struct gitoid *out)
{
	const struct diff_file *f = &c->d.files[i];
	const char *s;
	size_t slen;
	struct strbuf why = STRBUF_INIT;
	int ret;

	if (!section(c->in->p->diff, c->in->p->diff_len, i, &s, &slen) ||
	    !memmem(s, slen, "GIT binary patch", 16)) {
		file_fails(c, path, "binary patch without data for '%s' "
			   "(\"Binary files differ\"; send it with git format-patch --binary)",
			   path);
		return 1;
	}
	if (old && !id_matches(f->old_id, old)) {
		char hex[GITOID_HEXSZ + 1];

		gitoid_hex(old, hex);
		file_fails(c, path, "binary patch for '%s' is against blob %s; the tree has %.12s",
			   path, f->old_id, hex);
		return 1;
	}
	ret = gitrepo_apply_binary(c->r, f->old_path ? f->old_path : path, old,
				   old_mode, path, s, slen, out, &why);
	if (ret) {
		file_fails(c, path, "%s", why.buf);
		strbuf_release(&why);
		return 1;
	}
	strbuf_release(&why);
	return 0;
}

/*
 * Three-way merge for a file whose hunks did not all fit: the patch
 * applied to its own pre-image blob, merged with the tree's version.
 * 1 merged (content replaced), 0 not possible (note says why), -errno.
 */
static int three_way(struct pctx *c, const struct diff_file *f,
		     struct strbuf *content, struct strbuf *note)
{
	struct strbuf base = STRBUF_INIT, theirs = STRBUF_INIT, merged = STRBUF_INIT;
	struct image img;
	struct gitoid id;
	size_t j;
	int ret;

	if (!id_known(f->old_id)) {
		strbuf_addstr(note, "no pre-image blob named for a three-way merge");
		return 0;
	}
	ret = gitrepo_find_object(c->r, f->old_id, &id);
	if (ret) {
		strbuf_addf(note, "no three-way merge: pre-image blob %s is not "
			    "in the repository", f->old_id);
		return 0;
	}
	ret = gitrepo_blob_read(c->r, &id, &base, 0, c->err);
	if (ret)
		return ret;
	apply_image_init(&img, base.buf, base.len);
	for (j = 0; j < f->nr; j++) {
		struct hunk_fit fit;

		if (apply_image_hunk(&img, &f->hunks[j], -1, &fit))
			break;
	}
	if (j < f->nr) {
		strbuf_addf(note, "no three-way merge: the patch does not apply to "
			    "its own pre-image %s", f->old_id);
		ret = 0;
		goto out;
	}
	apply_image_write(&img, &theirs);
	ret = gitrepo_merge_contents(base.buf, base.len, content->buf, content->len,
				     theirs.buf, theirs.len, &merged, c->err);
	if (ret == 0)
		strbuf_addf(note, "three-way merge with pre-image %s has conflicts",
			    f->old_id);
	if (ret == 1) {
		strbuf_reset(content);
		strbuf_addbuf(content, &merged);
	}
out:
	apply_image_release(&img);
	strbuf_release(&base);
	strbuf_release(&theirs);
	strbuf_release(&merged);
	return ret;
}

/*
 * The hunks of f onto content (replaced by the result).  0 when all
 * applied (possibly by a three-way merge), 1 when some did not (each
 * recorded), -errno.
 */
static int apply_text(struct pctx *c, const struct diff_file *f, const char *path,
		      struct strbuf *content)
{
	struct strbuf out = STRBUF_INIT, note = STRBUF_INIT;
	size_t first = c->pr->nr_hunks, j, failed = 0;
	struct image img;
	int ret = 0;

	apply_image_init(&img, content->buf, content->len);
	for (j = 0; j < f->nr; j++) {
		const struct diff_hunk *h = &f->hunks[j];
		struct apply_hunk *ah = new_hunk(c->pr, path, h, (int)j + 1);
		struct hunk_fit fit;

		if (!apply_image_hunk(&img, h, c->o->min_context, &fit)) {
			ah->applied = true;
			ah->line = fit.line;
			ah->offset = fit.offset;
			ah->method = fit.reduced ? METHOD_FUZZ :
				fit.offset ? METHOD_OFFSET : METHOD_EXACT;
			continue;
		}
		ah->line = h->old_start;	/* as git apply's "patch failed: file:line" */
		describe_failure(&img, h, ah);
		failed++;
	}
	apply_image_write(&img, &out);
	apply_image_release(&img);
	if (failed && !c->o->no_3way) {
		/* the merge starts again from the tree's version */
		ret = three_way(c, f, content, &note);
		if (ret < 0)
			goto out;
		if (ret == 1) {
			for (j = first; j < c->pr->nr_hunks; j++) {
				struct apply_hunk *ah = &c->pr->hunks[j];

				if (ah->applied)
					continue;
				ah->applied = true;
				ah->method = METHOD_3WAY;
				free(ah->message);
				ah->message = xasprintf("applied by a three-way merge with "
							"pre-image %s", f->old_id);
			}
			ret = 0;
			goto out;
		}
	}
	if (failed) {
		for (j = first; j < c->pr->nr_hunks; j++) {
			struct apply_hunk *ah = &c->pr->hunks[j];

			if (!ah->applied && note.len) {
				char *m = xasprintf("%s; %s", ah->message, note.buf);

				free(ah->message);
				ah->message = m;
			}
		}
		c->pr->nr_failed += failed;
		ret = 1;
		goto out;
	}
	strbuf_reset(content);
	strbuf_addbuf(content, &out);
out:
	strbuf_release(&out);
	strbuf_release(&note);
	return ret;
}

/*
 * A symbolic link the patch writes at dst with this target: refused
 * (1) when it points out of the tree, else remembered for the checks
 * of what is written beyond it.
 */
static int check_link(struct pctx *c, const char *dst,
		      const struct strbuf *target)
{
	const char *why = apply_symlink_problem(dst, target->buf, target->len);

	if (why) {
		file_fails(c, dst, "refusing '%s': %s", dst, why);
		return 1;
	}
	ALLOC_GROW(c->links, c->nr_links + 1, c->alloc_links);
	c->links[c->nr_links++] = xstrdup(dst);
	return 0;
}

/* The same for a link whose target a binary patch wrote (as blob id) */
static int binary_link(struct pctx *c, const char *dst, const struct gitoid *id,
		       struct strbuf *target)
{
	struct strbuf e = STRBUF_INIT;
	int ret = gitrepo_blob_read(c->r, id, target, APPLY_PATH_MAX + 1, &e);

	if (ret == -EFBIG) {
		file_fails(c, dst, "refusing '%s': symbolic link too long", dst);
		ret = 1;
	} else if (ret) {
		strbuf_addbuf(c->err, &e);
	} else {
		ret = check_link(c, dst, target);
	}
	strbuf_release(&e);
	return ret;
}

static int apply_file(struct pctx *c, size_t i)
{
	const struct diff_file *f = &c->d.files[i];
	const char *src = f->old_path, *dst = f->new_path;
	const char *path = diff_file_path(f);
	struct strbuf content = STRBUF_INIT;
	struct gitoid old_id, new_id;
	unsigned int old_mode = 0, mode;
	bool has_old = f->status != DIFF_ADDED;
	bool has_new = f->status != DIFF_DELETED;
	int ret;

	if (f->old_mode == GITMODE_GITLINK || f->new_mode == GITMODE_GITLINK) {
		file_fails(c, path, "'%s': submodule changes are not supported", path);
		return 1;
	}
	if (has_new) {
		ret = check_leading(c, dst);
		if (ret)
			return ret;
	}
	if (has_old) {
		ret = read_old(c, src, &old_id, &old_mode);
		if (ret)
			return ret;
	}
	if (has_new && (!has_old || strcmp(src, dst)) && exists(c, dst)) {
		file_fails(c, dst, "'%s' already exists in the tree", dst);
		return 1;
	}
	mode = f->new_mode ? f->new_mode : old_mode ? old_mode : GITMODE_FILE;
	if (has_new && !mode_ok(mode)) {
		file_fails(c, dst, "'%s': unsupported file mode %o", dst, mode);
		return 1;
	}
	if (f->binary) {
		if (has_new) {
			ret = apply_binary(c, i, dst, has_old ? &old_id : NULL, old_mode,
					   &new_id);
			if (ret)
				return ret;
			/* a link is a link, however its target was sent */
			if (mode == GITMODE_LINK) {
				ret = binary_link(c, dst, &new_id, &content);
				if (ret)
					goto out;
			}
		} else if (!id_matches(f->old_id, &old_id)) {
			file_fails(c, src, "binary deletion of '%s' is for blob %s, "
				   "the tree has another", src, f->old_id);
			return 1;
		}
		c->binary = true;
		goto update;
	}
	if (has_old) {
		ret = gitrepo_blob_read(c->r, &old_id, &content, 0, c->err);
		if (ret)
			return ret;
	}
	if (f->nr) {
		ret = apply_text(c, f, has_new ? dst : src, &content);
		if (ret)
			goto out;
	}
	if (!has_new) {
		if (content.len) {
			file_fails(c, src, "deleting '%s' would leave lines the patch "
				   "does not remove", src);
			ret = 1;
		}
		goto update;
	}
	if (mode == GITMODE_LINK) {
		ret = check_link(c, dst, &content);
		if (ret)
			goto out;
	}
	ret = gitrepo_blob_write(c->r, content.buf, content.len, &new_id, c->err);
	if (ret)
		goto out;
update:
	if (ret)
		goto out;
	if (has_old && (!has_new || (strcmp(src, dst) && f->status != DIFF_COPIED)))
		add_update(c, src, true, NULL, 0);
	if (has_new)
		add_update(c, dst, false, &new_id, mode);
out:
	strbuf_release(&content);
	return ret;
}

/*
 * Follow the symbolic link at path through the new tree, symbolic links
 * in it included: NULL when it stays inside, else why not.
 */
static const char *link_escapes(struct pctx *c, const struct gitoid *tree,
				const char *path, struct strbuf *why)
{
	struct strbuf cur = STRBUF_INIT, todo = STRBUF_INIT, target = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	struct gitoid id;
	unsigned int mode;
	int hops = 0;
	const char *ret = NULL;

	if (slash)
		strbuf_add(&cur, path, slash - path);
	if (gitrepo_tree_entry(c->r, tree, path, &id, &mode, NULL) ||
	    gitrepo_blob_read(c->r, &id, &todo, 4096, why)) {
		ret = "cannot be read back";
		goto out;
	}
	while (todo.len) {
		char *p = todo.buf, *end = memchr(p, '/', todo.len);
		size_t n = end ? (size_t)(end - p) : todo.len;
		char *comp = xstrndup(p, n);

		memmove(todo.buf, p + n + (end ? 1 : 0), todo.len - n - (end ? 1 : 0));
		strbuf_setlen(&todo, todo.len - n - (end ? 1 : 0));
		if (!n || !strcmp(comp, ".")) {
			free(comp);
			continue;
		}
		if (!strcmp(comp, "..")) {
			char *up = strrchr(cur.buf, '/');

			free(comp);
			if (!cur.len) {
				ret = "symbolic link pointing outside the tree "
					"(through other symbolic links)";
				goto out;
			}
			strbuf_setlen(&cur, up ? (size_t)(up - cur.buf) : 0);
			continue;
		}
		{
			size_t keep = cur.len;

			if (cur.len)
				strbuf_addch(&cur, '/');
			strbuf_addstr(&cur, comp);
			free(comp);
			if (gitrepo_tree_entry(c->r, tree, cur.buf, &id, &mode, NULL) ||
			    mode != GITMODE_LINK)
				continue;
			if (++hops > LINK_MAX_HOPS) {
				ret = "too many levels of symbolic links";
				goto out;
			}
			if (gitrepo_blob_read(c->r, &id, &target, 4096, why) ||
			    !target.len || target.buf[0] == '/') {
				ret = "symbolic link pointing outside the tree "
					"(through other symbolic links)";
				goto out;
			}
			strbuf_setlen(&cur, keep);
			if (todo.len)
				strbuf_addch(&target, '/');
			strbuf_addbuf(&target, &todo);
			strbuf_reset(&todo);
			strbuf_addbuf(&todo, &target);
		}
	}
out:
	strbuf_release(&cur);
	strbuf_release(&todo);
	strbuf_release(&target);
	return ret;
}

static enum apply_method worst_method(const struct pctx *c)
{
	enum apply_method m = c->binary ? METHOD_BINARY : METHOD_EXACT;
	size_t i;

	for (i = 0; i < c->pr->nr_hunks; i++)
		if (c->pr->hunks[i].applied && c->pr->hunks[i].method > m)
			m = c->pr->hunks[i].method;
	return m;
}

static void summarize_failure(struct apply_patch *pr)
{
	size_t i, nfiles = 0;
	const char *last = NULL;
	const struct apply_hunk *first = NULL;

	for (i = 0; i < pr->nr_hunks; i++) {
		const struct apply_hunk *h = &pr->hunks[i];

		if (h->applied)
			continue;
		if (!first)
			first = h;
		if (!last || strcmp(last, h->file))
			nfiles++;
		last = h->file;
	}
	if (!first)
		return;
	if (!*first->file)
		pr->message = xstrdup(first->message);
	else if (first->header)
		pr->message = xasprintf("%s: hunk %s %s%s", first->file, first->header,
					first->message,
					pr->nr_failed > 1 ?
					" (and more failing hunks, see the list)" : "");
	else
		pr->message = xasprintf("%s%s", first->message, nfiles > 1 ?
					" (and more failures, see the list)" : "");
}

int apply_patch_tree(struct gitrepo *r, const struct apply_opts *o,
		     const struct gitoid *tree, const struct apply_input *in,
		     struct apply_patch *pr, struct gitoid *out,
		     struct strbuf *err)
{
	struct pctx c = { .r = r, .o = o, .tree = tree, .in = in, .pr = pr,
			  .err = err };
	struct strbuf why = STRBUF_INIT;
	const struct patch *p = in->p;
	const char *problem;
	size_t i;
	int ret = 0;

	pr->alone = -1;
	pr->status = APPLY_FAILED;
	if (!p) {
		file_fails(&c, "", "%s", in->missing ? in->missing : "patch not available");
		goto failed;
	}
	if (!p->diff || !p->diff_len) {
		file_fails(&c, "", "the message has no diff");
		goto failed;
	}
	if (o->max_patch_size && p->diff_len > o->max_patch_size) {
		file_fails(&c, "", "the diff is %zu bytes, more than apply.maxpatchsize "
			   "(%llu); refused", p->diff_len,
			   (unsigned long long)o->max_patch_size);
		goto failed;
	}
	/*
	 * the mail reader reads a NUL byte as U+FFFD: what would be
	 * committed, built and booted is not what was mailed (issue 38)
	 */
	if (p->diff_nul) {
		file_fails(&c, "", "refusing the patch: its diff has NUL bytes (read as "
			   "U+FFFD), so the tree tested would not be the tree mailed");
		goto failed;
	}
	problem = apply_budget_problem(p->diff, p->diff_len, o, &why);
	if (problem) {
		file_fails(&c, "", "refusing the patch: %s (%s)", problem, why.buf);
		goto failed;
	}
	problem = apply_header_problem(p->diff, p->diff_len, &why);
	if (problem) {
		file_fails(&c, "", "refusing the patch: %s in '%s'", problem, why.buf);
		goto failed;
	}
	if (diff_parse(p->diff, p->diff_len, &c.d, &why)) {
		file_fails(&c, "", "%s", why.buf);
		goto failed;
	}
	if (!c.d.nr) {
		file_fails(&c, "", "the diff changes no file");
		goto failed;
	}
	/* refuse the whole patch on one bad path, before anything is read */
	for (i = 0; i < c.d.nr; i++) {
		const char *paths[2] = { c.d.files[i].old_path, c.d.files[i].new_path };
		size_t k;

		for (k = 0; k < 2; k++) {
			problem = paths[k] ? apply_path_problem(paths[k]) : NULL;
			if (problem)
				file_fails(&c, paths[k], "refusing path '%s': %s",
					   paths[k], problem);
		}
	}
	if (pr->nr_failed)
		goto failed;
	for (i = 0; i < c.d.nr; i++) {
		ret = apply_file(&c, i);
		if (ret < 0)
			goto out;
	}
	ret = 0;
	if (pr->nr_failed)
		goto failed;
	ret = gitrepo_tree_update(r, tree, c.u, c.nr_u, out, err);
	if (ret)
		goto out;
	for (i = 0; i < c.nr_links; i++) {
		problem = link_escapes(&c, out, c.links[i], &why);
		if (problem)
			file_fails(&c, c.links[i], "refusing '%s': %s", c.links[i], problem);
	}
	if (pr->nr_failed)
		goto failed;
	pr->status = APPLY_APPLIED;
	pr->method = worst_method(&c);
	goto out;
failed:
	summarize_failure(pr);
	ret = 1;
out:
	for (i = 0; i < c.nr_links; i++)
		free(c.links[i]);
	free(c.links);
	free(c.u);
	diff_release(&c.d);
	strbuf_release(&why);
	return ret;
}
