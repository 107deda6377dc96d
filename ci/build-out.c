// SPDX-License-Identifier: GPL-2.0
#include "ci/build-out.h"
#include "lib/jsonx.h"
#include "bot/results/contract.h"
#include "bot/results/results.h"

#define RANGES_SHOWN 5		/* ranges not compiled named in the text */

static json_object *finding_json(const struct build_arch_result *r,
				 const struct build_finding *f)
{
	json_object *o = json_object_new_object();
	struct strbuf text = STRBUF_INIT;

	diag_format(&f->d, &text);
	json_object_object_add(o, "patch", json_object_new_int(f->patch));
	json_object_object_add(o, "commit", f->patch ?
			       json_object_new_string(r->patches[f->patch - 1].commit) :
			       NULL);
	json_object_object_add(o, "file", json_object_new_string(f->d.file));
	json_object_object_add(o, "line", json_object_new_int(f->d.line));
	json_object_object_add(o, "column", json_object_new_int(f->d.col));
	json_object_object_add(o, "severity",
			       json_object_new_string(diag_severity_name(f->d.sev)));
	json_object_object_add(o, "message", json_object_new_string(f->d.message));
	json_object_object_add(o, "option", jx_new_nonempty(f->d.option));
	json_object_object_add(o, "function", jx_new_nonempty(f->d.function));
	json_object_object_add(o, "unit", jx_new_nonempty(f->d.unit));
	json_object_object_add(o, "tool", json_object_new_string(f->d.tool));
	json_object_object_add(o, "new", json_object_new_boolean(f->is_new));
	json_object_object_add(o, "w1", json_object_new_boolean(f->w1));
	json_object_object_add(o, "style", json_object_new_boolean(kcheck_style(&f->d)));
	json_object_object_add(o, "fixed_by", f->fixed_by ?
			       json_object_new_int(f->fixed_by) : NULL);
	json_object_object_add(o, "text", json_object_new_string(text.buf));
	strbuf_release(&text);
	return o;
}

/* Lines as an array of strings */
static json_object *lines_json(const char *p)
{
	json_object *a = json_object_new_array();

	while (*p) {
		size_t n = strcspn(p, "\n");

		json_object_array_add(a, json_object_new_string_len(p, n));
		p += n + !!p[n];
	}
	return a;
}

static json_object *seconds(uint64_t ms)
{
	return json_object_new_double((double)(ms / 100) / 10.0);
}

static json_object *range_json(const struct cover_range *r, unsigned int patch,
			       const char *file)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, RK_(range, patch), json_object_new_int(patch));
	json_object_object_add(o, RK_(range, file), jx_new_str(file));
	json_object_object_add(o, RK_(range, from), json_object_new_int(r->from));
	json_object_object_add(o, RK_(range, to), json_object_new_int(r->to));
	json_object_object_add(o, RK_(range, lines), json_object_new_int(r->lines));
	json_object_object_add(o, RK_(range, spans), jx_new_str(r->spans));
	json_object_object_add(o, RK_(range, reason), jx_new_str(r->reason));
	json_object_object_add(o, RK_(range, needs), jx_new_str_array(r->needs, r->needs_nr));
	json_object_object_add(o, RK_(range, arch), json_object_new_boolean(r->arch));
	if (r->arches) {
		json_object *a = json_object_new_array();
		const char *p = r->arches;

		while (*p) {
			size_t n = strcspn(p, ",");

			json_object_array_add(a, json_object_new_string_len(p, (int)n));
			p += n + !!p[n];
		}
		json_object_object_add(o, RK_(range, arches), a);
	}
	return o;
}

static void counts(json_object *o, int changed, int compiled, int arch)
{
	json_object_object_add(o, RK_(cover, changed), json_object_new_int(changed));
	json_object_object_add(o, RK_(cover, compiled), json_object_new_int(compiled));
	json_object_object_add(o, RK_(cover, other_arch), json_object_new_int(arch));
}

