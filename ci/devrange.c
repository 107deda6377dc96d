// SPDX-License-Identifier: GPL-2.0
/*
 * The range "lorebot check" checks in a developer's tree, and the series
 * of patch mails made from it (see devrange.h).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "ci/devrange.h"
#include "bot/git/gitcfg.h"

/* What b4 prep writes into its cover letter commits (b4/ez.py) */
#define B4_MARKER "--- b4-submit-tracking ---"
/* How far back b4 prep's cover letter commit is looked for */
#define B4_COVER_LOOKBACK 1000

void devrange_release(struct devrange *r)
{
	gitdev_release(&r->repo);
	gitdev_commits_release(&r->commits);
	free(r->desc);
	free(r->cover);
	free(r->prefixes);
	free(r->change_id);
	free(r->base_branch);
	memset(r, 0, sizeof(*r));
}

/* The commits hide..tip, a line of patches */
static int list_range(struct devrange *r, const char *hide, const char *tip,
		      struct strbuf *err)
{
	struct gitdev_commits *c = &r->commits;
	size_t i;

	if (gitdev_rev_list(&r->repo, hide, tip, DEVRANGE_MAX, c, err))
		return -1;
	if (!c->nr) {
		strbuf_addf(err, "no commits in %s: nothing to check", r->desc);
		return -1;
	}
	for (i = 0; i < c->nr; i++) {
		const struct gitdev_commit *gc = &c->v[i];

		if (gc->parents > 1) {
			strbuf_addf(err, "commit %.12s (\"%s\") in %s is a merge; "
				    "lorebot check takes a line of patches",
				    gc->id, gc->subject, r->desc);
			return -1;
		}
		if (!gc->parents) {
			strbuf_addf(err, "commit %.12s (\"%s\") in %s is a root commit; "
				    "there is nothing to apply it to", gc->id,
				    gc->subject, r->desc);
			return -1;
		}
	}
	for (i = 1; i < c->nr; i++) {
		if (strcmp(c->v[i].parent, c->v[i - 1].id)) {
			strbuf_addf(err, "%s is not a line of commits: %.12s does not "
				    "follow %.12s", r->desc, c->v[i].id, c->v[i - 1].id);
			return -1;
		}
	}
	memcpy(r->base, c->v[0].parent, sizeof(r->base));
	memcpy(r->tip, c->v[c->nr - 1].id, sizeof(r->tip));
	return 0;
}

static int from_spec(struct devrange *r, const char *spec, struct strbuf *err)
{
	const char *dots = strstr(spec, "..");
	char *left, *parent;
	const char *right;
	int ret;

	r->kind = DEVRANGE_SPEC;
	r->desc = xstrdup(spec);
	if (strstr(spec, "...")) {
		strbuf_addf(err, "'%s': A...B is not a line of patches; use A..B", spec);
		return -1;
	}
	if (!dots) {
		char id[41];

		/* one commit */
		if (gitdev_resolve(&r->repo, spec, id, err))
			return -1;
		parent = xasprintf("%s^", id);
		if (gitdev_resolve(&r->repo, parent, r->base, NULL)) {
			strbuf_addf(err, "commit %.12s is a root commit; there is "
				    "nothing to apply it to", id);
			free(parent);
			return -1;
		}
		ret = list_range(r, parent, id, err);
		free(parent);
		return ret;
	}
	left = dots == spec ? xstrdup("HEAD") : xstrndup(spec, dots - spec);
	right = dots[2] ? dots + 2 : "HEAD";
	ret = list_range(r, left, right, err);
	free(left);
	return ret;
}

/* b4 prep's data about the current branch (branch.<name>.*, b4.*) */
struct b4_cfg {
	const char *branch;
	size_t blen;
	char *strategy;		/* branch.<name>.b4-prep-cover-strategy */
	char *default_strategy;	/* b4.prep-cover-strategy */
	char *tracking;		/* branch.<name>.b4-tracking */
	char *description;	/* branch.<name>.description */
};

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v ? v : "");
}

