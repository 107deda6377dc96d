// SPDX-License-Identifier: GPL-2.0
/*
 * The variables of each reply template: what was found, on which base,
 * with which tools, the findings (new ones marked ">>"), the source
 * around them and how to reproduce it.  Prose is wrapped here; compiler
 * output, code and commands are kept as they are.
 */
#include <stdlib.h>

#include "bot/results/contract.h"
#include "bot/report/report-int.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "lib/text.h"

void report_set_prose(struct report_ctx *c, const char *name, const char *text)
{
	struct strbuf sb = STRBUF_INIT;

	text_wrap(&sb, text, REPORT_WRAP, NULL);
	strbuf_rtrim(&sb);
	template_set(&c->vars, name, sb.buf);
	strbuf_release(&sb);
}

void report_patch_name(struct strbuf *sb, const struct report_version *v, int n)
{
	if (n > 0)
		strbuf_addf(sb, "patch %d/%d", n, v->total);
	else
		strbuf_addstr(sb, v->cover ? "the cover letter" : "the series");
}

void report_base_info(const struct report_ctx *c, struct report_base *b)
{
	const struct result *apply = store_results_find(&c->v->results, STAGE_APPLY, NULL);
	json_object *base = apply ? rd_doc_base(apply->doc) : NULL;
	const char *bc = c->v->base_commit;

	memset(b, 0, sizeof(*b));
	b->name = rd_base_name(base);
	b->sha = rd_base_sha(base);
	if (bc && b->sha && !strncmp(b->sha, bc, strlen(bc)))
		b->from_base_commit = true;
	else if (bc && (rd_base_commit_unknown(base, false) || b->sha))
		b->base_commit_unknown = true;
}

static int base_vars(struct report_ctx *c, struct strbuf *err)
{
	const struct result *check = store_results_find(&c->v->results, STAGE_CHECK, NULL);
	struct strbuf sb = STRBUF_INIT, advice = STRBUF_INIT;
	struct report_base b;
	int ret = 0;

	report_base_info(c, &b);
	if (c->d->untested)
		strbuf_addstr(&sb, "the patches alone (base-commit unknown)");
	else if (b.sha && (b.from_base_commit || !b.name || !strcmp(b.name, b.sha)))
		strbuf_addstr(&sb, b.sha);
	else if (b.sha)
		strbuf_addf(&sb, "%s %s", b.name, b.sha);
	else if (rd_doc_base_rev(check ? check->doc : NULL))
		strbuf_addstr(&sb, rd_doc_base_rev(check->doc));
	else
		strbuf_addstr(&sb, "the patches alone (no tree)");
	template_set(&c->vars, "base_on", sb.buf);
	template_set(&c->vars, "base", b.sha && !c->d->untested ? sb.buf : "");
	strbuf_reset(&sb);
	if (c->d->untested)
		strbuf_addf(&sb, "[not built or booted: base-commit %s is not in the tree "
			    "%s tests on, and the series does not apply to %s; the review "
			    "below reads the patches alone]", c->v->base_commit,
			    config_v(c->o->cfg)->core_botname,
			    b.name ? b.name : "the bases it has");
	else if (b.base_commit_unknown)
		strbuf_addf(&sb, "[base-commit %s is not in the tree lorebot tests on; "
			    "this is the closest base it has]", c->v->base_commit);
	report_set_prose(c, "base_note", sb.buf);
	if (!c->v->base_commit)
		ret = template_load(c->o->templates, "reply-base-advice.txt", &advice, err);
	strbuf_rtrim(&advice);
	template_set(&c->vars, "base_advice", advice.buf);
	strbuf_release(&sb);
	strbuf_release(&advice);
	return ret;
}

static const char *branch_of(const struct report_ctx *c, struct strbuf *sb)
{
	const struct result *apply = store_results_find(&c->v->results, STAGE_APPLY, NULL);
	const char *b = apply ? rd_doc_branch(apply->doc) : NULL;

	if (b) {
		util_skip_prefix(b, "refs/heads/", &b);
		strbuf_addstr(sb, b);
	} else {
		strbuf_addf(sb, "lorebot/%s/v%d", c->v->series_id, c->v->version);
	}
	return sb->buf;
}

