// SPDX-License-Identifier: GPL-2.0
/*
 * lorebot check in a developer's tree (see devcheck.h).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci/devcheck.h"
#include "ci/devfix.h"
#include "ci/devrange.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "bot/series/series-out.h"
#include "checkers/pattern.h"

/*
 * Delayed progress on stderr (lib/log.h's log_progress(): a terminal, or
 * --progress): nothing for work that ends within a second
 * (LOREBOT_PROGRESS_DELAY_MS changes the second).
 */
static uint64_t progress_t0, progress_delay = 1000;

static void check_progress_start(void)
{
	const char *d = getenv("LOREBOT_PROGRESS_DELAY_MS");

	progress_t0 = util_now_ms();
	if (d && *d)
		progress_delay = strtoull(d, NULL, 10);
}

static void check_progress(const char *fmt, ...) PRINTF(1, 2);

static void check_progress(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (util_now_ms() - progress_t0 < progress_delay)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	log_progress("lorebot: %s (%.1f s)", sb.buf, (util_now_ms() - progress_t0) / 1000.0);
	strbuf_release(&sb);
}

/* The checkers read the commits through the open repository */
static int tree_read(struct check_tree *t, const char *rev, const char *path,
		     struct strbuf *out)
{
	return gitdev_read_file(t->data, rev, path, out);
}

static int tree_commit(struct check_tree *t, const char *id, struct strbuf *out)
{
	return gitdev_subject(t->data, id, out);
}

static int tree_walk(struct check_tree *t, const char *rev, struct git_walk *w)
{
	return gitdev_walk_dir(t->data, rev, w);
}

static const char *const kind_names[] = {
	[DEVRANGE_UPSTREAM] = "upstream",
	[DEVRANGE_B4] = "b4",
	[DEVRANGE_SPEC] = "range",
};

static json_object *range_json(const struct devrange *r, const struct check_series *s)
{
	json_object *o = json_object_new_object(), *c = json_object_new_array();
	size_t i;

	json_object_object_add(o, "desc", json_object_new_string(r->desc));
	json_object_object_add(o, "kind", json_object_new_string(kind_names[r->kind]));
	json_object_object_add(o, "base", json_object_new_string(r->base));
	json_object_object_add(o, "tip", json_object_new_string(r->tip));
	json_object_object_add(o, "branch", jx_new_str(r->repo.branch));
	for (i = 0; i < r->commits.nr; i++)
		json_object_array_add(c, json_object_new_string(r->commits.v[i].id));
	json_object_object_add(o, "commits", c);
	json_object_object_add(o, "cover_letter", json_object_new_boolean(s->cover != NULL));
	return o;
}

/* The JSON of lorebot check --mbox, with the range and commit ids */
static json_object *result_json(const struct devrange *r, const struct check_series *s,
				const struct findings *f)
{
	json_object *all = json_object_new_object(), *series = json_object_new_array();
	json_object *j = findings_to_json(f, s), *fa, *pa;
	size_t i;

	fa = json_object_get(json_object_object_get(j, "findings"));
	for (i = 0; i < json_object_array_length(fa); i++)
		json_object_object_add(json_object_array_get_idx(fa, i), "series",
				       json_object_new_int(0));
	json_object_object_del(j, "findings");
	pa = json_object_object_get(j, "patches");
	for (i = 0; i < json_object_array_length(pa) && i < s->nr; i++)
		json_object_object_add(json_object_array_get_idx(pa, i), "commit",
				       json_object_new_string(s->patches[i]->post_rev));
	json_object_object_add(j, "title", json_object_new_string(r->desc));
	json_object_array_add(series, j);
	json_object_object_add(all, "range", range_json(r, s));
	json_object_object_add(all, "findings", fa);
	json_object_object_add(all, "series", series);
	return all;
}