static int b4_cfg_cb(const char *name, const char *value, void *data)
{
	struct b4_cfg *b = data;
	const char *key;

	if (!strcmp(name, "b4.prep-cover-strategy")) {
		set_str(&b->default_strategy, value);
		return 0;
	}
	if (strncmp(name, "branch.", 7) || strncmp(name + 7, b->branch, b->blen) ||
	    name[7 + b->blen] != '.')
		return 0;
	key = name + 7 + b->blen + 1;
	if (!strcmp(key, "b4-prep-cover-strategy"))
		set_str(&b->strategy, value);
	else if (!strcmp(key, "b4-tracking"))
		set_str(&b->tracking, value);
	else if (!strcmp(key, "description"))
		set_str(&b->description, value);
	return 0;
}

static void b4_cfg_release(struct b4_cfg *b)
{
	free(b->strategy);
	free(b->default_strategy);
	free(b->tracking);
	free(b->description);
}

/* The cover letter as b4 sends it: "#" lines gone, no runs of blank lines */
static char *clean_cover(const char *text, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = text, *end = text + len;
	int blank = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (*p != '#') {
			bool empty = strspn(p, " \t") >= n;

			if (empty) {
				blank++;
			} else {
				if (sb.len)
					strbuf_addchars(&sb, '\n', blank ? 2 : 1);
				strbuf_add(&sb, p, n);
				blank = 0;
			}
		}
		p += n + 1;
	}
	strbuf_rtrim(&sb);
	return strbuf_detach(&sb, NULL);
}

static int read_tracking(struct devrange *r, const char *json, struct strbuf *err)
{
	json_object *t = json_tokener_parse(json), *series, *v;

	if (!t || !json_object_object_get_ex(t, "series", &series)) {
		strbuf_addstr(err, "b4's tracking data of the branch cannot be read");
		json_object_put(t);
		return -1;
	}
	if (json_object_object_get_ex(series, "revision", &v))
		r->revision = json_object_get_int(v);
	if (json_object_object_get_ex(series, "change-id", &v) &&
	    json_object_is_type(v, json_type_string))
		r->change_id = xstrdup(json_object_get_string(v));
	if (json_object_object_get_ex(series, "prefixes", &v) &&
	    json_object_is_type(v, json_type_array)) {
		struct strbuf sb = STRBUF_INIT;
		size_t i;

		for (i = 0; i < json_object_array_length(v); i++) {
			const char *s = json_object_get_string(json_object_array_get_idx(v, i));

			if (s && *s)
				strbuf_addf(&sb, "%s%s", sb.len ? " " : "", s);
		}
		r->prefixes = sb.len ? strbuf_detach(&sb, NULL) : NULL;
		strbuf_release(&sb);
	}
	/* the branch the series forked from, for the strategies that need it */
	if (json_object_object_get_ex(series, "base-branch", &v) &&
	    json_object_is_type(v, json_type_string))
		r->base_branch = xstrdup(json_object_get_string(v));
	json_object_put(t);
	return 0;
}

/* A cover letter commit: the letter before b4's marker, tracking after */
static int read_cover_commit(struct devrange *r, const char *id, struct strbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	const char *mark, *json;
	int ret = -1;

	gitdev_message(&r->repo, id, &msg);
	mark = strstr(msg.buf, B4_MARKER);
	json = mark ? strchr(mark, '{') : NULL;
	if (!json) {
		strbuf_addf(err, "b4's cover letter commit %.12s has no tracking data", id);
		goto out;
	}
	r->cover = clean_cover(msg.buf, mark - msg.buf);
	ret = read_tracking(r, json, err);
out:
	strbuf_release(&msg);
	return ret;
}

/* The fork point of the branch from its base branch (b4's series start) */
static int fork_point(struct devrange *r, const char *tip, char out[41],
		      struct strbuf *err)
{
	const char *base = r->base_branch;

	if (!base || !*base) {
		strbuf_addstr(err, "b4's tracking data names no base branch");
		return -1;
	}
	if (gitdev_merge_base(&r->repo, base, tip, out)) {
		strbuf_addf(err, "b4's base branch '%s' has nothing in common with %s",
			    base, tip);
		return -1;
	}
	return 0;
}

/*
 * A b4 prep branch: 1 when it is one (range found, or -1 on error with
 * err), 0 when it is not.
 */