/* The commands of the stages whose findings the reply shows (stage_ops.reply) */
static void stage_commands(const struct report_ctx *c, struct strbuf *sb, const char *mbx,
			   const char *branch)
{
	const struct stage_ops *d;
	const struct result *r;
	size_t i;

	for (i = 0; i < c->v->results.nr; i++) {
		r = &c->v->results.v[i];
		d = plan_stage(r->stage);
		if (!d->reply || !d->command || !r->findings || r->status == STATUS_INFRA)
			continue;
		strbuf_addf(sb, "        lorebot %s --repo linux ", d->command);
		if (d->input == STAGE_IN_MBOX) {
			strbuf_addstr(sb, "--mbox ");
			text_shell_quote(sb, mbx);
		} else {
			strbuf_addstr(sb, "--series ");
			text_shell_quote(sb, branch);
		}
		if (*r->arch)
			strbuf_addf(sb, " --arch %s", r->arch);
		strbuf_addch(sb, '\n');
	}
}

/* The commands that do what lorebot did, in the developer's tree ("linux") */
void report_reproduce(struct report_ctx *c, const char *archs)
{
	struct strbuf sb = STRBUF_INIT, branch = STRBUF_INIT, mbx = STRBUF_INIT;
	struct report_base b;
	enum reply_kind kind = c->d->kind;

	report_base_info(c, &b);
	strbuf_addf(&mbx, "%s.mbx", c->v->id);
	strbuf_addstr(&sb, "        b4 mbox ");
	text_shell_quote(&sb, c->v->id);
	strbuf_addstr(&sb, "\n");
	if (kind == REPLY_CHECK) {
		strbuf_addstr(&sb, "        lorebot check --repo linux --mbox ");
		text_shell_quote(&sb, mbx.buf);
		strbuf_addch(&sb, '\n');
	} else {
		strbuf_addstr(&sb, "        lorebot apply --repo linux --mbox ");
		text_shell_quote(&sb, mbx.buf);
		if (b.sha)
			strbuf_addf(&sb, " --base %s", b.sha);
		strbuf_addch(&sb, '\n');
	}
	branch_of(c, &branch);
	if ((kind == REPLY_BUILD || kind == REPLY_BOOT) && *c->report_url) {
		/* the report's record has the series, base, .config and commands */
		strbuf_reset(&sb);
		strbuf_addf(&sb, "        lorebot reproduce --repo linux %s\n", c->report_url);
	} else if (kind == REPLY_BUILD || kind == REPLY_BOOT) {
		strbuf_addstr(&sb, "        lorebot build --repo linux --series ");
		text_shell_quote(&sb, branch.buf);
		strbuf_addf(&sb, " --arch %s\n", archs);
	}
	if (kind == REPLY_BOOT) {
		strbuf_addstr(&sb, "        lorebot boot --repo linux --series ");
		text_shell_quote(&sb, branch.buf);
		strbuf_addf(&sb, " --arch %s\n", archs);
	}
	if (kind == REPLY_FINDINGS || c->d->sections[SECTION_FINDINGS])
		stage_commands(c, &sb, mbx.buf, branch.buf);
	strbuf_rtrim(&sb);
	template_set(&c->vars, "reproduce", sb.buf);
	template_set(&c->vars, "branch", branch.buf);
	strbuf_release(&sb);
	strbuf_release(&branch);
	strbuf_release(&mbx);
}

void report_and_list(struct strbuf *sb, const char *const *items, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (i)
			strbuf_addstr(sb, i + 1 == nr ? " and " : ", ");
		strbuf_addstr(sb, items[i]);
	}
}