static enum devcheck_result run_ci(const struct devcheck_opts *d,
				   const struct devrange *r, const struct config *cfg,
				   struct findings *f)
{
	struct strbuf missing = STRBUF_INIT, err = STRBUF_INIT;
	const char **ids = xcalloc(r->commits.nr + 1, sizeof(*ids));
	const char **subjects = xcalloc(r->commits.nr + 1, sizeof(*subjects));
	struct devci_range dr = { .git_dir = r->repo.gitdir, .base = r->base,
				  .commits = ids, .subjects = subjects,
				  .desc = r->desc };
	size_t i;
	enum devcheck_result ret = DEVCHECK_CLEAN;

	if (devci_check_tools(&d->ci, &missing)) {
		fprintf(stderr, "lorebot check: cannot build or boot here:\n%s", missing.buf);
		ret = DEVCHECK_INFRA;
		goto out;
	}
	for (i = 0; i < r->commits.nr; i++) {
		if (r->commits.v[i].empty)
			continue;
		ids[dr.nr] = r->commits.v[i].id;
		subjects[dr.nr++] = r->commits.v[i].subject;
	}
	if (devci_run(&dr, &d->ci, cfg, f, &err)) {
		fprintf(stderr, "lorebot check: --%s: %s\n", d->ci.nr_boot ? "boot" : "build",
			err.buf);
		ret = DEVCHECK_INFRA;
	}
out:
	free(ids);
	free(subjects);
	strbuf_release(&missing);
	strbuf_release(&err);
	return ret;
}

static enum devcheck_result do_fix(const struct devcheck_opts *d, struct devrange *r,
				   const struct check_series *s,
				   const struct findings *f, json_object *json)
{
	struct devfix fx = DEVFIX_INIT;
	struct strbuf diff = STRBUF_INIT, done = STRBUF_INIT, err = STRBUF_INIT;
	enum devcheck_result ret = DEVCHECK_CLEAN;

	devfix_prepare(&fx, r, s, f, &err);
	devfix_diff(&fx, s, &diff);
	if (fx.skipped.len)
		fprintf(stderr, "%s", fx.skipped.buf);
	if (d->apply && devfix_apply(&fx, r, s, &done, &err)) {
		fprintf(stderr, "lorebot check: --apply: %s\n", err.buf);
		ret = DEVCHECK_REFUSED;
	}
	if (json) {
		json_object_object_add(json, "fix", json_object_new_string(diff.buf));
		if (d->apply)
			json_object_object_add(json, "applied",
					       json_object_new_string(done.buf));
	} else {
		if (!fx.nr)
			printf("\n# no one-line-args fixes\n");
		else if (!d->apply)
			printf("\n%s", diff.buf);
		if (done.len)
			printf("\n%s", done.buf);
	}
	if (done.len && !d->json)
		fprintf(stderr, "lorebot check: committed on '%s'; fold the fixups into "
			"their patches with 'git rebase -i --autosquash %.12s'\n",
			r->repo.branch, r->base);
	devfix_release(&fx);
	strbuf_release(&diff);
	strbuf_release(&done);
	strbuf_release(&err);
	return ret;
}

/*
 * The path from the current directory to the repository's path, as gcc
 * run there would print it ("madvise.c" in mm/, "../include/x.h"), so
 * that vim -q and an editor's error list find the files; NULL when the
 * current directory is the top or outside the work tree.
 */
static char *from_cwd(const char *workdir, const char *path)
{
	char *cwd = realpath(".", NULL), *top = workdir ? realpath(workdir, NULL) : NULL;
	const char *sub;
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	if (!cwd || !top || !util_starts_with(cwd, top) ||
	    (cwd[strlen(top)] && cwd[strlen(top)] != '/') || !cwd[strlen(top)]) {
		free(cwd);
		free(top);
		return NULL;
	}
	sub = cwd + strlen(top) + 1;	/* "mm" or "mm/damon" */
	/* the leading directories both share */
	while (*sub) {
		n = strcspn(sub, "/");
		if (strncmp(path, sub, n) || path[n] != '/')
			break;
		path += n + 1;
		sub += n;
		if (*sub == '/')
			sub++;
	}
	/* one "../" for each directory of the current one left */
	while (*sub) {
		strbuf_addstr(&sb, "../");
		sub += strcspn(sub, "/");
		if (*sub)
			sub++;
	}
	strbuf_addstr(&sb, path);
	free(cwd);
	free(top);
	return strbuf_detach(&sb, NULL);
}

