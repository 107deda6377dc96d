// SPDX-License-Identifier: GPL-2.0
/* A series version as KCIDB v5.3 objects (kcidb.h) */
#include <stdlib.h>
#include <time.h>

#include "bot/results/contract.h"
#include "bot/export/kcidb.h"
#include "bot/store/store-results.h"
#include "lib/sha256.h"
#include "lib/text.h"

#define EXCERPT_MAX 16384	/* the schema's maxLength of log_excerpt */

json_object *kcidb_doc_new(void)
{
	json_object *o = json_object_new_object(), *v = json_object_new_object();

	json_object_object_add(v, "major", json_object_new_int(KCIDB_MAJOR));
	json_object_object_add(v, "minor", json_object_new_int(KCIDB_MINOR));
	json_object_object_add(o, "version", v);
	json_object_object_add(o, "checkouts", json_object_new_array());
	json_object_object_add(o, "builds", json_object_new_array());
	json_object_object_add(o, "tests", json_object_new_array());
	return o;
}

bool kcidb_origin_valid(const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return p != s;
}

struct kc {
	struct store *st;
	const struct report_version *v;
	const struct report_opts *o;
	const char *origin;
	const char *dash;	/* core.dashboardurl, with its '/' */
	json_object *doc;
};

static void str(json_object *o, const char *key, const char *val)
{
	if (val && *val)
		json_object_object_add(o, key, json_object_new_string(val));
}

/* RFC 3339, as the schema's date-time examples: 2020-08-14T23:08:06+00:00 */
static void date_time(json_object *o, const char *key, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[40];

	if (t <= 0 || !gmtime_r(&tt, &tm))
		return;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
	json_object_object_add(o, key, json_object_new_string(buf));
}

/* A text field: no NUL (the schema's pattern), at most EXCERPT_MAX bytes */
static void excerpt(json_object *o, const char *key, const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < len && sb.len < EXCERPT_MAX - 4; i++)
		if (s[i])
			strbuf_addch(&sb, s[i]);
	while (sb.len && ((unsigned char)sb.buf[sb.len - 1] & 0xc0) == 0x80)
		strbuf_setlen(&sb, sb.len - 1);
	if (sb.len && (unsigned char)sb.buf[sb.len - 1] >= 0xc0)
		strbuf_setlen(&sb, sb.len - 1);
	if (sb.len)
		json_object_object_add(o, key, json_object_new_string_len(sb.buf, (int)sb.len));
	strbuf_release(&sb);
}

static json_object *object(struct kc *k, const char *list, const char *id)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_string(id));
	json_object_object_add(o, "origin", json_object_new_string(k->origin));
	json_object_array_add(json_object_object_get(k->doc, list), o);
	return o;
}

/* A dashboard link: <core.dashboardurl><what>/<n> (/config/N, /log/N) */
static void link(struct kc *k, json_object *o, const char *key, const char *what, int64_t n)
{
	struct strbuf sb = STRBUF_INIT;

	if (!k->dash)
		return;
	strbuf_addf(&sb, "%s%s/%lld", k->dash, what, (long long)n);
	str(o, key, sb.buf);
	strbuf_release(&sb);
}

