// SPDX-License-Identifier: GPL-2.0
/*
 * apply: the version's mail applied onto its base (lorebot apply), the
 * branch every later stage reads
 */
#include "bot/results/contract.h"
#include "bot/report/report-int.h"
#include "bot/report/pcheck.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"

static int summarise_apply(json_object *doc, struct result *r, struct strbuf *err)
{
	json_object *patches = rd_doc_patches(doc), *base = rd_doc_base(doc);
	json_object *failed = NULL;
	size_t i, nr, bad_patches = 0;
	struct strbuf sb = STRBUF_INIT;

	nr = json_object_array_length(patches);
	for (i = 0; i < nr; i++) {
		json_object *p = rd_at(patches, i);
		const char *status = rd_patch_status(p);

		if (!status)
			return results_bad(err, STAGE_APPLY, "patch %lld has no '%s'",
					   (long long)rd_patch_n(p, 0), RK_(patch, status));
		if (!strcmp(status, RD_PATCH_FAILED)) {
			bad_patches++;
			if (!failed)
				failed = p;
		}
	}
	if (failed) {
		const char *file = rd_patch_file(failed);

		strbuf_addf(&sb, "patch %d/%d does not apply", (int)rd_patch_n(failed, 0),
			    (int)rd_patch_total(failed, (int64_t)nr));
		if (file)
			strbuf_addf(&sb, ": %s", file);
		r->status = STATUS_FAILED;
		r->findings = (int)bad_patches;
	} else if (!rd_doc_applied(doc, true) || (!nr && !rd_doc_branch(doc))) {
		strbuf_addf(&sb, "not applied: %s",
			    rd_base_reason(base) ? rd_base_reason(base) : "no base");
		r->status = STATUS_FAILED;
		r->findings = 1;
	} else {
		strbuf_addf(&sb, "applied on %s", rd_base_name(base) ?
			    rd_base_name(base) : "?");
		if (rd_base_sha(base))
			strbuf_addf(&sb, " (%.12s)", rd_base_sha(base));
		r->status = STATUS_APPLIED;
	}
	r->summary = strbuf_detach(&sb, NULL);
	return 0;
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

/* The reply's record: the patches that did not apply */
static bool apply_snap(const struct report_ctx *c, const struct result *r, json_object *out)
{
	json_object *ps = c->d->sections[SECTION_APPLY] ? rd_doc_patches(r->doc) : NULL;
	size_t i, nr = 0;

	for (i = 0; ps && i < json_object_array_length(ps); i++) {
		json_object *p = rd_at(ps, i), *o;

		if (strcmp(rd_patch_status_z(p), RD_PATCH_FAILED))
			continue;
		o = json_object_new_object();
		report_snap_str(o, "stage", plan_stage_name(r->stage));
		report_snap_int(o, "patch", rd_patch_n(p, 0));
		report_snap_str(o, "file", rd_patch_file(p));
		report_snap_str(o, "severity", "error");
		report_snap_str(o, "message", rd_patch_message(p) ? rd_patch_message(p) :
				"does not apply");
		json_object_array_add(out, o);
		nr++;
	}
	return nr > 0;
}

/* The version apply says it applied: the one the job gave it */
static const char *apply_version(json_object *doc)
{
	return rd_doc_send(doc);
}

const struct stage_ops stage_apply = {
	.name = "apply",
	.after = STAGE_NONE,
	.command = "apply",
	.input = STAGE_IN_MBOX,
	.sandbox = true,
	.mbox_thread = true,
	.quarantine = true,
	.fetches = true,
	.doc_version = apply_version,
	.statuses = ST(APPLIED) | ST(FAILED) | ST(INFRA),
	.fails = "apply-failed",
	.fail_on = ST(FAILED),
	.keys = (const struct stage_key[]){
		{ RK_(doc, patches), STAGE_KEY_LIST, .required = true },
		{ .key = NULL },
	},
	.summarise = summarise_apply,
	.dash = true,
	.section_vars = apply_vars,
	.pcheck_context = "lorebot-apply",
	.pchecks = pcheck_apply,
	.snap_findings = apply_snap,
};
