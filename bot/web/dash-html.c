// SPDX-License-Identifier: GPL-2.0
/*
 * The dashboard's pages.  Layout and wording are in templates/web-*;
 * here the parts are put together.  Whatever comes from mail (titles,
 * names, subjects, findings quoting code) is escaped: values go through
 * the template's HTML escaping, and the few fragments built here escape
 * every part with text_html_escape() before they are marked as markup.
 */
#include <stdlib.h>
#include <time.h>

#include "bot/web/dash-int.h"
#include "bot/report/html.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "bot/results/contract.h"
#include "bot/mail/mail.h"
#include "lib/text.h"
#include "bot/base/version.h"

void dash_render(struct dash *d, struct web_response *res, const char *file,
		 struct tvars *vars)
{
	struct strbuf content = STRBUF_INIT, style = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf now = STRBUF_INIT;

	if (template_render(d->templates, file, vars, TEMPLATE_HTML, &content, &err) ||
	    template_load(d->templates, "web-style.css", &style, &err)) {
		res->status = 500;
		res->content_type = "text/plain; charset=utf-8";
		strbuf_reset(&res->body);
		strbuf_addf(&res->body, "template error: %s\n", err.buf);
		goto out;
	}
	template_set_html(vars, "content", content.buf);
	/* the stylesheet is ours; "</" could end the <style> element */
	template_set_html(vars, "style", strstr(style.buf, "</") ? "" : style.buf);
	template_set(vars, "bot_name", d->botname);
	template_set(vars, "lorebot_version", version_string());
	mail_format_date((int64_t)time(NULL), 0, &now);
	template_set(vars, "now", now.buf);
	if (!template_get(vars, "refresh"))
		template_set(vars, "refresh", "");
	if (template_render(d->templates, "web-page.html", vars, TEMPLATE_HTML, &res->body,
			    &err)) {
		res->status = 500;
		res->content_type = "text/plain; charset=utf-8";
		strbuf_reset(&res->body);
		strbuf_addf(&res->body, "template error: %s\n", err.buf);
	}
out:
	strbuf_release(&content);
	strbuf_release(&style);
	strbuf_release(&err);
	strbuf_release(&now);
}

void dash_error(struct dash *d, struct web_response *res, int status, const char *msg)
{
	struct tvars vars = TVARS_INIT;

	res->status = status;
	template_setf(&vars, "status", "%d", status);
	template_set(&vars, "message", msg);
	template_set(&vars, "title", msg);
	dash_render(d, res, "web-error.html", &vars);
	template_vars_release(&vars);
}

static void person(struct strbuf *sb, const char *name, const char *email)
{
	if (name && *name)
		strbuf_addstr(sb, name);
	else if (email)
		strbuf_addstr(sb, email);
	else
		strbuf_addstr(sb, "?");
}

static void base_text(struct strbuf *sb, const struct report_version *v)
{
	const struct result *apply = store_results_find(&v->results, STAGE_APPLY, NULL);
	json_object *base = apply ? rd_doc_base(apply->doc) : NULL;

	if (rd_base_sha(base))
		strbuf_addf(sb, "%s %.12s", rd_base_name_z(base), rd_base_sha(base));
	else if (v->base_commit)
		strbuf_addf(sb, "%.12s", v->base_commit);
	else if (v->tree)
		strbuf_addstr(sb, v->tree);
	strbuf_trim(sb);
}

static void result_badge(struct strbuf *sb, const struct result *r)
{
	if (r)
		html_badge(sb, plan_status_name(r->status), r->summary);
	else
		strbuf_addstr(sb, "<span class=\"muted\">&ndash;</span>");
}

/*
 * The result of a stage, else what the daemon is doing about it
 * ("queued", "building 4m"), else a dash
 */
static void stage_badge(struct strbuf *sb, const struct dash_version *dv,
			enum stage st, const char *arch, int64_t now)
{
	const struct result *r = store_results_find(&dv->v.results, st, arch);
	const struct dash_job *j = r ? NULL : dash_job_find(&dv->jobs, plan_stage_name(st), arch);
	struct strbuf label = STRBUF_INIT, title = STRBUF_INIT;

	if (!j) {
		result_badge(sb, r);
		return;
	}
	dash_job_label(j, now, &label);
	strbuf_addf(&title, "%s %s: job %lld %s", plan_stage_name(st), arch,
		    (long long)j->id, j->running ? "running" : "queued");
	strbuf_addf(sb, "<span data-job=\"%s\">", j->running ? "running" : "queued");
	html_badge_label(sb, j->running ? "running" : "queued", label.buf, title.buf);
	strbuf_addstr(sb, "</span>");
	strbuf_release(&label);
	strbuf_release(&title);
}