/* A patch's: per file, lines compiled / changed */
static json_object *patch_cover_json(const struct cover_presult *c)
{
	json_object *o = json_object_new_object(), *files = json_object_new_array();
	size_t i;

	json_object_object_add(o, RK_(cover, measured), json_object_new_boolean(c->done));
	counts(o, c->changed, c->compiled, c->arch);
	for (i = 0; i < c->nr; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, RK_(range, file), jx_new_str(c->f[i].file));
		counts(f, c->f[i].changed, c->f[i].compiled, c->f[i].arch);
		json_object_array_add(files, f);
	}
	json_object_object_add(o, RK_(cover, files), files);
	json_object_object_add(o, "units", json_object_new_int(c->units));
	json_object_object_add(o, "seconds", json_object_new_double((double)(c->ms / 100) / 10.0));
	return o;
}

static json_object *repair_json(const struct build_repair *b)
{
	json_object *o = json_object_new_object(), *failed = json_object_new_array();
	json_object *config = json_object_new_array();
	size_t i;

	json_object_object_add(o, "ran", json_object_new_boolean(b->ran));
	json_object_object_add(o, RK_(repair, used), json_object_new_boolean(b->used));
	json_object_object_add(o, RK_(repair, profile), jx_new_nonempty(b->profile));
	json_object_object_add(o, RK_(repair, note), jx_new_nonempty(b->note));
	for (i = 0; i < b->r.set_nr; i++) {
		char *line = xasprintf("%s=y", b->r.set[i]);

		json_object_array_add(config, json_object_new_string(line));
		free(line);
	}
	for (i = 0; i < b->r.unset_nr; i++) {
		char *line = xasprintf("# %s is not set", b->r.unset[i]);

		json_object_array_add(config, json_object_new_string(line));
		free(line);
	}
	json_object_object_add(o, RK_(repair, config), config);
	for (i = 0; i < b->r.fail_nr; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, RK_(rfail, symbol), jx_new_str(b->r.fail[i].sym));
		json_object_object_add(f, RK_(rfail, reason), jx_new_str(b->r.fail[i].why));
		json_object_object_add(f, RK_(rfail, arch),
				       json_object_new_boolean(b->r.fail[i].arch));
		json_object_object_add(f, RK_(rfail, off),
				       json_object_new_boolean(b->r.fail[i].off));
		json_object_array_add(failed, f);
	}
	json_object_object_add(o, RK_(repair, failed), failed);
	json_object_object_add(o, "predicted", json_object_new_object());
	json_object_object_add(jx_object(o, "predicted"), "changed",
			       json_object_new_int(b->changed));
	json_object_object_add(jx_object(o, "predicted"), "profile",
			       json_object_new_int(b->small));
	json_object_object_add(jx_object(o, "predicted"), "repaired",
			       json_object_new_int(b->repaired));
	json_object_object_add(o, "seeded", json_object_new_boolean(b->seeded));
	json_object_object_add(o, "base_built", json_object_new_boolean(b->base_built));
	json_object_object_add(o, "olddefconfig_runs", json_object_new_int(b->r.rounds));
	json_object_object_add(o, "seconds", json_object_new_double((double)(b->ms / 100) / 10.0));
	return o;
}