void report_add_block(struct strbuf *sb, const char *pre, const char *s)
{
	const char *p = s;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		strbuf_addstr(sb, pre);
		strbuf_add(sb, p, len);
		strbuf_addch(sb, '\n');
		p = nl ? nl + 1 : p + len;
	}
}

void report_finding_line(struct strbuf *sb, const char *mark, enum stage stage,
			 json_object *f)
{
	char id[REPORT_ID_LEN + 1];
	const char *file = rd_finding_file(f);
	int64_t line = rd_finding_line(f, 0);

	strbuf_addstr(sb, mark);
	if (file && line > 0 && rd_finding_column(f, 0) > 0)
		strbuf_addf(sb, "%s:%lld:%lld: ", file, (long long)line,
			    (long long)rd_finding_column(f, 0));
	else if (file && line > 0)
		strbuf_addf(sb, "%s:%lld: ", file, (long long)line);
	else if (file)
		strbuf_addf(sb, "%s: ", file);
	strbuf_addf(sb, "%s: %s", rd_finding_severity(f) ? rd_finding_severity(f) :
		    RD_SEV_WARNING, rd_finding_message_z(f));
	if (rd_finding_rule(f))
		strbuf_addf(sb, " [%s]", rd_finding_rule(f));
	else if (stage == STAGE_BUILD && rd_finding_option(f))	/* compiler format */
		strbuf_addf(sb, " [%s]", rd_finding_option(f));
	/* a build finding's id is on the line after it, with its patch */
	if (stage != STAGE_BUILD) {
		report_finding_id(stage, f, id);
		strbuf_addf(sb, " [id %s]", id);
	}
	strbuf_addch(sb, '\n');
}

/*
 * ${recipe}: per arch, what reproduces it without lorebot, in a kernel
 * tree with the series applied: the .config the build used (served by
 * the dashboard), the make lines, and for a boot the qemu command line
 */
static bool in_list(const char **names, size_t nn, const char *arch)
{
	size_t i;

	for (i = 0; i < nn; i++)
		if (!strcmp(names[i], arch))
			return true;
	return false;
}

static void recipe(struct report_ctx *c, const char **names, size_t nn)
{
	const char *dash = config_v(c->o->cfg)->core_dashboardurl;
	const char *report = c->report_url;
	bool boot = c->d->kind == REPLY_BOOT || c->d->sections[SECTION_BOOT];
	bool builds = c->d->sections[SECTION_BUILD_ERRORS] ||
		c->d->sections[SECTION_BUILD_WARNINGS];
	struct strbuf sb = STRBUF_INIT, base = STRBUF_INIT;
	struct report_base b;
	size_t i, j;

	report_base_info(c, &b);
	/* every arch the reply is about: its headline's, and its sections' */
	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i], *t;
		json_object *make;
		const char *qemu;

		if (r->stage != STAGE_BUILD)
			continue;
		t = store_results_find(&c->v->results, STAGE_BOOT, r->arch);
		if (t && (!boot || (t->status != STATUS_REGRESSIONS &&
				    t->status != STATUS_BOOT_FAILURE)))
			t = NULL;
		if (!in_list(names, nn, r->arch) && !(builds && r->findings) && !t)
			continue;
		make = rd_doc_make(r->doc);
		qemu = t ? rd_doc_qemu(t->doc) : NULL;
		if (!make && !qemu)
			continue;
		strbuf_addf(&sb, "%s%s:\n", sb.len ? "\n" : "", r->arch);
		if (r && rd_doc_config_file(r->doc) && *report)
			strbuf_addf(&sb, "        mkdir -p build && "
				    "curl -o build/.config %s/config/%s\n", report, r->arch);
		else if (r && rd_doc_config_file(r->doc) && dash && *dash)
			strbuf_addf(&sb, "        mkdir -p build && "
				    "curl -o build/.config %s%sconfig/%lld\n", dash,
				    util_ends_with(dash, "/") ? "" : "/", (long long)r->id);
		for (j = 0; make && j < json_object_array_length(make); j++)
			strbuf_addf(&sb, "        %s\n", json_object_get_string(rd_at(make, j)));
		make = rd_doc_make_checks(r->doc);
		for (j = 0; make && j < json_object_array_length(make); j++)
			strbuf_addf(&sb, "        %s\n", json_object_get_string(rd_at(make, j)));
		if (qemu)
			strbuf_addf(&sb, "        %s\n", qemu);
	}
	if (sb.len) {
		strbuf_addstr(&base, "Or without lorebot, in linux/");
		if (b.sha)
			strbuf_addf(&base, " at %.12s", b.sha);
		strbuf_addf(&base, " with the series applied (b4 shazam %s)%s:", c->v->id,
			    boot ? "; the initramfs with the kselftests is lorebot's" : "");
		report_set_prose(c, "recipe_intro", base.buf);
	} else {
		template_set(&c->vars, "recipe_intro", "");
	}
	strbuf_rtrim(&sb);
	template_set(&c->vars, "recipe", sb.buf);
	strbuf_release(&sb);
	strbuf_release(&base);
}