static int from_b4(struct devrange *r, struct strbuf *err)
{
	struct b4_cfg b = { .branch = r->repo.branch };
	const char *strategy;
	char cover[41], start[41];
	char *hide = NULL, *tip = NULL;
	int ret = -1;

	if (!r->repo.branch)
		return 0;
	b.blen = strlen(b.branch);
	if (gitcfg_read_default(r->repo.gitdir, b4_cfg_cb, &b, err))
		goto out;
	if (!b.strategy && !b.tracking) {
		ret = 0;
		goto out;
	}
	strategy = b.strategy ? b.strategy :
		   b.default_strategy ? b.default_strategy : "commit";
	r->kind = DEVRANGE_B4;
	if (!strcmp(strategy, "commit")) {
		if (gitdev_find_message(&r->repo, "HEAD", B4_MARKER,
					B4_COVER_LOOKBACK, cover)) {
			strbuf_addf(err, "b4 prep branch '%s' has no cover letter commit "
				    "(b4's \"%s\" marker)", b.branch, B4_MARKER);
			goto out;
		}
		if (read_cover_commit(r, cover, err))
			goto out;
		hide = xstrdup(cover);
		tip = xstrdup("HEAD");
	} else if (!strcmp(strategy, "tip-commit")) {
		if (gitdev_find_message(&r->repo, "HEAD", B4_MARKER, 1, cover)) {
			strbuf_addf(err, "b4 prep branch '%s' has no cover letter at its tip",
				    b.branch);
			goto out;
		}
		if (read_cover_commit(r, cover, err) ||
		    fork_point(r, "HEAD~1", start, err))
			goto out;
		hide = xstrdup(start);
		tip = xstrdup("HEAD~1");
	} else if (!strcmp(strategy, "branch-description")) {
		if (!b.tracking) {
			strbuf_addf(err, "b4 prep branch '%s' has no b4-tracking data",
				    b.branch);
			goto out;
		}
		if (read_tracking(r, b.tracking, err) || fork_point(r, "HEAD", start, err))
			goto out;
		r->cover = clean_cover(b.description ? b.description : "",
				       b.description ? strlen(b.description) : 0);
		hide = xstrdup(start);
		tip = xstrdup("HEAD");
	} else {
		strbuf_addf(err, "b4 prep branch '%s': unknown cover strategy '%s'",
			    b.branch, strategy);
		goto out;
	}
	free(r->desc);
	r->desc = r->revision > 1 ?
		xasprintf("%s (b4 prep, v%d)", b.branch, r->revision) :
		xasprintf("%s (b4 prep)", b.branch);
	ret = list_range(r, hide, tip, err) ? -1 : 1;
	if (ret > 0 && !strcmp(strategy, "commit")) {
		/* the cover letter commit is empty: the base is its parent */
		char *parent = xasprintf("%s^", cover);

		gitdev_resolve(&r->repo, parent, r->base, NULL);
		free(parent);
	}
out:
	if (ret < 0 && r->kind == DEVRANGE_B4 && !strstr(err->buf, "b4"))
		strbuf_addf(err, " (b4 prep branch '%s')", b.branch);
	free(hide);
	free(tip);
	b4_cfg_release(&b);
	return ret;
}

/* The upstream a hint names: a branch this clone has, mm's first */
static const char *hint_upstream(struct devrange *r)
{
	static const char *const guesses[] = {
		"origin/mm-new", "origin/mm-unstable", "origin/mm-stable",
		"origin/master", "origin/main",
	};
	char oid[41];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(guesses); i++)
		if (!gitdev_resolve(&r->repo, guesses[i], oid, NULL))
			return guesses[i];
	return "<remote>/<branch>";
}

static int from_upstream(struct devrange *r, struct strbuf *err)
{
	struct strbuf up = STRBUF_INIT;
	int ret;

	r->kind = DEVRANGE_UPSTREAM;
	if (!r->repo.branch) {
		strbuf_addf(err, "HEAD is detached: name a range "
			    "('lorebot check %s..HEAD')", hint_upstream(r));
		return -1;
	}
	if (gitdev_upstream(&r->repo, r->repo.branch, &up)) {
		const char *h = hint_upstream(r);

		strbuf_addf(err, "branch '%s' has no upstream: name a range "
			    "('lorebot check %s..') or set one "
			    "('git branch --set-upstream-to=%s')",
			    r->repo.branch, h, h);
		strbuf_release(&up);
		return -1;
	}
	r->desc = xasprintf("%s..%s", up.buf, r->repo.branch);
	ret = list_range(r, up.buf, "HEAD", err);
	strbuf_release(&up);
	return ret;
}

