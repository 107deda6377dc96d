// SPDX-License-Identifier: GPL-2.0
/*
 * The variables of each reply template: what was found, on which base,
 * with which tools, the findings (new ones marked ">>"), the source
 * around them and how to reproduce it.  Prose is wrapped here; compiler
 * output, code and commands are kept as they are.
 */
#include <stdlib.h>

#include "bot/jsonx.h"
#include "bot/report-int.h"

/* base-commit (if any) and the base apply chose */
struct base_info {
	const char *name, *sha;
	bool from_base_commit;
	bool base_commit_unknown;
};

static void base_info(const struct report_ctx *c, struct base_info *b)
{
	const struct result *apply = results_find(&c->v->results, STAGE_APPLY, NULL);
	json_object *base = apply ? jx_object(apply->doc, "base") : NULL;
	const char *bc = c->v->base_commit;

	memset(b, 0, sizeof(*b));
	b->name = jx_str(base, "name");
	b->sha = jx_str(base, "sha");
	if (bc && b->sha && !strncmp(b->sha, bc, strlen(bc)))
		b->from_base_commit = true;
	else if (bc && (jx_bool(base, "base_commit_unknown", false) || b->sha))
		b->base_commit_unknown = true;
}

static int base_vars(struct report_ctx *c, struct strbuf *err)
{
	const struct result *check = results_find(&c->v->results, STAGE_CHECK, NULL);
	struct strbuf sb = STRBUF_INIT, advice = STRBUF_INIT;
	struct base_info b;
	int ret = 0;

	base_info(c, &b);
	if (b.sha && (b.from_base_commit || !b.name || !strcmp(b.name, b.sha)))
		strbuf_addstr(&sb, b.sha);
	else if (b.sha)
		strbuf_addf(&sb, "%s %s", b.name, b.sha);
	else if (jx_str(check ? check->doc : NULL, "base"))
		strbuf_addstr(&sb, jx_str(check->doc, "base"));
	else
		strbuf_addstr(&sb, "the patches alone (no tree)");
	tvars_set(&c->vars, "base_on", sb.buf);
	tvars_set(&c->vars, "base", b.sha ? sb.buf : "");
	strbuf_reset(&sb);
	if (b.base_commit_unknown)
		strbuf_addf(&sb, "[base-commit %s is not in the tree lorebot tests on; "
			    "this is the closest base it has]", c->v->base_commit);
	tvars_set(&c->vars, "base_note", sb.buf);
	if (!c->v->base_commit)
		ret = template_load(c->o->templates, "reply-base-advice.txt", &advice, err);
	strbuf_rtrim(&advice);
	tvars_set(&c->vars, "base_advice", advice.buf);
	strbuf_release(&sb);
	strbuf_release(&advice);
	return ret;
}

static const char *branch_of(const struct report_ctx *c, struct strbuf *sb)
{
	const struct result *apply = results_find(&c->v->results, STAGE_APPLY, NULL);
	const char *b = apply ? jx_str(apply->doc, "branch") : NULL;

	if (b) {
		skip_prefix(b, "refs/heads/", &b);
		strbuf_addstr(sb, b);
	} else {
		strbuf_addf(sb, "lorebot/%s/v%d", c->v->series_id, c->v->version);
	}
	return sb->buf;
}

/* The commands that do what lorebot did, in the developer's tree ("linux") */
static void reproduce(struct report_ctx *c, const char *archs)
{
	struct strbuf sb = STRBUF_INIT, branch = STRBUF_INIT, mbx = STRBUF_INIT;
	struct base_info b;
	enum reply_kind kind = c->d->kind;

	base_info(c, &b);
	strbuf_addf(&mbx, "%s.mbx", c->v->id);
	strbuf_addstr(&sb, "        b4 mbox ");
	report_shell_quote(&sb, c->v->id);
	strbuf_addstr(&sb, "\n");
	if (kind == REPLY_CHECK) {
		strbuf_addstr(&sb, "        lorebot check --repo linux --mbox ");
		report_shell_quote(&sb, mbx.buf);
		strbuf_addch(&sb, '\n');
	} else {
		strbuf_addstr(&sb, "        lorebot apply --repo linux --mbox ");
		report_shell_quote(&sb, mbx.buf);
		if (b.sha)
			strbuf_addf(&sb, " --base %s", b.sha);
		strbuf_addch(&sb, '\n');
	}
	branch_of(c, &branch);
	if (kind == REPLY_BUILD || kind == REPLY_BOOT) {
		strbuf_addstr(&sb, "        lorebot build --repo linux --series ");
		report_shell_quote(&sb, branch.buf);
		strbuf_addf(&sb, " --arch %s\n", archs);
	}
	if (kind == REPLY_BOOT) {
		strbuf_addstr(&sb, "        lorebot boot --repo linux --series ");
		report_shell_quote(&sb, branch.buf);
		strbuf_addf(&sb, " --arch %s\n", archs);
	}
	strbuf_rtrim(&sb);
	tvars_set(&c->vars, "reproduce", sb.buf);
	tvars_set(&c->vars, "branch", branch.buf);
	strbuf_release(&sb);
	strbuf_release(&branch);
	strbuf_release(&mbx);
}