void report_arch_vars(struct report_ctx *c, const char **names, size_t nn,
			     struct strbuf *info, struct strbuf *findings)
{
	struct strbuf archs = STRBUF_INIT, list = STRBUF_INIT;
	size_t i;

	report_and_list(&archs, names, nn);
	for (i = 0; i < nn; i++)
		strbuf_addf(&list, "%s%s", i ? "," : "", names[i]);
	template_set(&c->vars, "archs", archs.buf);
	strbuf_rtrim(info);
	template_set(&c->vars, "arch_info", info->buf);
	strbuf_rtrim(findings);
	template_set(&c->vars, "findings", findings->buf);
	report_reproduce(c, list.len ? list.buf : "x86_64");
	recipe(c, names, nn);
	strbuf_release(&archs);
	strbuf_release(&list);
}

void report_arch_info(struct strbuf *sb, const struct result *r)
{
	const char *config = rd_name_of(rd_doc_config(r->doc));
	const char *profile = rd_name_of(rd_doc_profile(r->doc));
	const char *compiler = rd_name_of(rd_doc_compiler(r->doc));

	strbuf_addf(sb, "config:        %s%s%s\n", r->arch,
		    config || profile ? "-" : "", config ? config : profile ? profile : "");
	if (compiler)
		strbuf_addf(sb, "compiler:      %s\n", compiler);
}

/* clean: one line per stage */

static void clean_vars(struct report_ctx *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];

		strbuf_addf(&sb, "  %-6s %-7s %s\n", plan_stage_name(r->stage), r->arch,
			    r->summary);
	}
	strbuf_rtrim(&sb);
	template_set(&c->vars, "summary", sb.buf);
	report_reproduce(c, "x86_64");
	strbuf_release(&sb);
}

/*
 * findings: the stages without a section of their own (stage_ops.reply),
 * each result's summary and its new findings no answer dismissed
 */
static void findings_vars(struct report_ctx *c)
{
	struct strbuf out = STRBUF_INIT, names = STRBUF_INIT;
	const char *shown[STAGE_NR] = { NULL };
	size_t i, j, nr = 0, k;
	int errors = 0;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		json_object *fs = rd_doc_findings(r->doc);
		size_t mark = out.len;
		bool any = false;

		if (!plan_stage(r->stage)->reply || !r->findings || r->status == STATUS_INFRA)
			continue;
		strbuf_addf(&out, "%s%s%s%s (%s):\n\n", out.len ? "\n" : "",
			    plan_stage_name(r->stage), *r->arch ? " " : "", r->arch, r->summary);
		for (j = 0; fs && j < json_object_array_length(fs); j++) {
			json_object *f = rd_at(fs, j);

			if (!rd_finding_is_new(f, true) || report_dismissed(c->v, r->stage, f))
				continue;
			errors += !strcmp(rd_finding_severity_z(f), RD_SEV_ERROR);
			report_finding_line(&out, ">> ", r->stage, f);
			any = true;
		}
		if (!any) {
			strbuf_setlen(&out, mark);	/* every one dismissed */
			continue;
		}
		for (k = 0; k < nr && strcmp(shown[k], plan_stage_name(r->stage)); k++)
			;
		if (k == nr)
			shown[nr++] = plan_stage_name(r->stage);
	}
	report_and_list(&names, shown, nr);
	template_set(&c->vars, "stages", names.buf);
	template_set(&c->vars, "level", errors ? "ERROR" : "WARNING");
	template_set(&c->vars, "what", errors ? "errors" : "findings");
	strbuf_rtrim(&out);
	template_set(&c->vars, "findings", out.buf);
	template_set(&c->vars, "excerpts", "");
	report_reproduce(c, "");
	strbuf_release(&out);
	strbuf_release(&names);
}

