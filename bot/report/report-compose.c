// SPDX-License-Identifier: GPL-2.0
/*
 * A reply as a reviewer would write it: Re: the subject of the message
 * concerned, In-Reply-To it, References its whole chain, To its sender,
 * Cc everyone it was sent to (reply.to = all) and the list.
 */
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "bot/results/contract.h"
#include "bot/mail/mail.h"
#include "bot/mail/patch.h"
#include "bot/report/report-int.h"

#define MAX_REFS 32

void report_mail_init(struct reply_mail *m)
{
	memset(m, 0, sizeof(*m));
	strbuf_init(&m->text, 0);
	strbuf_init(&m->body, 0);
}

void report_mail_release(struct reply_mail *m)
{
	free(m->msgid);
	free(m->in_reply_to);
	free(m->subject);
	mail_addrs_release(&m->to);
	mail_addrs_release(&m->cc);
	strbuf_release(&m->text);
	strbuf_release(&m->body);
	free(m->report_id);
	free(m->snapshot);
	while (m->nr_files--) {
		free(m->files[m->nr_files].name);
		strbuf_release(&m->files[m->nr_files].data);
	}
	free(m->files);
	memset(m, 0, sizeof(*m));
}

/* The Message-ID replied to: patch n, or the cover letter (else patch 1) */
static const char *target_msgid(const struct report_version *v, int n)
{
	json_object *p = report_patch(v, n > 0 ? n : 1);

	if (n <= 0 && v->cover)
		return v->cover;
	return p ? rd_vpatch_msgid(p) : v->id;
}

static void greeting(struct strbuf *sb, const char *name)
{
	char *clean = name ? mail_out_clean(name) : NULL;
	const char *p = clean, *e;

	/* "Song, Barry" -> Barry; "Barry Song" -> Barry */
	if (p && strchr(p, ',')) {
		p = strchr(p, ',') + 1;
		while (*p == ' ')
			p++;
	}
	e = p;
	while (e && *e && *e != ' ' && *e != ',' && *e != '"' && *e != '(')
		e++;
	if (p && e > p)
		strbuf_addf(sb, "Hi %.*s,", (int)(e - p), p);
	else
		strbuf_addstr(sb, "Hello,");
	free(clean);
}

static const char *list_address(const struct report_version *v, const struct config *cfg)
{
	if (!v->list)
		return NULL;
	return config_sub(cfg, CFG_SUB_list_address, v->list);
}

/*
 * Is email the author git am reads from m's own From: header?  Then the
 * sender wrote the patch (To: already), however git misreads the header
 * ("Name\r\nBcc: x@y <addr>" gives x@y): only an in-body From: names
 * someone else.
 */
static bool header_author(const struct mail *m, const char *email)
{
	char *name, *addr, *clean;
	bool same;

	patch_author(m->from_text, &name, &addr);
	clean = addr ? mail_clean_header(addr) : NULL;
	same = clean && email && !strcmp(clean, email);
	free(name);
	free(addr);
	free(clean);
	return same;
}

static void recipients(const struct report_version *v, const struct report_opts *o,
		       const struct mail *m, json_object *patch, struct reply_mail *out)
{
	const char *bot = config_v(o->cfg)->core_botaddress;
	bool all = !strcmp(config_v(o->cfg)->reply_to, "all");
	const char *lst = list_address(v, o->cfg);
	struct mail_addrs skip = MAIL_ADDRS_INIT;
	json_object *author = rd_vpatch_author(patch);
	int64_t limit = config_v(o->cfg)->reply_maxcc;
	size_t i, keep, max = limit > 0 ? (size_t)limit : SIZE_MAX - 1;

	if (m->from.email)
		mail_addrs_add(&out->to, m->from.name, m->from.email);
	else if (v->author_email)
		mail_addrs_add(&out->to, v->author_name, v->author_email);
	if (!all)
		return;
	mail_addrs_add(&skip, NULL, bot);
	for (i = 0; i < out->to.nr; i++)
		mail_addrs_add(&skip, NULL, out->to.v[i].email);

#define ADD(name, email)							\
	do {									\
		if ((email) && !mail_addrs_has(&skip, (email)) &&		\
		    !report_ignored(o->cfg, (email)))				\
			mail_addrs_add(&out->cc, (name), (email));		\
	} while (0)

	/* the patch's author when someone else sent it */
	if (!header_author(m, rd_person_email(author)))
		ADD(rd_person_name(author), rd_person_email(author));
	keep = out->cc.nr;
	for (i = 0; i < m->nr_to + m->nr_cc && out->cc.nr - keep <= max; i++) {
		const struct address *a = i < m->nr_to ? &m->to[i] :
			&m->cc[i - m->nr_to];

		ADD(a->name, a->email);
	}
	/* one mail does not make the bot mail a crowd (reply.maxcc) */
	if (out->cc.nr - keep > max)
		mail_addrs_truncate(&out->cc, keep);
	ADD(NULL, lst);
#undef ADD
	mail_addrs_release(&skip);
}

