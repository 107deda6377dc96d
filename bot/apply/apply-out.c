// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "bot/apply/apply-out.h"
#include "lib/jsonx.h"

/* Length of the valid UTF-8 sequence at p, 0 if invalid */
static size_t utf8_len(const unsigned char *p, size_t left)
{
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0 && p[0] >= 0xc2)
		n = 2;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((p[0] & 0xf8) == 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string of text from a tree or a mail: invalid UTF-8 becomes U+FFFD */
static json_object *text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len, i = 0;
	json_object *o;

	if (!s)
		return NULL;
	len = strlen(s);
	while (i < len) {
		size_t n = utf8_len((const unsigned char *)s + i, len - i);

		if (n) {
			strbuf_add(&sb, s + i, n);
			i += n;
		} else {
			strbuf_addstr(&sb, "\xef\xbf\xbd");
			i++;
		}
	}
	o = json_object_new_string_len(sb.buf, (int)sb.len);
	strbuf_release(&sb);
	return o;
}

static json_object *method_json(enum apply_method m)
{
	const char *name = apply_method_name(m);

	return jx_new_str(name);
}

static json_object *near_json(const struct apply_hunk *h)
{
	json_object *o = json_object_new_object(), *lines = json_object_new_array();
	size_t i;

	for (i = 0; i < h->nr_near; i++) {
		json_object *l = json_object_new_object();
		char kind[2] = { h->near[i].kind, 0 };

		json_object_object_add(l, "kind", json_object_new_string(kind));
		json_object_object_add(l, "line", h->near[i].file_no ?
				       json_object_new_int(h->near[i].file_no) : NULL);
		json_object_object_add(l, "text", text(h->near[i].text));
		json_object_array_add(lines, l);
	}
	json_object_object_add(o, "found", json_object_new_boolean(h->near_found));
	json_object_object_add(o, "start", json_object_new_int(h->near_start));
	json_object_object_add(o, "end", json_object_new_int(h->near_end));
	json_object_object_add(o, "matched", json_object_new_int(h->near_matched));
	json_object_object_add(o, "total", json_object_new_int(h->near_total));
	json_object_object_add(o, "lines", lines);
	return o;
}

static json_object *failure_json(const struct apply_hunk *h, bool full)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "file", *h->file ? text(h->file) : NULL);
	json_object_object_add(o, "hunk", text(h->header));
	json_object_object_add(o, "message", text(h->message));
	if (!full)
		return o;
	json_object_object_add(o, "line", h->header ? json_object_new_int(h->line) : NULL);
	json_object_object_add(o, "excerpt", text(h->excerpt));
	json_object_object_add(o, "tree", h->header ? near_json(h) : NULL);
	return o;
}

static json_object *hunk_json(const struct apply_hunk *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "file", *h->file ? text(h->file) : NULL);
	json_object_object_add(o, "hunk", text(h->header));
	json_object_object_add(o, "index", json_object_new_int(h->index));
	json_object_object_add(o, "applied", json_object_new_boolean(h->applied));
	json_object_object_add(o, "method", h->applied ? method_json(h->method) : NULL);
	json_object_object_add(o, "line", h->header ? json_object_new_int(h->line) : NULL);
	json_object_object_add(o, "offset", h->applied && h->header ?
			       json_object_new_int(h->offset) : NULL);
	return o;
}

static const struct apply_hunk *first_failure(const struct apply_patch *p)
{
	size_t i;

	for (i = 0; i < p->nr_hunks; i++)
		if (!p->hunks[i].applied)
			return &p->hunks[i];
	return NULL;
}