/* base: the one short line a series whose base the bot lacks gets */
static void base_kind_vars(struct report_ctx *c)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s could not test this series: its base-commit %s is not in "
		    "the tree %s tests on, and no other base took it.",
		    config_v(c->o->cfg)->core_botname, c->v->base_commit,
		    config_v(c->o->cfg)->core_botname);
	report_set_prose(c, "base_line", sb.buf);
	strbuf_release(&sb);
}

typedef void (*vars_fn)(struct report_ctx *c);

/*
 * The variables of a kind: those of apply, build, check and boot, the
 * names of their stages, are their stages' (section_vars())
 */
static void kind_vars(struct report_ctx *c, enum reply_kind kind)
{
	static const vars_fn own[REPLY_KIND_NR] = {
		[REPLY_BASE] = base_kind_vars,
		[REPLY_CLEAN] = clean_vars,
		[REPLY_FINDINGS] = findings_vars,
	};
	enum stage s;

	if (own[kind])
		own[kind](c);
	else if (!plan_stage_parse(report_kind_name(kind), &s) && plan_stage(s)->section_vars)
		plan_stage(s)->section_vars(c);
}

/* A section after the headline's: its kind, filter and heading */
static const struct {
	enum reply_kind kind;
	enum build_filter build;
	const char *heading;
} later_sections[SECTION_NR] = {
	[SECTION_BOOT] = { REPLY_BOOT, BUILD_ALL,
		"Boot regressions on ${archs}, \">>\" marking what the base kernel "
		"does not do:" },
	[SECTION_BUILD_WARNINGS] = { REPLY_BUILD, BUILD_WARNINGS,
		"New build warnings on ${archs}, \">>\" marking what the base does "
		"not have:" },
	[SECTION_CHECK] = { REPLY_CHECK, BUILD_ALL,
		"Review findings, each marked \">>\":" },
	[SECTION_FINDINGS] = { REPLY_FINDINGS, BUILD_ALL,
		"Findings of ${stages}, each marked \">>\":" },
};

/*
 * The sections after the headline's, worst first, each once: a build
 * with errors gives its warnings a section of their own only when boot
 * regressions come between them.
 */
static int sections_var(struct report_ctx *c, enum report_section first,
			struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT, head = STRBUF_INIT;
	struct tvars saved = c->vars;
	int s, ret = 0;

	for (s = first + 1; s < SECTION_NR && !ret; s++) {
		const char *findings, *excerpts;

		if (!c->d->sections[s] || !later_sections[s].heading)
			continue;
		if (s == SECTION_BUILD_WARNINGS && first == SECTION_BUILD_ERRORS &&
		    !c->d->sections[SECTION_BOOT])
			continue;
		c->vars = (struct tvars)TVARS_INIT;
		c->build = later_sections[s].build;
		kind_vars(c, later_sections[s].kind);
		strbuf_reset(&head);
		ret = template_expand("section", later_sections[s].heading, &c->vars,
				      TEMPLATE_TEXT, &head, err);
		findings = template_get(&c->vars, "findings");
		excerpts = template_get(&c->vars, "excerpts");
		strbuf_rtrim(&head);
		strbuf_addf(&out, "%s%s\n\n%s\n", out.len ? "\n" : "", head.buf,
			    findings ? findings : "");
		if (excerpts && *excerpts)
			strbuf_addf(&out, "\n\n%s\n", excerpts);
		template_vars_release(&c->vars);
	}
	c->vars = saved;
	c->build = BUILD_ALL;
	strbuf_rtrim(&out);
	template_set(&c->vars, "sections", out.buf);
	strbuf_release(&out);
	strbuf_release(&head);
	return ret;
}

