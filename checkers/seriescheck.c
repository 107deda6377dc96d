// SPDX-License-Identifier: GPL-2.0
/*
 * Checks of the mails rather than the code: the author's Signed-off-by,
 * Fixes: tags, subject lines, numbering, the cover letter, base-commit.
 * Lines of a commit message count from its subject (line 1), as in the
 * commit; the cover letter's from its first body line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/pattern.h"
#include "checkers/rules.h"

/*
 * The line of the commit message (subject = 1) that starts with prefix
 * and holds value (when given)
 */
static int msg_line(const struct check_patch *p, const char *prefix,
		    const char *value)
{
	const char *m = p->p.message ? p->p.message : "";
	int no = p->n ? 3 : 1;	/* subject, blank line */

	while (*m) {
		const char *e = strchrnul(m, '\n');

		if (!strncasecmp(m, prefix, strlen(prefix)) &&
		    (!value || memmem(m, e - m, value, strlen(value))))
			return no;
		m = strchrnul(m, '\n');
		if (*m)
			m++;
		no++;
	}
	return 0;
}

static bool same_person(const char *value, const char *name, const char *email)
{
	char *n = NULL, *a = NULL;
	bool same;

	patch_split_name_addr(value, &n, &a);
	same = (a && email && !strcasecmp(a, email)) ||
	       (n && name && *name && !strcasecmp(n, name));
	free(n);
	free(a);
	return same;
}

/*
 * "'Marco Elver' via kasan-dev" <kasan-dev@googlegroups.com>: a list that
 * rewrites From: for DMARC keeps only the name, the name is the author
 * (a false alarm on every kasan-dev patch of the corpus, bench/corpus/)
 */
static char *unmunged_name(const char *name)
{
	const char *via = name ? strstr(name, " via ") : NULL;
	char *n;
	size_t len;

	if (!via || via == name)
		return NULL;
	len = via - name;
	if (len > 2 && (name[0] == '\'' || name[0] == '"') && name[len - 1] == name[0]) {
		name++;
		len -= 2;
	}
	n = xstrndup(name, len);
	return n;
}

static void signoff_run(struct check_ctx *c)
{
	const struct check_patch *p = c->patch;
	const struct trailers *t = &p->p.trailers;
	char *real = unmunged_name(p->p.author_name);
	size_t i, sobs = 0;

	if (!p->p.author_email)
		goto out;
	for (i = 0; i < t->nr; i++) {
		if (strcasecmp(t->t[i].name, "Signed-off-by"))
			continue;
		sobs++;
		if (same_person(t->t[i].value, p->p.author_name, p->p.author_email) ||
		    (real && same_person(t->t[i].value, real, NULL)))
			goto out;
	}
	if (!sobs)
		check_report(c, NULL, CHECK_ERROR, NULL, 0,
			     "no Signed-off-by: the author %s <%s> must certify the "
			     "patch (Documentation/process/submitting-patches.rst)",
			     p->p.author_name ? p->p.author_name : "",
			     p->p.author_email);
	else
		check_report(c, NULL, CHECK_ERROR, NULL, 0,
			     "no Signed-off-by from the author %s <%s>; add it, or make "
			     "the in-body From: name who wrote the patch",
			     p->p.author_name ? p->p.author_name : "",
			     p->p.author_email);
out:
	free(real);
}

static struct pattern fixes_re =
	PATTERN("^([0-9a-fA-F]+)(?:\\s+\\(\"(.*)\"\\))?\\s*(.*)$", 0);