/* "a", "a and b", "a, b and c" */
static void and_list(struct strbuf *sb, const char *const *items, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (i)
			strbuf_addstr(sb, i + 1 == nr ? " and " : ", ");
		strbuf_addstr(sb, items[i]);
	}
}

/* Indent every line of s by pre (a block quoted in the body) */
static void add_block(struct strbuf *sb, const char *pre, const char *s)
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
	json_object *lines = jx_array(tree, "lines");
	size_t i;

	for (i = 0; lines && i < json_object_array_length(lines); i++) {
		json_object *l = json_object_array_get_idx(lines, i);
		const char *kind = jx_strz(l, "kind");
		int64_t no = jx_int(l, "line", 0);

		/* '+': in the tree, not in the hunk; '-': in the hunk, not in the tree */
		strbuf_addstr(sb, *kind == '+' ? ">" : *kind == '-' ? "-" : " ");
		if (no > 0)
			strbuf_addf(sb, "%5lld\t", (long long)no);
		else
			strbuf_addstr(sb, "     \t");
		strbuf_addstr(sb, jx_strz(l, "text"));
		strbuf_addch(sb, '\n');
	}
}

static void apply_vars(struct report_ctx *c)
{
	const struct result *apply = results_find(&c->v->results, STAGE_APPLY, NULL);
	json_object *patches = jx_array(apply->doc, "patches"), *failed = NULL;
	struct strbuf sb = STRBUF_INIT, hunks = STRBUF_INIT, later = STRBUF_INIT;
	struct strbuf attempts = STRBUF_INIT;
	json_object *tried = jx_array(apply->doc, "attempts");
	size_t i, nfail;
	struct base_info b;

	base_info(c, &b);
	for (i = 0; patches && i < json_object_array_length(patches); i++) {
		json_object *p = json_object_array_get_idx(patches, i);
		const char *status = jx_strz(p, "status");

		if (!failed && !strcmp(status, "failed")) {
			failed = p;
		} else if (failed && strcmp(status, "applied")) {
			json_object *alone = jx_get(p, "would_apply_alone");

			strbuf_addf(&later, "%sPatch %d/%d was not applied after it", later.len ?
				    " " : "", (int)jx_int(p, "n", 0), c->v->total);
			if (alone && json_object_is_type(alone, json_type_boolean))
				strbuf_addf(&later, "; on its own it %s.",
					    json_object_get_boolean(alone) ? "would apply" :
					    "would not apply either");
			else
				strbuf_addch(&later, '.');
		}
	}
	if (failed) {
		json_object *fails = jx_array(failed, "failures");

		nfail = fails ? json_object_array_length(fails) : 0;
		strbuf_addf(&sb, "Patch %d/%d (\"%s\") does not apply to %s%s%.12s%s",
			    (int)jx_int(failed, "n", 0), c->v->total,
			    jx_str(failed, "subject") ? jx_str(failed, "subject") : "?",
			    b.name ? b.name : "the base", b.sha ? " (" : "", b.sha ? b.sha : "",
			    b.sha ? ")" : "");
		if (nfail > 1)
			strbuf_addf(&sb, ": %zu hunks fail.", nfail);
		else if (jx_str(failed, "file"))
			strbuf_addf(&sb, ": a hunk of %s fails.", jx_str(failed, "file"));
		else
			strbuf_addch(&sb, '.');
		for (i = 0; i < nfail; i++) {
			json_object *f = json_object_array_get_idx(fails, i);
			json_object *tree = jx_object(f, "tree");

			strbuf_addf(&hunks, "%s%s:%lld: error: %s %s\n", hunks.len ? "\n" : "",
				    jx_str(f, "file") ? jx_str(f, "file") : "?",
				    (long long)jx_int(f, "line", 0), jx_strz(f, "hunk"),
				    jx_str(f, "message") ? jx_str(f, "message") : "does not apply");
			if (jx_str(f, "excerpt")) {
				strbuf_addstr(&hunks, "\nThe hunk expects:\n\n");
				add_block(&hunks, "    ", jx_str(f, "excerpt"));
			}
			if (tree && jx_len(tree, "lines")) {
				strbuf_addf(&hunks, "\n%s has (> lines the hunk does not expect,\n"
					    "- lines it expects that are missing):\n\n",
					    b.name ? b.name : "The tree");
				tree_lines(&hunks, tree);
			}
		}
		if (!nfail && jx_str(failed, "message"))
			strbuf_addf(&hunks, "%s: error: %s\n", jx_strz(failed, "file"),
				    jx_str(failed, "message"));
	} else {
		json_object *base = jx_object(apply->doc, "base");

		strbuf_addf(&sb, "The series could not be applied: %s.",
			    jx_str(base, "reason") ? jx_str(base, "reason") : "no base was found");
	}
	for (i = 0; tried && i < json_object_array_length(tried); i++) {
		json_object *a = json_object_array_get_idx(tried, i);

		strbuf_addf(&attempts, "  %s%s%.12s: %s\n", jx_strz(a, "name"),
			    jx_str(a, "sha") ? " " : "", jx_strz(a, "sha"),
			    jx_str(a, "outcome") ? jx_str(a, "outcome") : "?");
	}
	report_set_prose(c, "failure", sb.buf);
	strbuf_rtrim(&hunks);
	tvars_set(&c->vars, "hunks", hunks.buf);
	report_set_prose(c, "later", later.buf);
	strbuf_rtrim(&attempts);
	tvars_set(&c->vars, "attempts", attempts.buf);
	reproduce(c, "");
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

static bool reportable(json_object *f)
{
	const char *sev = jx_strz(f, "severity");

	return !strcmp(sev, "error") || !strcmp(sev, "warning");
}

static void finding_line(struct strbuf *sb, const char *mark, json_object *f)
{
	const char *file = jx_str(f, "file");
	int64_t line = jx_int(f, "line", 0);

	strbuf_addstr(sb, mark);
	if (file && line > 0 && jx_int(f, "column", 0) > 0)
		strbuf_addf(sb, "%s:%lld:%lld: ", file, (long long)line,
			    (long long)jx_int(f, "column", 0));
	else if (file && line > 0)
		strbuf_addf(sb, "%s:%lld: ", file, (long long)line);
	else if (file)
		strbuf_addf(sb, "%s: ", file);
	strbuf_addf(sb, "%s: %s", jx_str(f, "severity") ? jx_str(f, "severity") : "warning",
		    jx_strz(f, "message"));
	if (jx_str(f, "rule"))
		strbuf_addf(sb, " [%s]", jx_str(f, "rule"));
	strbuf_addch(sb, '\n');
}

static void check_vars(struct report_ctx *c)
{
	const struct result *check = results_find(&c->v->results, STAGE_CHECK, NULL);
	json_object *findings = jx_array(check->doc, "findings");
	struct strbuf out = STRBUF_INIT, ex = STRBUF_INIT, name = STRBUF_INIT;
	size_t nr = findings ? json_object_array_length(findings) : 0, i;
	int errors = 0, n, last = -1;

	for (n = 0; n <= c->v->total; n++) {
		for (i = 0; i < nr; i++) {
			json_object *f = json_object_array_get_idx(findings, i);
			const char *quote = jx_str(f, "quote"), *sugg = jx_str(f, "suggestion");
			size_t mark;

			if (jx_int(f, "patch", 0) != n || !reportable(f))
				continue;
			errors += !strcmp(jx_strz(f, "severity"), "error");
			if (last != n) {
				json_object *p = report_patch(c->v, n);

				strbuf_reset(&name);
				report_patch_name(&name, c->v, n);
				strbuf_addf(&out, "%s%s", out.len ? "\n" : "", name.buf);
				if (p && jx_str(p, "title"))
					strbuf_addf(&out, " (%s)", jx_str(p, "title"));
				strbuf_addstr(&out, ":\n");
				last = n;
			}
			finding_line(&out, ">> ", f);
			mark = ex.len;
			strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
			if (report_excerpt(c, n, jx_str(f, "file"), (int)jx_int(f, "line", 0),
					   lines_in(quote), quote, &ex)) {
				strbuf_setlen(&ex, mark);
				if (!quote && !sugg)
					continue;
				strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
				strbuf_addf(&ex, "%s:%lld:\n\n", jx_str(f, "file") ?
					    jx_str(f, "file") : name.buf,
					    (long long)jx_int(f, "line", 0));
				if (quote)
					add_block(&ex, ">\t", quote);
			}
			if (sugg) {
				strbuf_addf(&ex, "\nsuggested [%s]:\n\n", jx_strz(f, "rule"));
				add_block(&ex, " \t", sugg);
			}
		}
	}
	tvars_set(&c->vars, "level", errors ? "ERROR" : "WARNING");
	tvars_set(&c->vars, "what", errors ? "errors" : "warnings");
	strbuf_rtrim(&out);
	tvars_set(&c->vars, "findings", out.buf);
	strbuf_rtrim(&ex);
	tvars_set(&c->vars, "excerpts", ex.buf);
	reproduce(c, "");
	strbuf_release(&out);
	strbuf_release(&ex);
	strbuf_release(&name);
}

/*
 * What build and boot replies share: the archs concerned ("arm64 and
 * riscv"), their config and compiler lines, the findings, and the
 * commands for those archs
 */
static void arch_vars(struct report_ctx *c, const char **names, size_t nn,
		      struct strbuf *info, struct strbuf *findings)
{
	struct strbuf archs = STRBUF_INIT, list = STRBUF_INIT;
	size_t i;

	and_list(&archs, names, nn);
	for (i = 0; i < nn; i++)
		strbuf_addf(&list, "%s%s", i ? "," : "", names[i]);
	tvars_set(&c->vars, "archs", archs.buf);
	strbuf_rtrim(info);
	tvars_set(&c->vars, "arch_info", info->buf);
	strbuf_rtrim(findings);
	tvars_set(&c->vars, "findings", findings->buf);
	reproduce(c, list.len ? list.buf : "x86_64");
	strbuf_release(&archs);
	strbuf_release(&list);
}

/* build: per arch, the diagnostics (new ones ">>"), config and compiler */

static const char *str_or_name(json_object *o, const char *key)
{
	json_object *v = jx_get(o, key);

	if (v && json_object_is_type(v, json_type_object))
		return jx_str(v, "name");
	return jx_str(o, key);
}

static void arch_info(struct strbuf *sb, const struct result *r)
{
	const char *config = str_or_name(r->doc, "config");
	const char *profile = str_or_name(r->doc, "profile");
	const char *compiler = str_or_name(r->doc, "compiler");

	strbuf_addf(sb, "config:        %s%s%s\n", r->arch,
		    config || profile ? "-" : "", config ? config : profile ? profile : "");
	if (compiler)
		strbuf_addf(sb, "compiler:      %s\n", compiler);
}

static void build_vars(struct report_ctx *c)
{
	struct strbuf out = STRBUF_INIT, ex = STRBUF_INIT, info = STRBUF_INIT;
	const char **names = xcalloc(c->v->results.nr + 1, sizeof(*names));
	size_t i, j, nn = 0;
	int errors = 0, warnings = 0;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		json_object *findings = jx_array(r->doc, "findings");
		size_t nf = findings ? json_object_array_length(findings) : 0;

		if (r->stage != STAGE_BUILD || !r->findings)
			continue;
		names[nn++] = r->arch;
		arch_info(&info, r);
		strbuf_addf(&out, "%s%s (%s):\n\n", out.len ? "\n" : "", r->arch, r->summary);
		for (j = 0; j < nf; j++) {
			json_object *f = json_object_array_get_idx(findings, j);
			bool is_new = jx_bool(f, "new", true);
			const char *raw = jx_str(f, "raw") ? jx_str(f, "raw") : jx_str(f, "output");
			const char *sev = jx_strz(f, "severity");
			int patch = (int)jx_int(f, "patch", 0);
			size_t mark;

			if (is_new && (!strcmp(sev, "error") || !strcmp(sev, "fatal error")))
				errors++;
			else if (is_new)
				warnings++;
			if (raw) {
				strbuf_addstr(&out, is_new ? ">> " : "   ");
				add_block(&out, "", raw);
			} else {
				finding_line(&out, is_new ? ">> " : "   ", f);
			}
			if (!is_new)
				continue;
			if (patch > 0)
				strbuf_addf(&out, "   (first seen with patch %d/%d)\n", patch,
					    c->v->total);
			mark = ex.len;
			strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
			if (report_excerpt(c, patch, jx_str(f, "file"), (int)jx_int(f, "line", 0),
					   1, NULL, &ex))
				strbuf_setlen(&ex, mark);
		}
	}
	tvars_set(&c->vars, "level", errors ? "ERROR" : "WARNING");
	tvars_set(&c->vars, "what", errors && warnings ? "errors and new warnings" :
		  errors ? "errors" : "new warnings");
	strbuf_rtrim(&ex);
	tvars_set(&c->vars, "excerpts", ex.buf);
	arch_vars(c, names, nn, &info, &out);
	free(names);
	strbuf_release(&out);
	strbuf_release(&ex);
	strbuf_release(&info);
}

