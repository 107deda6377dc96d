// SPDX-License-Identifier: GPL-2.0
/*
 * A report's permanent record: when a reply is composed, what it is
 * about is written down as it is then (the series' patches, the base,
 * per arch the build's config, compiler, make and qemu lines and the
 * .config itself, the findings it mails with the line the mail gives
 * each), so that its page (/r/<id>) and `lorebot reproduce` say the
 * same thing however the version's results change later.
 *
 *	{"report", "kind", "msgid", "lore", "version", "series", "title", "v",
 *	 "total", "patches": [{n, msgid, subject}], "base": {name, sha},
 *	 "branch", "tree_url", "archs": [{arch, status, config, compiler,
 *	 make: [...], qemu, cmdline, config_file}], "findings": [{stage,
 *	 arch, patch, file, line, column, severity, message, option, rule,
 *	 test, text}]}
 */
#include <ctype.h>
#include <stdlib.h>

#include "bot/results/contract.h"
#include "bot/report/report-int.h"
#include "bot/store/store-results.h"
#include "lib/gz.h"

char *report_id_of(const char *msgid)
{
	const char *at = msgid ? strchr(msgid, '@') : NULL;
	size_t n;

	if (!at)
		return NULL;
	n = at - msgid;
	if (n > 8 && !strncmp(at - 8, "-lorebot", 8))
		n -= 8;
	return n ? xstrndup(msgid, n) : NULL;
}

bool report_id_valid(const char *id)
{
	size_t i;

	/* "20260101120000.abcdefghijkl": digits, a dot, lowercase alphanumerics */
	for (i = 0; id[i]; i++)
		if (!isalnum((unsigned char)id[i]) && id[i] != '.')
			return false;
	return i > 0 && i <= 64;
}

void report_url(const struct config *cfg, const char *id, struct strbuf *sb)
{
	const char *dash = config_v(cfg)->core_dashboardurl;

	if (!dash || !*dash || !id)
		return;
	strbuf_addstr(sb, dash);
	if (!util_ends_with(dash, "/"))
		strbuf_addch(sb, '/');
	strbuf_addf(sb, "r/%s", id);
}

void report_file_add(struct reply_mail *m, const char *name, const char *data, size_t len)
{
	struct report_file *f;

	ALLOC_GROW(m->files, m->nr_files + 1, m->alloc_files);
	f = &m->files[m->nr_files];
	strbuf_init(&f->data, 0);
	if (gz_gzip(data, len, &f->data)) {
		strbuf_release(&f->data);
		return;
	}
	f->name = xstrdup(name);
	m->nr_files++;
}

static void add_str(json_object *o, const char *key, const char *val)
{
	if (val)
		json_object_object_add(o, key, json_object_new_string(val));
}

static void add_int(json_object *o, const char *key, int64_t val)
{
	if (val)
		json_object_object_add(o, key, json_object_new_int64(val));
}

static json_object *copy_of(json_object *v)
{
	json_object *c = NULL;

	if (v && json_object_deep_copy(v, &c, NULL))
		return NULL;
	return c;
}

static void patches(const struct report_version *v, json_object *out)
{
	json_object *arr = json_object_new_array();
	int n;

	for (n = 1; n <= v->total; n++) {
		json_object *p = report_patch(v, n), *o;

		if (!p)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "n", json_object_new_int(n));
		add_str(o, "msgid", rd_vpatch_msgid(p));
		add_str(o, "subject", rd_vpatch_subject(p));
		json_object_array_add(arr, o);
	}
	json_object_object_add(out, "patches", arr);
}