/* "x86_64 [ok] [ok]" per arch: its stages' (build then boot) */
static void arch_cells(struct dash *d, struct strbuf *sb, const struct dash_version *dv,
		       int64_t now)
{
	enum stage s;
	size_t i;

	for (i = 0; i < d->ro.nr_archs; i++) {
		const char *a = d->ro.archs[i];

		strbuf_addstr(sb, "<span class=\"arch\"><span class=\"n\">");
		text_html_escape(sb, a);
		strbuf_addstr(sb, "</span>");
		for (s = 0; s < STAGE_NR; s++) {
			if (!stages[s]->dash || !stages[s]->per_arch)
				continue;
			strbuf_addch(sb, ' ');
			stage_badge(sb, dv, s, a, now);
		}
		strbuf_addstr(sb, "</span>");
	}
}

/* "1 error 3 warnings 2 notes" as badges, "-" for none */
static void counts_cell(struct strbuf *sb, const int n[DASH_SEV_NR])
{
	static const char *const words[DASH_SEV_NR][2] = {
		[DASH_ERROR] = { "error", "errors" },
		[DASH_WARNING] = { "warning", "warnings" },
		[DASH_NOTE] = { "note", "notes" },
	};
	struct strbuf label = STRBUF_INIT;
	int i, shown = 0;

	for (i = 0; i < DASH_SEV_NR; i++) {
		if (!n[i])
			continue;
		strbuf_reset(&label);
		strbuf_addf(&label, "%d %s", n[i], words[i][n[i] != 1]);
		if (shown++)
			strbuf_addch(sb, ' ');
		strbuf_addf(sb, "<span data-sev=\"%s\">", dash_sev_names[i]);
		html_badge_label(sb, words[i][0], label.buf, NULL);
		strbuf_addstr(sb, "</span>");
	}
	if (!shown)
		strbuf_addstr(sb, "<span class=\"muted\">&ndash;</span>");
	strbuf_release(&label);
}

static void replies_cell(struct strbuf *sb, const struct reply_rows *rows)
{
	size_t i;

	if (!rows->nr)
		strbuf_addstr(sb, "<span class=\"muted\">&ndash;</span>");
	for (i = 0; i < rows->nr; i++) {
		struct strbuf t = STRBUF_INIT;

		strbuf_addf(&t, "%s reply: %s", rows->v[i].kind, rows->v[i].state);
		if (rows->v[i].reason)
			strbuf_addf(&t, " (%s)", rows->v[i].reason);
		if (i)
			strbuf_addch(sb, ' ');
		html_badge_label(sb, rows->v[i].state, rows->v[i].kind, t.buf);
		strbuf_release(&t);
	}
}

static void state_options(struct strbuf *sb, const char *current)
{
	size_t i;

	strbuf_addstr(sb, "<option value=\"\">any state</option>");
	for (i = 0; report_states[i]; i++) {
		strbuf_addf(sb, "<option value=\"%s\"%s>%s</option>", report_states[i],
			    current && !strcmp(current, report_states[i]) ? " selected" : "",
			    report_states[i]);
	}
}

