// SPDX-License-Identifier: GPL-2.0
/*
 * ci/cover*.c: the lines of a C file and its conditional groups, #if
 * expressions against a .config, and the evidence of a real "gcc -E
 * -dD" of the file: what was compiled, and what blocks the rest.
 */
#include <stdlib.h>
#include <unistd.h>

#include "lib/run.h"
#include "lib/util.h"
#include "ci/cover.h"
#include "tests/unit/tap.h"

static const char src[] =
	"// SPDX-License-Identifier: GPL-2.0\n"		/* 1 */
	"#include \"x.h\"\n"				/* 2 */
	"\n"						/* 3 */
	"/* a comment\n"				/* 4 */
	"   #ifdef NOT_A_DIRECTIVE */\n"			/* 5 */
	"int a;\n"					/* 6 */
	"#ifdef CONFIG_A\n"				/* 7 */
	"int b = FOO(1,\n"				/* 8 */
	"	    2);\n"				/* 9 */
	"#else\n"					/* 10 */
	"int c;\n"					/* 11 */
	"#endif\n"					/* 12 */
	"#if defined(CONFIG_B) && \\\n"			/* 13 */
	"    IS_ENABLED(CONFIG_C)\n"			/* 14 */
	"char *s = \"/* not a comment\";\n"		/* 15 */
	"#elif 0\n"					/* 16 */
	"int d;\n"					/* 17 */
	"#endif\n"					/* 18 */
	"#ifndef CONFIG_A\n"				/* 19 */
	"#define E 1\n"					/* 20 */
	"#endif\n"					/* 21 */
	"void f(void)\n"				/* 22 */
	"{\n"						/* 23 */
	"	if (IS_ENABLED(CONFIG_B))\n"		/* 24 */
	"		g();\n"				/* 25 */
	"}\n";						/* 26 */

static void test_scan(void)
{
	struct cover_src s;
	static const unsigned char kinds[] = {
		0, COVER_BLANK, COVER_DIRECTIVE, COVER_BLANK, COVER_BLANK, COVER_BLANK,
		COVER_CODE, COVER_COND, COVER_CODE, COVER_CODE, COVER_COND, COVER_CODE,
		COVER_COND, COVER_COND, COVER_COND, COVER_CODE, COVER_COND, COVER_CODE,
		COVER_COND, COVER_COND, COVER_DIRECTIVE, COVER_COND, COVER_CODE,
		COVER_CODE, COVER_CODE, COVER_CODE, COVER_CODE,
	};
	int i, g;

	cover_src_scan(&s, src, strlen(src));
	is_int(s.nr, 26, "26 lines");
	for (i = 1; i <= 26; i++)
		is_int(s.kind[i], kinds[i], "line %d kind", i);
	is_int(s.group[6], 0, "line 6 in the file's group");
	g = s.group[8];
	ok(g > 0 && s.group[9] == g, "lines 8 and 9 in one group");
	is_str(s.g[g].cond, "defined(CONFIG_A)", "its condition");
	is_str(s.g[g].directive, "#ifdef CONFIG_A", "its directive");
	is_int(s.g[g].first, 8, "from line 8");
	is_int(s.g[g].last, 9, "to line 9");
	is_str(s.g[s.group[11]].cond, "!defined(CONFIG_A) && 1", "#else: the negation");
	is_str(s.g[s.group[11]].directive, "#else (after #ifdef CONFIG_A)", "#else named after its #if");
	is_str(s.g[s.group[15]].cond, "(defined(CONFIG_B) && IS_ENABLED(CONFIG_C))",
	       "a continued #if is one condition");
	is_str(s.g[s.group[17]].cond,
	       "!(defined(CONFIG_B) && IS_ENABLED(CONFIG_C)) && (0)", "#elif");
	is_int(s.group[7], 0, "#ifdef line belongs to the group around it");
	is_int(s.group[25], 0, "code under if (IS_ENABLED()) is in the file's group");
	cover_src_release(&s);

	/* unbalanced: a stray #endif, an unterminated #if */
	cover_src_scan(&s, "#endif\nint a;\n#if X\nint b;\n", 25);
	is_int(s.group[2], 0, "stray #endif ignored");
	ok(s.group[4] > 0 && s.g[s.group[4]].last == 4, "unterminated #if ends with the file");
	cover_src_release(&s);
}

