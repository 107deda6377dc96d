// SPDX-License-Identifier: GPL-2.0
/*
 * Findings for people (compiler format, grouped by patch) and for
 * scripts (the JSON contract of "lorebot check --json").
 */
#include <ctype.h>
#include <json-c/json.h>

#include "checkers/check.h"
#include "lib/jsonx.h"

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

/* gcc's colours: bold locations, severities in their colour */
#define C_BOLD "\033[1m"
#define C_RESET "\033[m"
#define C_QUOTE ""
#define C_FIX "\033[32m"

static const char *const sev_color[] = {
	[CHECK_NOTE] = "\033[1;36m",
	[CHECK_WARNING] = "\033[1;35m",
	[CHECK_ERROR] = "\033[1;31m",
};

struct paint {
	bool on;
};

static const char *pc(const struct paint *p, const char *code)
{
	return p->on ? code : "";
}

static void print_block(FILE *out, const char *text, const struct paint *p,
			const char *code)
{
	const char *t = text;

	while (*t) {
		size_t n = strcspn(t, "\n");

		fprintf(out, "    | %s%.*s%s\n", pc(p, code), (int)n, t,
			*code ? pc(p, C_RESET) : "");
		t += n;
		if (*t)
			t++;
	}
}

static void print_count(FILE *out, const struct paint *p, size_t n,
			enum check_severity sev, const char *what, const char *sep)
{
	fprintf(out, "%s%zu %s%s%s", n ? pc(p, sev_color[sev]) : "", n, what,
		n ? pc(p, C_RESET) : "", sep);
}

void findings_print(const struct findings *f, const struct check_series *s,
		    FILE *out, bool color)
{
	const struct paint paint = { color }, *p = &paint;
	size_t i;
	int group = -1;

	for (i = 0; i < f->nr; i++) {
		const struct finding *x = &f->v[i];
		const char *sc = pc(p, sev_color[x->severity <= CHECK_ERROR ? x->severity : 0]);

		if (x->patch != group) {
			const struct check_patch *cp = patch_n(s, x->patch);

			group = x->patch;
			fprintf(out, "%s%s", i ? "\n" : "", pc(p, C_BOLD));
			if (cp && cp->subject)
				fprintf(out, "%s", cp->subject);
			else if (!x->patch)
				fprintf(out, "series");
			else
				fprintf(out, "patch %d", x->patch);
			fprintf(out, "%s\n", pc(p, C_RESET));
		}
		fprintf(out, "%s%s", pc(p, C_BOLD), x->file ? x->file : pseudo_file(x, s));
		if (x->line > 0)
			fprintf(out, ":%d", x->line);
		if (x->line > 0 && x->column > 0)
			fprintf(out, ":%d", x->column);
		fprintf(out, ":%s %s%s:%s %s [%s%s%s]\n", pc(p, C_RESET), sc,
			check_severity_name(x->severity), pc(p, C_RESET), x->message,
			sc, x->rule, pc(p, C_RESET));
		if (x->quote)
			print_block(out, x->quote, p, C_QUOTE);
		if (x->suggestion) {
			fprintf(out, "    suggestion:\n");
			print_block(out, x->suggestion, p, C_FIX);
		}
	}
	fprintf(out, "%s", f->nr ? "\n" : "");
	print_count(out, p, check_findings_count(f, CHECK_ERROR), CHECK_ERROR, "errors", ", ");
	print_count(out, p, check_findings_count(f, CHECK_WARNING), CHECK_WARNING, "warnings", ", ");
	print_count(out, p, check_findings_count(f, CHECK_NOTE), CHECK_NOTE, "notes", "\n");
}

void findings_print_text(const struct findings *f, const struct check_series *s,
			 FILE *out)
{
	findings_print(f, s, out, false);
}

/*
 * The function the header of the hunk around x's line names ("@@ ... @@
 * static long madvise_populate(struct mm_struct *mm,": madvise_populate),
 * or NULL: part of what makes a finding the same in the next version
 */
