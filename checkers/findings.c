// SPDX-License-Identifier: GPL-2.0
/*
 * Findings for people (compiler format, grouped by patch) and for
 * scripts (the JSON contract of "lorebot check --json").
 */
#include <json-c/json.h>

#include "checkers/check.h"

static const struct check_patch *patch_n(const struct check_series *s, int n)
{
	size_t i;

	if (!n)
		return s->cover;
	for (i = 0; i < s->nr; i++)
		if (s->patches[i]->n == n)
			return s->patches[i];
	return NULL;
}

/* Where a finding without a file is: the commit message, cover, series */
static const char *pseudo_file(const struct finding *f,
			       const struct check_series *s)
{
	if (f->patch)
		return "COMMIT_MSG";
	return s->cover ? "COVER_LETTER" : "SERIES";
}

static void print_block(FILE *out, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");

		fprintf(out, "    | %.*s\n", (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

void findings_print_text(const struct findings *f, const struct check_series *s,
			 FILE *out)
{
	size_t i;
	int group = -1;

	for (i = 0; i < f->nr; i++) {
		const struct finding *x = &f->v[i];

		if (x->patch != group) {
			const struct check_patch *p = patch_n(s, x->patch);

			group = x->patch;
			if (p && p->subject)
				fprintf(out, "%s%s\n", i ? "\n" : "", p->subject);
			else if (!x->patch)
				fprintf(out, "%sseries\n", i ? "\n" : "");
			else
				fprintf(out, "%spatch %d\n", i ? "\n" : "", x->patch);
		}
		if (x->line > 0)
			fprintf(out, "%s:%d: %s: %s [%s]\n",
				x->file ? x->file : pseudo_file(x, s), x->line,
				check_severity_name(x->severity), x->message, x->rule);
		else
			fprintf(out, "%s: %s: %s [%s]\n",
				x->file ? x->file : pseudo_file(x, s),
				check_severity_name(x->severity), x->message, x->rule);
		if (x->quote)
			print_block(out, x->quote);
		if (x->suggestion) {
			fprintf(out, "    suggestion:\n");
			print_block(out, x->suggestion);
		}
	}
	fprintf(out, "%s%zu errors, %zu warnings, %zu notes\n", f->nr ? "\n" : "",
		findings_count(f, CHECK_ERROR), findings_count(f, CHECK_WARNING),
		findings_count(f, CHECK_NOTE));
}

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *findings_to_json(const struct findings *f,
			      const struct check_series *s)
{
	json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();
	json_object *patches = json_object_new_array();
	json_object *sum = json_object_new_object();
	size_t i;

	for (i = 0; i < f->nr; i++) {
		const struct finding *x = &f->v[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "rule", json_object_new_string(x->rule));
		json_object_object_add(j, "severity",
				       json_object_new_string(check_severity_name(x->severity)));
		json_object_object_add(j, "patch", json_object_new_int(x->patch));
		json_object_object_add(j, "file", str_or_null(x->file));
		json_object_object_add(j, "line", json_object_new_int(x->line));
		json_object_object_add(j, "message", json_object_new_string(x->message));
		if (x->quote)
			json_object_object_add(j, "quote", json_object_new_string(x->quote));
		if (x->suggestion)
			json_object_object_add(j, "suggestion",
					       json_object_new_string(x->suggestion));
		if (x->preexisting)
			json_object_object_add(j, "preexisting",
					       json_object_new_boolean(true));
		json_object_array_add(arr, j);
	}
	json_object_object_add(o, "findings", arr);

	for (i = 0; i < s->nr; i++) {
		const struct check_patch *p = s->patches[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "n", json_object_new_int(p->n));
		json_object_object_add(j, "subject", str_or_null(p->subject));
		json_object_object_add(j, "applied", json_object_new_boolean(p->post_rev != NULL));
		if (p->apply_error)
			json_object_object_add(j, "apply_error",
					       json_object_new_string(p->apply_error));
		json_object_array_add(patches, j);
	}
	json_object_object_add(o, "patches", patches);
	json_object_object_add(o, "version", json_object_new_int(s->version));
	json_object_object_add(o, "total", json_object_new_int(s->total));
	json_object_object_add(o, "base", str_or_null(s->base_rev));
	json_object_object_add(sum, "errors",
			       json_object_new_int((int)findings_count(f, CHECK_ERROR)));
	json_object_object_add(sum, "warnings",
			       json_object_new_int((int)findings_count(f, CHECK_WARNING)));
	json_object_object_add(sum, "notes",
			       json_object_new_int((int)findings_count(f, CHECK_NOTE)));
	json_object_object_add(o, "summary", sum);
	return o;
}