static void list_row(struct dash *d, struct strbuf *rows, const struct dash_version *dv,
		     int64_t now)
{
	const struct report_version *v = &dv->v;
	struct tvars vars = TVARS_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	enum stage s;

	template_set(&vars, "series_id", v->series_id);
	template_set(&vars, "version_id", v->id);
	template_set(&vars, "title", v->title);
	template_setf(&vars, "version", "%d", v->version);
	template_set(&vars, "resend", v->resend ? " resend" : "");
	person(&sb, v->author_name, v->author_email);
	template_set(&vars, "author", sb.buf);
	strbuf_reset(&sb);
	template_setf(&vars, "patches", "%d/%d%s", v->have, v->total, v->rfc ? " RFC" : "");
	base_text(&sb, v);
	template_set(&vars, "base", sb.buf);
	strbuf_reset(&sb);
	/* the first stage's badge, or a dash; the others' when they have a result */
	for (s = 0; s < STAGE_NR; s++) {
		const struct result *r = store_results_find(&v->results, s, NULL);

		if (!stages[s]->dash || stages[s]->per_arch || (sb.len && !r))
			continue;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		result_badge(&sb, r);
	}
	template_set_html(&vars, "apply", sb.buf);
	strbuf_reset(&sb);
	arch_cells(d, &sb, dv, now);
	template_set_html(&vars, "archs", sb.buf);
	strbuf_reset(&sb);
	counts_cell(&sb, dv->counts);
	template_set_html(&vars, "findings", sb.buf);
	strbuf_reset(&sb);
	template_set(&vars, "cause", dv->cause.line.buf);
	replies_cell(&sb, &dv->replies);
	template_set_html(&vars, "replies", sb.buf);
	strbuf_reset(&sb);
	template_set(&vars, "state", dv->state);
	html_badge(&sb, dv->state, NULL);
	template_set_html(&vars, "state_badge", sb.buf);
	strbuf_reset(&sb);
	text_age(&sb, v->date, now);
	template_set(&vars, "age", sb.buf);
	strbuf_reset(&sb);
	if (template_render(d->templates, "web-list-row.html", &vars, TEMPLATE_HTML, rows, &err)) {
		strbuf_addstr(rows, "<tr><td>");
		text_html_escape(rows, err.buf);
		strbuf_addstr(rows, "</td></tr>");
	}
	template_vars_release(&vars);
	strbuf_release(&sb);
	strbuf_release(&err);
}

#define DASH_PAGE 200

/* A link to the next page, keeping the filters */
static void more_link(struct strbuf *sb, const struct dash_filter *f, size_t shown,
		      size_t total)
{
	struct strbuf url = STRBUF_INIT;

	if (f->offset + shown >= total || !shown)
		return;
	strbuf_addstr(&url, "/?state=");
	text_url_escape(&url, f->state ? f->state : "");
	strbuf_addstr(&url, "&author=");
	text_url_escape(&url, f->author ? f->author : "");
	strbuf_addstr(&url, "&q=");
	text_url_escape(&url, f->q ? f->q : "");
	strbuf_addf(&url, "&limit=%zu&offset=%zu", f->limit, f->offset + shown);
	strbuf_addstr(sb, "<p class=\"more\"><a href=\"");
	text_html_escape(sb, url.buf);
	strbuf_addf(sb, "\">the next %zu</a></p>", MIN(f->limit, total - f->offset - shown));
	strbuf_release(&url);
}

void dash_page_list(struct dash *d, const struct web_request *req, const char *id,
		    struct web_response *res)
{
	struct dash_filter f = {
		.state = web_query(req, "state"),
		.author = web_query(req, "author"),
		.q = web_query(req, "q"),
	};
	struct dash_versions vs = { 0 };
	struct strbuf rows = STRBUF_INIT, sb = STRBUF_INIT, err = STRBUF_INIT;
	struct tvars vars = TVARS_INIT;
	int64_t now = (int64_t)time(NULL);
	size_t i;

