// SPDX-License-Identifier: GPL-2.0
/* The checker engine as a library: selection, a run, findings, patterns */
#include <json-c/json.h>
#include <stdlib.h>

#include "checkers/check.h"
#include "checkers/pattern.h"
#include "tests/unit/tap.h"

static const char mail[] =
	"From: Ann Author <ann@example.org>\n"
	"Subject: [PATCH 1/1] mm: pack a prototype\n"
	"Message-ID: <t-check@example.org>\n"
	"Date: Mon, 2 Feb 2026 10:00:00 +0000\n"
	"\n"
	"A patch.\n"
	"\n"
	"Signed-off-by: Ann Author <ann@example.org>\n"
	"---\n"
	"diff --git a/mm/x.c b/mm/x.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/mm/x.c\n"
	"+++ b/mm/x.c\n"
	"@@ -1,2 +1,5 @@\n"
	" int a;\n"
	"+static int helper_with_a_long_name(struct mm_struct *mm,\n"
	"+\t\t\t\t   unsigned long addr,\n"
	"+\t\t\t\t   unsigned long end);\n"
	" int b;\n";

static void test_select(void)
{
	struct check_opts o = CHECK_OPTS_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct checker *cp = check_find("checkpatch");
	const struct checker *ol = check_find("one-line-args");

	ok(cp && ol, "checkers are found by name");
	if (!cp || !ol)
		return;
	ok(check_enabled(&o, cp) && check_enabled(&o, ol), "on by default");
	ok(!check_select(&o, "-checkpatch", &err), "-name");
	ok(!check_enabled(&o, cp) && check_enabled(&o, ol), "-name turns one off");
	ok(!check_select(&o, "-all,one-line-args", &err), "-all,name");
	ok(!check_enabled(&o, cp) && check_enabled(&o, ol), "the later entry wins");
	ok(!check_select(&o, "all no-one-line-args", &err), "all no-name");
	ok(check_enabled(&o, cp) && !check_enabled(&o, ol), "no-name turns one off");
	ok(check_select(&o, "one-line-args,bogus", &err) < 0, "an unknown name fails");
	is_str(err.buf, "unknown checker 'bogus'", "and says which");
	strbuf_release(&err);
	check_opts_release(&o);
}

static void test_run(void)
{
	struct check_series s = CHECK_SERIES_INIT;
	struct check_opts o = CHECK_OPTS_INIT;
	struct findings f = FINDINGS_INIT;
	struct strbuf err = STRBUF_INIT;
	struct check_patch *p = check_patch_from_raw(mail, sizeof(mail) - 1, &err);
	json_object *j;

	if (!ok(p != NULL, "a patch mail is taken apart"))
		return;
	is_int(p->n, 1, "its number");
	is_int((int)p->diff.nr, 1, "its diff");
	check_series_add(&s, p);
	is_int(s.total, 1, "the series: total");
	is_str(s.author_email, "ann@example.org", "the series: author");
	check_select(&o, "-all,one-line-args,signed-off-by", &err);
	o.columns = 80;
	ok(!check_run(&s, &o, &f), "a run");
	is_int((int)f.nr, 1, "one finding");
	if (f.nr == 1) {
		is_str(f.v[0].rule, "one-line-args", "its rule");
		is_int(f.v[0].patch, 1, "its patch");
		is_str(f.v[0].file, "mm/x.c", "its file");
		is_int(f.v[0].line, 2, "its post-image line");
		is_str(f.v[0].suggestion,
		       "static int helper_with_a_long_name(struct mm_struct *mm, unsigned long addr,\n"
		       "\t\t\t\t   unsigned long end);", "the packed form");
	}
	j = findings_to_json(&f, &s);
	is_str(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(json_object_object_get(j, "findings"), 0),
		"severity")), "warning", "JSON: severity");
	json_object_put(j);
	o.columns = 100;
	check_findings_release(&f);
	check_run(&s, &o, &f);
	is_str(f.nr ? f.v[0].suggestion : "",
	       "static int helper_with_a_long_name(struct mm_struct *mm, unsigned long addr, unsigned long end);",
	       "at 100 columns: one line");
	check_findings_release(&f);
	check_series_release(&s);
	check_opts_release(&o);
	strbuf_release(&err);
}

static void add(struct findings *f, int patch, const char *file, int line)
{
	ALLOC_GROW(f->v, f->nr + 1, f->alloc);
	memset(&f->v[f->nr], 0, sizeof(f->v[f->nr]));
	f->v[f->nr].rule = xstrdup("r");
	f->v[f->nr].patch = patch;
	f->v[f->nr].file = xstrdup_or_null(file);
	f->v[f->nr].line = line;
	f->v[f->nr].message = xstrdup("m");
	f->nr++;
}

