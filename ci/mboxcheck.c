// SPDX-License-Identifier: GPL-2.0
/* lorebot check --mbox and --msgid (see mboxcheck.h) */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/results/contract.h"
#include "bot/series/series-mbox.h"
#include "ci/mboxcheck.h"
#include "checkers/pattern.h"
#include "checkers/tree.h"
#include "lib/jsonx.h"

/* The messages checked, whole, by their index */
struct raws {
	char **v;
	size_t *len;
	size_t nr;
};

static void keep_raw(void *ctx, size_t index, const char *raw, size_t len)
{
	struct raws *r = ctx;

	r->v[index] = xstrndup(raw, len);
	r->len[index] = len;
}

static void raws_release(struct raws *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		free(r->v[i]);
	free(r->v);
	free(r->len);
}

static struct check_patch *from_msg(const struct raws *r, const struct msg *m)
{
	struct strbuf err = STRBUF_INIT;
	struct check_patch *p;

	if (!m || m->index >= r->nr || !r->v[m->index])
		return NULL;
	p = check_patch_from_raw(r->v[m->index], r->len[m->index], &err);
	if (!p)
		fprintf(stderr, "lorebot: message <%s>: %s\n", m->msgid, err.buf);
	strbuf_release(&err);
	return p;
}

static void series_from_send(struct check_series *s, const struct send *sd,
			     const struct raws *r)
{
	int i;

	if (sd->cover) {
		struct check_patch *c = from_msg(r, sd->cover);

		if (c) {
			c->n = 0;
			check_series_add(s, c);
		}
	}
	for (i = 0; i < sd->total; i++) {
		struct check_patch *p = from_msg(r, sd->patches[i].msg);

		if (p)
			check_series_add(s, p);
	}
	s->total = sd->total;
	s->version = sd->version;
	if (sd->author_email) {
		free(s->author_name);
		free(s->author_email);
		s->author_name = xstrdup_or_null(sd->author_name);
		s->author_email = xstrdup(sd->author_email);
	}
	if (!s->base_commit && sd->base_commit)
		s->base_commit = xstrdup(sd->base_commit);
}