static char *finding_function(const struct check_series *s, const struct finding *x)
{
	size_t i, j, k;

	if (!x->file || x->line <= 0)
		return NULL;
	for (i = 0; i < s->nr; i++) {
		const struct diff *d = &s->patches[i]->diff;

		if (s->patches[i]->n != x->patch)
			continue;
		for (j = 0; j < d->nr; j++) {
			const struct diff_file *df = &d->files[j];

			if (!df->new_path || strcmp(df->new_path, x->file))
				continue;
			for (k = 0; k < df->nr; k++) {
				const struct diff_hunk *h = &df->hunks[k];
				const char *ctx, *paren, *end;

				if (x->line < h->new_start ||
				    x->line >= h->new_start + MAX(h->new_lines, 1))
					continue;
				ctx = h->header ? strstr(h->header + 2, "@@") : NULL;
				paren = ctx ? strchr(ctx, '(') : NULL;
				if (!paren)
					return NULL;
				end = paren;
				while (end > ctx && end[-1] == ' ')
					end--;
				paren = end;
				while (paren > ctx && (isalnum((unsigned char)paren[-1]) ||
						       paren[-1] == '_'))
					paren--;
				return end > paren ? xstrndup(paren, end - paren) : NULL;
			}
		}
	}
	return NULL;
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
		char *fn;

		json_object_object_add(j, "rule", json_object_new_string(x->rule));
		json_object_object_add(j, "severity",
				       json_object_new_string(check_severity_name(x->severity)));
		json_object_object_add(j, "patch", json_object_new_int(x->patch));
		json_object_object_add(j, "file", jx_new_str(x->file));
		/* null where no line applies (the series, a whole patch) */
		json_object_object_add(j, "line", x->line > 0 ?
				       json_object_new_int(x->line) : NULL);
		json_object_object_add(j, "column", x->line > 0 && x->column > 0 ?
				       json_object_new_int(x->column) : NULL);
		json_object_object_add(j, "message", json_object_new_string(x->message));
		if (x->quote)
			json_object_object_add(j, "quote", json_object_new_string(x->quote));
		fn = finding_function(s, x);
		if (fn)
			json_object_object_add(j, "function", json_object_new_string(fn));
		free(fn);
		if (x->suggestion)
			json_object_object_add(j, "suggestion",
					       json_object_new_string(x->suggestion));
		if (x->preexisting)
			json_object_object_add(j, "preexisting",
					       json_object_new_boolean(true));
		if (x->cause)
			json_object_object_add(j, "cause", json_object_new_int(x->cause));
		json_object_array_add(arr, j);
	}
	json_object_object_add(o, "findings", arr);

	for (i = 0; i < s->nr; i++) {
		const struct check_patch *p = s->patches[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "n", json_object_new_int(p->n));
		json_object_object_add(j, "subject", jx_new_str(p->subject));
		json_object_object_add(j, "applied", json_object_new_boolean(p->post_rev != NULL));
		if (p->apply_error)
			json_object_object_add(j, "apply_error",
					       json_object_new_string(p->apply_error));
		json_object_array_add(patches, j);
	}
	json_object_object_add(o, "patches", patches);
	json_object_object_add(o, "version", json_object_new_int(s->version));
	json_object_object_add(o, "total", json_object_new_int(s->total));
	json_object_object_add(o, "base", jx_new_str(s->base_rev));
	json_object_object_add(sum, "errors",
			       json_object_new_int((int)check_findings_count(f, CHECK_ERROR)));
	json_object_object_add(sum, "warnings",
			       json_object_new_int((int)check_findings_count(f, CHECK_WARNING)));
	json_object_object_add(sum, "notes",
			       json_object_new_int((int)check_findings_count(f, CHECK_NOTE)));
	json_object_object_add(o, "summary", sum);
	return o;
}