/* The arch's: totals, the ranges not compiled, the repair */
static json_object *cover_json(const struct build_arch_result *r, int mincoverage)
{
	json_object *o = json_object_new_object(), *u = json_object_new_array();
	double pct = buildjob_coverage(r);
	size_t i, j, k;

	json_object_object_add(o, RK_(cover, measured), json_object_new_boolean(r->cover_measured));
	json_object_object_add(o, RK_(cover, error), jx_new_nonempty(r->cover_error));
	counts(o, r->cover_changed, r->cover_compiled, r->cover_arch);
	json_object_object_add(o, "percent", pct < 0 ? NULL :
			       json_object_new_double((double)(long long)(pct * 10) / 10.0));
	json_object_object_add(o, RK_(cover, mincoverage), json_object_new_int(mincoverage));
	for (i = 0; i < r->patches_nr; i++) {
		const struct cover_presult *c = &r->patches[i].cover;

		for (j = 0; j < c->nr; j++)
			for (k = 0; k < c->f[j].nr; k++)
				json_object_array_add(u, range_json(&c->f[j].r[k], r->patches[i].n,
								    c->f[j].file));
	}
	json_object_object_add(o, RK_(cover, uncompiled), u);
	json_object_object_add(o, RK_(cover, repair), repair_json(&r->repair));
	return o;
}

static json_object *patch_json(const struct build_patch_result *p)
{
	json_object *o = json_object_new_object();
	size_t i;

	json_object_object_add(o, "n", json_object_new_int(p->n));
	json_object_object_add(o, "commit", json_object_new_string(p->commit));
	json_object_object_add(o, "subject", jx_new_nonempty(p->subject));
	json_object_object_add(o, "status",
			       json_object_new_string(buildjob_status_name(p->status)));
	json_object_object_add(o, "kconfig", json_object_new_boolean(p->kconfig));
	json_object_object_add(o, "seconds", seconds(p->ms));
	json_object_object_add(o, "rebuilt", json_object_new_int(p->rebuilt));
	json_object_object_add(o, "w1_files", json_object_new_int(p->w1_units));
	json_object_object_add(o, "ccache_hits", json_object_new_int(p->cc_hits));
	json_object_object_add(o, "ccache_misses", json_object_new_int(p->cc_misses));
	json_object_object_add(o, "ccache_writes", json_object_new_int(p->cc_writes));
	json_object_object_add(o, "log", jx_new_nonempty(p->log));
	json_object_object_add(o, "w1_log", jx_new_nonempty(p->w1_log));
	for (i = 0; i < KCHECK_NR; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s_files", kchecks[i].name);
		json_object_object_add(o, key, json_object_new_int(p->check[i].files));
		snprintf(key, sizeof(key), "%s_seconds", kchecks[i].name);
		json_object_object_add(o, key, seconds(p->check[i].ms));
		snprintf(key, sizeof(key), "%s_log", kchecks[i].name);
		json_object_object_add(o, key, jx_new_nonempty(p->check[i].log));
	}
	json_object_object_add(o, RK_(doc, coverage), patch_cover_json(&p->cover));
	return o;
}

