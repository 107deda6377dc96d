// SPDX-License-Identifier: GPL-2.0
/* The C scanner: lexing, preprocessor branches, the statement tree */
#include <stdlib.h>
#include <unistd.h>

#include "bot/git/git.h"
#include "checkers/cscan.h"
#include "tests/unit/tap.h"

static void view(struct cview *v, const char *src)
{
	cview_from_text(v, xstrdup(src), strlen(src), NULL);
}

static int count_kind(const struct cview *v, enum cnode_kind k)
{
	int i, n = 0;

	for (i = 0; i < v->nr_nodes; i++)
		n += v->nodes[i].kind == k;
	return n;
}

static int find_func(const struct cview *v, const char *name, int from)
{
	int i;

	for (i = from; i < v->nr_nodes; i++)
		if (v->nodes[i].kind == CN_FUNC &&
		    cview_node_func_is(v, i, name, (int)strlen(name)))
			return i;
	return -1;
}

static bool has_tok(const struct cview *v, const char *s)
{
	return cview_find(v, 0, v->nr_toks - 1, s) >= 0;
}

static void test_lexer(void)
{
	struct cview v;

	view(&v, "int a; /* foo(bar) */ int b; // baz(qux)\n"
		 "/* multi\n   line(x) */ char *s = \"str(ing) /* no */\";\n"
		 "char c = '\\'';\n");
	ok(!has_tok(&v, "foo") && !has_tok(&v, "bar"), "block comments are dropped");
	ok(!has_tok(&v, "baz"), "line comments are dropped");
	ok(!has_tok(&v, "line") && !has_tok(&v, "x"), "comments spanning lines are dropped");
	ok(has_tok(&v, "\"str(ing) /* no */\""), "a string is one token");
	ok(has_tok(&v, "'\\''"), "a character literal with an escape is one token");
	is_int(v.nr_nodes, 4, "four declarations at file scope");
	cview_release(&v);

	view(&v, "#define lazy_clean(f, p) \\\n\t(folio_test_lazyfree(f) && \\\n\t !pte_dirty(p))\n"
		 "#include <linux/mm.h>\nint x;\n");
	is_int(v.nr_macros, 1, "one macro");
	if (v.nr_macros == 1) {
		struct strbuf sb = STRBUF_INIT;
		const struct cmacro *m = &v.macros[0];

		ok(ctok_is(&v.pptoks[m->name], "lazy_clean"), "its name");
		cview_pptext(&v, m->first, m->last, &sb);
		is_str(sb.buf, "(folio_test_lazyfree(f) && !pte_dirty(p))",
		       "its body, over continuation lines");
		strbuf_release(&sb);
	}
	ok(!has_tok(&v, "folio_test_lazyfree"), "macro bodies are not code tokens");
	is_int(v.nr_toks, 3, "only 'int x;' is code");
	cview_release(&v);
}

static void test_ifdef(void)
{
	struct cview v;
	int f;

	/* both branches open a brace; the #if's state is restored at #else */
	view(&v, "int f(int x)\n{\n#ifdef A\n\tif (x) {\n#else\n\tif (!x) {\n#endif\n"
		 "\t\tg();\n\t}\n\treturn 0;\n}\n\nint h(void)\n{\n\treturn 1;\n}\n");
	f = find_func(&v, "f", 0);
	ok(f >= 0, "f() is found across #ifdef branches");
	ok(find_func(&v, "h", 0) > f, "h() after it is found too");
	is_int(count_kind(&v, CN_RETURN), 2, "both returns are statements");
	cview_release(&v);
}

