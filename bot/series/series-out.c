// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "lib/jsonw.h"
#include "bot/series/series-out.h"

static void person(struct jsonw *w, const char *name, const char *email)
{
	jw_obj(w);
	jw_key(w, "name");
	jw_str(w, name);
	jw_key(w, "email");
	jw_str(w, email);
	jw_end_obj(w);
}

static void trailers_json(struct jsonw *w, const struct trailers *t)
{
	size_t i;

	jw_arr(w);
	for (i = 0; i < t->nr; i++) {
		jw_obj(w);
		jw_key(w, "name");
		jw_str(w, t->t[i].name);
		jw_key(w, "value");
		jw_str(w, t->t[i].value);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void patch_json(struct jsonw *w, int n, const struct send_patch *sp)
{
	jw_obj(w);
	jw_key(w, "n");
	jw_int(w, n);
	jw_key(w, "msgid");
	jw_str(w, sp->msg->msgid);
	jw_key(w, "subject");
	jw_str(w, sp->msg->subject);
	jw_key(w, "title");
	jw_str(w, sp->msg->title);
	jw_key(w, "author");
	person(w, sp->msg->author_name, sp->msg->author_email);
	jw_key(w, "trailers");
	trailers_json(w, &sp->trailers);
	jw_end_obj(w);
}

void series_send_write_json(struct jsonw *w, const struct send *s)
{
	int i;

	jw_obj(w);
	jw_key(w, "series_id");
	jw_str(w, s->series->id);
	jw_key(w, "id");
	jw_str(w, s->id);
	jw_key(w, "title");
	jw_str(w, s->title);
	jw_key(w, "author");
	person(w, s->author_name, s->author_email);
	jw_key(w, "version");
	jw_int(w, s->version);
	jw_key(w, "total");
	jw_int(w, s->total);
	jw_key(w, "tree");
	jw_str(w, s->tree);
	jw_key(w, "rfc");
	jw_bool(w, s->rfc);
	jw_key(w, "cover");
	jw_str(w, s->cover ? s->cover->msgid : NULL);
	jw_key(w, "date");
	jw_int(w, s->date);
	jw_key(w, "patches");
	jw_arr(w);
	for (i = 0; i < s->total; i++)
		if (s->patches[i].msg)
			patch_json(w, i + 1, &s->patches[i]);
	jw_end_arr(w);
	jw_key(w, "missing");
	jw_arr(w);
	for (i = 0; i < s->total; i++)
		if (!s->patches[i].msg)
			jw_int(w, i + 1);
	jw_end_arr(w);
	jw_key(w, "complete");
	jw_bool(w, s->complete);
	jw_key(w, "superseded_by");
	jw_str(w, s->superseded_by ? s->superseded_by->id : NULL);
	jw_key(w, "resend");
	jw_bool(w, s->resend);
	jw_key(w, "reroll_from");
	if (s->reroll_from)
		jw_int(w, s->reroll_from);
	else
		jw_null(w);
	jw_key(w, "base_commit");
	jw_str(w, s->base_commit);
	jw_key(w, "change_id");
	jw_str(w, s->change_id);
	jw_key(w, "replies");
	jw_int(w, s->replies);
	jw_end_obj(w);
}

struct json_out {
	struct jsonw *w;
	struct strbuf *sb;
	FILE *f;
};

/* Written out every 64 KB: memory stays flat for large input */
static void json_flush(struct json_out *o)
{
	if (o->sb->len < 64 * 1024)
		return;
	fwrite(o->sb->buf, 1, o->sb->len, o->f);
	strbuf_reset(o->sb);
}

static void send_json_out(const struct send *s, void *ctx)
{
	struct json_out *o = ctx;

	series_send_write_json(o->w, s);
	json_flush(o);
}

static void problem_json(const char *line, size_t len, void *ctx)
{
	struct json_out *o = ctx;

	jw_str_len(o->w, line, len);
	json_flush(o);
}

void series_print_json(const struct assembly *a, FILE *f)
{
	struct strbuf sb = STRBUF_INIT;
	struct jsonw w = JSONW_INIT(&sb, true);
	struct json_out o = { &w, &sb, f };

	/* 64 KB at a time: stdio's 4 KB would turn 20 MB into 5,000 writes */
	jw_obj(&w);
	jw_key(&w, "series");
	jw_arr(&w);
	series_each_send(a, send_json_out, &o);
	jw_end_arr(&w);
	jw_key(&w, "messages");
	jw_int(&w, (int64_t)series_nr_msgs(a));
	jw_key(&w, "problems");
	jw_arr(&w);
	series_each_problem(a, problem_json, &o);
	jw_end_arr(&w);
	jw_end_obj(&w);
	strbuf_addch(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

void series_send_to_text(const struct send *s, struct strbuf *sb)
{
	int n;

	strbuf_addf(sb, "%s v%d%s%s%s%s %s\n", s->series->id, s->version,
		    s->rfc ? " RFC" : "", s->tree ? " [" : "",
		    s->tree ? s->tree : "", s->tree ? "]" : "", s->title);
	strbuf_addf(sb, "    %s <%s>, %d/%d patches%s%s, %d replies",
		    s->author_name ? s->author_name : "?",
		    s->author_email ? s->author_email : "?", s->have, s->total,
		    s->complete ? ", complete" : ", INCOMPLETE",
		    s->cover ? "" : ", no cover letter", s->replies);
	if (s->resend)
		strbuf_addstr(sb, ", resend");
	if (s->base_commit)
		strbuf_addf(sb, ", base %.12s", s->base_commit);
	strbuf_addch(sb, '\n');
	if (s->superseded_by)
		strbuf_addf(sb, "    superseded by <%s>\n", s->superseded_by->id);
	if (s->cover)
		strbuf_addf(sb, "    [0/%d] <%s>\n", s->total, s->cover->msgid);
	for (n = 0; n < s->total; n++) {
		const struct send_patch *sp = &s->patches[n];

		if (!sp->msg) {
			strbuf_addf(sb, "    [%d/%d] (missing)\n", n + 1, s->total);
			continue;
		}
		strbuf_addf(sb, "    [%d/%d] %s", n + 1, s->total, sp->msg->title);
		if (sp->trailers.nr)
			strbuf_addf(sb, " (%zu trailers)", sp->trailers.nr);
		strbuf_addch(sb, '\n');
	}
}

static void send_text_out(const struct send *s, void *ctx)
{
	struct strbuf sb = STRBUF_INIT;

	series_send_to_text(s, &sb);
	fputs(sb.buf, ctx);
	strbuf_release(&sb);
}

void series_print_text(const struct assembly *a, FILE *f)
{
	series_each_send(a, send_text_out, f);
}