static void test_expr(void)
{
	struct kconf c = KCONF_INIT;
	struct cover_needs n = { 0 };
	static const char cfg[] = "CONFIG_A=y\nCONFIG_M=m\nCONFIG_N=64\n"
		"# CONFIG_B is not set\nCONFIG_S=\"x\"\n";

	kconf_parse(&c, cfg, strlen(cfg));
	is_int(cover_expr_eval("defined(CONFIG_A)", &c), COVER_TRUE, "defined y");
	is_int(cover_expr_eval("defined CONFIG_B", &c), COVER_FALSE, "defined not set");
	is_int(cover_expr_eval("defined(CONFIG_M)", &c), COVER_FALSE, "m: CONFIG_M undefined");
	is_int(cover_expr_eval("defined(CONFIG_M_MODULE)", &c), COVER_TRUE, "m: _MODULE defined");
	is_int(cover_expr_eval("IS_ENABLED(CONFIG_M)", &c), COVER_TRUE, "IS_ENABLED m");
	is_int(cover_expr_eval("IS_BUILTIN(CONFIG_M)", &c), COVER_FALSE, "IS_BUILTIN m");
	is_int(cover_expr_eval("CONFIG_N > 32 && CONFIG_N <= 0x40", &c), COVER_TRUE, "numbers");
	is_int(cover_expr_eval("FOO", &c), COVER_UNKNOWN, "unknown name");
	is_int(cover_expr_eval("FOO && 0", &c), COVER_FALSE, "unknown && 0");
	is_int(cover_expr_eval("FOO || defined(CONFIG_A)", &c), COVER_TRUE, "unknown || 1");
	is_int(cover_expr_eval("defined(__KERNEL__) && !defined(MODULE)", &c), COVER_TRUE,
	       "built-in kernel code");
	is_int(cover_expr_eval("(1 ? 2 : 0) == 2", &c), COVER_TRUE, "?:");
	is_int(cover_expr_eval("((", &c), COVER_UNKNOWN, "garbage is unknown");
	is_int(cover_expr_eval("1 << 3 == 8 && 5 % 3 == 2 && -1 < 0 && (3 & 1) && !(2 < 1)", &c),
	       COVER_TRUE, "arithmetic");

	cover_expr_needs("defined(CONFIG_B) && IS_ENABLED(CONFIG_C)", &c, &n);
	is_int(n.on_nr, 2, "two to enable");
	is_str(n.on_nr ? n.on[0] : NULL, "CONFIG_B", "B");
	ok(!n.fixed && !n.off_nr, "nothing fixed, nothing to disable");
	cover_needs_release(&n);
	cover_expr_needs("!defined(CONFIG_A) && 1", &c, &n);
	is_int(n.off_nr, 1, "#else of A: A off");
	cover_needs_release(&n);
	cover_expr_needs("defined(CONFIG_X) || !defined(CONFIG_A)", &c, &n);
	ok(n.on_nr == 1 && !n.off_nr, "of two ways, enabling one is cheaper");
	cover_needs_release(&n);
	cover_expr_needs("CONFIG_N > 128", &c, &n);
	is_str(n.fixed, "CONFIG_N > 128", "a number: fixed");
	cover_needs_release(&n);
	cover_expr_needs("0", &c, &n);
	is_str(n.fixed, "0", "#if 0: fixed");
	cover_needs_release(&n);
	cover_expr_needs("IS_MODULE(CONFIG_A)", &c, &n);
	ok(n.fixed != NULL, "IS_MODULE: not for a built-in build");
	cover_needs_release(&n);
	kconf_release(&c);
}

/* x.h: IS_ENABLED() as include/linux/kconfig.h has it */
static const char hdr_text[] =
	"#define FOO(a, b) ((a) + (b))\n"
	"#define __ARG_PLACEHOLDER_1 0,\n"
	"#define __take_second_arg(__ignored, val, ...) val\n"
	"#define __is_defined(x) ___is_defined(x)\n"
	"#define ___is_defined(val) ____is_defined(__ARG_PLACEHOLDER_##val)\n"
	"#define ____is_defined(arg1_or_junk) __take_second_arg(arg1_or_junk 1, 0)\n"
	"#define IS_ENABLED(option) __is_defined(option)\n";