static void test_parser(void)
{
	struct cview v;
	struct strbuf sb = STRBUF_INIT;
	int f, i, loops = 0, gotos = 0, labels = 0, breaks = 0;

	view(&v, "static int scan(struct mm_struct *mm, unsigned int *progress)\n{\n"
		 "\tint i;\n\n"
		 "\tlist_for_each_entry(x, &head, list) {\n"
		 "\t\tif (a)\n\t\t\tbreak;\n\t\telse if (b)\n\t\t\tgoto out;\n\t\telse\n\t\t\tcontinue;\n\t}\n"
		 "\tfor (i = 0; i < 8; i++)\n\t\tswitch (i) {\n\t\tcase 1:\n\t\t\tbreak;\n\t\tdefault:\n\t\t\tbreak;\n\t\t}\n"
		 "\tdo {\n\t\ti--;\n\t} while (i);\n"
		 "out:\n\t*progress = 1;\n\treturn 0;\n}\n");
	f = find_func(&v, "scan", 0);
	ok(f >= 0, "a definition is a function");
	if (f < 0)
		return;
	cview_text(&v, v.nodes[f].cond_open, v.nodes[f].cond_close, &sb);
	is_str(sb.buf, "(struct mm_struct *mm, unsigned int *progress)", "its parameters");
	for (i = 0; i < v.nr_nodes; i++) {
		loops += v.nodes[i].kind == CN_LOOPMACRO || v.nodes[i].kind == CN_FOR ||
			 v.nodes[i].kind == CN_DO;
		gotos += v.nodes[i].kind == CN_GOTO;
		labels += v.nodes[i].kind == CN_LABEL;
		breaks += v.nodes[i].kind == CN_BREAK;
		if (v.nodes[i].kind != CN_FUNC)
			ok(v.nodes[i].func == f, "node %d is in scan()", i);
	}
	is_int(loops, 3, "for_each macro, for and do are loops");
	is_int(gotos, 1, "one goto");
	is_int(labels, 1, "one label");
	is_int(breaks, 3, "three breaks");
	is_int(count_kind(&v, CN_CASE), 2, "case and default");
	is_int(count_kind(&v, CN_IF), 2, "if and else if");
	for (i = 0; i < v.nr_nodes; i++)
		if (v.nodes[i].kind == CN_GOTO)
			ok(ctok_is(&v.toks[v.nodes[i].name], "out"), "the goto names its label");
	strbuf_release(&sb);
	cview_release(&v);
}

static void test_split(void)
{
	struct cview v;
	struct cterm t[8];
	struct strbuf sb = STRBUF_INIT;
	int n;

	view(&v, "x = (a && (b || c) && !d(e) && !(f & G));\n");
	n = cview_split(&v, 3, v.nr_toks - 3, "&&", t, 8);
	is_int(n, 4, "four terms at the top level");
	if (n == 4) {
		cview_text(&v, t[1].first, t[1].last, &sb);
		is_str(sb.buf, "b || c", "parentheses around a term are removed");
		ok(!t[1].neg && t[2].neg && t[3].neg, "negations are noted");
		strbuf_reset(&sb);
		cview_text(&v, t[3].first, t[3].last, &sb);
		is_str(sb.buf, "(f & G)", "a negated group keeps its parentheses");
	}
	strbuf_release(&sb);
	cview_release(&v);
}

static void test_split_negated_first(void)
{
	struct cview v;
	struct cterm t[8];
	struct strbuf sb = STRBUF_INIT;
	int n;

	/* "!a || b" is two terms, the first negated: not one negated group */
	view(&v, "x = (!folio_test_anon(f) || folio_test_swapbacked(f));\n");
	n = cview_split(&v, 2, v.nr_toks - 2, "||", t, 8);
	is_int(n, 2, "'!a || b' splits into two terms");
	if (n == 2) {
		cview_text(&v, t[0].first, t[0].last, &sb);
		is_str(sb.buf, "folio_test_anon(f)", "the first term without its '!'");
		ok(t[0].neg && !t[1].neg, "only the first is negated");
	}
	cview_release(&v);
	view(&v, "x = !(a && b);\n");
	n = cview_split(&v, 2, v.nr_toks - 2, "&&", t, 8);
	ok(n == 1 && t[0].neg, "'!(a && b)' stays one negated term");
	strbuf_release(&sb);
	cview_release(&v);
}

struct facts {
	char text[256];
};

static void collect_fact(const struct cview *v, const struct cterm *t, bool holds,
			 void *data)
{
	struct facts *f = data;
	struct strbuf sb = STRBUF_INIT;

	cview_text(v, t->first, t->last, &sb);
	snprintf(f->text + strlen(f->text), sizeof(f->text) - strlen(f->text),
		 "%s%s;", holds ? "" : "!", sb.buf);
	strbuf_release(&sb);
}

static void test_guards(void)
{
	struct facts f = { "" };
	struct cview v;
	int i, n = -1;

	view(&v, "int f(struct folio *folio)\n{\n"
		 "\tVM_WARN_ON_FOLIO(folio_test_swapbacked(folio), folio);\n"
		 "\tif (!folio_test_anon(folio) || x)\n\t\treturn 0;\n"
		 "\tif (y && z) {\n\t\tif (w)\n\t\t\tfoo();\n"
		 "\t\telse\n\t\t\tbar();\n\t}\n\treturn 1;\n}\n");
	for (i = 0; i < v.nr_nodes; i++)
		if (v.nodes[i].kind == CN_EXPR && cv_is(&v, v.nodes[i].first, "bar"))
			n = i;
	ok(n >= 0, "the else branch is found");
	if (n >= 0)
		cview_guards(&v, n, collect_fact, &f);
	is_str(f.text, "!w;y;z;!folio_test_swapbacked(folio);folio_test_anon(folio);!x;",
	       "else, then-branch conjuncts, an assertion, an early exit's disjuncts");
	cview_release(&v);
}

