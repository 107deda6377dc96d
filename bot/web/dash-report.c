// SPDX-License-Identifier: GPL-2.0
/*
 * A report's permanent page: /r/<id> shows what was mailed, as it was
 * mailed, from the reply's stored text and the record kept beside it
 * (migration "report-3", bot/report/report-snap.c).  Nothing on it is read from
 * what may change (the version's state, its later results, the time):
 * the page of a report is the same bytes after later versions, reruns
 * and `lorebot db rebuild`.
 *
 *	/r/<id>                 the page
 *	/r/<id>/json            the record, with the mail ("mail")
 *	/r/<id>/mbox            the series' patches, as stored (mboxrd)
 *	/r/<id>/config/<arch>   the .config the build used
 */
#include <stdlib.h>

#include "bot/web/dash-int.h"
#include "bot/mail/mbox.h"
#include "lib/gz.h"
#include "lib/jsonx.h"
#include "lib/text.h"

struct report_page {
	char *id;
	char *msgid, *subject, *kind, *version;
	struct strbuf mail;
	json_object *rec;	/* the record, or NULL (a reply older than report-3) */
};

static void page_release(struct report_page *p)
{
	free(p->id);
	free(p->msgid);
	free(p->subject);
	free(p->kind);
	free(p->version);
	strbuf_release(&p->mail);
	json_object_put(p->rec);
}

/* 1 found, 0 not, -1 error */
static int page_load(struct dash *d, const char *id, struct report_page *p)
{
	/* the reply whose Message-ID is "<id>-lorebot@...", along the msgid index */
	struct db_stmt *s = db_prepare(d->st.db,
		"SELECT msgid, subject, kind, version, mail FROM replies"
		" WHERE msgid > ?1 || '-lorebot@' AND msgid < ?1 || '-lorebot@' || char(127)"
		" LIMIT 1");
	const void *blob;
	size_t len;
	int r;

	memset(p, 0, sizeof(*p));
	strbuf_init(&p->mail, 0);
	p->id = xstrdup(id);
	if (!s || db_bind_text(s, 1, id))
		return -1;
	r = db_step(s);
	if (r <= 0)
		return r;
	p->msgid = xstrdup(db_column_text(s, 0));
	p->subject = xstrdup_or_null(db_column_text(s, 1));
	p->kind = xstrdup_or_null(db_column_text(s, 2));
	p->version = xstrdup_or_null(db_column_text(s, 3));
	blob = db_column_blob(s, 4, &len);
	strbuf_add(&p->mail, blob, len);
	db_reset(s);
	if (!dash_has_table(d, "reports"))
		return 1;
	s = db_prepare(d->st.db, "SELECT json FROM reports WHERE id = ?");
	if (!s || db_bind_text(s, 1, id))
		return -1;
	r = db_step(s);
	if (r > 0) {
		p->rec = json_tokener_parse(db_column_text(s, 0));
		db_reset(s);
	}
	return r < 0 ? -1 : 1;
}

/* The gzip file of a report, decoded into out: 1, 0 none, -1 */
static int page_file(struct dash *d, const char *id, const char *name, struct strbuf *out)
{
	struct db_stmt *s = db_prepare(d->st.db,
		"SELECT data FROM report_files WHERE report = ? AND name = ?");
	struct strbuf err = STRBUF_INIT;
	const void *blob;
	size_t len;
	int r;

	if (!s || db_bind_text(s, 1, id) || db_bind_text(s, 2, name))
		return -1;
	r = db_step(s);
	if (r <= 0)
		return r;
	blob = db_column_blob(s, 0, &len);
	r = gz_gunzip(blob, len, 64 << 20, out, &err) ? -1 : 1;
	db_reset(s);
	strbuf_release(&err);
	return r;
}

static void dl_row(struct strbuf *sb, const char *name, const char *html)
{
	strbuf_addf(sb, "<dt>%s</dt><dd>%s</dd>\n", name, html);
}

static void link_to(struct strbuf *sb, const char *href, const char *text)
{
	strbuf_addstr(sb, "<a href=\"");
	text_html_escape(sb, href);
	strbuf_addstr(sb, "\">");
	text_html_escape(sb, text);
	strbuf_addstr(sb, "</a>");
}