/*
 * ${coverage}: the changed lines the builds compiled on at least one
 * arch, and what none did; ${outcome} of a clean reply says whether
 * that was all of it (build.mincoverage).  Empty without builds.
 */
static void coverage_var(struct report_ctx *c)
{
	json_object **docs = xcalloc(c->v->results.nr + 1, sizeof(*docs));
	struct results_cover cov;
	struct strbuf sb = STRBUF_INIT;
	bool partial = report_partial(c->v, c->o);
	size_t i, n = 0;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];

		if (r->stage == STAGE_BUILD && r->status != STATUS_INFRA)
			docs[n++] = r->doc;
	}
	results_cover_union(docs, n, &cov);
	if (cov.archs) {
		strbuf_addstr(&sb, partial ? "Not all of the change was compiled: " :
			      "Changed lines: ");
		results_cover_line(&cov, &sb, 3);
		strbuf_addch(&sb, '.');
		report_set_prose(c, "coverage", sb.buf);
	} else {
		template_set(&c->vars, "coverage", "");
	}
	template_set(&c->vars, "outcome", partial ? "INCOMPLETE" : "PASSED");
	results_cover_release(&cov);
	strbuf_release(&sb);
	free(docs);
}

/* The one line about the style findings the noise policy keeps off the list */
static void style_var(struct report_ctx *c)
{
	struct strbuf sb = STRBUF_INIT;
	const char *url = template_get(&c->vars, "series_url");
	int count[REPORT_CLASS_NR];

	int cocci = report_build_style_count(c->v, c->o), n;

	report_check_count(c->v, c->o, count);
	n = count[REPORT_STYLE] + cocci;
	if (n && !strcmp(config_v(c->o->cfg)->reply_style, "line"))
		strbuf_addf(&sb, "%d style finding%s (%s%s%s) %s not mailed: see %s%s`lorebot check`.",
			    n, n == 1 ? "" : "s",
			    count[REPORT_STYLE] ? "checkpatch, codespell, series hygiene" : "",
			    count[REPORT_STYLE] && cocci ? ", " : "",
			    cocci ? "Coccinelle" : "", n == 1 ? "is" : "are",
			    url && *url ? url : "", url && *url ? " or " : "");
	report_set_prose(c, "style", sb.buf);
	strbuf_release(&sb);
}

int report_body_vars(struct report_ctx *c, struct strbuf *err)
{
	enum stage needs[REPLY_KIND_NR] = {
		[REPLY_APPLY] = STAGE_APPLY,
		[REPLY_CHECK] = STAGE_CHECK,
	};
	int first;

	if ((c->d->kind == REPLY_APPLY || c->d->kind == REPLY_CHECK) &&
	    !store_results_find(&c->v->results, needs[c->d->kind], NULL)) {
		strbuf_addf(err, "no %s result for version '%s'",
			    plan_stage_name(needs[c->d->kind]), c->v->id);
		return -1;
	}
	if (base_vars(c, err))
		return -1;
	for (first = 0; first < SECTION_NR && !c->d->sections[first]; first++)
		;
	c->build = first == SECTION_BUILD_ERRORS && c->d->sections[SECTION_BOOT] ?
		BUILD_ERRORS : BUILD_ALL;
	kind_vars(c, c->d->kind);
	c->build = BUILD_ALL;
	coverage_var(c);
	style_var(c);
	if (report_since_var(c, err))
		return -1;
	return sections_var(c, first, err);
}