static json_object *arch_json(const struct build_arch_result *r, int mincoverage)
{
	json_object *o = json_object_new_object();
	json_object *findings = json_object_new_array();
	json_object *patches = json_object_new_array();
	json_object *bisect = json_object_new_array();
	json_object *base = json_object_new_object();
	size_t i;

	json_object_object_add(o, "arch", json_object_new_string(r->arch));
	json_object_object_add(o, "status",
			       json_object_new_string(buildjob_status_name(r->status)));
	json_object_object_add(o, "infra", jx_new_nonempty(r->infra));
	if (r->infra)
		json_object_object_add(o, "infra_patch",
				       json_object_new_int(r->infra_patch));
	for (i = 0; i < r->nr; i++)
		json_object_array_add(findings, finding_json(r, &r->findings[i]));
	json_object_object_add(o, "findings", findings);
	for (i = 0; i < r->patches_nr; i++)
		json_object_array_add(patches, patch_json(&r->patches[i]));
	json_object_object_add(o, "patches", patches);
	for (i = 0; i < r->bisect_nr; i++)
		json_object_array_add(bisect, json_object_new_string(r->bisect[i]));
	json_object_object_add(o, "bisection", bisect);
	json_object_object_add(base, "reused", json_object_new_boolean(r->base_reused));
	json_object_object_add(base, "seconds", seconds(r->base_ms));
	json_object_object_add(base, "refresh_seconds",
			       r->base_refreshed ? seconds(r->refresh_ms) : NULL);
	json_object_object_add(base, "ccache_hits", json_object_new_int(r->base_cc_hits));
	json_object_object_add(base, "ccache_misses",
			       json_object_new_int(r->base_cc_misses));
	json_object_object_add(o, "base", base);
	json_object_object_add(o, "config_notes", jx_new_nonempty(r->config_notes));
	for (i = 0; i < KCHECK_NR; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s_skipped", kchecks[i].name);
		json_object_object_add(o, key, jx_new_nonempty(r->check_skipped[i]));
	}
	json_object_object_add(o, "build_dir", jx_new_nonempty(r->build_dir));
	json_object_object_add(o, "src_dir", jx_new_nonempty(r->src_dir));
	json_object_object_add(o, "obj_dir", jx_new_nonempty(r->obj_dir));
	json_object_object_add(o, "log_dir", jx_new_nonempty(r->log_dir));
	json_object_object_add(o, "image", jx_new_nonempty(r->image));
	json_object_object_add(o, "config_file", jx_new_nonempty(r->config));
	if (r->make)
		json_object_object_add(o, "make", lines_json(r->make));
	if (r->make_checks)
		json_object_object_add(o, RK_(doc, make_checks), lines_json(r->make_checks));
	json_object_object_add(o, RK_(doc, coverage), cover_json(r, mincoverage));
	json_object_object_add(o, "seconds", seconds(r->ms));
	return o;
}

/* The union over the archs, from their JSON (bot/results/results.h) */
static void job_cover(const struct build_job *job, json_object *archs,
		      struct results_cover *c)
{
	json_object **v = xcalloc(job->archs_nr + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < job->archs_nr; i++)
		v[i] = json_object_array_get_idx(archs, i);
	results_cover_union(v, job->archs_nr, c);
	free(v);
}

static bool job_partial(const struct build_job *job, const struct results_cover *c)
{
	return job->archs_nr && job->commits.nr &&
		(c->archs < (int)job->archs_nr || results_cover_below(c, job->mincoverage));
}

static enum build_status worst_status(const struct build_job *job)
{
	static const int rank[] = {
		[BUILD_OK] = 0, [BUILD_SKIPPED] = 0, [BUILD_PARTIAL] = 1,
		[BUILD_INFRA] = 2, [BUILD_WARNINGS] = 3, [BUILD_ERRORS] = 4,
	};
	enum build_status worst = BUILD_OK;
	size_t i;

	for (i = 0; i < job->archs_nr; i++)
		if (rank[job->archs[i].status] > rank[worst])
			worst = job->archs[i].status;
	return worst;
}

bool build_job_compiled_too_little(const struct build_job *job)
{
	json_object *archs = json_object_new_array();
	struct results_cover c;
	bool below;
	size_t i;

	for (i = 0; i < job->archs_nr; i++)
		json_object_array_add(archs, arch_json(&job->archs[i], job->mincoverage));
	job_cover(job, archs, &c);
	below = job_partial(job, &c);
	results_cover_release(&c);
	json_object_put(archs);
	return below;
}

enum build_status build_job_status(const struct build_job *job)
{
	enum build_status worst = worst_status(job);

	/* every arch ok, the union below build.mincoverage: partial */
	if (worst == BUILD_OK && build_job_compiled_too_little(job))
		worst = BUILD_PARTIAL;
	return worst;
}