	dash_filter_paging(&f, req, DASH_PAGE);
	if (dash_load(d, &f, 0, &vs, &err)) {
		dash_error(d, res, 500, err.buf);
		goto out;
	}
	for (i = 0; i < vs.nr; i++)
		list_row(d, &rows, &vs.v[i], now);
	more_link(&sb, &f, vs.nr, vs.total);
	template_set_html(&vars, "more", sb.buf);
	strbuf_reset(&sb);
	template_set_html(&vars, "rows", rows.buf);
	state_options(&sb, f.state);
	template_set_html(&vars, "state_options", sb.buf);
	strbuf_reset(&sb);
	template_set(&vars, "author", f.author);
	template_set(&vars, "q", f.q);
	if (vs.nr < vs.total)
		template_setf(&vars, "count", "%zu series versions, %zu to %zu shown", vs.total,
			      vs.nr ? f.offset + 1 : 0, f.offset + vs.nr);
	else
		template_setf(&vars, "count", "%zu series version%s", vs.total,
			      vs.total == 1 ? "" : "s");
	template_set(&vars, "title", "series");
	if (d->refresh_s > 0) {
		strbuf_addf(&sb, "<meta http-equiv=\"refresh\" content=\"%lld\">",
			    (long long)d->refresh_s);
		template_set_html(&vars, "refresh", sb.buf);
	}
	dash_render(d, res, "web-list.html", &vars);
out:
	dash_versions_release(&vs);
	template_vars_release(&vars);
	strbuf_release(&rows);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* the series page */

struct patch_list {
	struct strbuf *sb;
	const struct report_version *v;
	int n, count;
};

static void patch_finding(const struct result *r, json_object *f, void *data)
{
	struct patch_list *pl = data;

	if (rd_finding_patch(f, 0) != pl->n ||
	    (stages[r->stage]->old_findings && !rd_finding_is_new(f, true)))
		return;
	if (!pl->count++)
		strbuf_addstr(pl->sb, "<ul class=\"findings\">");
	html_finding_li(pl->sb, pl->v, r->stage, f, *r->arch ? r->arch : NULL);
}

/* The findings of patch n (0: the series) from every stage */
static int patch_findings(struct strbuf *sb, const struct report_version *v, int n)
{
	struct patch_list pl = { sb, v, n, 0 };

	dash_findings_each(v, patch_finding, &pl);
	if (pl.count)
		strbuf_addstr(sb, "</ul>");
	return pl.count;
}

static json_object *apply_patch(const struct report_version *v, int n)
{
	const struct result *apply = store_results_find(&v->results, STAGE_APPLY, NULL);
	json_object *ps = apply ? rd_doc_patches(apply->doc) : NULL;
	size_t i;

	for (i = 0; ps && i < json_object_array_length(ps); i++)
		if (rd_patch_n(rd_at(ps, i), 0) == n)
			return rd_at(ps, i);
	return NULL;
}

static void patch_rows(struct strbuf *sb, const struct report_version *v)
{
	json_object *ps = rd_ver_patches(v->json);
	struct strbuf link = STRBUF_INIT;
	size_t i;

	for (i = 0; ps && i < json_object_array_length(ps); i++) {
		json_object *p = rd_at(ps, i);
		json_object *ap = apply_patch(v, (int)rd_vpatch_n(p, 0));
		const char *status = rd_patch_status(ap);

		strbuf_reset(&link);
		report_lore_link(&link, v, rd_vpatch_msgid_z(p));
		strbuf_addf(sb, "<tr><td>%lld</td><td><a href=\"", (long long)rd_vpatch_n(p, 0));
		text_html_escape(sb, link.buf);
		strbuf_addstr(sb, "\">");
		text_html_escape(sb, rd_vpatch_subject_z(p));
		strbuf_addstr(sb, "</a></td><td>");
		if (status) {
			html_badge(sb, status, rd_patch_message(ap));
			if (rd_patch_method(ap)) {
				strbuf_addch(sb, ' ');
				text_html_escape(sb, rd_patch_method(ap));
			}
			if (!strcmp(status, RD_PATCH_FAILED) && rd_patch_file(ap)) {
				strbuf_addstr(sb, "<br><code>");
				text_html_escape(sb, rd_patch_file(ap));
				strbuf_addstr(sb, "</code> ");
				text_html_escape(sb, rd_patch_hunk_z(ap));
				strbuf_addstr(sb, "<br><span class=\"muted\">");
				text_html_escape(sb, rd_patch_message_z(ap));
				strbuf_addstr(sb, "</span>");
			}
		} else {
			strbuf_addstr(sb, "<span class=\"muted\">&ndash;</span>");
		}
		strbuf_addstr(sb, "</td><td>");
		if (!patch_findings(sb, v, (int)rd_vpatch_n(p, 0)))
			strbuf_addstr(sb, "<span class=\"muted\">none</span>");
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_release(&link);
}

/* The live log of a job still running, by the job's id */
static void job_log_link(struct strbuf *sb, const struct dash_version *dv, enum stage st,
			 const char *arch)
{
	const struct dash_job *j = dash_job_find(&dv->jobs, plan_stage_name(st), arch);

	if (j && j->running && j->has_log && !store_results_find(&dv->v.results, st, arch))
		strbuf_addf(sb, " <a href=\"/joblog/%lld\">live %s log</a>", (long long)j->id,
			    plan_stage_name(st));
}

/* "<th>build</th><th>boot</th>": the per-arch stages' columns */
static void arch_heads(struct strbuf *sb)
{
	enum stage s;

	for (s = 0; s < STAGE_NR; s++)
		if (stages[s]->dash && stages[s]->per_arch)
			strbuf_addf(sb, "<th>%s</th>", plan_stage_name(s));
}

static void arch_rows(struct dash *d, struct strbuf *sb, const struct dash_version *dv,
		      int64_t now)
{
	const struct report_version *v = &dv->v;
	const struct result *r;
	enum stage s;
	size_t i;

	for (i = 0; i < d->ro.nr_archs; i++) {
		const char *a = d->ro.archs[i];

		strbuf_addstr(sb, "<tr><td>");
		text_html_escape(sb, a);
		for (s = 0; s < STAGE_NR; s++) {
			if (!stages[s]->dash || !stages[s]->per_arch)
				continue;
			r = store_results_find(&v->results, s, a);
			strbuf_addstr(sb, "</td><td>");
			stage_badge(sb, dv, s, a, now);
			if (!r)
				continue;
			strbuf_addch(sb, ' ');
			text_html_escape(sb, r->summary);
			if (stages[s]->page_details)
				stages[s]->page_details(sb, v, r);
		}
		strbuf_addstr(sb, "</td><td>");
		for (s = 0; s < STAGE_NR; s++) {
			if (!stages[s]->dash || !stages[s]->per_arch)
				continue;
			r = store_results_find(&v->results, s, a);
			if (r && stages[s]->page_links)
				stages[s]->page_links(sb, r);
			else
				html_log_link(sb, r);
		}
		for (s = 0; s < STAGE_NR; s++)
			if (stages[s]->dash && stages[s]->per_arch)
				job_log_link(sb, dv, s, a);
		strbuf_addstr(sb, "</td></tr>\n");
	}
}

static void mails(struct strbuf *sb, const struct report_version *v, const struct reply_rows *rows)
{
	struct strbuf link = STRBUF_INIT;
	size_t i;

	if (!rows->nr)
		strbuf_addstr(sb, "<p class=\"muted\">none</p>");
	for (i = 0; i < rows->nr; i++) {
		const struct reply_row *r = &rows->v[i];
		char *report;

		strbuf_reset(&link);
		report_lore_link(&link, v, r->msgid);
		strbuf_addstr(sb, "<details class=\"mail\"><summary>");
		html_badge(sb, r->state, r->reason);
		strbuf_addch(sb, ' ');
		text_html_escape(sb, r->kind);
		strbuf_addstr(sb, ": ");
		text_html_escape(sb, r->subject);
		if (r->reason) {
			strbuf_addstr(sb, " <span class=\"muted\">(");
			text_html_escape(sb, r->reason);
			strbuf_addstr(sb, ")</span>");
		}
		strbuf_addstr(sb, "</summary><p><a href=\"");
		text_html_escape(sb, link.buf);
		strbuf_addstr(sb, "\">");
		text_html_escape(sb, r->msgid);
		strbuf_addstr(sb, "</a>");
		report = report_id_of(r->msgid);
		if (report && report_id_valid(report))
			strbuf_addf(sb, " &middot; <a class=\"report\" href=\"/r/%s\">"
				    "its permanent page</a>", report);
		free(report);
		strbuf_addstr(sb, "</p><pre>");
		if (r->mail)
			text_html_escape_n(sb, r->mail, r->mail_len);
		strbuf_addstr(sb, "</pre></details>\n");
	}
	strbuf_release(&link);
}

/*
 * Diffs posted in replies to the version (fold-in fix-ups, "-fix"
 * patches): listed under it, with the command that reviews them; the
 * bot mails nothing about them
 */
static void fixups(struct strbuf *sb, const struct report_version *v,
		   const struct fixup_rows *rows)
{
	struct strbuf link = STRBUF_INIT;
	size_t i;

	if (!rows->nr) {
		strbuf_addstr(sb, "<p class=\"muted\">none</p>");
		return;
	}
	strbuf_addstr(sb, "<ul class=\"fixups\">\n");
	for (i = 0; i < rows->nr; i++) {
		const struct fixup_row *f = &rows->v[i];

		strbuf_reset(&link);
		report_lore_link(&link, v, f->msgid);
		strbuf_addstr(sb, "<li><a href=\"");
		text_html_escape(sb, link.buf);
		strbuf_addstr(sb, "\">");
		text_html_escape(sb, f->subject ? f->subject : f->msgid);
		strbuf_addstr(sb, "</a> <span class=\"muted\">");
		person(sb, f->from_name, f->from_email);
		strbuf_addstr(sb, ", ");
		mail_format_date(f->date, 0, sb);
		strbuf_addstr(sb, "</span><br><code>lorebot check --msgid ");
		text_html_escape(sb, f->msgid);
		strbuf_addstr(sb, "</code></li>\n");
	}
	strbuf_addstr(sb, "</ul>\n");
	strbuf_release(&link);
}

/* Under the state: the cause, its text and the log of the result it is from */
static void why_box(struct strbuf *sb, const struct dash_version *dv)
{
	const struct dash_cause *c = &dv->cause;

	if (!c->line.len)
		return;
	strbuf_addf(sb, "<div class=\"why %s\"><p class=\"cause\">", html_status_class(dv->state));
	text_html_escape(sb, c->line.buf);
	strbuf_addstr(sb, "</p>");
	if (c->text.len) {
		strbuf_addstr(sb, "<pre>");
		text_html_escape(sb, c->text.buf);
		strbuf_addstr(sb, "</pre>");
	}
	if (c->r && (rd_doc_log(c->r->doc) || rd_doc_log_path(c->r->doc) ||
		     rd_doc_logfile(c->r->doc))) {
		strbuf_addstr(sb, "<p>");
		html_log_link(sb, c->r);
		strbuf_addstr(sb, "</p>");
	}
	strbuf_addstr(sb, "</div>");
}

/*
 * The changed lines the builds compiled on at least one arch, and the
 * ranges none compiled, each with every arch's reason
 */
static void coverage_block(struct dash *d, struct strbuf *sb, const struct dash_version *dv)
{
	const struct report_version *v = &dv->v;
	json_object **docs = xcalloc(v->results.nr + 1, sizeof(*docs));
	struct results_cover cov;
	struct strbuf line = STRBUF_INIT;
	bool partial = report_partial(v, &d->ro);
	size_t i, n = 0;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		if (r->stage == STAGE_BUILD && r->status != STATUS_INFRA)
			docs[n++] = r->doc;
	}
	results_cover_union(docs, n, &cov);
	if (!cov.archs)
		goto out;
	strbuf_addf(sb, "<h3>Changed lines compiled</h3>\n<p class=\"coverage\" "
		    "data-changed=\"%d\" data-compiled=\"%d\" data-archs=\"%d\">",
		    cov.changed, cov.compiled, cov.archs);
	html_badge(sb, partial ? "partial" : "ok", NULL);
	strbuf_addch(sb, ' ');
	results_cover_line(&cov, &line, 0);
	text_html_escape(sb, line.buf);
	strbuf_addstr(sb, "</p>\n");
	n = json_object_array_length(cov.uncompiled);
	if (n)
		strbuf_addstr(sb, "<table class=\"uncompiled\">\n<thead><tr><th>patch</th>"
			      "<th>lines not compiled</th><th>why</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		json_object *r = rd_at(cov.uncompiled, i);

		strbuf_addf(sb, "<tr><td>%d</td><td><code>", (int)rd_range_patch(r, 0));
		text_html_escape(sb, rd_range_file_z(r));
		strbuf_addch(sb, ':');
		text_html_escape(sb, rd_range_spans_z(r));
		strbuf_addstr(sb, "</code></td><td>");
		json_object_object_foreach(jx_object(r, "reasons"), arch, why) {
			text_html_escape(sb, arch);
			strbuf_addstr(sb, ": ");
			text_html_escape(sb, json_object_get_string(why));
			strbuf_addstr(sb, "<br>");
		}
		strbuf_addstr(sb, "</td></tr>\n");
	}
	if (n)
		strbuf_addstr(sb, "</tbody>\n</table>\n");
out:
	results_cover_release(&cov);
	strbuf_release(&line);
	free(docs);
}

/* "<dt>apply</dt><dd>[applied] applied on mm-new</dd>": the stages not per arch */
static void stage_lines(struct strbuf *sb, const struct report_version *v)
{
	const struct result *r;
	enum stage s;

	for (s = 0; s < STAGE_NR; s++) {
		if (!stages[s]->dash || stages[s]->per_arch)
			continue;
		r = store_results_find(&v->results, s, NULL);
		strbuf_addf(sb, "%s<dt>%s</dt><dd>", sb->len ? "\n" : "", plan_stage_name(s));
		result_badge(sb, r);
		if (r) {
			strbuf_addch(sb, ' ');
			text_html_escape(sb, r->summary);
		}
		strbuf_addstr(sb, "</dd>");
	}
}

static void version_block(struct dash *d, struct strbuf *out, const struct dash_version *dv,
			  int64_t now)
{
	const struct report_version *v = &dv->v;
	const struct result *apply = store_results_find(&v->results, STAGE_APPLY, NULL);
	struct tvars vars = TVARS_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	template_setf(&vars, "version", "%d", v->version);
	strbuf_addf(&sb, "%s%s%s%s", v->rfc ? " RFC" : "", v->resend ? " RESEND" : "",
		    v->complete ? "" : " (incomplete)", v->superseded_by ? " (superseded)" : "");
	template_set(&vars, "flags", sb.buf);
	strbuf_reset(&sb);
	html_badge(&sb, dv->state, NULL);
	template_set_html(&vars, "state_badge", sb.buf);
	strbuf_reset(&sb);
	why_box(&sb, dv);
	template_set_html(&vars, "why", sb.buf);
	strbuf_reset(&sb);
	template_set(&vars, "subject", v->title);
	person(&sb, v->author_name, v->author_email);
	if (v->author_email)
		strbuf_addf(&sb, " <%s>", v->author_email);
	template_set(&vars, "author", sb.buf);
	strbuf_reset(&sb);
	mail_format_date(v->date, 0, &sb);
	template_set(&vars, "date", sb.buf);
	strbuf_reset(&sb);
	text_age(&sb, v->date, now);
	template_set(&vars, "age", sb.buf);
	strbuf_reset(&sb);
	report_lore_link(&sb, v, v->id);
	template_set(&vars, "lore", sb.buf);
	strbuf_reset(&sb);
	base_text(&sb, v);
	if (v->base_commit)
		strbuf_addf(&sb, " (base-commit %.12s)", v->base_commit);
	template_set(&vars, "base", sb.buf);
	strbuf_reset(&sb);
	stage_lines(&sb, v);
	template_set_html(&vars, "stages", sb.buf);
	strbuf_reset(&sb);
	template_set(&vars, "branch", apply ? rd_doc_branch_z(apply->doc) : "");
	template_set(&vars, "version_id", v->id);
	patch_rows(&sb, v);
	template_set_html(&vars, "patches", sb.buf);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "<h3>Series</h3>");
	if (!patch_findings(&sb, v, 0))
		strbuf_reset(&sb);
	template_set_html(&vars, "series_findings", sb.buf);
	strbuf_reset(&sb);
	arch_heads(&sb);
	template_set_html(&vars, "arch_heads", sb.buf);
	strbuf_reset(&sb);
	arch_rows(d, &sb, dv, now);
	template_set_html(&vars, "archs", sb.buf);
	strbuf_reset(&sb);
	coverage_block(d, &sb, dv);
	template_set_html(&vars, "coverage", sb.buf);
	strbuf_reset(&sb);
	mails(&sb, v, &dv->replies);
	template_set_html(&vars, "mails", sb.buf);
	strbuf_reset(&sb);
	fixups(&sb, v, &dv->fixups);
	template_set_html(&vars, "fixups", sb.buf);
	if (template_render(d->templates, "web-version.html", &vars, TEMPLATE_HTML, out, &err)) {
		strbuf_addstr(out, "<p>");
		text_html_escape(out, err.buf);
		strbuf_addstr(out, "</p>");
	}
	template_vars_release(&vars);
	strbuf_release(&sb);
	strbuf_release(&err);
}