static json_object *finding(enum stage stage, const char *arch, json_object *f)
{
	json_object *o = json_object_new_object();
	struct strbuf sb = STRBUF_INIT;
	char id[REPORT_ID_LEN + 1];

	report_finding_id(stage, f, id);
	add_str(o, "id", id);
	add_str(o, "stage", plan_stage_name(stage));
	add_str(o, "arch", arch && *arch ? arch : NULL);
	add_int(o, "patch", rd_finding_patch(f, 0));
	add_str(o, "file", rd_finding_file(f));
	add_int(o, "line", rd_finding_line(f, 0));
	add_int(o, "column", rd_finding_column(f, 0));
	add_str(o, "severity", rd_finding_severity(f));
	add_str(o, "message", rd_finding_message(f));
	add_str(o, "option", jx_str(f, "option"));
	add_str(o, "rule", rd_finding_rule(f));
	add_str(o, "test", rd_finding_test(f));
	add_str(o, "kind", rd_finding_kind(f));
	report_finding_line(&sb, "", stage, f);
	strbuf_rtrim(&sb);
	add_str(o, "text", sb.buf);
	strbuf_release(&sb);
	return o;
}

static bool severe(json_object *f)
{
	const char *sev = rd_finding_severity_z(f);

	return !strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL);
}

/* The arch's build as the recipe gives it, and its .config as a file */
static void arch_entry(struct report_ctx *c, const char *arch, json_object *archs,
		       struct reply_mail *m)
{
	const struct result *b = store_results_find(&c->v->results, STAGE_BUILD, arch);
	const struct result *t = store_results_find(&c->v->results, STAGE_BOOT, arch);
	json_object *o = json_object_new_object();
	const char *path = b ? rd_doc_config_file(b->doc) : NULL;
	char *buf = NULL, *name;
	size_t len, i;

	for (i = 0; i < json_object_array_length(archs); i++)
		if (!strcmp(jx_str(rd_at(archs, i), "arch"), arch)) {
			json_object_put(o);
			return;
		}
	add_str(o, "arch", arch);
	add_str(o, "build", b ? plan_status_name(b->status) : NULL);
	add_str(o, "boot", t ? plan_status_name(t->status) : NULL);
	if (b) {
		add_str(o, "config", rd_name_of(rd_doc_config(b->doc)) ?
			rd_name_of(rd_doc_config(b->doc)) : rd_name_of(rd_doc_profile(b->doc)));
		add_str(o, "compiler", rd_name_of(rd_doc_compiler(b->doc)));
		if (rd_doc_make(b->doc))
			json_object_object_add(o, "make", copy_of(rd_doc_make(b->doc)));
	}
	if (t) {
		add_str(o, "qemu", rd_doc_qemu(t->doc));
		add_str(o, "cmdline", rd_doc_cmdline(t->doc));
	}
	/* the .config as the build left it: kept here, the job directory is not forever */
	if (path && !util_read_file(path, &buf, &len, 64 << 20)) {
		name = xasprintf("config-%s", arch);
		report_file_add(m, name, buf, len);
		json_object_object_add(o, "config_file", json_object_new_boolean(true));
		free(name);
		free(buf);
	}
	json_object_array_add(archs, o);
}

static void stage_findings(struct report_ctx *c, json_object *out, json_object *archs,
			   struct reply_mail *m)
{
	const struct reply_due *d = c->d;
	size_t i, j;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		json_object *fs = rd_doc_findings(r->doc), *tests = rd_doc_tests(r->doc);
		bool any = false;