static void page_html(struct dash *d, struct report_page *p, struct web_response *res)
{
	struct tvars vars = TVARS_INIT;
	struct strbuf kv = STRBUF_INIT, sb = STRBUF_INIT, t = STRBUF_INIT, u = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	json_object *archs = jx_array(p->rec, "archs"), *base = jx_object(p->rec, "base");
	const char *series = jx_str(p->rec, "series");
	size_t i;

	template_set(&vars, "bot_name", d->botname);
	template_set(&vars, "id", p->id);
	template_set(&vars, "subject", p->subject ? p->subject : "");
	text_html_escape(&sb, p->id);
	dl_row(&kv, "report", sb.buf);
	strbuf_reset(&sb);
	text_html_escape(&sb, p->kind ? p->kind : "");
	dl_row(&kv, "outcome", sb.buf);
	strbuf_reset(&sb);
	if (series) {
		strbuf_addf(&t, "/series/%s", series);
		link_to(&sb, t.buf, jx_strz(p->rec, "title"));
		strbuf_addf(&sb, " v%d", (int)jx_int(p->rec, "v", 1));
		dl_row(&kv, "series", sb.buf);
		strbuf_reset(&sb);
	}
	strbuf_reset(&t);
	strbuf_addf(&t, "<%s>", p->msgid);
	if (jx_str(p->rec, "lore"))
		link_to(&sb, jx_str(p->rec, "lore"), t.buf);
	else
		text_html_escape(&sb, t.buf);
	dl_row(&kv, "mailed as", sb.buf);
	strbuf_reset(&sb);
	if (jx_str(base, "sha")) {
		if (jx_str(base, "name")) {
			text_html_escape(&sb, jx_str(base, "name"));
			strbuf_addch(&sb, ' ');
		}
		text_html_escape(&sb, jx_str(base, "sha"));
		dl_row(&kv, "base", sb.buf);
		strbuf_reset(&sb);
	}
	if (p->rec) {
		strbuf_reset(&t);
		strbuf_addf(&t, "/r/%s/mbox", p->id);
		link_to(&sb, t.buf, "the series (mbox)");
		for (i = 0; archs && i < json_object_array_length(archs); i++) {
			json_object *a = json_object_array_get_idx(archs, i);

			if (!jx_bool(a, "config_file", false))
				continue;
			strbuf_reset(&t);
			strbuf_reset(&u);
			strbuf_addf(&t, "/r/%s/config/%s", p->id, jx_strz(a, "arch"));
			strbuf_addf(&u, ".config of %s", jx_strz(a, "arch"));
			strbuf_addstr(&sb, ", ");
			link_to(&sb, t.buf, u.buf);
		}
		strbuf_reset(&t);
		strbuf_addf(&t, "/r/%s/json", p->id);
		strbuf_addstr(&sb, ", ");
		link_to(&sb, t.buf, "the record (JSON)");
		dl_row(&kv, "files", sb.buf);
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "<code>lorebot reproduce --repo linux --url URL ");
		text_html_escape(&sb, p->id);
		strbuf_addstr(&sb, "</code> (URL: this dashboard), or the recipe in the mail");
		dl_row(&kv, "reproduce", sb.buf);
		strbuf_reset(&sb);
	}
	template_set_html(&vars, "facts", kv.buf);
	template_set(&vars, "mail", p->mail.buf);
	if (template_render(d->templates, "web-report.html", &vars, TEMPLATE_HTML, &res->body,
			    &err)) {
		res->status = 500;
		res->content_type = "text/plain; charset=utf-8";
		strbuf_reset(&res->body);
		strbuf_addf(&res->body, "template error: %s\n", err.buf);
	}
	template_vars_release(&vars);
	strbuf_release(&kv);
	strbuf_release(&sb);
	strbuf_release(&t);
	strbuf_release(&u);
	strbuf_release(&err);
}

static void page_json(struct report_page *p, struct web_response *res)
{
	json_object *o = NULL;

	if (!p->rec || json_object_deep_copy(p->rec, &o, NULL))
		o = json_object_new_object();
	json_object_object_add(o, "report", json_object_new_string(p->id));
	json_object_object_add(o, "msgid", json_object_new_string(p->msgid));
	json_object_object_add(o, "mail", json_object_new_string_len(p->mail.buf,
								      (int)p->mail.len));
	strbuf_addstr(&res->body, jx_text(o, true));
	strbuf_addch(&res->body, '\n');
	res->content_type = "application/json";
	json_object_put(o);
}

/* The series' patches in the order of the record, as the archive has them */
static void page_mbox(struct dash *d, struct report_page *p, struct web_response *res)
{
	json_object *patches = jx_array(p->rec, "patches");
	struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
	size_t i;

	for (i = 0; patches && i < json_object_array_length(patches); i++) {
		const char *msgid = jx_str(json_object_array_get_idx(patches, i), "msgid");

		strbuf_reset(&raw);
		if (!msgid || store_get_raw(&d->st, msgid, &raw, &err) <= 0) {
			strbuf_reset(&res->body);
			dash_error(d, res, 404, "a patch of the series is not in the database");
			goto out;
		}
		mbox_write_rd(&res->body, "mboxrd@z", raw.buf, raw.len);
	}
	res->content_type = "application/mbox";
out:
	strbuf_release(&raw);
	strbuf_release(&err);
}

void dash_report(struct dash *d, const struct web_request *req, const char *path,
		 struct web_response *res)
{
	struct report_page p;
	const char *rest = strchr(path, '/');
	char *id = rest ? xstrndup(path, rest - path) : xstrdup(path);
	int r;

	(void)req;
	if (!report_id_valid(id)) {
		dash_error(d, res, 404, "no such report");
		free(id);
		return;
	}
	r = page_load(d, id, &p);
	if (r <= 0) {
		dash_error(d, res, r < 0 ? 500 : 404, r < 0 ? db_error(d->st.db) : "no such report");
	} else if (!rest) {
		page_html(d, &p, res);
	} else if (!strcmp(rest, "/json")) {
		page_json(&p, res);
	} else if (!strcmp(rest, "/mbox") && p.rec) {
		page_mbox(d, &p, res);
	} else if (util_skip_prefix(rest, "/config/", &rest) && p.rec) {
		char *name = xasprintf("config-%s", rest);

		r = page_file(d, id, name, &res->body);
		if (r > 0)
			res->content_type = "text/plain; charset=utf-8";
		else
			dash_error(d, res, 404, "no .config of that arch in this report");
		free(name);
	} else {
		dash_error(d, res, 404, "no such page of a report");
	}
	page_release(&p);
	free(id);
}