/* findings_print() with paths as seen from the current directory */
static void print_from_cwd(const struct findings *f, const struct check_series *s,
			   const char *workdir, bool color)
{
	struct findings v = { .nr = f->nr };
	char **mine = xcalloc(f->nr + 1, sizeof(*mine));
	size_t i;

	v.v = xcalloc(f->nr + 1, sizeof(*v.v));
	if (f->nr)
		memcpy(v.v, f->v, f->nr * sizeof(*v.v));
	for (i = 0; i < f->nr; i++) {
		if (v.v[i].file && (mine[i] = from_cwd(workdir, v.v[i].file)))
			v.v[i].file = mine[i];
	}
	findings_print(&v, s, stdout, color);
	for (i = 0; i < f->nr; i++)
		free(mine[i]);
	free(mine);
	free(v.v);
}

enum devcheck_result devcheck_run(const struct devcheck_opts *d,
				  const struct check_opts *o, const struct config *cfg)
{
	struct devrange r = DEVRANGE_INIT;
	struct check_series s = CHECK_SERIES_INIT;
	struct findings f = FINDINGS_INIT;
	struct strbuf err = STRBUF_INIT;
	struct check_tree tree = { .read = tree_read, .commit = tree_commit,
				   .walk = tree_walk };
	json_object *json = NULL;
	enum devcheck_result ret = DEVCHECK_REFUSED, r2;

	check_progress_start();
	if (devrange_find(&r, d->dir, d->range, &err)) {
		fprintf(stderr, "lorebot check: %s\n", err.buf);
		goto out;
	}
	if (devci_wanted(&d->ci)) {
		ret = run_ci(d, &r, cfg, &f);
		if (ret)
			goto out;
	}
	check_progress("reading %zu commit%s of %s", r.commits.nr,
		       r.commits.nr == 1 ? "" : "s", r.desc);
	if (devrange_series(&r, &s, &err)) {
		fprintf(stderr, "lorebot check: %s\n", err.buf);
		goto out;
	}
	tree.name = r.repo.gitdir;
	tree.checkpatch_gitdir = r.repo.gitdir;
	tree.data = &r.repo;
	s.tree = &tree;
	check_progress("checking %zu patch%s of %s", s.nr, s.nr == 1 ? "" : "es",
		       r.desc);
	check_run(&s, o, &f);
	check_progress("checked %zu patch%s", s.nr, s.nr == 1 ? "" : "es");
	ret = check_findings_at_least(&f, o->fail_on) ? DEVCHECK_FINDINGS : DEVCHECK_CLEAN;
	if (d->json) {
		json = result_json(&r, &s, &f);
	} else {
		printf("%s== %s: %zu patch%s on %.12s%s\n", d->color ? "\033[1m" : "",
		       r.desc, s.nr, s.nr == 1 ? "" : "es", r.base,
		       d->color ? "\033[m" : "");
		print_from_cwd(&f, &s, r.repo.workdir, d->color);
	}
	if (d->fix) {
		r2 = do_fix(d, &r, &s, &f, json);
		if (r2)
			ret = r2;
	}
	if (json)
		jx_print(json, stdout);
out:
	json_object_put(json);
	check_findings_release(&f);
	s.tree = NULL;
	check_series_release(&s);
	devrange_release(&r);
	strbuf_release(&err);
	pattern_release_all();
	return ret;
}
