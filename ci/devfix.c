// SPDX-License-Identifier: GPL-2.0
/*
 * lorebot check --fix and --fix --apply (see devfix.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "ci/devfix.h"

#define FIX_RULE "one-line-args"

struct file_state {
	char *path;
	struct strbuf text;
	int delta;		/* lines removed so far (packing only removes) */
	bool missing;		/* not in the tip of the range */
};

struct states {
	struct file_state *v;
	size_t nr, alloc;
};

static struct file_state *state_of(struct states *st, struct devrange *r,
				   const char *path)
{
	struct file_state *fs;
	size_t i;

	for (i = 0; i < st->nr; i++)
		if (!strcmp(st->v[i].path, path))
			return &st->v[i];
	ALLOC_GROW(st->v, st->nr + 1, st->alloc);
	fs = &st->v[st->nr++];
	fs->path = xstrdup(path);
	strbuf_init(&fs->text, 0);
	fs->delta = 0;
	fs->missing = gitdev_read_file(&r->repo, r->tip, path, &fs->text) != 0;
	return fs;
}

static int count_lines(const char *s, size_t len)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

/*
 * Where quote starts at the beginning of a line of text, nearest to line
 * want (1-based): its offset, or -1.
 */
static long find_quote(const struct strbuf *text, const char *quote, int want)
{
	size_t qlen = strlen(quote);
	const char *p = text->buf, *end = text->buf + text->len;
	long best = -1;
	int best_dist = 0, line = 1;
	const char *counted = text->buf;

	while (qlen && (p = memmem(p, end - p, quote, qlen))) {
		if (p == text->buf || p[-1] == '\n') {
			int dist;

			line += count_lines(counted, p - counted);
			counted = p;
			dist = abs(line - want);
			if (best < 0 || dist < best_dist) {
				best = p - text->buf;
				best_dist = dist;
			}
		}
		p++;
	}
	return best;
}

static struct devfix_edit *edit_for(struct devfix *fx, int patch,
				    const struct file_state *fs)
{
	struct devfix_edit *e;
	size_t i;

	for (i = 0; i < fx->nr; i++)
		if (fx->v[i].patch == patch && !strcmp(fx->v[i].path, fs->path))
			return &fx->v[i];
	ALLOC_GROW(fx->v, fx->nr + 1, fx->alloc);
	e = &fx->v[fx->nr++];
	memset(e, 0, sizeof(*e));
	e->patch = patch;
	e->path = xstrdup(fs->path);
	e->old = xstrndup(fs->text.buf, fs->text.len);
	e->old_len = fs->text.len;
	return e;
}

static void apply_one(struct devfix *fx, struct states *st, struct devrange *r,
		      const struct finding *f)
{
	struct file_state *fs = state_of(st, r, f->file);
	struct strbuf next = STRBUF_INIT;
	struct devfix_edit *e;
	size_t qlen = strlen(f->quote);
	long at;

	if (fs->missing) {
		strbuf_addf(&fx->skipped, "%s:%d: the file is not in %.12s; not packed\n",
			    f->file, f->line, r->tip);
		return;
	}
	at = find_quote(&fs->text, f->quote, f->line - fs->delta);
	if (at < 0) {
		strbuf_addf(&fx->skipped, "%s:%d: a later patch changed the prototype; "
			    "not packed\n", f->file, f->line);
		return;
	}
	/* the edit starts from the file as it is before this prototype */
	e = edit_for(fx, f->patch, fs);
	strbuf_add(&next, fs->text.buf, at);
	strbuf_addstr(&next, f->suggestion);
	strbuf_complete_line(&next);
	strbuf_add(&next, fs->text.buf + at + qlen, fs->text.len - at - qlen);
	fs->delta += count_lines(f->quote, qlen) - count_lines(f->suggestion,
							       strlen(f->suggestion)) - 1;
	strbuf_release(&fs->text);
	fs->text = next;
	free(e->new);
	e->new = xstrndup(fs->text.buf, fs->text.len);
	e->new_len = fs->text.len;
	e->count++;
}

int devfix_prepare(struct devfix *fx, struct devrange *r,
		   const struct check_series *s, const struct findings *f,
		   struct strbuf *err)
{
	struct states st = { 0 };
	size_t i;

	(void)s;
	(void)err;
	for (i = 0; i < f->nr; i++) {
		const struct finding *x = &f->v[i];

		if (strcmp(x->rule, FIX_RULE) || x->preexisting || !x->file ||
		    !x->quote || !x->suggestion)
			continue;
		apply_one(fx, &st, r, x);
	}
	for (i = 0; i < st.nr; i++) {
		free(st.v[i].path);
		strbuf_release(&st.v[i].text);
	}
	free(st.v);
	return 0;
}