static json_object *patch_json(const struct apply_patch *p)
{
	json_object *o = json_object_new_object();
	json_object *failures = json_object_new_array(), *hunks = json_object_new_array();
	const struct apply_hunk *first = first_failure(p);
	size_t i;

	json_object_object_add(o, "n", json_object_new_int(p->n));
	json_object_object_add(o, "total", json_object_new_int(p->total));
	json_object_object_add(o, "subject", text(p->subject));
	json_object_object_add(o, "msgid", text(p->msgid));
	json_object_object_add(o, "status",
			       json_object_new_string(apply_status_name(p->status)));
	json_object_object_add(o, "method", p->status == APPLY_APPLIED ?
			       method_json(p->method) : NULL);
	json_object_object_add(o, "commit", jx_new_nonempty(p->commit));
	json_object_object_add(o, "file", first && *first->file ? text(first->file) : NULL);
	json_object_object_add(o, "hunk", first ? text(first->header) : NULL);
	json_object_object_add(o, "message", first ? text(first->message) :
			       text(p->message));
	json_object_object_add(o, "summary", text(p->message));
	for (i = 0; i < p->nr_hunks; i++) {
		if (!p->hunks[i].applied)
			json_object_array_add(failures, failure_json(&p->hunks[i], true));
		if (p->hunks[i].header)
			json_object_array_add(hunks, hunk_json(&p->hunks[i]));
	}
	json_object_object_add(o, "failures", failures);
	json_object_object_add(o, "hunks", hunks);
	json_object_object_add(o, "would_apply_alone", p->alone < 0 ? NULL :
			       json_object_new_boolean(p->alone));
	if (p->alone == 0) {
		json_object *alone = json_object_new_array();

		for (i = 0; i < p->nr_alone; i++)
			json_object_array_add(alone, failure_json(&p->alone_hunks[i], false));
		json_object_object_add(o, "alone_failures", alone);
	}
	return o;
}

json_object *apply_result_to_json(const struct apply_result *res,
				  const char *base_commit)
{
	json_object *o = json_object_new_object(), *base = NULL;
	json_object *attempts = json_object_new_array(), *patches = json_object_new_array();
	size_t i;

	if (res->base_name) {
		base = json_object_new_object();
		json_object_object_add(base, "name", text(res->base_name));
		json_object_object_add(base, "ref", text(res->base_ref));
		json_object_object_add(base, "sha", json_object_new_string(res->base_sha));
		json_object_object_add(base, "reason", text(res->base_reason));
		json_object_object_add(base, "base_commit", text(base_commit));
		json_object_object_add(base, "base_commit_unknown",
				       json_object_new_boolean(res->base_commit_unknown));
	}
	json_object_object_add(o, "base", base);
	for (i = 0; i < res->nr_attempts; i++) {
		const struct apply_attempt *a = &res->attempts[i];
		json_object *ao = json_object_new_object();

		json_object_object_add(ao, "name", text(a->name));
		json_object_object_add(ao, "origin", text(a->origin));
		json_object_object_add(ao, "sha", a->resolved ?
				       json_object_new_string(a->sha) : NULL);
		json_object_object_add(ao, "applied", json_object_new_boolean(a->applied));
		json_object_object_add(ao, "outcome", text(a->outcome));
		json_object_array_add(attempts, ao);
	}
	json_object_object_add(o, "attempts", attempts);
	json_object_object_add(o, "branch", text(res->branch));
	json_object_object_add(o, "applied", json_object_new_boolean(res->applied));
	json_object_object_add(o, "tip", jx_new_nonempty(res->tip));
	json_object_object_add(o, "tree", jx_new_nonempty(res->tree));
	for (i = 0; i < res->nr; i++)
		json_object_array_add(patches, patch_json(&res->patches[i]));
	json_object_object_add(o, "patches", patches);
	if (res->error)
		json_object_object_add(o, "error", text(res->error));
	return o;
}

/* text */

static void text_tree(const struct apply_hunk *h, struct strbuf *sb)
{
	size_t i;

	if (!h->nr_near) {
		strbuf_addstr(sb, "      (the file has no lines there)\n");
		return;
	}
	if (h->near_found)
		strbuf_addf(sb, "      the tree at lines %d-%d ('-' the hunk expects, "
			    "'+' only in the tree, '~' whitespace differs, '.' around):\n",
			    h->near_start, h->near_end);
	else
		strbuf_addf(sb, "      nothing alike in the file; the tree at lines %d-%d:\n",
			    h->near_start, h->near_end);
	for (i = 0; i < h->nr_near; i++) {
		const struct apply_near_line *l = &h->near[i];

		if (l->file_no)
			strbuf_addf(sb, "      %c%6d | %s\n", !h->near_found || l->kind == '.' ?
				    ' ' : l->kind, l->file_no, l->text);
		else
			strbuf_addf(sb, "      %c       | %s\n", l->kind, l->text);
	}
}

