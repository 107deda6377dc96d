// SPDX-License-Identifier: GPL-2.0
/*
 * The variables of each reply template: what was found, on which base,
 * with which tools, the findings (new ones marked ">>"), the source
 * around them and how to reproduce it.  Prose is wrapped here; compiler
 * output, code and commands are kept as they are.
 */
#include <stdlib.h>

#include "bot/contract.h"
#include "bot/report-int.h"
#include "bot/results.h"
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
			    config_get(c->o->cfg, "core.botname"),
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
	const struct result *r;
	size_t i;

	for (i = 0; i < c->v->results.nr; i++) {
		r = &c->v->results.v[i];
		if (!stages[r->stage]->reply || !stages[r->stage]->command || !r->findings ||
		    r->status == STATUS_INFRA)
			continue;
		strbuf_addf(sb, "        lorebot %s --repo linux ", stages[r->stage]->command);
		if (stages[r->stage]->input == STAGE_IN_MBOX) {
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

/* apply: which patch, file and hunk, what the tree has there */

static void tree_lines(struct strbuf *sb, json_object *tree)
{
	json_object *lines = rd_tree_lines(tree);
	size_t i;

	for (i = 0; lines && i < json_object_array_length(lines); i++) {
		json_object *l = rd_at(lines, i);
		const char *kind = rd_line_kind_z(l);
		int64_t no = rd_line_no(l, 0);

		/* '+': in the tree, not in the hunk; '-': in the hunk, not in the tree */
		strbuf_addstr(sb, *kind == '+' ? ">" : *kind == '-' ? "-" : " ");
		if (no > 0)
			strbuf_addf(sb, "%5lld\t", (long long)no);
		else
			strbuf_addstr(sb, "     \t");
		strbuf_addstr(sb, rd_line_text_z(l));
		strbuf_addch(sb, '\n');
	}
}

/*
 * A closest match with less than half the hunk's lines is no help (1 of
 * 6 lines 2,300 lines away): its excerpt is left out
 */
static bool weak_match(json_object *tree)
{
	int64_t total = rd_tree_total(tree, 0);

	return total > 0 && rd_tree_matched(tree, 0) * 2 < total;
}

/* The patches not applied after the failing one, as one sentence */
struct later {
	char **would, **wouldnt, **unknown;	/* "3/4" */
	size_t nr_would, nr_wouldnt, nr_unknown;
};

static void later_add(struct later *l, json_object *p, int total)
{
	json_object *alone = rd_patch_alone(p);
	char *name = xasprintf("%d/%d", (int)rd_patch_n(p, 0), total);
	char ***v = &l->unknown;
	size_t *nr = &l->nr_unknown;

	if (alone && json_object_is_type(alone, json_type_boolean)) {
		v = json_object_get_boolean(alone) ? &l->would : &l->wouldnt;
		nr = json_object_get_boolean(alone) ? &l->nr_would : &l->nr_wouldnt;
	}
	*v = xrealloc(*v, (*nr + 1) * sizeof(**v));
	(*v)[(*nr)++] = name;
}

static void later_prose(struct strbuf *sb, const struct later *l)
{
	size_t nr = l->nr_would + l->nr_wouldnt + l->nr_unknown, n = 0, i;
	const char **all = xcalloc(nr + 1, sizeof(*all));

	for (i = 0; i < l->nr_would; i++)
		all[n++] = l->would[i];
	for (i = 0; i < l->nr_wouldnt; i++)
		all[n++] = l->wouldnt[i];
	for (i = 0; i < l->nr_unknown; i++)
		all[n++] = l->unknown[i];
	if (nr) {
		strbuf_addf(sb, "Patch%s ", nr > 1 ? "es" : "");
		report_and_list(sb, all, nr);
		strbuf_addf(sb, " %s not applied after it", nr > 1 ? "were" : "was");
	}
	if (l->nr_would && !l->nr_wouldnt && !l->nr_unknown) {
		strbuf_addstr(sb, nr > 1 ? "; each would apply on its own." :
			      "; it would apply on its own.");
	} else if (l->nr_wouldnt && !l->nr_would && !l->nr_unknown) {
		strbuf_addstr(sb, nr > 1 ? "; none would apply on its own either." :
			      "; it would not apply on its own either.");
	} else if (l->nr_would) {
		strbuf_addstr(sb, "; on its own ");
		report_and_list(sb, (const char *const *)l->would, l->nr_would);
		strbuf_addstr(sb, l->nr_would > 1 ? " would each apply." : " would apply.");
	} else if (nr) {
		strbuf_addch(sb, '.');
	}
	free(all);
}

static void later_release(struct later *l)
{
	size_t i;

	for (i = 0; i < l->nr_would; i++)
		free(l->would[i]);
	for (i = 0; i < l->nr_wouldnt; i++)
		free(l->wouldnt[i]);
	for (i = 0; i < l->nr_unknown; i++)
		free(l->unknown[i]);
	free(l->would);
	free(l->wouldnt);
	free(l->unknown);
}

static void apply_vars(struct report_ctx *c)
{
	const struct result *apply = store_results_find(&c->v->results, STAGE_APPLY, NULL);
	json_object *patches = rd_doc_patches(apply->doc), *failed = NULL;
	struct strbuf sb = STRBUF_INIT, hunks = STRBUF_INIT, later = STRBUF_INIT;
	struct strbuf attempts = STRBUF_INIT;
	json_object *tried = rd_doc_attempts(apply->doc);
	struct later lat = { 0 };
	size_t i, nfail;
	struct report_base b;

	report_base_info(c, &b);
	for (i = 0; patches && i < json_object_array_length(patches); i++) {
		json_object *p = rd_at(patches, i);
		const char *status = rd_patch_status_z(p);

		if (!failed && !strcmp(status, RD_PATCH_FAILED))
			failed = p;
		else if (failed && strcmp(status, RD_PATCH_APPLIED))
			later_add(&lat, p, c->v->total);
	}
	later_prose(&later, &lat);
	later_release(&lat);
	if (failed) {
		json_object *fails = rd_patch_failures(failed);

		nfail = fails ? json_object_array_length(fails) : 0;
		strbuf_addf(&sb, "Patch %d/%d (\"%s\") does not apply to %s%s%.12s%s",
			    (int)rd_patch_n(failed, 0), c->v->total,
			    rd_patch_subject(failed) ? rd_patch_subject(failed) : "?",
			    b.name ? b.name : "the base", b.sha ? " (" : "", b.sha ? b.sha : "",
			    b.sha ? ")" : "");
		if (nfail > 1)
			strbuf_addf(&sb, ": %zu hunks fail.", nfail);
		else if (rd_patch_file(failed))
			strbuf_addf(&sb, ": a hunk of %s fails.", rd_patch_file(failed));
		else
			strbuf_addch(&sb, '.');
		for (i = 0; i < nfail; i++) {
			json_object *f = rd_at(fails, i);
			json_object *tree = rd_hunk_tree(f);

			strbuf_addf(&hunks, "%s%s:%lld: error: %s %s\n", hunks.len ? "\n" : "",
				    rd_hunk_file(f) ? rd_hunk_file(f) : "?",
				    (long long)rd_hunk_line(f, 0), rd_hunk_header_z(f),
				    rd_hunk_message(f) ? rd_hunk_message(f) : "does not apply");
			if (rd_hunk_excerpt(f)) {
				strbuf_addstr(&hunks, "\nThe hunk expects:\n\n");
				report_add_block(&hunks, "    ", rd_hunk_excerpt(f));
			}
			if (tree && rd_tree_lines_len(tree) && !weak_match(tree)) {
				strbuf_addf(&hunks, "\n%s has (> lines the hunk does not expect,\n"
					    "- lines it expects that are missing):\n\n",
					    b.name ? b.name : "The tree");
				tree_lines(&hunks, tree);
			}
		}
		if (!nfail && rd_patch_message(failed))
			strbuf_addf(&hunks, "%s: error: %s\n", rd_patch_file_z(failed),
				    rd_patch_message(failed));
	} else {
		json_object *base = rd_doc_base(apply->doc);

		strbuf_addf(&sb, "The series could not be applied: %s.",
			    rd_base_reason(base) ? rd_base_reason(base) : "no base was found");
	}
	for (i = 0; tried && i < json_object_array_length(tried); i++) {
		json_object *a = rd_at(tried, i);

		strbuf_addf(&attempts, "  %s%s%.12s: %s\n", rd_try_name_z(a),
			    rd_try_sha(a) ? " " : "", rd_try_sha_z(a),
			    rd_try_outcome(a) ? rd_try_outcome(a) : "?");
	}
	report_set_prose(c, "failure", sb.buf);
	strbuf_rtrim(&hunks);
	template_set(&c->vars, "hunks", hunks.buf);
	report_set_prose(c, "later", later.buf);
	strbuf_rtrim(&attempts);
	template_set(&c->vars, "attempts", attempts.buf);
	report_reproduce(c, "");
	strbuf_release(&sb);
	strbuf_release(&hunks);
	strbuf_release(&later);
	strbuf_release(&attempts);
}

/* check: the findings in compiler format, by patch, with the code */

static int lines_in(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n ? n : (s ? 1 : 0);
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

static void check_vars(struct report_ctx *c)
{
	const struct result *check = store_results_find(&c->v->results, STAGE_CHECK, NULL);
	json_object *findings = rd_doc_findings(check->doc);
	struct strbuf out = STRBUF_INIT, ex = STRBUF_INIT, name = STRBUF_INIT;
	size_t nr = findings ? json_object_array_length(findings) : 0, i;
	int errors = 0, n, last = -1;

	for (n = 0; n <= c->v->total; n++) {
		for (i = 0; i < nr; i++) {
			json_object *f = rd_at(findings, i);
			const char *quote = rd_finding_quote(f), *sugg = rd_finding_suggestion(f);
			size_t mark;

			if (rd_finding_patch(f, 0) != n ||
			    report_check_class(c->v, c->o, f) != REPORT_MAIL)
				continue;
			errors += !strcmp(rd_finding_severity_z(f), RD_SEV_ERROR);
			if (last != n) {
				json_object *p = report_patch(c->v, n);

				strbuf_reset(&name);
				report_patch_name(&name, c->v, n);
				strbuf_addf(&out, "%s%s", out.len ? "\n" : "", name.buf);
				if (p && rd_vpatch_title(p))
					strbuf_addf(&out, " (%s)", rd_vpatch_title(p));
				strbuf_addstr(&out, ":\n");
				last = n;
			}
			report_finding_line(&out, ">> ", STAGE_CHECK, f);
			mark = ex.len;
			strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
			if (report_excerpt(c, n, rd_finding_file(f), (int)rd_finding_line(f, 0),
					   lines_in(quote), quote, &ex)) {
				strbuf_setlen(&ex, mark);
				if (!quote && !sugg)
					continue;
				strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
				strbuf_addf(&ex, "%s:%lld:\n\n", rd_finding_file(f) ?
					    rd_finding_file(f) : name.buf,
					    (long long)rd_finding_line(f, 0));
				if (quote)
					report_add_block(&ex, ">\t", quote);
			}
			if (sugg) {
				strbuf_addf(&ex, "\nsuggested [%s]:\n\n", rd_finding_rule_z(f));
				report_add_block(&ex, " \t", sugg);
			}
		}
	}
	template_set(&c->vars, "level", errors ? "ERROR" : "WARNING");
	template_set(&c->vars, "what", errors ? "errors" : "warnings");
	strbuf_rtrim(&out);
	template_set(&c->vars, "findings", out.buf);
	strbuf_rtrim(&ex);
	template_set(&c->vars, "excerpts", ex.buf);
	report_reproduce(c, "");
	strbuf_release(&out);
	strbuf_release(&ex);
	strbuf_release(&name);
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
	const char *dash = config_get(c->o->cfg, "core.dashboardurl");
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

/* build: per arch, the diagnostics (new ones ">>"), config and compiler */

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

/* Does the section's filter show f? */
static bool build_shows(const struct report_ctx *c, json_object *f)
{
	const char *sev = rd_finding_severity_z(f);
	bool error = !strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL);

	if (report_build_style(c->o, f))
		return false;	/* counted in the style line */
	return c->build == BUILD_ALL || error == (c->build == BUILD_ERRORS);
}

static bool build_arch_shows(const struct report_ctx *c, json_object *findings)
{
	size_t j;

	for (j = 0; findings && j < json_object_array_length(findings); j++)
		if (rd_finding_is_new(rd_at(findings, j), true) &&
		    build_shows(c, rd_at(findings, j)))
			return true;
	return false;
}

static void build_vars(struct report_ctx *c)
{
	struct strbuf out = STRBUF_INIT, ex = STRBUF_INIT, info = STRBUF_INIT;
	struct strbuf shown = STRBUF_INIT;	/* "\npatch:file:line\n" excerpted */
	const char **names = xcalloc(c->v->results.nr + 1, sizeof(*names));
	size_t i, j, nn = 0;
	int errors = 0, warnings = 0;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		json_object *findings = rd_doc_findings(r->doc);
		size_t nf = findings ? json_object_array_length(findings) : 0;

		if (r->stage != STAGE_BUILD || !r->findings || !build_arch_shows(c, findings))
			continue;
		names[nn++] = r->arch;
		report_arch_info(&info, r);
		strbuf_addf(&out, "%s%s (%s):\n\n", out.len ? "\n" : "", r->arch, r->summary);
		for (j = 0; j < nf; j++) {
			json_object *f = rd_at(findings, j);
			bool is_new = rd_finding_is_new(f, true);
			const char *raw = rd_finding_raw(f) ? rd_finding_raw(f) : rd_finding_output(f);
			const char *sev = rd_finding_severity_z(f);
			int patch = (int)rd_finding_patch(f, 0);
			char id[REPORT_ID_LEN + 1];
			size_t mark;

			if (!build_shows(c, f) || (is_new && report_dismissed(c->v, STAGE_BUILD, f)))
				continue;
			if (is_new && (!strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL)))
				errors++;
			else if (is_new)
				warnings++;
			if (raw) {
				strbuf_addstr(&out, is_new ? ">> " : "   ");
				report_add_block(&out, "", raw);
			} else {
				report_finding_line(&out, is_new ? ">> " : "   ", STAGE_BUILD, f);
			}
			if (!is_new)
				continue;
			report_finding_id(STAGE_BUILD, f, id);
			if (patch > 0)
				strbuf_addf(&out, "   (first seen with patch %d/%d; id %s)\n", patch,
					    c->v->total, id);
			else if (raw)
				strbuf_addf(&out, "   (id %s)\n", id);
			/* the same place on another arch: its code once */
			mark = shown.len;
			strbuf_addf(&shown, "\n%d:%s:%lld\n", patch, rd_finding_file_z(f),
				    (long long)rd_finding_line(f, 0));
			if (strstr(shown.buf, shown.buf + mark) != shown.buf + mark) {
				strbuf_setlen(&shown, mark);
				continue;
			}
			mark = ex.len;
			strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
			if (report_excerpt(c, patch, rd_finding_file(f), (int)rd_finding_line(f, 0),
					   1, NULL, &ex))
				strbuf_setlen(&ex, mark);
		}
	}
	template_set(&c->vars, "level", errors ? "ERROR" : "WARNING");
	template_set(&c->vars, "what", errors && warnings ? "errors and new warnings" :
		     errors ? "errors" : "new warnings");
	strbuf_rtrim(&ex);
	template_set(&c->vars, "excerpts", ex.buf);
	report_arch_vars(c, names, nn, &info, &out);
	free(names);
	strbuf_release(&out);
	strbuf_release(&ex);
	strbuf_release(&info);
	strbuf_release(&shown);
}

/* boot: new kselftest failures and kernel splats, per arch */

/* The patch bisection found for f, and how sure it is */
static void boot_culprit(struct strbuf *out, const struct report_version *v, json_object *f)
{
	json_object *cu = rd_finding_culprit(f), *conf = rd_finding_confirm(f);
	int64_t k = rd_culprit_patch(cu, 0);
	json_object *p = k > 0 ? report_patch(v, (int)k) : NULL;
	const char *subject = rd_culprit_subject(cu) ? rd_culprit_subject(cu) :
		p ? rd_vpatch_title(p) : NULL;

	if (k > 0 && rd_culprit_suspect(cu, false))
		strbuf_addf(out, "   bisection points at patch %lld/%d%s%s%s, which only changes "
			    "comments or documentation: suspect, not blamed\n", (long long)k,
			    v->total, subject ? " (\"" : "", subject ? subject : "",
			    subject ? "\")" : "");
	else if (k > 0)
		strbuf_addf(out, "   first bad patch: %lld/%d%s%s%s, found by bisection in "
			    "%lld boot%s\n", (long long)k, v->total, subject ? " (\"" : "",
			    subject ? subject : "", subject ? "\")" : "",
			    (long long)rd_culprit_boots(cu, 0),
			    rd_culprit_boots(cu, 0) == 1 ? "" : "s");
	else if (rd_culprit_why(cu))
		strbuf_addf(out, "   first bad patch not found: %s\n", rd_culprit_why(cu));
	if (conf)
		strbuf_addf(out, "   confirmed: in %lld of %lld runs on the tip, %lld of %lld "
			    "on the base\n",
			    (long long)rd_runs_bad(rd_confirm_tip(conf), 0),
			    (long long)rd_runs_runs(rd_confirm_tip(conf), 0),
			    (long long)rd_runs_bad(rd_confirm_base(conf), 0),
			    (long long)rd_runs_runs(rd_confirm_base(conf), 0));
}

static void boot_vars(struct report_ctx *c)
{
	struct strbuf out = STRBUF_INIT, info = STRBUF_INIT;
	const char **names = xcalloc(c->v->results.nr + 1, sizeof(*names));
	bool noboot = false;
	size_t i, j, nn = 0;
	int flaky = 0;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		json_object *tests = rd_doc_tests(r->doc);
		json_object *findings = rd_doc_findings(r->doc);

		if (r->stage == STAGE_BOOT)
			flaky += (int)rd_doc_flaky_len(r->doc);
		if (r->stage != STAGE_BOOT || (!r->findings && r->status != STATUS_BOOT_FAILURE))
			continue;
		noboot |= r->status == STATUS_BOOT_FAILURE;
		names[nn++] = r->arch;
		report_arch_info(&info, r);
		strbuf_addf(&out, "%s%s (%s):\n\n", out.len ? "\n" : "", r->arch, r->summary);
		for (j = 0; tests && j < json_object_array_length(tests); j++) {
			json_object *t = rd_at(tests, j);
			const char *res = rd_test_result_z(t);

			if (strcmp(res, RD_TEST_FAIL) && strcmp(res, RD_TEST_FLAKY))
				continue;
			bool is_new = !strcmp(res, RD_TEST_FAIL) && rd_test_is_new(t, false);

			strbuf_addf(&out, "%s%s: %s%s\n", is_new ? ">> " : "   ",
				    rd_test_name_z(t), res,
				    rd_test_is_new(t, false) ? "" : " (fails on the base too)");
		}
		for (j = 0; findings && j < json_object_array_length(findings); j++) {
			json_object *f = rd_at(findings, j);
			const char *more = rd_finding_trace(f) ? rd_finding_trace(f) :
				rd_finding_output(f) ? rd_finding_output(f) : rd_finding_log(f);

			char id[REPORT_ID_LEN + 1];

			if (report_dismissed(c->v, STAGE_BOOT, f))
				continue;
			report_finding_id(STAGE_BOOT, f, id);
			strbuf_addf(&out, ">> %s: %s [id %s]\n", rd_finding_kind(f) ?
				    rd_finding_kind(f) : "finding", rd_finding_message_z(f), id);
			if (rd_finding_test(f))
				strbuf_addf(&out, "   (while running %s)\n", rd_finding_test(f));
			boot_culprit(&out, c->v, f);
			if (more) {
				strbuf_addch(&out, '\n');
				report_add_block(&out, "   ", more);
				strbuf_addch(&out, '\n');
			}
		}
	}
	if (flaky)
		strbuf_addf(&out, "%s%d flaky result%s (not in every run, or on the base "
			    "too) %s not counted: see the dashboard.\n", out.len ? "\n" : "",
			    flaky, flaky == 1 ? "" : "s", flaky == 1 ? "is" : "are");
	template_set(&c->vars, "level", noboot ? "BOOT FAILURE" : "REGRESSION");
	template_set(&c->vars, "what", noboot ? "boot failures" : "regressions");
	report_arch_vars(c, names, nn, &info, &out);
	free(names);
	strbuf_release(&out);
	strbuf_release(&info);
}