		for (j = 0; fs && j < json_object_array_length(fs); j++) {
			json_object *f = rd_at(fs, j);
			bool take = false;

			switch (r->stage) {
			case STAGE_CHECK:
				take = d->sections[SECTION_CHECK] &&
					report_finding_class(c->o, f) == REPORT_MAIL;
				break;
			case STAGE_BUILD:
				take = rd_finding_is_new(f, true) &&
					!report_build_style(c->o, f) &&
					(severe(f) ? d->sections[SECTION_BUILD_ERRORS] :
					 d->sections[SECTION_BUILD_WARNINGS]);
				break;
			case STAGE_BOOT:
				take = d->sections[SECTION_BOOT];
				break;
			default:
				take = d->sections[SECTION_FINDINGS] &&
					plan_stage(r->stage)->reply &&
					r->status != STATUS_INFRA && rd_finding_is_new(f, true) &&
					!report_dismissed(c->v, r->stage, f);
				break;
			}
			if (!take)
				continue;
			json_object_array_add(out, finding(r->stage, r->arch, f));
			any = true;
		}
		for (j = 0; r->stage == STAGE_BOOT && d->sections[SECTION_BOOT] && tests &&
		     j < json_object_array_length(tests); j++) {
			json_object *t = rd_at(tests, j), *o;

			if (strcmp(rd_test_result_z(t), RD_TEST_FAIL) || !rd_test_is_new(t, false))
				continue;
			o = json_object_new_object();
			add_str(o, "stage", "boot");
			add_str(o, "arch", r->arch);
			add_str(o, "test", rd_test_name(t));
			add_str(o, "severity", "error");
			add_str(o, "message", "fail");
			json_object_array_add(out, o);
			any = true;
		}
		if (r->stage == STAGE_BOOT && d->sections[SECTION_BOOT] &&
		    r->status == STATUS_BOOT_FAILURE)
			any = true;
		if (any && (r->stage == STAGE_BUILD || r->stage == STAGE_BOOT))
			arch_entry(c, r->arch, archs, m);
	}
}

static void apply_failures(struct report_ctx *c, json_object *out)
{
	const struct result *a = store_results_find(&c->v->results, STAGE_APPLY, NULL);
	json_object *ps = a ? rd_doc_patches(a->doc) : NULL;
	size_t i;

	if (!c->d->sections[SECTION_APPLY])
		return;
	for (i = 0; ps && i < json_object_array_length(ps); i++) {
		json_object *p = rd_at(ps, i), *o;

		if (strcmp(rd_patch_status_z(p), RD_PATCH_FAILED))
			continue;
		o = json_object_new_object();
		add_str(o, "stage", "apply");
		add_int(o, "patch", rd_patch_n(p, 0));
		add_str(o, "file", rd_patch_file(p));
		add_str(o, "severity", "error");
		add_str(o, "message", rd_patch_message(p) ? rd_patch_message(p) :
			"does not apply");
		json_object_array_add(out, o);
	}
}

int report_snapshot(struct report_ctx *c, struct reply_mail *m, struct strbuf *err)
{
	const struct report_version *v = c->v;
	const struct result *apply = store_results_find(&v->results, STAGE_APPLY, NULL);
	json_object *base = apply ? rd_doc_base(apply->doc) : NULL;
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	json_object *findings = json_object_new_array(), *archs = json_object_new_array();
	const char *url = config_v(c->o->cfg)->git_url;
	struct strbuf lore = STRBUF_INIT;

	(void)err;
	add_str(o, "report", m->report_id);
	add_str(o, "kind", report_kind_name(c->d->kind));
	add_str(o, "msgid", m->msgid);
	report_lore_link(&lore, v, m->msgid);
	add_str(o, "lore", lore.buf);
	strbuf_release(&lore);
	add_str(o, "version", v->id);
	add_str(o, "series", v->series_id);
	add_str(o, "title", v->title);
	json_object_object_add(o, "v", json_object_new_int(v->version));
	json_object_object_add(o, "total", json_object_new_int(v->total));
	add_int(o, "patch", c->d->patch);
	patches(v, o);
	add_str(b, "name", rd_base_name(base));
	add_str(b, "sha", rd_base_sha(base));
	json_object_object_add(o, "base", b);
	add_str(o, "base_commit", v->base_commit);
	add_str(o, "branch", apply ? rd_doc_branch(apply->doc) : NULL);
	add_str(o, "tree_url", url && *url ? url : NULL);
	apply_failures(c, findings);
	stage_findings(c, findings, archs, m);
	json_object_object_add(o, "archs", archs);
	json_object_object_add(o, "findings", findings);
	m->snapshot = xstrdup(jx_text(o, true));
	json_object_put(o);
	return 0;
}