/* Bodies are UTF-8 text: no NUL or CR, invalid bytes as '?', lines < 998 */
static void clean_body(struct strbuf *out, const char *s, size_t len)
{
	size_t i = 0, col = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
			(c & 0xf8) == 0xf0 ? 4 : 0;

		if (!n || i + n > len || !util_utf8_valid(s + i, n)) {
			strbuf_addch(out, '?');
			i++;
			col++;
			continue;
		}
		if (c == '\r' || c == 0) {
			i++;
			continue;
		}
		if (c == '\n') {
			col = 0;
		} else if (col + n > 990) {
			strbuf_addstr(out, "\n ");
			col = 1;
		}
		strbuf_add(out, s + i, n);
		col += c == '\n' ? 0 : n;
		i += n;
	}
	strbuf_complete_line(out);
}

static void common_vars(struct report_ctx *c, const struct mail *m, json_object *patch)
{
	const struct report_version *v = c->v;
	const struct config *cfg = c->o->cfg;
	struct strbuf sb = STRBUF_INIT;
	const char *dash = config_v(cfg)->core_dashboardurl;

	greeting(&sb, m->from.name ? m->from.name : v->author_name);
	template_set(&c->vars, "greeting", sb.buf);
	strbuf_reset(&sb);
	template_set(&c->vars, "bot_name", config_v(cfg)->core_botname);
	template_set(&c->vars, "bot_address", config_v(cfg)->core_botaddress);
	mail_out_format_addr(&sb, config_v(cfg)->core_botname,
			     config_v(cfg)->core_botaddress);
	template_set(&c->vars, "bot", sb.buf);
	strbuf_reset(&sb);
	if (dash && *dash) {
		strbuf_addstr(&sb, dash);
		if (!util_ends_with(dash, "/"))
			strbuf_addch(&sb, '/');
		strbuf_addf(&sb, "series/%s", v->series_id);
	}
	template_set(&c->vars, "series_url", sb.buf);
	strbuf_reset(&sb);
	report_lore_link(&sb, v, target_msgid(v, c->d->patch));
	template_set(&c->vars, "patch_link", sb.buf);
	strbuf_reset(&sb);
	/* the report's permanent page, else the reply in the list's archive */
	template_set(&c->vars, "report_url", c->report_url);
	if (*c->report_url)
		strbuf_addstr(&sb, c->report_url);
	else
		report_lore_link(&sb, v, c->msgid);
	template_set(&c->vars, "closes", sb.buf);
	strbuf_reset(&sb);
	template_set(&c->vars, "patch_subject", m->subject);
	template_set(&c->vars, "title", v->title);
	template_setf(&c->vars, "version", "%d", v->version);
	template_set(&c->vars, "version_id", v->id);
	template_set(&c->vars, "series_id", v->series_id);
	template_set(&c->vars, "kind", report_kind_name(c->d->kind));
	template_set(&c->vars, "patch_author", rd_person_name(rd_vpatch_author(patch)));
	if (!v->complete)
		strbuf_addf(&sb, "This series was tested incomplete: %d of its %d patches "
			    "had arrived.", v->have, v->total);
	if (v->retests)
		strbuf_addf(&sb, "%sTested again, as %s asked.", sb.len ? " " : "",
			    v->retest_by ? v->retest_by : "someone");
	report_set_prose(c, "notes", sb.buf);
	strbuf_release(&sb);
}

/* Re: the subject, once */
static char *reply_subject(const char *subject)
{
	char *clean = mail_out_clean(subject ? subject : "");
	char *r;

	if (!strncasecmp(clean, "re:", 3))
		return clean;
	r = xasprintf("Re: %s", clean);
	free(clean);
	return r;
}