static void report_problems(const char *file, const struct strbuf *problems)
{
	const char *p = problems->buf;

	while (*p) {
		size_t n = strcspn(p, "\n");

		fprintf(stderr, "lorebot: %s: %.*s\n", file, (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

static int check_one(struct check_series *s, const struct check_opts *o,
		     struct git_tree *tree, const struct config *cfg,
		     struct findings *f)
{
	if (tree) {
		struct strbuf err = STRBUF_INIT;
		const char *const *bases = config_v(cfg)->git_base.v;
		size_t nr = config_v(cfg)->git_base.nr, i;
		const char **all = xcalloc(nr + 2, sizeof(*all));

		for (i = 0; i < nr; i++)
			all[i] = bases[i];
		all[nr] = "HEAD";
		s->tree = &tree->base;
		if (tree_apply(tree, s, all, nr + 1, &err)) {
			fprintf(stderr, "lorebot: %s; checking from the hunks\n", err.buf);
			s->tree = NULL;
		}
		for (i = 0; i < s->nr; i++)
			if (s->patches[i]->apply_error)
				fprintf(stderr, "lorebot: patch %d: %s\n", s->patches[i]->n,
					s->patches[i]->apply_error);
		free(all);
		strbuf_release(&err);
	}
	return check_run(s, o, f);
}

/* What mboxcheck_run() prints and returns, series after series */
struct mbox_out {
	bool json, color;
	json_object *all;
	int checked;
	enum mboxcheck_result ret;
};

/* One checked series: its findings printed or added to the JSON */
static void emit(struct mbox_out *mo, struct check_series *s, struct findings *f,
		 const char *title, const char *send_id, const char *reply_to,
		 const char *head, const struct check_opts *o)
{
	mo->checked++;
	if (check_findings_at_least(f, o->fail_on))
		mo->ret = MBOXCHECK_FINDINGS;
	if (mo->json) {
		json_object *j = findings_to_json(f, s);
		json_object *fa = json_object_object_get(mo->all, "findings");
		json_object *src = json_object_object_get(j, "findings");
		size_t k;

		for (k = 0; k < json_object_array_length(src); k++) {
			json_object *x = json_object_array_get_idx(src, k);

			json_object_object_add(x, "series",
					       json_object_new_int(mo->checked - 1));
			json_object_array_add(fa, json_object_get(x));
		}
		json_object_object_del(j, "findings");
		json_object_object_add(j, "title", jx_new_str(title));
		json_object_object_add(j, RK_(doc, send), jx_new_str(send_id));
		if (reply_to)
			json_object_object_add(j, "reply_to", jx_new_str(reply_to));
		json_object_array_add(json_object_object_get(mo->all, "series"), j);
	} else {
		if (mo->checked > 1)
			putchar('\n');
		if (title)
			printf("%s== %s %s%s\n", mo->color ? "\033[1m" : "", title, head,
			       mo->color ? "\033[m" : "");
		findings_print(f, s, stdout, mo->color);
	}
}

static void drop_scratch(struct git_tree *tp)
{
	if (tp && tp->scratch) {
		util_remove_tree(tp->scratch);
		free(tp->scratch);
		free(tp->scratch_git);
		tp->scratch = tp->scratch_git = NULL;
	}
}

/*
 * Diffs posted in replies (a fold-in fix-up, a "-fix" patch, "[PATCH]
 * tmp" inline in a "Re:" mail): each is reviewed as a patch of its own
 * by the rules that read code; the mail checks (sign-off, subject,
 * numbering...) and checkpatch are for patches posted as such.  With
 * series, only the reply of that Message-ID or those to that version.
 */
static bool reply_diff_wanted(const struct assembly *a, const struct msg *m,
			      const char *series, const struct msg **target,
			      const struct send **send)
{
	const struct msg *t = a->state ? a->state[m->slot].target : NULL;
	const struct send *sd = t ? a->state[t->slot].send : NULL;

	if (m->kind != MSG_REPLY || !m->has_diff)
		return false;
	if (series && strcmp(series, m->msgid) && !(sd && series_send_is(sd, series)))
		return false;
	*target = t;
	*send = sd;
	return true;
}

static void check_reply_diffs(struct mbox_out *mo, struct assembly *a,
			      const struct raws *r, const char *series,
			      struct git_tree *tp, const struct config *cfg,
			      const struct check_opts *o)
{
	struct check_opts ro = *o;
	struct strbuf err = STRBUF_INIT;
	size_t i;

	ro.sel = xcalloc(o->nr_sel + 1, sizeof(*ro.sel));
	for (i = 0; i < o->nr_sel; i++) {
		ro.sel[i].name = xstrdup(o->sel[i].name);
		ro.sel[i].on = o->sel[i].on;
	}
	check_select(&ro, "-checkpatch,-signed-off-by,-fixes-tag,-subject,-numbering,"
		     "-cover-letter,-base-commit,-codespell", &err);
	for (i = 0; i < a->nr; i++) {
		const struct msg *m = a->msgs[i], *t;
		const struct send *sd;
		struct check_series s = CHECK_SERIES_INIT;
		struct findings f = FINDINGS_INIT;
		struct check_patch *p;
		char *head;

		if (!reply_diff_wanted(a, m, series, &t, &sd))
			continue;
		p = from_msg(r, m);
		if (!p)
			continue;
		p->n = 1;
		check_series_add(&s, p);
		s.total = 1;
		s.version = sd ? sd->version : 1;
		check_one(&s, &ro, tp, cfg, &f);
		if (sd && t)
			head = xasprintf("(a diff in a reply to v%d %d/%d <%s>)", sd->version,
					 t->subj.n, sd->total, t->msgid);
		else
			head = xasprintf("(a diff in a reply to <%s>)",
					 m->parent ? m->parent : "?");
		emit(mo, &s, &f, s.patches[0]->subject, sd ? sd->id : NULL,
		     m->parent ? m->parent : "", head, &ro);
		free(head);
		check_findings_release(&f);
		check_series_release(&s);
		drop_scratch(tp);
	}
	for (i = 0; i < ro.nr_sel; i++)
		free(ro.sel[i].name);
	free(ro.sel);
	strbuf_release(&err);
}

/* The messages of sends and the reply diffs asked for, read again whole */
static int read_wanted(const struct series_mbox *sm, struct send **sends, size_t nr,
		       const char *series, struct raws *r)
{
	const struct assembly *a = &sm->a;
	const struct msg *t;
	const struct send *sd;
	size_t i;
	bool *want;
	int k, ret;

	for (i = 0; i < a->nr; i++)
		r->nr = MAX(r->nr, a->msgs[i]->index + 1);
	r->v = xcalloc(r->nr + 1, sizeof(*r->v));
	r->len = xcalloc(r->nr + 1, sizeof(*r->len));
	want = xcalloc(r->nr + 1, sizeof(*want));
	for (i = 0; i < nr; i++) {
		if (sends[i]->cover)
			want[sends[i]->cover->index] = true;
		for (k = 0; k < sends[i]->total; k++)
			if (sends[i]->patches[k].msg)
				want[sends[i]->patches[k].msg->index] = true;
	}
	for (i = 0; i < a->nr; i++)
		if (reply_diff_wanted(a, a->msgs[i], series, &t, &sd))
			want[a->msgs[i]->index] = true;
	ret = series_mbox_reread(sm, want, r->nr, keep_raw, r);
	free(want);
	return ret;
}

enum mboxcheck_result mboxcheck_run(const struct mboxcheck_src *src, const char *repo,
				   bool json, bool color, const struct check_opts *o,
				   const struct config *cfg)
{
	struct strbuf err = STRBUF_INIT;
	struct git_tree tree, *tp = NULL;
	struct series_mbox sm;
	struct send **sends = NULL;
	struct raws raws = { 0 };
	struct mbox_out mo = { .json = json, .color = color, .ret = MBOXCHECK_CLEAN };
	const char *series = src->series, *name = src->mbox;
	enum mboxcheck_result ret = MBOXCHECK_CLEAN;
	size_t nr, i;
	int r;

	if (repo) {
		if (tree_open(&tree, repo, &err)) {
			fprintf(stderr, "lorebot: --repo '%s': %s\n", repo, err.buf);
			strbuf_release(&err);
			return MBOXCHECK_REFUSED;
		}
		tp = &tree;
	}
	series_mbox_init(&sm, cfg);
	if (src->msgid) {
		r = series_mbox_fetch(&sm, src->url, src->msgid, &err);
		if (r == -1) {
			fprintf(stderr, "lorebot check: --msgid: %s\n", err.buf);
			ret = MBOXCHECK_INFRA;
			goto out;
		}
		name = sm.path;
	} else {
		r = series_mbox_read(&sm, src->mbox);
	}
	if (r) {
		fprintf(stderr, "lorebot: cannot read '%s': %s\n", name ? name : src->msgid,
			strerror(-r));
		ret = MBOXCHECK_REFUSED;
		goto out;
	}
	report_problems(name, &sm.a.problems);
	nr = series_mbox_pick(&sm, series, &sends);
	r = read_wanted(&sm, sends, nr, series, &raws);
	if (r) {
		fprintf(stderr, "lorebot: cannot read '%s' again: %s\n", name, strerror(-r));
		ret = MBOXCHECK_REFUSED;
		goto out;
	}
	if (json) {
		mo.all = json_object_new_object();
		json_object_object_add(mo.all, "findings", json_object_new_array());
		json_object_object_add(mo.all, "series", json_object_new_array());
	}
	for (i = 0; i < nr; i++) {
		const struct send *sd = sends[i];
		struct check_series s = CHECK_SERIES_INIT;
		struct findings f = FINDINGS_INIT;
		char *head;

		series_from_send(&s, sd, &raws);
		if (!s.nr) {
			check_series_release(&s);
			continue;
		}
		check_one(&s, o, tp, cfg, &f);
		head = xasprintf("(v%d, %d patches)", sd->version, sd->total);
		emit(&mo, &s, &f, sd->title, sd->id, NULL, head, o);
		free(head);
		check_findings_release(&f);
		check_series_release(&s);
		drop_scratch(tp);
	}
	check_reply_diffs(&mo, &sm.a, &raws, series, tp, cfg, o);
	ret = mo.ret;
	if (!mo.checked) {
		if (series)
			fprintf(stderr, "lorebot: no series '%s' in '%s'\n", series, name);
		else
			fprintf(stderr, "lorebot: no patches in '%s'\n", name);
		ret = MBOXCHECK_REFUSED;
	} else if (json) {
		jx_print(mo.all, stdout);
	}
	json_object_put(mo.all);
out:
	free(sends);
	series_mbox_release(&sm);
	raws_release(&raws);
	if (tp)
		tree_release(tp);
	strbuf_release(&err);
	pattern_release_all();
	return ret;
}