int devrange_find(struct devrange *r, const char *dir, const char *spec,
		  struct strbuf *err)
{
	int ret;

	if (gitdev_open(&r->repo, dir, err))
		return -1;
	if (spec)
		return from_spec(r, spec, err);
	if (!r->repo.head[0]) {
		strbuf_addf(err, "branch '%s' has no commits yet",
			    r->repo.branch ? r->repo.branch : "HEAD");
		return -1;
	}
	ret = from_b4(r, err);
	if (ret)
		return ret < 0 ? -1 : 0;
	return from_upstream(r, err);
}

/* "RFC PATCH v2 3/5" */
static void tags(const struct devrange *r, int n, int total, struct strbuf *sb)
{
	if (r->prefixes)
		strbuf_addf(sb, "%s ", r->prefixes);
	strbuf_addstr(sb, "PATCH");
	if (r->revision > 1)
		strbuf_addf(sb, " v%d", r->revision);
	if (total > 1)
		strbuf_addf(sb, " %d/%d", n, total);
}

static int add_cover(struct devrange *r, struct check_series *s, int total,
		     struct strbuf *err)
{
	struct strbuf mail = STRBUF_INIT, name = STRBUF_INIT, email = STRBUF_INIT;
	struct strbuf t = STRBUF_INIT;
	const char *title = r->cover, *body = strchr(r->cover, '\n');
	struct check_patch *p;

	if (gitdev_identity(&r->repo, &name, &email)) {
		strbuf_addstr(&name, s->author_name ? s->author_name : "");
		strbuf_addstr(&email, s->author_email ? s->author_email : "");
	}
	tags(r, 0, total, &t);
	strbuf_addf(&mail, "From: %s <%s>\nSubject: [%s] %.*s\n\n", name.buf,
		    email.buf, t.buf, body ? (int)(body - title) : (int)strlen(title),
		    title);
	if (body) {
		while (*body == '\n')
			body++;
		strbuf_addstr(&mail, body);
		strbuf_complete_line(&mail);
	}
	strbuf_addf(&mail, "\n---\nbase-commit: %s\n", r->base);
	if (r->change_id)
		strbuf_addf(&mail, "change-id: %s\n", r->change_id);
	p = check_patch_from_raw(mail.buf, mail.len, err);
	if (p) {
		p->n = 0;
		check_series_add(s, p);
	}
	strbuf_release(&mail);
	strbuf_release(&name);
	strbuf_release(&email);
	strbuf_release(&t);
	return p ? 0 : -1;
}

int devrange_series(struct devrange *r, struct check_series *s,
		    struct strbuf *err)
{
	struct strbuf mail = STRBUF_INIT, t = STRBUF_INIT;
	int total = 0, n = 0;
	size_t i;

	for (i = 0; i < r->commits.nr; i++)
		total += !r->commits.v[i].empty;
	if (!total) {
		strbuf_addf(err, "the commits of %s change nothing", r->desc);
		return -1;
	}
	for (i = 0; i < r->commits.nr; i++) {
		const struct gitdev_commit *gc = &r->commits.v[i];
		struct check_patch *p;

		if (gc->empty)
			continue;
		strbuf_reset(&mail);
		strbuf_reset(&t);
		tags(r, ++n, total, &t);
		if (gitdev_format_patch(&r->repo, gc->id, t.buf, &mail, err))
			goto fail;
		p = check_patch_from_raw(mail.buf, mail.len, err);
		if (!p) {
			strbuf_addf(err, " (commit %.12s)", gc->id);
			goto fail;
		}
		p->n = n;
		p->pre_rev = xstrdup(gc->parent);
		p->post_rev = xstrdup(gc->id);
		check_series_add(s, p);
	}
	s->total = total;
	s->version = r->revision > 1 ? r->revision : 1;
	s->base_rev = xstrdup(r->base);
	/* the developer's own repository and upstream: theirs to trust */
	s->trusted_rev = xstrdup(r->base);
	if (r->kind == DEVRANGE_B4)
		s->base_commit = xstrdup(r->base);
	if (r->cover && *r->cover && total > 1 && add_cover(r, s, total, err))
		goto fail;
	strbuf_release(&mail);
	strbuf_release(&t);
	return 0;
fail:
	strbuf_release(&mail);
	strbuf_release(&t);
	return -1;
}