static bool is_sha(const char *s)
{
	size_t i;

	for (i = 0; s && i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s && !s[40];
}

/* "mm" of https://git.kernel.org/.../akpm/mm.git */
static void tree_name(const char *url, struct strbuf *sb)
{
	const char *slash = strrchr(url, '/');
	size_t n;

	if (!slash || !slash[1])
		return;
	n = strlen(slash + 1);
	if (n > 4 && !strcmp(slash + 1 + n - 4, ".git"))
		n -= 4;
	strbuf_add(sb, slash + 1, n);
}

/* patchset_files and patchset_hash: the raw mails, as the archive serves them */
static int patchset(struct kc *k, json_object *co, struct strbuf *err)
{
	const struct report_version *v = k->v;
	json_object *files = json_object_new_array();
	struct strbuf raw = STRBUF_INIT, url = STRBUF_INIT, hashes = STRBUF_INIT;
	char hex[SHA256_HEX], name[32];
	struct sha256 c;
	int n, r, ret = 0;

	for (n = 1; n <= v->total && !ret; n++) {
		json_object *p = report_patch(v, n), *f;
		const char *msgid = p ? rd_vpatch_msgid(p) : NULL;

		if (!msgid)
			continue;
		strbuf_reset(&raw);
		r = store_get_raw(k->st, msgid, &raw, err);
		if (r < 0) {
			ret = -1;
			break;
		}
		if (!r)
			continue;
		sha256_init(&c);
		sha256_update(&c, raw.buf, raw.len);
		sha256_hex(&c, hex);
		strbuf_addf(&hashes, "%s\n", hex);
		strbuf_reset(&url);
		report_lore_link(&url, v, msgid);
		strbuf_addstr(&url, "raw");
		snprintf(name, sizeof(name), "%04d.patch", n);
		f = json_object_new_object();
		json_object_object_add(f, "name", json_object_new_string(name));
		json_object_object_add(f, "url", json_object_new_string(url.buf));
		json_object_array_add(files, f);
	}
	if (!ret && json_object_array_length(files)) {
		json_object_object_add(co, "patchset_files", json_object_get(files));
		sha256_init(&c);
		sha256_update(&c, hashes.buf, hashes.len);
		sha256_hex(&c, hex);
		json_object_object_add(co, "patchset_hash", json_object_new_string(hex));
	}
	json_object_put(files);
	strbuf_release(&raw);
	strbuf_release(&url);
	strbuf_release(&hashes);
	return ret;
}

static int checkout(struct kc *k, const char *id, struct strbuf *err)
{
	const struct report_version *v = k->v;
	const struct result *a = store_results_find(&v->results, STAGE_APPLY, NULL);
	json_object *base = a ? rd_doc_base(a->doc) : NULL, *co, *misc;
	const char *url = config_v(k->o->cfg)->git_url, *bname = rd_base_name(base);
	struct strbuf sb = STRBUF_INIT;

	co = object(k, "checkouts", id);
	if (url && !strncmp(url, "https://", 8)) {
		str(co, "git_repository_url", url);
		tree_name(url, &sb);
		str(co, "tree_name", sb.buf);
		strbuf_reset(&sb);
	}
	if (is_sha(rd_base_sha(base)))
		str(co, "git_commit_hash", rd_base_sha(base));
	if (bname && strcmp(bname, rd_base_sha_z(base))) {
		util_skip_prefix(bname, "refs/heads/", &bname);
		str(co, "git_repository_branch", bname);
	}
	if (patchset(k, co, err)) {
		strbuf_release(&sb);
		return -1;
	}
	str(co, "message_id", v->id);
	strbuf_addf(&sb, "v%d: %s", v->version, v->title ? v->title : "");
	str(co, "comment", sb.buf);
	strbuf_reset(&sb);
	date_time(co, "start_time", a ? a->recorded : v->date);
	if (a && (a->status == STATUS_APPLIED || a->status == STATUS_FAILED))
		json_object_object_add(co, "valid",
				       json_object_new_boolean(a->status == STATUS_APPLIED));
	if (a && a->status != STATUS_APPLIED)
		excerpt(co, "log_excerpt", a->summary, strlen(a->summary));
	misc = json_object_new_object();
	str(misc, "series", v->series_id);
	json_object_object_add(misc, "version", json_object_new_int(v->version));
	if (k->dash) {
		strbuf_addf(&sb, "%sseries/%s#v%d", k->dash, v->series_id, v->version);
		str(misc, "dashboard", sb.buf);
	}
	if (report_base_unknown(v))
		str(misc, "base_commit_unknown", v->base_commit);
	json_object_object_add(co, "misc", misc);
	strbuf_release(&sb);
	return 0;
}

static const char *build_status(enum status s)
{
	switch (s) {
	case STATUS_OK:
	case STATUS_WARNINGS:
		return "PASS";
	case STATUS_ERRORS:
		return "FAIL";
	default:
		return "MISS";
	}
}

static void build(struct kc *k, const char *checkout_id, const struct result *r)
{
	json_object *make = rd_doc_make(r->doc), *fs = rd_doc_findings(r->doc), *b, *misc;
	struct strbuf id = STRBUF_INIT, sb = STRBUF_INIT;
	const char *config = rd_name_of(rd_doc_config(r->doc)) ?
		rd_name_of(rd_doc_config(r->doc)) : rd_name_of(rd_doc_profile(r->doc));
	int nw = 0, ne = 0;
	size_t i;

	strbuf_addf(&id, "%s:%s", checkout_id, r->arch);
	b = object(k, "builds", id.buf);
	json_object_object_add(b, "checkout_id", json_object_new_string(checkout_id));
	str(b, "architecture", r->arch);
	str(b, "config_name", config);
	str(b, "compiler", rd_name_of(rd_doc_compiler(r->doc)));
	for (i = 0; make && i < json_object_array_length(make); i++)
		strbuf_addf(&sb, "%s%s", i ? " && " : "", json_object_get_string(rd_at(make, i)));
	str(b, "command", sb.buf);
	strbuf_reset(&sb);
	if (rd_doc_config_file(r->doc))
		link(k, b, "config_url", "config", r->id);
	if (rd_doc_log(r->doc) || rd_doc_log_path(r->doc) || rd_doc_logfile(r->doc))
		link(k, b, "log_url", "log", r->id);
	date_time(b, "start_time", r->recorded);
	if (jx_get(r->doc, "seconds") && json_object_is_type(jx_get(r->doc, "seconds"),
							      json_type_double))
		json_object_object_add(b, "duration", json_object_new_double(
			json_object_get_double(jx_get(r->doc, "seconds"))));
	json_object_object_add(b, "status", json_object_new_string(build_status(r->status)));
	for (i = 0; fs && i < json_object_array_length(fs); i++) {
		json_object *f = rd_at(fs, i);
		const char *sev = rd_finding_severity_z(f);

		if (!rd_finding_is_new(f, true))
			continue;
		if (!strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL))
			ne++;
		else
			nw++;
		report_finding_line(&sb, "", r->stage, f);
	}
	if (r->status == STATUS_INFRA)
		strbuf_addf(&sb, "%s\n", r->summary);
	excerpt(b, "log_excerpt", sb.buf, sb.len);
	misc = json_object_new_object();
	json_object_object_add(misc, "new_errors", json_object_new_int(ne));
	json_object_object_add(misc, "new_warnings", json_object_new_int(nw));
	json_object_object_add(misc, "status", json_object_new_string(plan_status_name(r->status)));
	json_object_object_add(b, "misc", misc);
	strbuf_release(&id);
	strbuf_release(&sb);
}

