// SPDX-License-Identifier: GPL-2.0
/*
 * The pieces of HTML the dashboard's pages (bot/web/dash-html.c) and the
 * stages' page hooks (bot/stage/stage.h) share (bot/report/html.h).  Whatever comes
 * from mail is escaped with text_html_escape().
 */
#include "bot/results/contract.h"
#include "bot/report/html.h"
#include "lib/text.h"

/* Status words to badge colours */
static const struct {
	const char *word;
	const char *cls;
} status_classes[] = {
	{ "ok", "s-good" }, { "applied", "s-good" }, { "passed", "s-good" },
	{ "clean", "s-good" }, { "sent", "s-good" }, { "pass", "s-good" },
	{ "warnings", "s-warn" }, { "findings", "s-warn" }, { "notes", "s-mute" },
	{ "queued", "s-warn" }, { "sending", "s-warn" }, { "testing", "s-warn" },
	{ "running", "s-run" },
	{ "pending", "s-mute" }, { "skipped", "s-mute" }, { "superseded", "s-mute" },
	{ "incomplete", "s-mute" }, { "skip", "s-mute" }, { "flaky", "s-warn" },
	{ "base-unknown", "s-mute" },
	{ "errors", "s-bad" }, { "failed", "s-bad" }, { "apply-failed", "s-bad" },
	{ "build-failed", "s-bad" }, { "boot-failed", "s-bad" }, { "regressions", "s-bad" },
	{ "boot-failure", "s-bad" }, { "fail", "s-bad" }, { "error", "s-bad" },
	{ "warning", "s-warn" }, { "note", "s-mute" }, { "infra", "s-infra" },
	{ "partial", "s-warn" },
};

const char *html_status_class(const char *word)
{
	size_t i;

	for (i = 0; word && i < ARRAY_SIZE(status_classes); i++)
		if (!strcmp(word, status_classes[i].word))
			return status_classes[i].cls;
	return "s-mute";
}

void html_badge_label(struct strbuf *sb, const char *word, const char *label,
		      const char *title)
{
	strbuf_addf(sb, "<span class=\"b %s\"", html_status_class(word));
	strbuf_addstr(sb, " title=\"");
	text_html_escape(sb, title ? title : word);
	strbuf_addstr(sb, "\">");
	text_html_escape(sb, label ? label : word);
	strbuf_addstr(sb, "</span>");
}

void html_badge(struct strbuf *sb, const char *word, const char *title)
{
	html_badge_label(sb, word, NULL, title);
}

/* A boot finding's first bad patch and how sure it is */
static void boot_culprit_html(struct strbuf *sb, json_object *f)
{
	json_object *cu = rd_finding_culprit(f), *conf = rd_finding_confirm(f);
	int64_t k = rd_culprit_patch(cu, 0);

	if (!cu && !conf)
		return;
	strbuf_addstr(sb, " <span class=\"muted\">(");
	if (k > 0 && rd_culprit_suspect(cu, false))
		strbuf_addf(sb, "bisection points at patch %lld, which only changes comments "
			    "or documentation: suspect", (long long)k);
	else if (k > 0)
		strbuf_addf(sb, "first bad patch %lld, by bisection in %lld boots", (long long)k,
			    (long long)rd_culprit_boots(cu, 0));
	else if (rd_culprit_why(cu)) {
		strbuf_addstr(sb, "first bad patch not found: ");
		text_html_escape(sb, rd_culprit_why(cu));
	}
	if (conf)
		strbuf_addf(sb, "%s%lld of %lld runs on the tip, %lld of %lld on the base",
			    cu ? "; " : "", (long long)rd_runs_bad(rd_confirm_tip(conf), 0),
			    (long long)rd_runs_runs(rd_confirm_tip(conf), 0),
			    (long long)rd_runs_bad(rd_confirm_base(conf), 0),
			    (long long)rd_runs_runs(rd_confirm_base(conf), 0));
	strbuf_addstr(sb, ")</span>");
}

/* Its id, and who dismissed it (an answer to lorebot's mail) and why */
static void finding_id_html(struct strbuf *sb, const struct report_version *v,
			    enum stage stage, json_object *f)
{
	const struct report_dismissal *d = report_dismissed(v, stage, f);
	char id[REPORT_ID_LEN + 1];

	report_finding_id(stage, f, id);
	strbuf_addf(sb, " <span class=\"muted\">id %s</span>", id);
	if (!d)
		return;
	strbuf_addstr(sb, " ");
	html_badge(sb, "dismissed", NULL);
	strbuf_addstr(sb, " <span class=\"muted\">by ");
	text_html_escape(sb, d->who);
	if (strcmp(d->kind, "finding")) {
		strbuf_addstr(sb, " (the rule ");
		text_html_escape(sb, d->target);
		strbuf_addch(sb, ')');
	}
	if (d->why && *d->why) {
		strbuf_addstr(sb, ": ");
		text_html_escape(sb, d->why);
	}
	strbuf_addstr(sb, "; not mailed</span>");
}

void html_finding_li(struct strbuf *sb, const struct report_version *v, enum stage stage,
		     json_object *f, const char *arch)
{
	const char *sev = rd_finding_severity(f) ? rd_finding_severity(f) :
		rd_finding_kind(f) ? rd_finding_kind(f) : "finding";
	const char *quote = rd_finding_quote(f), *sugg = rd_finding_suggestion(f);

	strbuf_addstr(sb, "<li>");
	html_badge(sb, sev, NULL);
	strbuf_addch(sb, ' ');
	if (arch) {
		text_html_escape(sb, arch);
		strbuf_addstr(sb, ": ");
	}
	if (rd_finding_file(f)) {
		strbuf_addstr(sb, "<code>");
		text_html_escape(sb, rd_finding_file(f));
		if (rd_finding_line(f, 0) > 0)
			strbuf_addf(sb, ":%lld", (long long)rd_finding_line(f, 0));
		strbuf_addstr(sb, "</code> ");
	}
	text_html_escape(sb, rd_finding_message_z(f));
	if (rd_finding_rule(f)) {
		strbuf_addstr(sb, " <span class=\"muted\">[");
		text_html_escape(sb, rd_finding_rule(f));
		strbuf_addstr(sb, "]</span>");
	}
	finding_id_html(sb, v, stage, f);
	boot_culprit_html(sb, f);
	if (quote) {
		strbuf_addstr(sb, "<pre>");
		text_html_escape(sb, quote);
		strbuf_addstr(sb, "</pre>");
	}
	if (sugg) {
		strbuf_addstr(sb, "<details><summary>suggestion</summary><pre>");
		text_html_escape(sb, sugg);
		strbuf_addstr(sb, "</pre></details>");
	}
	strbuf_addstr(sb, "</li>");
}

void html_log_link(struct strbuf *sb, const struct result *r)
{
	if (!r || !(rd_doc_log(r->doc) || rd_doc_log_path(r->doc) || rd_doc_logfile(r->doc)))
		return;
	strbuf_addf(sb, " <a href=\"/log/%lld\">%s log</a>", (long long)r->id,
		    plan_stage_name(r->stage));
}
