// SPDX-License-Identifier: GPL-2.0
/* Hunk placement as git apply does it, the closest-match report, path checks */
#include "bot/apply/apply.h"
#include "tests/unit/tap.h"

static struct diff d;

/* Parse a one-file diff of "f" whose hunks are given */
static const struct diff_hunk *hunk(const char *hunks, size_t i)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	diff_release(&d);
	strbuf_addf(&sb, "diff --git a/f b/f\nindex 1111111..2222222 100644\n"
		    "--- a/f\n+++ b/f\n%s", hunks);
	if (diff_parse(sb.buf, sb.len, &d, &err) || d.nr != 1 || d.files[0].nr <= i) {
		printf("# cannot parse: %s\n", err.buf);
		exit(1);
	}
	strbuf_release(&sb);
	strbuf_release(&err);
	return &d.files[0].hunks[i];
}

/* Apply every hunk of the diff to text; the result, or NULL on failure */
static char *apply(const char *text, const char *hunks, int min_context,
		   struct hunk_fit *last)
{
	struct image img;
	struct strbuf out = STRBUF_INIT;
	size_t i;

	hunk(hunks, 0);
	apply_image_init(&img, text, strlen(text));
	for (i = 0; i < d.files[0].nr; i++)
		if (apply_image_hunk(&img, &d.files[0].hunks[i], min_context, last)) {
			apply_image_release(&img);
			return NULL;
		}
	apply_image_write(&img, &out);
	apply_image_release(&img);
	return strbuf_detach(&out, NULL);
}

static void test_placement(void)
{
	struct hunk_fit fit;
	char *r;

	r = apply("1\n2\n3\n4\n5\n6\n7\n", "@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5\n", -1, &fit);
	is_str(r, "1\n2\n3\nfour\n5\n6\n7\n", "exact: applied");
	is_int(fit.offset, 0, "exact: offset 0");
	is_int(fit.line, 3, "exact: at line 3");
	free(r);

	r = apply("a\nb\n1\n2\n3\n4\n5\n6\n7\n", "@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5\n", -1, &fit);
	is_str(r, "a\nb\n1\n2\n3\nfour\n5\n6\n7\n", "offset: applied");
	is_int(fit.offset, 2, "offset: +2 lines");
	free(r);

	/* a,b,a at lines 2 and 4, the header says 3: forwards first */
	r = apply("x\na\nb\na\nb\na\n", "@@ -3,3 +3,3 @@\n a\n-b\n+B\n a\n", -1, &fit);
	is_str(r, "x\na\nb\na\nB\na\n", "equal distance: the later place wins, as git");
	is_int(fit.offset, 1, "equal distance: offset +1");
	free(r);

	/* nearest wins over first */
	r = apply("a\nb\na\nz\nz\nz\nz\nz\nz\na\nb\na\n",
		  "@@ -9,3 +9,3 @@\n a\n-b\n+B\n a\n", -1, &fit);
	is_str(r, "a\nb\na\nz\nz\nz\nz\nz\nz\na\nB\na\n", "the nearest match wins");
	is_int(fit.offset, 1, "nearest: offset +1");
	free(r);

	/* no trailing context: must match at the end of the file */
	r = apply("1\n2\n3\n1\n2\n3\n4\n", "@@ -1,3 +1,4 @@\n 1\n 2\n 3\n+new\n", -1, &fit);
	ok(!r, "a hunk without trailing context does not match in the middle");
	free(r);
	r = apply("0\n1\n2\n3\n", "@@ -2,3 +2,4 @@\n 1\n 2\n 3\n+new\n", -1, &fit);
	is_str(r, "0\n1\n2\n3\nnew\n", "... and applies at the end");
	free(r);

	/* starting at line 1: must match at the start */
	r = apply("x\n1\n2\n3\n", "@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n", -1, &fit);
	ok(!r, "a hunk at line 1 must match at the start of the file");
	free(r);

	/* no fuzz unless asked */
	r = apply("1\n2\nTHREE\n4\n5\n6\n7\n", "@@ -2,5 +2,5 @@\n 2\n 3\n-4\n+four\n 5\n 6\n", -1,
		  &fit);
	ok(!r, "a changed context line: no fuzz by default");
	free(r);
	r = apply("1\n2\nTHREE\n4\n5\n6\n7\n", "@@ -2,5 +2,5 @@\n 2\n 3\n-4\n+four\n 5\n 6\n", 0,
		  &fit);
	is_str(r, "1\n2\nTHREE\nfour\n5\n6\n7\n", "-C0: applies with reduced context");
	ok(fit.reduced, "-C0: reported as reduced context");
	free(r);

	/* newline at end of file */
	r = apply("1\n2\n3", "@@ -2,2 +2,2 @@\n 2\n-3\n\\ No newline at end of file\n+three\n",
		  -1, &fit);
	is_str(r, "1\n2\nthree\n", "no newline at end of file: matched and fixed");
	free(r);
	r = apply("1\n2\n3\n", "@@ -2,2 +2,2 @@\n 2\n-3\n\\ No newline at end of file\n+three\n",
		  -1, &fit);
	ok(!r, "a missing newline is part of the match");
	free(r);

	/* two hunks, the second after the first moved lines */
	r = apply("a\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
		  "@@ -1,3 +1,5 @@\n a\n+b\n+c\n 1\n 2\n@@ -10,3 +12,3 @@\n 9\n-10\n+ten\n 11\n",
		  -1, &fit);
	is_str(r, "a\nb\nc\n1\n2\n3\n4\n5\n6\n7\n8\n9\nten\n11\n12\n", "two hunks");
	is_int(fit.offset, 0, "the second hunk is where its new-side start says");
	free(r);
}