static json_object *test(struct kc *k, const char *build_id, const char *path,
			 const char *status, const struct result *r)
{
	struct strbuf id = STRBUF_INIT;
	json_object *t;

	strbuf_addf(&id, "%s:%s", build_id, path);
	t = object(k, "tests", id.buf);
	json_object_object_add(t, "build_id", json_object_new_string(build_id));
	json_object_object_add(t, "path", json_object_new_string(path));
	json_object_object_add(t, "status", json_object_new_string(status));
	date_time(t, "start_time", r->recorded);
	strbuf_release(&id);
	return t;
}

/* kselftest.mm.<name>: a path of [a-zA-Z0-9_-] segments */
static void test_path(const char *name, struct strbuf *sb)
{
	const char *p;

	util_skip_prefix(name, "mm/", &name);
	strbuf_addstr(sb, "kselftest.mm.");
	for (p = name; *p; p++)
		strbuf_addch(sb, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ? *p : '_');
}

/*
 * A stage of tests (boot): the test named after the stage (booted: PASS),
 * a test per kselftest and one per kernel report, all of the build of
 * the arch
 */
static void tests(struct kc *k, const char *checkout_id, const struct result *r)
{
	json_object *ts = rd_doc_tests(r->doc), *fs = rd_doc_findings(r->doc), *t, *misc;
	struct strbuf bid = STRBUF_INIT, path = STRBUF_INIT, sb = STRBUF_INIT;
	const char *name = plan_stage_name(r->stage);
	int nr = 0;
	size_t i;

	strbuf_addf(&bid, "%s:%s", checkout_id, r->arch);
	t = test(k, bid.buf, name, r->status == STATUS_BOOT_FAILURE ? "FAIL" :
		 r->status == STATUS_INFRA ? "MISS" : "PASS", r);
	str(t, "comment", r->summary);
	if (r->status == STATUS_BOOT_FAILURE || r->status == STATUS_INFRA)
		excerpt(t, "log_excerpt", r->summary, strlen(r->summary));
	if (rd_doc_qemu(r->doc)) {
		misc = json_object_new_object();
		str(misc, "qemu", rd_doc_qemu(r->doc));
		str(misc, "cmdline", rd_doc_cmdline(r->doc));
		json_object_object_add(t, "misc", misc);
	}
	for (i = 0; ts && i < json_object_array_length(ts); i++) {
		json_object *x = rd_at(ts, i);
		const char *res = rd_test_result_z(x), *st;

		st = !strcmp(res, RD_TEST_PASS) || !strcmp(res, RD_TEST_FLAKY) ? "PASS" :
			!strcmp(res, RD_TEST_FAIL) ? "FAIL" : !strcmp(res, "skip") ? "SKIP" : "MISS";
		strbuf_reset(&path);
		test_path(rd_test_name_z(x), &path);
		t = test(k, bid.buf, path.buf, st, r);
		misc = json_object_new_object();
		str(misc, "name", rd_test_name(x));
		str(misc, "result", res);
		json_object_object_add(misc, "new", json_object_new_boolean(rd_test_is_new(x,
											false)));
		if (!strcmp(res, RD_TEST_FLAKY)) {
			json_object_object_add(misc, "flaky", json_object_new_boolean(true));
			str(t, "comment", "flaky: failed, then passed when run again");
		}
		json_object_object_add(t, "misc", misc);
	}
	/* the kernel's own reports (WARNING, BUG, a hang) while the tests ran */
	for (i = 0; fs && i < json_object_array_length(fs); i++) {
		json_object *f = rd_at(fs, i);
		const char *more = rd_finding_trace(f) ? rd_finding_trace(f) :
			rd_finding_output(f);

		if (strstr(rd_finding_kind_z(f), "kselftest") ||
		    !strcmp(rd_finding_kind_z(f), "boot-failure"))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s.kernel_report_%d", name, ++nr);
		t = test(k, bid.buf, path.buf, "FAIL", r);
		str(t, "comment", rd_finding_message(f));
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s\n%s", rd_finding_message_z(f), more ? more : "");
		excerpt(t, "log_excerpt", sb.buf, sb.len);
		misc = json_object_new_object();
		str(misc, "kind", rd_finding_kind(f));
		str(misc, "while", rd_finding_test(f));
		json_object_object_add(t, "misc", misc);
	}
	strbuf_release(&bid);
	strbuf_release(&path);
	strbuf_release(&sb);
}

