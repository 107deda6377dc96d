// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "bot/series-out.h"

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *person(const char *name, const char *email)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", str_or_null(name));
	json_object_object_add(o, "email", str_or_null(email));
	return o;
}

static json_object *trailers_json(const struct trailers *t)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < t->nr; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(t->t[i].name));
		json_object_object_add(o, "value", json_object_new_string(t->t[i].value));
		json_object_array_add(arr, o);
	}
	return arr;
}

json_object *send_to_json(const struct send *s)
{
	json_object *o = json_object_new_object();
	json_object *patches = json_object_new_array();
	json_object *missing = json_object_new_array();
	int i;

	json_object_object_add(o, "series_id", json_object_new_string(s->series->id));
	json_object_object_add(o, "id", json_object_new_string(s->id));
	json_object_object_add(o, "title", json_object_new_string(s->title));
	json_object_object_add(o, "author", person(s->author_name, s->author_email));
	json_object_object_add(o, "version", json_object_new_int(s->version));
	json_object_object_add(o, "total", json_object_new_int(s->total));
	json_object_object_add(o, "tree", str_or_null(s->tree));
	json_object_object_add(o, "rfc", json_object_new_boolean(s->rfc));
	json_object_object_add(o, "cover", str_or_null(s->cover ? s->cover->msgid : NULL));
	json_object_object_add(o, "date", json_object_new_int64(s->date));
	for (i = 0; i < s->total; i++) {
		const struct send_patch *sp = &s->patches[i];
		json_object *p;

		if (!sp->msg) {
			json_object_array_add(missing, json_object_new_int(i + 1));
			continue;
		}
		p = json_object_new_object();
		json_object_object_add(p, "n", json_object_new_int(i + 1));
		json_object_object_add(p, "msgid", json_object_new_string(sp->msg->msgid));
		json_object_object_add(p, "subject", json_object_new_string(sp->msg->subject));
		json_object_object_add(p, "title", json_object_new_string(sp->msg->title));
		json_object_object_add(p, "author", person(sp->msg->author_name,
							   sp->msg->author_email));
		json_object_object_add(p, "trailers", trailers_json(&sp->trailers));
		json_object_array_add(patches, p);
	}
	json_object_object_add(o, "patches", patches);
	json_object_object_add(o, "missing", missing);
	json_object_object_add(o, "complete", json_object_new_boolean(s->complete));
	json_object_object_add(o, "superseded_by",
			       str_or_null(s->superseded_by ? s->superseded_by->id : NULL));
	json_object_object_add(o, "resend", json_object_new_boolean(s->resend));
	json_object_object_add(o, "base_commit", str_or_null(s->base_commit));
	json_object_object_add(o, "change_id", str_or_null(s->change_id));
	json_object_object_add(o, "replies", json_object_new_int(s->replies));
	return o;
}

static json_object *problems_json(const struct strbuf *problems)
{
	json_object *arr = json_object_new_array();
	const char *p = problems->buf;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		json_object_array_add(arr, json_object_new_string_len(p, n));
		p += n + (nl ? 1 : 0);
	}
	return arr;
}

json_object *assembly_to_json(const struct assembly *a)
{
	json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();
	size_t i, j;

	for (i = 0; i < a->nr_series; i++)
		for (j = 0; j < a->series[i]->nr; j++)
			json_object_array_add(arr, send_to_json(a->series[i]->sends[j]));
	json_object_object_add(o, "series", arr);
	json_object_object_add(o, "messages", json_object_new_int64(a->nr));
	json_object_object_add(o, "problems", problems_json(&a->problems));
	return o;
}

#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Indent every line but the first of a pretty-printed value */
static void put_indented(FILE *f, const char *s, const char *indent)
{
	const char *nl;

	while ((nl = strchr(s, '\n'))) {
		fwrite(s, 1, nl + 1 - s, f);
		fputs(indent, f);
		s = nl + 1;
	}
	fputs(s, f);
}

void assembly_print_json(const struct assembly *a, FILE *f)
{
	json_object *o;
	size_t i, j;
	bool first = true;

	/* one series object at a time: memory stays flat for large input */
	fputs("{\n  \"series\":[", f);
	for (i = 0; i < a->nr_series; i++) {
		for (j = 0; j < a->series[i]->nr; j++) {
			o = send_to_json(a->series[i]->sends[j]);
			fputs(first ? "\n    " : ",\n    ", f);
			put_indented(f, json_object_to_json_string_ext(o, JSON_FLAGS),
				     "    ");
			json_object_put(o);
			first = false;
		}
	}
	fprintf(f, "\n  ],\n  \"messages\":%zu,\n  \"problems\":", a->nr);
	o = problems_json(&a->problems);
	put_indented(f, json_object_to_json_string_ext(o, JSON_FLAGS), "  ");
	json_object_put(o);
	fputs("\n}\n", f);
}

void send_to_text(const struct send *s, struct strbuf *sb)
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

void assembly_print_text(const struct assembly *a, FILE *f)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j;

	for (i = 0; i < a->nr_series; i++) {
		for (j = 0; j < a->series[i]->nr; j++) {
			strbuf_reset(&sb);
			send_to_text(a->series[i]->sends[j], &sb);
			fputs(sb.buf, f);
		}
	}
	strbuf_release(&sb);
}

void json_print(json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	fputc('\n', stdout);
}