static void fixes_run(struct check_ctx *c)
{
	const struct check_patch *p = c->patch;
	const struct trailers *t = &p->p.trailers;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		const char *v = t->t[i].value;
		struct pattern_match m;
		int line = msg_line(p, "Fixes:", v);
		size_t hex;
		char *id;

		if (strcasecmp(t->t[i].name, "Fixes"))
			continue;
		if (!pattern_match(&fixes_re, v, strlen(v), &m)) {
			check_report(c, NULL, CHECK_WARNING, NULL, line,
				     "'Fixes: %s' is not 'Fixes: <12+ hex digits> (\"subject\")'",
				     v);
			continue;
		}
		hex = m.end[1] - m.start[1];
		if (hex < 12 || hex > 40 || !pattern_group(&m, 2) ||
		    m.end[3] > m.start[3]) {
			check_report(c, NULL, CHECK_WARNING, NULL, line,
				     "'Fixes: %s' is not 'Fixes: <12+ hex digits> (\"subject\")'%s",
				     v, hex < 12 ? ": the id is too short" :
				     !pattern_group(&m, 2) ? ": the quoted subject is missing" : "");
			if (hex < 7)
				continue;
		}
		if (!c->s->tree || !c->s->tree->commit)
			continue;
		id = xstrndup(v + m.start[1], hex);
		{
			struct strbuf subj = STRBUF_INIT;
			int r = c->s->tree->commit(c->s->tree, id, &subj);

			if (r == -ENOENT && c->o->stale_tree)
				c->ids_unchecked++;
			else if (r == -ENOENT)
				check_report(c, NULL, CHECK_WARNING, NULL, line,
					     "Fixes: commit %s is not in %s (rebased, or not "
					     "pulled?)", id, c->s->tree->name);
			else if (!r && pattern_group(&m, 2) &&
				 (m.end[2] - m.start[2] != subj.len ||
				  memcmp(v + m.start[2], subj.buf, subj.len)))
				check_report(c, NULL, CHECK_WARNING, NULL, line,
					     "Fixes: commit %s is \"%s\", not \"%.*s\"",
					     id, subj.buf, (int)(m.end[2] - m.start[2]),
					     v + m.start[2]);
			strbuf_release(&subj);
		}
		free(id);
	}
}

/*
 * "mm: khugepaged: ...", "mm/mglru: ...", "mm, swap: ...", and as merged
 * patches of the corpus have them: "memory tiering: ...", "func(): ..."
 */
static struct pattern prefix_re =
	PATTERN("^[A-Za-z0-9_.*/+-]+(?:\\(\\))?(?: [A-Za-z0-9_.*/+-]+)?"
		"(?:,\\s*[A-Za-z0-9_.*/+-]+)*:\\s+\\S", 0);

static void subject_run(struct check_ctx *c)
{
	const struct check_patch *p = c->patch;
	const char *title = p->subj.title ? p->subj.title : "";
	size_t len = strlen(title);

	if (!p->subj.patch)
		check_report(c, NULL, CHECK_WARNING, NULL, 1,
			     "subject '%s' has no [PATCH] tag", p->subject);
	if (!len) {
		check_report(c, NULL, CHECK_ERROR, NULL, 1, "the subject is empty");
		return;
	}
	/* git revert's own form: Revert "mm: ..." */
	if (!strncmp(title, "Revert \"", 8))
		return;
	if (!pattern_match(&prefix_re, title, len, NULL))
		check_report(c, NULL, CHECK_WARNING, NULL, 1,
			     "subject '%s' does not start with the subsystem "
			     "(\"mm: ...\", \"mm/khugepaged: ...\")", title);
	if (title[len - 1] == '.')
		check_report(c, NULL, CHECK_WARNING, NULL, 1,
			     "subject '%s' ends with a full stop", title);
}

static void numbering_run(struct check_ctx *c)
{
	const struct check_series *s = c->s;
	size_t i;
	int n;

	for (i = 0; i < s->nr; i++) {
		const struct check_patch *p = s->patches[i];

		c->patch = s->patches[i];
		if (p->subj.counted && p->subj.total != s->total)
			check_report(c, NULL, CHECK_ERROR, NULL, 1,
				     "numbered %d/%d in a series of %d", p->n,
				     p->subj.total, s->total);
		else if (p->n > s->total)
			check_report(c, NULL, CHECK_ERROR, NULL, 1,
				     "numbered %d in a series of %d", p->n, s->total);
		if (p->subj.version != s->version)
			check_report(c, NULL, CHECK_WARNING, NULL, 1,
				     "version %d in a series of version %d",
				     p->subj.version, s->version);
		if (i && s->patches[i - 1]->n == p->n)
			check_report(c, NULL, CHECK_ERROR, NULL, 1,
				     "patch %d/%d appears twice", p->n, s->total);
	}
	c->patch = NULL;
	for (n = 1; n <= s->total && n <= 1000; n++) {
		for (i = 0; i < s->nr; i++)
			if (s->patches[i]->n == n)
				break;
		if (i == s->nr)
			check_report(c, NULL, CHECK_ERROR, NULL, 0,
				     "patch %d/%d is missing from the series", n, s->total);
	}
}

/* What b4 prep and git format-patch --cover-letter leave to be replaced */
static const char *const cover_placeholders[] = {
	"EDITME", "*** SUBJECT HERE ***", "*** BLURB HERE ***",
};