static void headers(struct report_ctx *c, const struct mail *m, struct reply_mail *out)
{
	const struct config *cfg = c->o->cfg;
	const char **refs = xcalloc(MAX_REFS + 1, sizeof(*refs));
	struct strbuf sb = STRBUF_INIT;
	size_t nr = 0, i, skip = 0;

	mail_out_format_addr(&sb, config_v(cfg)->core_botname,
			     config_v(cfg)->core_botaddress);
	mail_out_header(&out->text, "From", sb.buf);
	strbuf_reset(&sb);
	mail_out_addrs_header(&out->text, "To", &out->to);
	mail_out_addrs_header(&out->text, "Cc", &out->cc);
	mail_out_text_header(&out->text, "Subject", out->subject);
	mail_format_date(c->o->now, 0, &sb);
	mail_out_header(&out->text, "Date", sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "<%s>", out->msgid);
	mail_out_header(&out->text, "Message-ID", sb.buf);
	strbuf_reset(&sb);
	/* References: the chain and the message itself; the oldest and the newest when long */
	if (m->nr_refs + 1 > MAX_REFS)
		skip = m->nr_refs + 1 - MAX_REFS;
	for (i = 0; i < m->nr_refs; i++)
		if (i == 0 || i > skip)
			refs[nr++] = m->refs[i];
	refs[nr++] = out->in_reply_to;
	mail_out_ids_header(&out->text, "In-Reply-To", (const char *const *)&out->in_reply_to, 1);
	mail_out_ids_header(&out->text, "References", refs, nr);
	strbuf_addstr(&out->text, "MIME-Version: 1.0\n"
		      "Content-Type: text/plain; charset=utf-8\n"
		      "Content-Transfer-Encoding: 8bit\n"
		      "Content-Disposition: inline\n"
		      "Auto-Submitted: auto-generated\n");
	mail_out_header(&out->text, "X-Lorebot-Outcome", report_kind_name(c->d->kind));
	free(refs);
	strbuf_release(&sb);
}

int report_compose(struct store *st, const struct report_version *v,
		   const struct reply_due *d, const struct report_opts *o,
		   struct reply_mail *out, struct strbuf *err)
{
	struct report_ctx c = { .st = st, .v = v, .o = o, .d = d, .vars = TVARS_INIT };
	const char *target = target_msgid(v, d->patch);
	const char *bot = config_v(o->cfg)->core_botaddress;
	struct strbuf raw = STRBUF_INIT, body = STRBUF_INIT, url = STRBUF_INIT;
	struct mail m = MAIL_INIT;
	char *file = NULL;
	int r, ret = -1;

	out->kind = d->kind;
	out->patch = d->patch;
	out->round = v->retests;
	r = target ? store_get_raw(st, target, &raw, err) : 0;
	if (r <= 0) {
		if (!r)
			strbuf_addf(err, "the message replied to, <%s>, is not in the database",
				    target ? target : "?");
		goto out;
	}
	if (store_parse_mail(st, raw.buf, raw.len, &m, err))
		goto out;
	if (!mail_out_valid_msgid(m.msgid)) {
		strbuf_addf(err, "cannot reply to <%s>: its Message-ID cannot be written "
			    "in a header", target);
		goto out;
	}
	out->in_reply_to = xstrdup(m.msgid);
	out->msgid = mail_out_new_msgid(strchr(bot, '@') ? strchr(bot, '@') + 1 : NULL, o->now);
	out->subject = reply_subject(m.subject);
	c.msgid = out->msgid;
	out->report_id = report_id_of(out->msgid);
	c.report_id = out->report_id;
	report_url(o->cfg, c.report_id, &url);
	c.report_url = url.buf;
	recipients(v, o, &m, report_patch(v, d->patch), out);
	if (!out->to.nr) {
		strbuf_addf(err, "<%s> has no sender address to reply to", target);
		goto out;
	}
	common_vars(&c, &m, report_patch(v, d->patch));
	if (report_body_vars(&c, err))
		goto out;
	file = xasprintf("reply-%s.txt", report_kind_name(d->kind));
	if (template_render(o->templates, file, &c.vars, TEMPLATE_TEXT, &body, err))
		goto out;
	clean_body(&out->body, body.buf, body.len);
	if (report_snapshot(&c, out, err))
		goto out;
	headers(&c, &m, out);
	strbuf_addch(&out->text, '\n');
	strbuf_addbuf(&out->text, &out->body);
	ret = 0;
out:
	free(file);
	template_vars_release(&c.vars);
	mail_release(&m);
	strbuf_release(&raw);
	strbuf_release(&body);
	strbuf_release(&url);
	return ret;
}