static void test_hunks(void)
{
	static const char patch[] =
		"diff --git a/mm/x.c b/mm/x.c\n"
		"index 1111111..2222222 100644\n"
		"--- a/mm/x.c\n"
		"+++ b/mm/x.c\n"
		"@@ -10,6 +10,7 @@ static int scan_file(struct mm_struct *mm, unsigned\n"
		" \t\t * the end of a comment above the hunk\n"
		" \t\t */\n"
		" \t\tcond_resched();\n"
		" \t}\n"
		"+\t*progress = NR;\n"
		" \trcu_read_unlock();\n"
		" \treturn 0;\n";
	struct diff d;
	struct strbuf err = STRBUF_INIT;
	struct cview v;
	int f;

	if (!ok(!diff_parse(patch, sizeof(patch) - 1, &d, &err), "the patch parses"))
		return;
	cview_from_hunks(&v, &d.files[0]);
	is_int(v.nr_segs, 1, "one segment per hunk");
	ok(!has_tok(&v, "comment"), "a hunk that starts inside a comment");
	f = find_func(&v, "scan_file", 0);
	ok(f >= 0, "the hunk header names the function the hunk is in");
	is_int(v.lines[4].no, 14, "post-image line numbers");
	ok(v.lines[4].added && !v.lines[3].added, "added lines are marked");
	cview_release(&v);
	diff_release(&d);
	strbuf_release(&err);
}

/* Bad input never crashes the scanner */
static void test_garbage(void)
{
	static const char alphabet[] = "{}()[];,#\n\"'/*\\ abif_x0+-&|!=<>:";
	unsigned int seed = 12345;
	struct cview v;
	char *s;
	int i, k;

	for (i = 0; i < 300; i++) {
		int len = 1 + i * 7 % 2000;

		s = xmalloc(len + 1);
		for (k = 0; k < len; k++) {
			seed = seed * 1103515245 + 12345;
			s[k] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		s[len] = '\0';
		cview_from_text(&v, s, len, NULL);
		cview_release(&v);
	}
	ok(1, "300 random inputs scanned");

	s = xmalloc(200001);
	for (k = 0; k < 100000; k++)
		s[k] = '{';
	for (; k < 200000; k++)
		s[k] = '}';
	s[k] = '\0';
	memcpy(s, "int f()", 7);
	cview_from_text(&v, s, 200000, NULL);
	ok(v.nr_nodes > 0, "100000 nested braces do not overflow the stack");
	cview_release(&v);
}

/* A real file of the cached tree, when there is one */
static void test_kernel_file(void)
{
	const char *cache = getenv("LOREBOT_CACHE");
	char *repo = xasprintf("%s/mm.git", cache ? cache : "/var/cache/lorebot");
	struct strbuf sb = STRBUF_INIT;
	struct cview v;
	int f, n = 0, i;

	if (access(repo, R_OK) ||
	    git_read_file_at(repo, "mm-new", "mm/khugepaged.c", &sb)) {
		ok(1, "# SKIP no cached mm tree at %s", repo);
		free(repo);
		strbuf_release(&sb);
		return;
	}
	free(repo);
	view(&v, sb.buf);
	f = find_func(&v, "hpage_collapse_scan_file", 0);
	ok(f >= 0, "khugepaged.c: hpage_collapse_scan_file()");
	ok(f >= 0 && find_func(&v, "hpage_collapse_scan_file", f + 1) > f,
	   "khugepaged.c: and its !CONFIG_SHMEM stub");
	ok(find_func(&v, "madvise_collapse", 0) >= 0, "khugepaged.c: madvise_collapse()");
	for (i = 0; i < v.nr_nodes; i++)
		n += v.nodes[i].kind == CN_FUNC;
	ok(n > 60, "khugepaged.c: %d functions", n);
	f = find_func(&v, "hpage_collapse_scan_file", 0);
	if (f >= 0) {
		int loop = -1;

		for (i = f; i < v.nr_nodes && v.nodes[i].func == f; i++)
			if (v.nodes[i].kind == CN_LOOPMACRO)
				loop = i;
		ok(loop >= 0 && ctok_is(&v.toks[v.nodes[loop].first], "xas_for_each"),
		   "khugepaged.c: xas_for_each() is its loop");
	}
	cview_release(&v);
	strbuf_release(&sb);
}

int main(void)
{
	test_lexer();
	test_ifdef();
	test_parser();
	test_split();
	test_split_negated_first();
	test_guards();
	test_hunks();
	test_garbage();
	test_kernel_file();
	return done_testing();
}