/* boot: new kselftest failures and kernel splats, per arch */

static void boot_vars(struct report_ctx *c)
{
	struct strbuf out = STRBUF_INIT, info = STRBUF_INIT;
	const char **names = xcalloc(c->v->results.nr + 1, sizeof(*names));
	bool noboot = false;
	size_t i, j, nn = 0;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		json_object *tests = jx_array(r->doc, "tests");
		json_object *findings = jx_array(r->doc, "findings");

		if (r->stage != STAGE_BOOT || (!r->findings && strcmp(r->status, "boot-failure")))
			continue;
		noboot |= !strcmp(r->status, "boot-failure");
		names[nn++] = r->arch;
		arch_info(&info, r);
		strbuf_addf(&out, "%s%s (%s):\n\n", out.len ? "\n" : "", r->arch, r->summary);
		for (j = 0; tests && j < json_object_array_length(tests); j++) {
			json_object *t = json_object_array_get_idx(tests, j);
			const char *res = jx_strz(t, "result");

			if (strcmp(res, "fail") && strcmp(res, "flaky"))
				continue;
			bool is_new = !strcmp(res, "fail") && jx_bool(t, "new", false);

			strbuf_addf(&out, "%s%s: %s%s\n", is_new ? ">> " : "   ",
				    jx_strz(t, "name"), res,
				    jx_bool(t, "new", false) ? "" : " (fails on the base too)");
		}
		for (j = 0; findings && j < json_object_array_length(findings); j++) {
			json_object *f = json_object_array_get_idx(findings, j);
			const char *more = jx_str(f, "trace") ? jx_str(f, "trace") :
				jx_str(f, "output") ? jx_str(f, "output") : jx_str(f, "log");

			strbuf_addf(&out, ">> %s: %s\n", jx_str(f, "kind") ? jx_str(f, "kind") :
				    "finding", jx_strz(f, "message"));
			if (jx_str(f, "test"))
				strbuf_addf(&out, "   (while running %s)\n", jx_str(f, "test"));
			if (more) {
				strbuf_addch(&out, '\n');
				add_block(&out, "   ", more);
				strbuf_addch(&out, '\n');
			}
		}
	}
	tvars_set(&c->vars, "level", noboot ? "BOOT FAILURE" : "REGRESSION");
	tvars_set(&c->vars, "what", noboot ? "boot failures" : "regressions");
	arch_vars(c, names, nn, &info, &out);
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

		strbuf_addf(&sb, "  %-6s %-7s %s\n", result_stage_name(r->stage), r->arch,
			    r->summary);
	}
	strbuf_rtrim(&sb);
	tvars_set(&c->vars, "summary", sb.buf);
	reproduce(c, "x86_64");
	strbuf_release(&sb);
}

int report_body_vars(struct report_ctx *c, struct strbuf *err)
{
	static void (*const fn[REPLY_KIND_NR])(struct report_ctx *) = {
		[REPLY_APPLY] = apply_vars,
		[REPLY_BUILD] = build_vars,
		[REPLY_CHECK] = check_vars,
		[REPLY_BOOT] = boot_vars,
		[REPLY_CLEAN] = clean_vars,
	};
	enum result_stage needs[REPLY_KIND_NR] = {
		[REPLY_APPLY] = STAGE_APPLY,
		[REPLY_CHECK] = STAGE_CHECK,
	};

	if ((c->d->kind == REPLY_APPLY || c->d->kind == REPLY_CHECK) &&
	    !results_find(&c->v->results, needs[c->d->kind], NULL)) {
		strbuf_addf(err, "no %s result for version '%s'",
			    result_stage_name(needs[c->d->kind]), c->v->id);
		return -1;
	}
	if (base_vars(c, err))
		return -1;
	fn[c->d->kind](c);
	return 0;
}