json_object *build_job_to_json(const struct build_job *job)
{
	json_object *o = json_object_new_object();
	json_object *archs = json_object_new_array();
	json_object *patches = json_object_new_array();
	json_object *cover;
	struct results_cover c;
	struct strbuf line = STRBUF_INIT;
	enum build_status status;
	size_t i;

	json_object_object_add(o, "base", json_object_new_string(job->base));
	json_object_object_add(o, "profile", json_object_new_string(job->profile));
	for (i = 0; i < job->commits.nr; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "n", json_object_new_int(i + 1));
		json_object_object_add(p, "commit",
				       json_object_new_string(job->commits.v[i].id));
		json_object_object_add(p, "subject",
				       json_object_new_string(job->commits.v[i].subject));
		json_object_array_add(patches, p);
	}
	json_object_object_add(o, "patches", patches);
	for (i = 0; i < job->archs_nr; i++)
		json_object_array_add(archs, arch_json(&job->archs[i], job->mincoverage));
	json_object_object_add(o, "archs", archs);
	job_cover(job, archs, &c);
	status = worst_status(job);
	if (status == BUILD_OK && job_partial(job, &c))
		status = BUILD_PARTIAL;
	cover = json_object_new_object();
	json_object_object_add(cover, "archs", json_object_new_int(c.archs));
	json_object_object_add(cover, RK_(cover, changed), json_object_new_int(c.changed));
	json_object_object_add(cover, RK_(cover, compiled), json_object_new_int(c.compiled));
	json_object_object_add(cover, "percent", c.changed ?
			       json_object_new_double((double)(1000LL * c.compiled / c.changed) / 10.0) :
			       NULL);
	json_object_object_add(cover, RK_(cover, mincoverage), json_object_new_int(job->mincoverage));
	json_object_object_add(cover, RK_(cover, uncompiled), json_object_get(c.uncompiled));
	results_cover_line(&c, &line, RANGES_SHOWN);
	json_object_object_add(cover, "text", jx_new_str(line.buf));
	json_object_object_add(o, RK_(doc, coverage), cover);
	results_cover_release(&c);
	strbuf_release(&line);
	json_object_object_add(o, "status",
			       json_object_new_string(buildjob_status_name(status)));
	json_object_object_add(o, "log_dir", jx_new_nonempty(job->log_dir));
	return o;
}

/* "  compiled 19 of 20 changed lines (95%)", the repair, what was not */
static void arch_cover_text(const struct build_arch_result *r, struct strbuf *sb)
{
	const struct build_repair *b = &r->repair;
	double pct = buildjob_coverage(r);
	size_t i, j, k, shown = 0;

	if (!r->patches_nr || r->status == BUILD_INFRA)
		return;
	if (!r->cover_measured) {
		strbuf_addf(sb, "  changed lines compiled: not measured%s%s\n",
			    r->cover_error ? ": " : "", r->cover_error ? r->cover_error : "");
		return;
	}
	strbuf_addf(sb, "  compiled %d of %d changed lines", r->cover_compiled,
		    r->cover_changed - r->cover_arch);
	if (pct >= 0)
		strbuf_addf(sb, " (%d%%)", (int)pct);
	if (r->cover_arch)
		strbuf_addf(sb, "; %d more are other architectures' code", r->cover_arch);
	strbuf_addch(sb, '\n');
	if (b->used) {
		strbuf_addf(sb, "  config repaired (%s):", b->profile);
		for (i = 0; i < b->r.set_nr; i++)
			strbuf_addf(sb, " %s=y", b->r.set[i]);
		for (i = 0; i < b->r.unset_nr; i++)
			strbuf_addf(sb, " %s=n", b->r.unset[i]);
		strbuf_addch(sb, '\n');
		if (b->note)
			strbuf_addf(sb, "  %s\n", b->note);
	} else if (b->note) {
		strbuf_addf(sb, "  config not repaired: %s\n", b->note);
	}
	for (i = 0; i < b->r.fail_nr; i++)
		strbuf_addf(sb, "  %s cannot be %s on %s: %s\n", b->r.fail[i].sym,
			    b->r.fail[i].off ? "disabled" : "enabled", r->arch, b->r.fail[i].why);
	for (i = 0; i < r->patches_nr; i++) {
		const struct cover_presult *c = &r->patches[i].cover;

		for (j = 0; j < c->nr; j++) {
			for (k = 0; k < c->f[j].nr; k++) {
				const struct cover_range *x = &c->f[j].r[k];

				if (shown++ >= RANGES_SHOWN)
					continue;
				strbuf_addf(sb, "  not compiled: %s:%d", c->f[j].file, x->from);
				if (x->to > x->from)
					strbuf_addf(sb, "-%d", x->to);
				strbuf_addf(sb, " [patch %u/%zu]: %s\n", r->patches[i].n,
					    r->patches_nr, x->reason);
			}
		}
	}
	if (shown > RANGES_SHOWN)
		strbuf_addf(sb, "  (%zu more ranges not compiled: see --json)\n",
			    shown - RANGES_SHOWN);
}