/* gcc -E -dD of src with some -D options: the real evidence */
static int preprocess(const char *dir, const char *defs, struct strbuf *out)
{
	char *file = xasprintf("%s/t.c", dir), *hdr = xasprintf("%s/x.h", dir);
	char *cmd = xasprintf("gcc -E -dD %s -o - %s", defs, file);
	const char *argv[] = { "sh", "-c", cmd, NULL };
	struct run_cmd rc = RUN_CMD_INIT;
	int ret;

	util_write_file(file, src, strlen(src));
	util_write_file(hdr, hdr_text, strlen(hdr_text));
	rc.argv = argv;
	rc.cwd = dir;
	rc.limits.max_output = 16 << 20;
	ret = run_cmd(&rc) || rc.status ? -1 : 0;
	if (ret)
		printf("# %s: %d %s%s\n", cmd, rc.status, rc.out.buf, rc.err.buf);
	strbuf_addbuf(out, &rc.out);
	run_cmd_release(&rc);
	free(cmd);
	free(file);
	free(hdr);
	return ret;
}

static void test_evidence(const char *dir)
{
	struct strbuf i = STRBUF_INIT;
	struct cover_file f, *files[1] = { &f };
	struct kconf c = KCONF_INIT;
	struct cover_needs n = { 0 };
	int b;

	if (preprocess(dir, "-DCONFIG_A=1", &i)) {
		ok(0, "gcc -E ran");
		return;
	}
	cover_file_init(&f, "t.c", src, strlen(src));
	is_int(cover_i_parse(i.buf, i.len, dir, files, 1), 1, "the unit read t.c");
	ok(f.entered, "t.c entered");
	ok(cover_file_compiled(&f, 6), "line 6 compiled");
	ok(cover_file_compiled(&f, 8) && cover_file_compiled(&f, 9),
	   "both lines of a macro call spanning two lines");
	ok(!cover_file_compiled(&f, 11), "#else of CONFIG_A not compiled");
	ok(!cover_file_compiled(&f, 15), "CONFIG_B && CONFIG_C not compiled");
	ok(!cover_file_compiled(&f, 20), "#ifndef CONFIG_A not compiled");
	ok(cover_file_compiled(&f, 25), "code under if (IS_ENABLED()) is compiled");
	b = cover_file_blocker(&f, 15);
	ok(b > 0 && f.src.g[b].line == 13, "line 15 blocked by the #if at 13");
	is_int(cover_file_blocker(&f, 6), -1, "nothing blocks line 6");

	/* the cheap prediction agrees, and knows what would compile 15 */
	kconf_parse(&c, "CONFIG_A=y\n", 11);
	ok(cover_src_predict(&f.src, 8, &c, NULL), "predicted: 8 compiled");
	ok(!cover_src_predict(&f.src, 15, &c, &n), "predicted: 15 not");
	is_int(n.on_nr, 2, "15 needs two options");
	cover_needs_release(&n);
	kconf_release(&c);

	/* a second unit with other options adds what it compiled */
	strbuf_reset(&i);
	if (!preprocess(dir, "-DCONFIG_B=1 -DCONFIG_C=1", &i)) {
		cover_i_parse(i.buf, i.len, dir, files, 1);
		ok(cover_file_compiled(&f, 15) && cover_file_compiled(&f, 11) &&
		   cover_file_compiled(&f, 20), "the union of two units");
		ok(!cover_file_compiled(&f, 17), "#elif 0 never");
		is_int(f.units, 2, "two units read it");
	}
	cover_file_release(&f);

	/* a file no unit read: nothing compiled, no group to blame */
	cover_file_init(&f, "other.c", src, strlen(src));
	cover_i_parse(i.buf, i.len, dir, files, 1);
	ok(!f.entered && !cover_file_compiled(&f, 6), "an unread file: nothing compiled");
	is_int(cover_file_blocker(&f, 6), -1, "... and no group blocks it");
	cover_file_release(&f);
	strbuf_release(&i);
}

int main(void)
{
	char tmpl[] = "/tmp/lorebot-t-cover.XXXXXX";
	char *dir = mkdtemp(tmpl);

	test_scan();
	test_expr();
	if (run_have_program("gcc"))
		test_evidence(dir);
	else
		ok(1, "# SKIP no gcc");
	util_remove_tree(dir);
	return done_testing();
}