/* clean: one line per stage */

static void clean_vars(struct report_ctx *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];

		strbuf_addf(&sb, "  %-6s %-7s %s\n", stage_name(r->stage), r->arch,
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

		if (!stages[r->stage]->reply || !r->findings || r->status == STATUS_INFRA)
			continue;
		strbuf_addf(&out, "%s%s%s%s (%s):\n\n", out.len ? "\n" : "", stage_name(r->stage),
			    *r->arch ? " " : "", r->arch, r->summary);
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
		for (k = 0; k < nr && strcmp(shown[k], stage_name(r->stage)); k++)
			;
		if (k == nr)
			shown[nr++] = stage_name(r->stage);
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
		    config_get(c->o->cfg, "core.botname"), c->v->base_commit,
		    config_get(c->o->cfg, "core.botname"));
	report_set_prose(c, "base_line", sb.buf);
	strbuf_release(&sb);
}

typedef void (*vars_fn)(struct report_ctx *c);

static const vars_fn kind_vars[REPLY_KIND_NR] = {
	[REPLY_APPLY] = apply_vars,
	[REPLY_BUILD] = build_vars,
	[REPLY_CHECK] = check_vars,
	[REPLY_BOOT] = boot_vars,
	[REPLY_BASE] = base_kind_vars,
	[REPLY_CLEAN] = clean_vars,
	[REPLY_FINDINGS] = findings_vars,
};

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
		kind_vars[later_sections[s].kind](c);
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
	if (n && !strcmp(config_get(c->o->cfg, "reply.style"), "line"))
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
			    stage_name(needs[c->d->kind]), c->v->id);
		return -1;
	}
	if (base_vars(c, err))
		return -1;
	for (first = 0; first < SECTION_NR && !c->d->sections[first]; first++)
		;
	c->build = first == SECTION_BUILD_ERRORS && c->d->sections[SECTION_BOOT] ?
		BUILD_ERRORS : BUILD_ALL;
	kind_vars[c->d->kind](c);
	c->build = BUILD_ALL;
	coverage_var(c);
	style_var(c);
	if (report_since_var(c, err))
		return -1;
	return sections_var(c, first, err);
}