static void arch_text(const struct build_job *job,
		      const struct build_arch_result *r, struct strbuf *sb)
{
	size_t n = job->commits.nr, i, old = 0;

	strbuf_addf(sb, "%s: %s", r->arch, buildjob_status_name(r->status));
	if (r->infra)
		strbuf_addf(sb, " (infrastructure, not the series: %s)", r->infra);
	strbuf_addf(sb, " [base %s%s, %.0f s]\n",
		    r->base_reused ? "reused" : "built",
		    r->base_refreshed ? " and made again over the last job's" : "",
		    (double)r->ms / 1000);
	for (i = 0; i < KCHECK_NR; i++)
		if (r->check_skipped[i])
			strbuf_addf(sb, "  %s not run: %s\n", kchecks[i].name,
				    r->check_skipped[i]);
	for (i = 0; i < r->patches_nr; i++) {
		const struct build_patch_result *p = &r->patches[i];

		strbuf_addf(sb, "  %u/%zu %-8s %s\n", p->n, n,
			    buildjob_status_name(p->status), p->subject ? p->subject : "");
	}
	for (i = 0; i < r->nr; i++) {
		const struct build_finding *f = &r->findings[i];

		if (!f->is_new) {
			old++;
			continue;
		}
		strbuf_addstr(sb, "  ");
		diag_format(&f->d, sb);
		strbuf_addf(sb, " [patch %u/%zu%s%s%s%s", f->patch, n,
			    f->w1 ? ", W=1" : "",
			    kcheck_any_unit(f->d.unit) ? ", " : "",
			    kcheck_any_unit(f->d.unit) ? f->d.tool : "",
			    kcheck_style(&f->d) ? ", style" : "");
		if (f->fixed_by)
			strbuf_addf(sb, ", gone after patch %u/%zu", f->fixed_by, n);
		strbuf_addstr(sb, "]\n");
	}
	for (i = 0; i < r->bisect_nr; i++)
		strbuf_addf(sb, "  %s\n", r->bisect[i]);
	arch_cover_text(r, sb);
	if (old)
		strbuf_addf(sb, "  (%zu pre-existing diagnostic%s in the touched files "
			    "not reported)\n", old, old == 1 ? "" : "s");
}

void build_job_to_text(const struct build_job *job, struct strbuf *sb)
{
	size_t i;

	strbuf_addf(sb, "base %.12s, profile %s, %zu patch%s\n", job->base,
		    job->profile, job->commits.nr, job->commits.nr == 1 ? "" : "es");
	for (i = 0; i < job->archs_nr; i++)
		arch_text(job, &job->archs[i], sb);
	if (job->archs_nr && job->commits.nr) {
		json_object *archs = json_object_new_array();
		struct results_cover c;

		for (i = 0; i < job->archs_nr; i++)
			json_object_array_add(archs, arch_json(&job->archs[i], job->mincoverage));
		job_cover(job, archs, &c);
		strbuf_addstr(sb, "coverage: ");
		results_cover_line(&c, sb, RANGES_SHOWN);
		strbuf_addch(sb, '\n');
		results_cover_release(&c);
		json_object_put(archs);
	}
	if (job->log_dir)
		strbuf_addf(sb, "logs: %s\n", job->log_dir);
}