void dash_page_series(struct dash *d, const struct web_request *req, const char *id,
		      struct web_response *res)
{
	struct dash_filter f = { .series = id };
	struct dash_versions vs = { 0 };
	struct strbuf blocks = STRBUF_INIT, sb = STRBUF_INIT, err = STRBUF_INIT;
	struct tvars vars = TVARS_INIT;
	int64_t now = (int64_t)time(NULL);
	size_t i;

	if (dash_load(d, &f, DASH_MAIL, &vs, &err)) {
		dash_error(d, res, 500, err.buf);
		goto out;
	}
	if (!vs.nr) {
		strbuf_addf(&sb, "no series or version '%s'", id);
		dash_error(d, res, 404, sb.buf);
		goto out;
	}
	for (i = 0; i < vs.nr; i++) {
		const struct report_version *v = &vs.v[i].v;

		/* superseded versions folded: the reader wants the current one */
		if (v->superseded_by)
			strbuf_addf(&blocks, "<details class=\"superseded\"><summary>v%d%s, "
				    "superseded</summary>\n", v->version,
				    v->resend ? " RESEND" : "");
		version_block(d, &blocks, &vs.v[i], now);
		if (v->superseded_by)
			strbuf_addstr(&blocks, "</details>\n");
	}
	template_set_html(&vars, "versions", blocks.buf);
	template_set(&vars, "title", vs.v[0].v.title);
	template_set(&vars, "series_id", vs.v[0].v.series_id);
	person(&sb, vs.v[0].v.author_name, vs.v[0].v.author_email);
	template_set(&vars, "author", sb.buf);
	template_setf(&vars, "count", "%zu version%s", vs.nr, vs.nr == 1 ? "" : "s");
	dash_render(d, res, "web-series.html", &vars);
out:
	dash_versions_release(&vs);
	template_vars_release(&vars);
	strbuf_release(&blocks);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* One row of the queue page */
static void queue_row(struct strbuf *rows, struct db_stmt *s, int64_t now)
{
	struct dash_job j = {
		.id = db_column_int(s, 0),
		.kind = (char *)db_column_text(s, 1),
		.arch = (char *)db_column_text(s, 2),
		.running = !strcmp(db_column_text(s, 3), "running"),
		.started = db_column_int(s, 4),
		.has_log = db_column_int(s, 5),
	};
	const char *series = db_column_text(s, 6), *title = db_column_text(s, 7);
	int64_t slurm_job = db_column_int(s, 9);
	const char *node = db_column_text(s, 10);
	struct strbuf label = STRBUF_INIT;

	if (!node)
		node = "";
	dash_job_label(&j, now, &label);
	strbuf_addf(rows, "<tr data-job=\"%s\"><td>%lld</td><td>", j.running ? "running" :
		    "queued", (long long)j.id);
	text_html_escape(rows, j.kind);
	strbuf_addstr(rows, "</td><td>");
	text_html_escape(rows, j.arch);
	strbuf_addstr(rows, "</td><td>");
	if (series) {
		strbuf_addstr(rows, "<a href=\"/series/");
		text_url_escape(rows, series);
		strbuf_addstr(rows, "\">");
		text_html_escape(rows, title ? title : series);
		strbuf_addstr(rows, "</a>");
	}
	strbuf_addf(rows, " v%lld</td><td><span class=\"b %s\">", (long long)db_column_int(s, 8),
		    j.running ? "s-run" : "s-warn");
	text_html_escape(rows, label.buf);
	strbuf_addstr(rows, "</span></td><td>");
	/* where: the cluster's job and node, or this machine */
	if (slurm_job > 0) {
		strbuf_addf(rows, "slurm job %lld", (long long)slurm_job);
		if (*node) {
			strbuf_addstr(rows, " on ");
			text_html_escape(rows, node);
		}
	} else if (j.running) {
		strbuf_addstr(rows, "local");
	}
	strbuf_addstr(rows, "</td><td>");
	if (j.running && j.has_log)
		strbuf_addf(rows, "<a href=\"/joblog/%lld\">live log</a>", (long long)j.id);
	strbuf_addstr(rows, "</td></tr>\n");
	strbuf_release(&label);
}

/*
 * /queue: what 'lorebot status' shows of the queue, running jobs first,
 * and where each runs (local, or its Slurm job and node)
 */
void dash_page_queue(struct dash *d, const struct web_request *req, const char *id,
		     struct web_response *res)
{
	struct tvars vars = TVARS_INIT;
	struct strbuf rows = STRBUF_INIT;
	struct db_stmt *s = d->has_jobs ? db_prepare(d->st.db,
		"SELECT j.id, j.kind, j.arch, j.state, coalesce(j.started, 0), j.log IS NOT NULL,"
		" v.series, v.title, coalesce(v.version, 0), coalesce(j.slurm_job, 0),"
		" coalesce(j.node, '')"
		" FROM jobs j LEFT JOIN versions v ON v.id = j.version"
		" WHERE j.state IN ('running', 'queued')"
		" ORDER BY j.state = 'queued', j.priority DESC, j.id LIMIT 500") : NULL;
	int64_t now = (int64_t)time(NULL);
	size_t running = 0, queued = 0;

	while (s && db_step(s) > 0) {
		if (!strcmp(db_column_text(s, 3), "running"))
			running++;
		else
			queued++;
		queue_row(&rows, s, now);
	}
	if (!d->has_jobs)
		template_set(&vars, "count", "no daemon has used this database: no queue");
	else
		template_setf(&vars, "count", "%zu running, %zu queued", running, queued);
	template_set_html(&vars, "rows", rows.buf);
	template_set(&vars, "title", "queue");
	dash_render(d, res, "web-queue.html", &vars);
	template_vars_release(&vars);
	strbuf_release(&rows);
}