int kcidb_add_version(struct store *st, const struct report_version *v,
		      const struct report_opts *o, json_object *doc, struct strbuf *err)
{
	struct kc k = { .st = st, .v = v, .o = o, .doc = doc };
	const char *dash = config_v(o->cfg)->core_dashboardurl;
	struct strbuf id = STRBUF_INIT, d = STRBUF_INIT;
	size_t i;
	int ret;

	k.origin = config_v(o->cfg)->kcidb_origin;
	if (!kcidb_origin_valid(k.origin)) {
		strbuf_addf(err, "kcidb.origin '%s': lowercase letters, digits and _ only",
			    k.origin);
		return -1;
	}
	if (dash && *dash) {
		strbuf_addstr(&d, dash);
		if (!util_ends_with(dash, "/"))
			strbuf_addch(&d, '/');
		k.dash = d.buf;
	}
	strbuf_addf(&id, "%s:%s", k.origin, v->id);
	ret = checkout(&k, id.buf, err);
	for (i = 0; !ret && i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		const struct stage_ops *s = plan_stage(r->stage);

		switch (s->kcidb) {
		case STAGE_KCIDB_BUILD:
			build(&k, id.buf, r);
			break;
		case STAGE_KCIDB_TESTS:
			if (store_results_find(&v->results, s->after, r->arch))
				tests(&k, id.buf, r);
			break;
		case STAGE_KCIDB_NONE:
			break;
		}
	}
	strbuf_release(&id);
	strbuf_release(&d);
	return ret;
}

int kcidb_export(struct store *st, const struct report_opts *o, int64_t since,
		 const char *only, json_object *doc, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT v.id FROM versions v WHERE v.gone = 0"
		" AND EXISTS (SELECT 1 FROM results r WHERE r.version = v.id AND r.recorded >= ?1)"
		" AND (?2 IS NULL OR v.id = ?2 OR v.series = ?2) ORDER BY v.date, v.id");
	char **ids = NULL;
	size_t nr = 0, i;
	int r, ret = 0;

	if (!s || db_bind_int(s, 1, since) || db_bind_text(s, 2, only) ||
	    db_column_all(s, &ids, &nr)) {
		strbuf_addstr(err, db_error(st->db));
		return -1;
	}
	for (i = 0; i < nr && !ret; i++) {
		struct report_version v;

		r = report_version_load(st, ids[i], 0, &v, err);
		if (r < 0)
			ret = -1;
		if (r <= 0)
			continue;
		if (kcidb_add_version(st, &v, o, doc, err))
			ret = -1;
		report_version_release(&v);
	}
	db_strings_free(ids, nr);
	return ret ? -1 : (int)nr;
}