static void text_failure(const struct apply_hunk *h, bool full, struct strbuf *sb)
{
	if (h->header)
		strbuf_addf(sb, "%s:%d: error: hunk %d %s %s\n", h->file, h->line,
			    h->index, h->header, h->message);
	else if (*h->file)
		strbuf_addf(sb, "%s: error: %s\n", h->file, h->message);
	else
		strbuf_addf(sb, "error: %s\n", h->message);
	if (!full || !h->header)
		return;
	if (h->excerpt) {
		const char *p = h->excerpt;

		strbuf_addstr(sb, "      the hunk starts:\n");
		while (*p) {
			const char *nl = strchrnul(p, '\n');

			strbuf_addf(sb, "        %.*s\n", (int)(nl - p), p);
			p = *nl ? nl + 1 : nl;
		}
	}
	text_tree(h, sb);
}

void apply_result_to_text(const struct apply_result *res, struct strbuf *sb)
{
	size_t i, j;

	if (res->base_name)
		strbuf_addf(sb, "base: %s %s\n      (%s)\n", res->base_name, res->base_sha,
			    res->base_reason);
	for (i = 0; i < res->nr_attempts; i++)
		/* bases after the one that applied were not tried */
		if (res->attempts[i].outcome &&
		    (res->nr_attempts > 1 || !res->attempts[i].resolved))
			strbuf_addf(sb, "      tried %s: %s\n", res->attempts[i].name,
				    res->attempts[i].outcome);
	for (i = 0; i < res->nr; i++) {
		const struct apply_patch *p = &res->patches[i];

		strbuf_addf(sb, "[%d/%d] %s", p->n, p->total, apply_status_name(p->status));
		if (p->status == APPLY_APPLIED)
			strbuf_addf(sb, " (%s)", apply_method_name(p->method));
		strbuf_addf(sb, ": %s\n", p->subject);
		if (p->status != APPLY_APPLIED && p->msgid)
			strbuf_addf(sb, "      <%s>\n", p->msgid);
		for (j = 0; j < p->nr_hunks; j++) {
			const struct apply_hunk *h = &p->hunks[j];

			if (!h->applied)
				text_failure(h, true, sb);
			else if (h->method == METHOD_3WAY)
				strbuf_addf(sb, "      %s: hunk %d %s %s\n", h->file, h->index,
					    h->header, h->message);
			else if (h->method != METHOD_EXACT)
				strbuf_addf(sb, "      %s: hunk %d %s applied at line %d "
					    "(offset %+d lines%s)\n", h->file, h->index,
					    h->header, h->line, h->offset,
					    h->method == METHOD_FUZZ ? ", reduced context" : "");
		}
		if (p->status == APPLY_FAILED && !p->nr_hunks && p->message)
			strbuf_addf(sb, "      error: %s\n", p->message);
		if (p->status == APPLY_SKIPPED) {
			strbuf_addf(sb, "      %s\n", p->message);
			if (p->alone == 1)
				strbuf_addstr(sb, "      on its own, it would apply to the base\n");
			else if (p->alone == 0) {
				strbuf_addstr(sb, "      on its own, it would not apply to the base either:\n");
				for (j = 0; j < p->nr_alone; j++) {
					strbuf_addstr(sb, "        ");
					text_failure(&p->alone_hunks[j], false, sb);
				}
			}
		}
	}
	if (res->error)
		strbuf_addf(sb, "error: %s\n", res->error);
	else if (res->applied)
		strbuf_addf(sb, "applied: %s at %s\n", res->branch ? res->branch : "(no branch)",
			    res->tip);
	else
		strbuf_addstr(sb, "does not apply; no branch made\n");
}