static void test_near(void)
{
	const char *text = "int f(void)\n{\n\tint a;\n\n\tfoo(a);\n\tbar(a);\n}\n\nint g(void)\n{\n"
		"\treturn 0;\n}\n";
	const struct diff_hunk *h;
	struct hunk_near near;
	struct image img;
	size_t i, extra = 0;

	/* the tree has "int a;" and an extra blank line the hunk does not */
	h = hunk("@@ -1,5 +1,5 @@\n int f(void)\n {\n-\tfoo(a);\n+\tfoo(b);\n \tbar(a);\n }\n", 0);
	apply_image_init(&img, text, strlen(text));
	apply_hunk_near(&img, h, &near);
	ok(near.found, "near: found");
	is_int(near.matched, near.total, "near: every expected line is there");
	is_int(near.start, 1, "near: from line 1");
	is_int(near.end, 7, "near: to line 7");
	for (i = 0; i < near.nr; i++)
		if (near.lines[i].kind == '+') {
			extra++;
			if (near.lines[i].file_no == 3)
				ok(!strncmp(near.lines[i].text, "\tint a;", 7),
				   "near: the extra line is shown with its number");
		}
	is_int(extra, 2, "near: two lines in the tree only");
	apply_hunk_near_release(&near);

	/* whitespace damage is told apart */
	h = hunk("@@ -9,3 +9,3 @@\n int g(void)\n {\n-    return 0;\n+\treturn 1;\n", 0);
	apply_hunk_near(&img, h, &near);
	ok(near.found && near.loose == 1, "near: one line differs in whitespace only");
	apply_hunk_near_release(&near);

	/* nothing alike */
	h = hunk("@@ -2,2 +2,2 @@\n zzz\n-yyy\n+xxx\n", 0);
	apply_hunk_near(&img, h, &near);
	ok(!near.found, "near: nothing alike");
	ok(near.nr > 0 && near.start == 2, "near: shows the lines where it should be");
	apply_hunk_near_release(&near);
	apply_image_release(&img);
}

static void test_paths(void)
{
	static const struct {
		const char *path;
		bool ok;
	} paths[] = {
		{ "mm/rmap.c", true },
		{ "a/.gitignore", true },
		{ "a/..b", true },
		{ "../x", false },
		{ "a/../../x", false },
		{ "/etc/passwd", false },
		{ ".git/config", false },
		{ "a/.GIT/hooks/x", false },
		{ "a/.git./x", false },
		{ "git~1/config", false },
		{ "a//b", false },
		{ "a/./b", false },
		{ "a/b/", false },
		{ "", false },
		{ "a\tb", false },
	};
	static const struct {
		const char *path, *target;
		bool ok;
	} links[] = {
		{ "a/link", "../b", true },
		{ "a/b/link", "../../c/d", true },
		{ "a/link", "b/../c", true },
		{ "link", "../x", false },
		{ "a/link", "../../x", false },
		{ "a/link", "b/../../../x", false },
		{ "link", "/etc", false },
		{ "link", ".git/config", false },
		{ "link", "", false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++)
		ok(!apply_path_problem(paths[i].path) == paths[i].ok, "path '%s' %s",
		   paths[i].path, paths[i].ok ? "allowed" : "refused");
	for (i = 0; i < ARRAY_SIZE(links); i++)
		ok(!apply_symlink_problem(links[i].path, links[i].target,
					  strlen(links[i].target)) == links[i].ok,
		   "link '%s' -> '%s' %s", links[i].path, links[i].target,
		   links[i].ok ? "allowed" : "refused");
	ok(apply_symlink_problem("l", "a\0b", 3) != NULL, "link with a NUL refused");
}

static void test_headers(void)
{
	static const struct {
		const char *text;
		bool ok;
	} cases[] = {
		{ "diff --git a/mm/x.c b/mm/x.c\n--- a/mm/x.c\n+++ b/mm/x.c\n"
		  "@@ -1,2 +1,2 @@\n a\n--- b\n+++ c\n", true },
		{ "diff --git a//etc/x b//etc/x\n", false },
		{ "diff --git a/x b/x\n--- /etc/passwd\n+++ b/x\n", false },
		{ "diff --git a/x b/x\n--- /dev/null\n+++ b/x\n", true },
		{ "diff --git a/x b/y\nrename from /x\nrename to y\n", false },
		{ "diff --git \"a//x\" \"b//x\"\n", false },
		/* a removed line "-- /etc/passwd" inside a hunk is not a header */
		{ "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,1 @@\n a\n--- /etc/passwd\n", true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf line = STRBUF_INIT;
		const char *why = apply_header_problem(cases[i].text, strlen(cases[i].text),
						       &line);

		ok(!why == cases[i].ok, "headers case %zu %s%s%s", i,
		   cases[i].ok ? "allowed" : "refused", why ? ": " : "", why ? line.buf : "");
		strbuf_release(&line);
	}
}

int main(void)
{
	test_headers();
	test_placement();
	test_near();
	test_paths();
	diff_release(&d);
	return done_testing();
}
