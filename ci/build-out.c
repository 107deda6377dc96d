// SPDX-License-Identifier: GPL-2.0
#include "ci/build-out.h"
#include "lib/jsonx.h"

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
	json_object_object_add(o, "fixed_by", f->fixed_by ?
			       json_object_new_int(f->fixed_by) : NULL);
	json_object_object_add(o, "text", json_object_new_string(text.buf));
	strbuf_release(&text);
	return o;
}

static json_object *seconds(uint64_t ms)
{
	return json_object_new_double((double)(ms / 100) / 10.0);
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
	return o;
}

static json_object *arch_json(const struct build_arch_result *r)
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
	if (r->make) {
		json_object *make = json_object_new_array();
		const char *p = r->make;

		while (*p) {
			size_t n = strcspn(p, "\n");

			json_object_array_add(make, json_object_new_string_len(p, n));
			p += n + !!p[n];
		}
		json_object_object_add(o, "make", make);
	}
	json_object_object_add(o, "seconds", seconds(r->ms));
	return o;
}

enum build_status build_job_status(const struct build_job *job)
{
	static const int rank[] = {
		[BUILD_OK] = 0, [BUILD_SKIPPED] = 0, [BUILD_INFRA] = 1,
		[BUILD_WARNINGS] = 2, [BUILD_ERRORS] = 3,
	};
	enum build_status worst = BUILD_OK;
	size_t i;

	for (i = 0; i < job->archs_nr; i++)
		if (rank[job->archs[i].status] > rank[worst])
			worst = job->archs[i].status;
	return worst;
}

json_object *build_job_to_json(const struct build_job *job)
{
	json_object *o = json_object_new_object();
	json_object *archs = json_object_new_array();
	json_object *patches = json_object_new_array();
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
		json_object_array_add(archs, arch_json(&job->archs[i]));
	json_object_object_add(o, "archs", archs);
	json_object_object_add(o, "status",
			       json_object_new_string(buildjob_status_name(build_job_status(job))));
	json_object_object_add(o, "log_dir", jx_new_nonempty(job->log_dir));
	return o;
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
		strbuf_addf(sb, " [patch %u/%zu%s%s%s", f->patch, n,
			    f->w1 ? ", W=1" : "",
			    kcheck_any_unit(f->d.unit) ? ", " : "",
			    kcheck_any_unit(f->d.unit) ? f->d.tool : "");
		if (f->fixed_by)
			strbuf_addf(sb, ", gone after patch %u/%zu", f->fixed_by, n);
		strbuf_addstr(sb, "]\n");
	}
	for (i = 0; i < r->bisect_nr; i++)
		strbuf_addf(sb, "  %s\n", r->bisect[i]);
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
	if (job->log_dir)
		strbuf_addf(sb, "logs: %s\n", job->log_dir);
}
