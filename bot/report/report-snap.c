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
 *	 "branch", "tree_url", "archs": [{arch, build, boot, config,
 *	 compiler, make: [...], qemu, cmdline, config_file}], "findings":
 *	 [{stage, arch, patch, file, line, column, severity, message, option,
 *	 rule, test, text}]}
 *
 * What a result gives is its stage's (struct stage_ops): the entries of
 * "findings" (snap_findings(); apply: the patches that did not apply),
 * and for a per-arch stage, the status keyed by the stage's name and the
 * keys snap_arch() adds to the arch's entry.
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

void report_snap_str(json_object *o, const char *key, const char *val)
{
	if (val)
		json_object_object_add(o, key, json_object_new_string(val));
}

void report_snap_int(json_object *o, const char *key, int64_t val)
{
	if (val)
		json_object_object_add(o, key, json_object_new_int64(val));
}

json_object *report_snap_copy(json_object *v)
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
		report_snap_str(o, "msgid", rd_vpatch_msgid(p));
		report_snap_str(o, "subject", rd_vpatch_subject(p));
		json_object_array_add(arr, o);
	}
	json_object_object_add(out, "patches", arr);
}

json_object *report_snap_finding(enum stage stage, const char *arch, json_object *f)
{
	json_object *o = json_object_new_object();
	struct strbuf sb = STRBUF_INIT;
	char id[REPORT_ID_LEN + 1];

	report_finding_id(stage, f, id);
	report_snap_str(o, "id", id);
	report_snap_str(o, "stage", plan_stage_name(stage));
	report_snap_str(o, "arch", arch && *arch ? arch : NULL);
	report_snap_int(o, "patch", rd_finding_patch(f, 0));
	report_snap_str(o, "file", rd_finding_file(f));
	report_snap_int(o, "line", rd_finding_line(f, 0));
	report_snap_int(o, "column", rd_finding_column(f, 0));
	report_snap_str(o, "severity", rd_finding_severity(f));
	report_snap_str(o, "message", rd_finding_message(f));
	report_snap_str(o, "option", jx_str(f, "option"));
	report_snap_str(o, "rule", rd_finding_rule(f));
	report_snap_str(o, "test", rd_finding_test(f));
	report_snap_str(o, "kind", rd_finding_kind(f));
	report_finding_line(&sb, "", stage, f);
	strbuf_rtrim(&sb);
	report_snap_str(o, "text", sb.buf);
	strbuf_release(&sb);
	return o;
}

/*
 * The arch's entry: the status of each per-arch stage, what its result
 * says of how it was done (snap_arch()), and the .config as a file
 */
static void arch_entry(struct report_ctx *c, const char *arch, json_object *archs,
		       struct reply_mail *m)
{
	const struct result *rs[STAGE_RESULTS];
	json_object *o = json_object_new_object();
	const char *path = NULL;
	char *buf = NULL, *name;
	enum stage s;
	size_t len, i;

	for (i = 0; i < json_object_array_length(archs); i++)
		if (!strcmp(jx_str(rd_at(archs, i), "arch"), arch)) {
			json_object_put(o);
			return;
		}
	report_snap_str(o, "arch", arch);
	for (s = 0; s < STAGE_RESULTS; s++) {
		rs[s] = plan_per_arch(s) ? store_results_find(&c->v->results, s, arch) : NULL;
		report_snap_str(o, plan_stage_name(s), rs[s] ? plan_status_name(rs[s]->status) :
				NULL);
	}
	for (s = 0; s < STAGE_RESULTS; s++) {
		if (!rs[s])
			continue;
		if (plan_stage(s)->snap_arch)
			plan_stage(s)->snap_arch(o, rs[s]);
		if (!path)
			path = rd_doc_config_file(rs[s]->doc);
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

/* A stage with reply set: the new findings of the section "findings" */
static bool reply_findings(const struct report_ctx *c, const struct result *r,
			   json_object *out)
{
	json_object *fs = rd_doc_findings(r->doc);
	bool any = false;
	size_t j;

	if (!c->d->sections[SECTION_FINDINGS] || !plan_stage(r->stage)->reply ||
	    r->status == STATUS_INFRA)
		return false;
	for (j = 0; fs && j < json_object_array_length(fs); j++) {
		json_object *f = rd_at(fs, j);

		if (!rd_finding_is_new(f, true) || report_dismissed(c->v, r->stage, f))
			continue;
		json_object_array_add(out, report_snap_finding(r->stage, r->arch, f));
		any = true;
	}
	return any;
}

/* What the reply mails of each result, in the stage table's order */
static void stage_findings(struct report_ctx *c, json_object *out, json_object *archs,
			   struct reply_mail *m)
{
	size_t i;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		const struct stage_ops *s = plan_stage(r->stage);
		bool any = s->snap_findings ? s->snap_findings(c, r, out) :
			reply_findings(c, r, out);

		if (any && s->per_arch)
			arch_entry(c, r->arch, archs, m);
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
	report_snap_str(o, "report", m->report_id);
	report_snap_str(o, "kind", report_kind_name(c->d->kind));
	report_snap_str(o, "msgid", m->msgid);
	report_lore_link(&lore, v, m->msgid);
	report_snap_str(o, "lore", lore.buf);
	strbuf_release(&lore);
	report_snap_str(o, "version", v->id);
	report_snap_str(o, "series", v->series_id);
	report_snap_str(o, "title", v->title);
	json_object_object_add(o, "v", json_object_new_int(v->version));
	json_object_object_add(o, "total", json_object_new_int(v->total));
	report_snap_int(o, "patch", c->d->patch);
	patches(v, o);
	report_snap_str(b, "name", rd_base_name(base));
	report_snap_str(b, "sha", rd_base_sha(base));
	json_object_object_add(o, "base", b);
	report_snap_str(o, "base_commit", v->base_commit);
	report_snap_str(o, "branch", apply ? rd_doc_branch(apply->doc) : NULL);
	report_snap_str(o, "tree_url", url && *url ? url : NULL);
	stage_findings(c, findings, archs, m);
	json_object_object_add(o, "archs", archs);
	json_object_object_add(o, "findings", findings);
	m->snapshot = xstrdup(jx_text(o, true));
	json_object_put(o);
	return 0;
}