void devfix_release(struct devfix *fx)
{
	size_t i;

	for (i = 0; i < fx->nr; i++) {
		free(fx->v[i].path);
		free(fx->v[i].old);
		free(fx->v[i].new);
	}
	free(fx->v);
	strbuf_release(&fx->skipped);
	memset(fx, 0, sizeof(*fx));
}

static const struct check_patch *patch_n(const struct check_series *s, int n)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->patches[i]->n == n)
			return s->patches[i];
	return NULL;
}

/* The subject of the commit of patch n, as "fixup!" wants it */
static const char *commit_subject(const struct devrange *r,
				  const struct check_series *s, int n)
{
	const struct check_patch *p = patch_n(s, n);
	size_t i;

	for (i = 0; p && p->post_rev && i < r->commits.nr; i++)
		if (!strcmp(r->commits.v[i].id, p->post_rev))
			return r->commits.v[i].subject;
	return NULL;
}

static int group_count(const struct devfix *fx, size_t first, size_t *end)
{
	int n = 0;
	size_t i;

	for (i = first; i < fx->nr && fx->v[i].patch == fx->v[first].patch; i++)
		n += fx->v[i].count;
	*end = i;
	return n;
}

void devfix_diff(const struct devfix *fx, const struct check_series *s,
		 struct strbuf *out)
{
	size_t i, end, k;

	for (i = 0; i < fx->nr; i = end) {
		const struct check_patch *p = patch_n(s, fx->v[i].patch);
		int n = group_count(fx, i, &end);

		strbuf_addf(out, "# %s\n# %s: %d prototype%s packed\n",
			    p ? p->subject : "?", FIX_RULE, n, n == 1 ? "" : "s");
		for (k = i; k < end; k++)
			gitdev_diff_text(fx->v[k].path, fx->v[k].old, fx->v[k].old_len,
					 fx->v[k].new, fx->v[k].new_len, out);
	}
}

static int check_clean(struct devfix *fx, struct devrange *r, struct strbuf *err)
{
	const char **paths = xcalloc(fx->nr + 1, sizeof(*paths));
	struct strbuf which = STRBUF_INIT;
	size_t i, n = 0;
	int ret;

	for (i = 0; i < fx->nr; i++)
		paths[n++] = fx->v[i].path;
	ret = gitdev_changed(&r->repo, paths, n, &which, err);
	if (ret > 0) {
		strbuf_rtrim(&which);
		for (i = 0; i < which.len; i++)
			if (which.buf[i] == '\n')
				which.buf[i] = ' ';
		strbuf_addf(err, "the index or the work tree has changes to %s; "
			    "commit or stash them first", which.buf);
	}
	strbuf_release(&which);
	free(paths);
	return ret ? -1 : 0;
}

int devfix_apply(struct devfix *fx, struct devrange *r,
		 const struct check_series *s, struct strbuf *done,
		 struct strbuf *err)
{
	size_t i, end, k;

	if (!fx->nr)
		return 0;
	if (!r->repo.workdir) {
		strbuf_addf(err, "'%s' is a bare repository", r->repo.gitdir);
		return -1;
	}
	if (!r->repo.branch) {
		strbuf_addstr(err, "HEAD is detached; --apply adds its fixups on top of "
			      "a branch");
		return -1;
	}
	if (strcmp(r->tip, r->repo.head)) {
		strbuf_addf(err, "%s does not end at the tip of the current branch; "
			    "--apply adds its fixups on top of the branch it checks",
			    r->desc);
		return -1;
	}
	if (check_clean(fx, r, err))
		return -1;
	for (i = 0; i < fx->nr; i = end) {
		const char *subject = commit_subject(r, s, fx->v[i].patch);
		int n = group_count(fx, i, &end);
		struct gitdev_file *files = xcalloc(end - i, sizeof(*files));
		char *msg, id[41];
		int ret;

		for (k = i; k < end; k++) {
			files[k - i].path = fx->v[k].path;
			files[k - i].data = fx->v[k].new;
			files[k - i].len = fx->v[k].new_len;
		}
		msg = xasprintf("fixup! %s\n\nPack the parameters of %d prototype%s onto as "
				"few lines as fit\n(lorebot check --fix: %s).\n",
				subject ? subject : "?", n, n == 1 ? "" : "s",
				FIX_RULE);
		ret = gitdev_commit_files(&r->repo, files, end - i, msg, id, err);
		if (!ret)
			strbuf_addf(done, "%.12s fixup! %s\n", id, subject ? subject : "?");
		free(msg);
		free(files);
		if (ret)
			return -1;
	}
	return 0;
}