static const char *placeholder(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cover_placeholders); i++)
		if (memmem(text, len, cover_placeholders[i],
			   strlen(cover_placeholders[i])))
			return cover_placeholders[i];
	return NULL;
}

/* A cover letter sent as its template: one finding for the subject, one for the body */
static void cover_template(struct check_ctx *c, const struct check_patch *cv)
{
	const char *subj = cv->subject ? cv->subject : "";
	const char *m = cv->p.message ? cv->p.message : "", *what, *first = NULL;
	int no = 1, first_no = 0, more = 0;
	struct finding *f;

	what = placeholder(subj, strlen(subj));
	if (what) {
		f = check_report(c, NULL, CHECK_ERROR, NULL, 0,
				 "the cover letter's subject is the template's "
				 "('%s'): give the series a title", what);
		f->quote = xstrdup(subj);
	}
	while (*m) {
		const char *e = strchrnul(m, '\n');

		if (placeholder(m, e - m)) {
			if (!first) {
				first = m;
				first_no = no;
				what = placeholder(m, e - m);
				f = check_report(c, NULL, CHECK_ERROR, NULL, no,
						 "the cover letter still has the "
						 "template's '%s' text", what);
				f->quote = xstrndup(m, e - m);
			} else {
				more++;
			}
		}
		m = *e ? e + 1 : e;
		no++;
	}
	if (more)
		check_report(c, NULL, CHECK_NOTE, NULL, first_no,
			     "%d more line%s of the cover letter after line %d "
			     "are the template's", more, more == 1 ? "" : "s",
			     first_no);
}

static void cover_run(struct check_ctx *c)
{
	if (c->s->total >= 3 && !c->s->cover)
		check_report(c, NULL, CHECK_WARNING, NULL, 0,
			     "a series of %d patches has no cover letter (0/%d) "
			     "saying what it does as a whole", c->s->total, c->s->total);
	if (c->s->cover)
		cover_template(c, c->s->cover);
}

static void base_run(struct check_ctx *c)
{
	struct check_series *s = c->s;

	if (!s->base_commit) {
		struct finding *f;

		f = check_report(c, NULL, CHECK_NOTE, NULL, 0,
				 "no base-commit: the series does not say what it "
				 "applies to");
		f->suggestion = xstrdup("git format-patch --base=<upstream commit> "
					"(or --base=auto with an upstream branch)");
		return;
	}
	if (s->tree && s->base_rev && strncmp(s->base_rev, s->base_commit,
					      strlen(s->base_commit)))
		check_report(c, NULL, CHECK_NOTE, NULL, 0,
			     "base-commit %s is not in %s; applied to %s instead",
			     s->base_commit, s->tree->name, s->base_rev);
}

const struct checker seriescheck_signoff = {
	.name = "signed-off-by",
	.summary = "the author signs off every patch",
	.scope = CHECK_SCOPE_PATCH,
	.severity = CHECK_ERROR,
	.on = true,
	.run = signoff_run,
};

const struct checker seriescheck_fixes = {
	.name = "fixes-tag",
	.summary = "Fixes: tags name an existing commit as 12+ hex and its subject",
	.scope = CHECK_SCOPE_PATCH,
	.severity = CHECK_WARNING,
	.on = true,
	.run = fixes_run,
};

const struct checker seriescheck_subject = {
	.name = "subject",
	.summary = "subject lines are \"[PATCH ...] subsystem: summary\"",
	.scope = CHECK_SCOPE_PATCH,
	.severity = CHECK_WARNING,
	.on = true,
	.run = subject_run,
};

const struct checker seriescheck_numbering = {
	.name = "numbering",
	.summary = "patches are numbered 1/N..N/N without gaps",
	.scope = CHECK_SCOPE_SERIES,
	.severity = CHECK_ERROR,
	.on = true,
	.run = numbering_run,
};

const struct checker seriescheck_cover = {
	.name = "cover-letter",
	.summary = "a series of 3 or more patches has a cover letter, not its template",
	.scope = CHECK_SCOPE_SERIES,
	.severity = CHECK_WARNING,
	.on = true,
	.run = cover_run,
};

const struct checker seriescheck_base = {
	.name = "base-commit",
	.summary = "the series says what it applies to (git format-patch --base)",
	.scope = CHECK_SCOPE_SERIES,
	.severity = CHECK_NOTE,
	.on = true,
	.run = base_run,
};