static void test_sort(void)
{
	struct findings f = FINDINGS_INIT;

	add(&f, 2, "a.c", 8);
	add(&f, 2, NULL, 10);
	add(&f, 1, "a.c", 9);
	add(&f, 2, "a.c", 8);
	check_findings_sort(&f);
	is_int((int)f.nr, 3, "an exact duplicate is dropped");
	ok(f.nr == 3 && f.v[0].patch == 1 && f.v[1].patch == 2 && f.v[2].patch == 2,
	   "sorted by patch");
	ok(f.nr == 3 && !f.v[1].file && f.v[2].file, "the commit message before files");
	check_findings_release(&f);
}

static void test_merge(void)
{
	static const struct {
		const char *rule;
		enum check_severity sev;
		int patch;
		const char *msg;
	} in[] = {
		{ "codespell", CHECK_WARNING, 1, "'occured' may be a typo of 'occurred'" },
		{ "checkpatch:TYPO_SPELLING", CHECK_ERROR, 1,
		  "'occured' may be misspelled - perhaps 'occurred'?" },
		{ "checkpatch:TYPO_SPELLING", CHECK_WARNING, 1,
		  "'recieve' may be misspelled - perhaps 'receive'?" },
		{ "checkpatch:TYPO_SPELLING", CHECK_WARNING, 2,
		  "'occured' may be misspelled - perhaps 'occurred'?" },
		{ "fixes-tag", CHECK_WARNING, 1,
		  "Fixes: commit 0123456789abcdef is not in mm-new (rebased, or not pulled?)" },
		{ "checkpatch:UNKNOWN_COMMIT_ID", CHECK_WARNING, 1,
		  "Unknown commit id '0123456789ab', maybe rebased or not pulled?" },
		{ "checkpatch:UNKNOWN_COMMIT_ID", CHECK_WARNING, 1,
		  "Unknown commit id 'fedcba987654', maybe rebased or not pulled?" },
		{ "checkpatch:MISSING_SIGN_OFF", CHECK_ERROR, 3, "Missing Signed-off-by" },
	};
	struct findings f = FINDINGS_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(in); i++) {
		add(&f, in[i].patch, NULL, 0);
		free(f.v[i].rule);
		free(f.v[i].message);
		f.v[i].rule = xstrdup(in[i].rule);
		f.v[i].message = xstrdup(in[i].msg);
		f.v[i].severity = in[i].sev;
	}
	findings_merge(&f);
	is_int((int)f.nr, 6, "two findings merged into the checkers that say them better");
	ok(f.nr == 6 && !strcmp(f.v[0].rule, "codespell") && f.v[0].severity == CHECK_ERROR,
	   "codespell's finding stays, with checkpatch's worse severity");
	ok(f.nr == 6 && !strcmp(f.v[1].message, "'recieve' may be misspelled - perhaps 'receive'?"),
	   "another word is another problem");
	ok(f.nr == 6 && f.v[2].patch == 2, "so is the same word in another patch");
	ok(f.nr == 6 && !strcmp(f.v[3].rule, "fixes-tag") &&
	   strstr(f.v[4].message, "fedcba987654"), "an id: merged with its Fixes: only");
	ok(f.nr == 6 && !strcmp(f.v[5].rule, "checkpatch:MISSING_SIGN_OFF"),
	   "alone, checkpatch's finding stays");
	check_findings_release(&f);
}

static void test_pattern(void)
{
	static struct pattern p = PATTERN("^Fixes: ([0-9a-f]{12,}) \\(\"(.*)\"\\)$", 0);
	static struct pattern bad = PATTERN("(unclosed", 0);
	struct pattern_match m;
	const char *s = "Fixes: 0123456789ab (\"mm: a subject\")";

	ok(pattern_match(&p, s, strlen(s), &m), "a pattern matches");
	is_int((int)(m.end[2] - m.start[2]), 13, "its groups");
	ok(!pattern_match(&p, "Fixes: 0123", 11, NULL), "and does not match");
	ok(!pattern_match(&bad, s, strlen(s), NULL), "a bad pattern never matches");
	pattern_release_all();
	ok(pattern_match(&p, s, strlen(s), NULL), "compiled again after release");
	pattern_release_all();
}

int main(void)
{
	test_select();
	test_run();
	test_sort();
	test_merge();
	test_pattern();
	return done_testing();
}
