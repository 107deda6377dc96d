// SPDX-License-Identifier: GPL-2.0
/* The kbuild output parser and the new-versus-base comparison */
#include <stdlib.h>

#include "ci/delta.h"
#include "ci/diag.h"
#include "tests/unit/tap.h"

#define SRC "/cache/builds/arm64/small-1/src"
#define OBJ "/cache/builds/arm64/small-1/obj"

/* make --output-sync=target, ccache with a base dir: relative paths */
static const char output[] =
	"  SYNC    include/config/auto.conf\n"
	"  CC      mm/rmap.o\n"
	"../src/mm/rmap.c: In function 'try_to_unmap_one':\n"
	"../src/mm/rmap.c:1868:13: warning: unused variable 'x' [-Wunused-variable]\n"
	" 1868 |         int x;\n"
	"      |             ^\n"
	"../src/mm/rmap.c:1900:2: error: too many arguments to function 'f'\n"
	"In file included from ../src/mm/rmap.c:12:\n"
	"../src/include/linux/mm.h:5:1: note: declared here\n"
	"cc1: some warnings being treated as errors\n"
	"make[3]: *** [../src/scripts/Makefile.build:229: mm/rmap.o] Error 1\n"
	"  CC      mm/memory.o\n"
	"In file included from " SRC "/include/linux/mm.h:3,\n"
	"                 from " SRC "/mm/memory.c:4:\n"
	SRC "/arch/arm64/include/asm/tlbflush.h:40:5: warning: no previous prototype for 'g' [-Wmissing-prototypes]\n"
	"../src/mm/memory.c:77:9: error: 'y' undeclared [-Werror=implicit-function-declaration]\n"
	"  CC      kernel/fork.o\n"
	"./include/generated/autoconf.h:1:2: warning: generated\n"
	"  LD      .tmp_vmlinux1\n"
	"aarch64-linux-gnu-ld: vmlinux.o: in function `try_to_unmap_one':\n"
	"rmap.c:(.text+0x1a2c): undefined reference to `arch_flush'\n"
	"aarch64-linux-gnu-ld: warning: orphan section `.x' from `a.o'\n"
	"ERROR: modpost: \"foo\" [mm/bar.ko] undefined!\n"
	"WARNING: unmet direct dependencies detected for SWAP\n"
	"make[2]: *** No rule to make target 'mm/gone.o', needed by 'mm/built-in.a'.  Stop.\n"
	"  CC      mm/oom.o\n"
	"mm/oom.o: warning: objtool: oom_kill+0x1f: unreachable instruction\n"
	SRC "/mm/Kconfig:12: syntax error\n"
	"../src/arch/x86/Kconfig:3:warning: ignoring unsupported character '$'\n";

static const struct diag *find(const struct diag_list *l, const char *file,
			       int line)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i].file, file) && l->v[i].line == line)
			return &l->v[i];
	return NULL;
}

static const struct diag *find_msg(const struct diag_list *l, const char *msg)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (strstr(l->v[i].message, msg))
			return &l->v[i];
	return NULL;
}

static void test_parse(void)
{
	struct diag_parse p;
	const struct diag *d;
	struct strbuf sb = STRBUF_INIT;

	diag_parse_init(&p, SRC, OBJ);
	diag_parse_buf(&p, output, strlen(output));

	d = find(&p.diags, "mm/rmap.c", 1868);
	ok(d != NULL, "relative source path made tree-relative");
	if (d) {
		is_str(d->unit, "mm/rmap.o", "unit from the quiet line");
		is_int(d->col, 13, "column");
		is_int(d->sev, DIAG_WARNING, "warning");
		is_str(d->option, "-Wunused-variable", "option");
		is_str(d->message, "unused variable 'x'", "message without option");
		is_str(d->function, "try_to_unmap_one", "function context");
		diag_format(d, &sb);
		is_str(sb.buf, "mm/rmap.c:1868:13: warning: unused variable 'x' "
		       "[-Wunused-variable]", "compiler format");
	}
	d = find(&p.diags, "mm/rmap.c", 1900);
	ok(d && d->sev == DIAG_ERROR, "error");
	ok(!find(&p.diags, "include/linux/mm.h", 5), "notes are not diagnostics");
	ok(!find_msg(&p.diags, "treated as errors"), "cc1 summary ignored");

	d = find(&p.diags, "arch/arm64/include/asm/tlbflush.h", 40);
	ok(d != NULL, "absolute header path made tree-relative");
	if (d) {
		is_str(d->unit, "mm/memory.o", "header diagnostic belongs to the unit");
		is_str(d->function, "", "no function context from another unit");
	}
	d = find(&p.diags, "mm/memory.c", 77);
	ok(d && d->sev == DIAG_ERROR &&
	   !strcmp(d->option, "-Wimplicit-function-declaration"),
	   "-Werror=x is option -Wx, severity error");
	ok(find(&p.diags, "$(objtree)/include/generated/autoconf.h", 1) != NULL,
	   "generated files are marked as the objtree's");

	d = find_msg(&p.diags, "undefined reference to `arch_flush'");
	ok(d != NULL, "ld undefined reference");
	if (d) {
		is_str(d->unit, "vmlinux", "link steps are the unit vmlinux");
		is_str(d->tool, "ld", "tool ld");
		is_int(d->sev, DIAG_ERROR, "undefined reference is an error");
		is_str(d->function, "try_to_unmap_one", "ld's function context");
	}
	d = find_msg(&p.diags, "orphan section");
	ok(d && d->sev == DIAG_WARNING, "ld warning");
	d = find_msg(&p.diags, "[mm/bar.ko] undefined");
	ok(d && d->sev == DIAG_ERROR && !strcmp(d->tool, "modpost"), "modpost error");
	d = find_msg(&p.diags, "unmet direct dependencies detected for SWAP");
	ok(d && !strcmp(d->tool, "kconfig"), "kconfig warning");
	d = find_msg(&p.diags, "No rule to make target 'mm/gone.o'");
	ok(d && d->sev == DIAG_ERROR, "make: no rule is an error");
	ok(d && !strstr(d->message, "Stop"), "without make's Stop");
	d = find_msg(&p.diags, "unreachable instruction");
	ok(d && !strcmp(d->tool, "objtool") && !strcmp(d->file, "mm/oom.o") &&
	   !strncmp(d->message, "oom_kill", 8), "objtool warning");
	d = find(&p.diags, "mm/Kconfig", 12);
	ok(d && d->sev == DIAG_ERROR && !strcmp(d->message, "syntax error") &&
	   !strcmp(d->tool, "kconfig"), "kconfig syntax error");
	d = find(&p.diags, "arch/x86/Kconfig", 3);
	ok(d && d->sev == DIAG_WARNING, "kconfig warning");
	is_int(p.diags.nr, 13, "thirteen diagnostics");
	is_int(p.units_nr, 6, "six targets");
	is_str(p.units[0], "include/config/auto.conf", "first target");
	is_str(p.make_error, "No rule to make target 'mm/gone.o', needed by "
	       "'mm/built-in.a'.  Stop.", "last make error");
	is_int(p.infra, DIAG_INFRA_NONE, "no infrastructure failure");

	strbuf_release(&sb);
	diag_parse_release(&p);
}

static void test_infra(void)
{
	static const struct {
		const char *line;
		enum diag_infra kind;
	} cases[] = {
		{ "../src/mm/x.c:1: fatal error: error writing to /tmp/cc.s: No space left on device",
		  DIAG_INFRA_DISK },
		{ "aarch64-linux-gnu-gcc: fatal error: Killed signal terminated program cc1",
		  DIAG_INFRA_MEMORY },
		{ "/bin/sh: 1: riscv64-linux-gnu-gcc: not found: command not found",
		  DIAG_INFRA_TOOL },
		{ "../src/mm/x.c:3:4: error: unknown type name 'foo'", DIAG_INFRA_NONE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct diag_parse p;

		diag_parse_init(&p, SRC, OBJ);
		diag_parse_buf(&p, cases[i].line, strlen(cases[i].line));
		is_int(p.infra, cases[i].kind, "infra kind of '%.40s'", cases[i].line);
		diag_parse_release(&p);
	}
}

static void test_storage(void)
{
	struct diag_parse p;
	struct diag_list back = DIAG_LIST_INIT;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	diag_parse_init(&p, SRC, OBJ);
	diag_parse_buf(&p, output, strlen(output));
	diag_list_write(&p.diags, &a);
	ok(!diag_list_read(&back, a.buf, a.len), "stored diagnostics read back");
	diag_list_write(&back, &b);
	is_int(back.nr, p.diags.nr, "same number");
	is_str(b.buf, a.buf, "same content");
	diag_list_release(&back);
	ok(diag_list_read(&back, "a\tb\n", 4) < 0, "a short line is an error");
	diag_list_release(&back);
	strbuf_release(&a);
	strbuf_release(&b);
	diag_parse_release(&p);
}

/* -U0: 3 lines inserted after 10, line 20 changed, lines 30-31 removed */
static const char diff_u0[] =
	"diff --git a/mm/rmap.c b/mm/rmap.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/mm/rmap.c\n"
	"+++ b/mm/rmap.c\n"
	"@@ -10,0 +11,3 @@ ctx\n"
	"+a\n"
	"+b\n"
	"+c\n"
	"@@ -20 +23 @@ ctx\n"
	"-old\n"
	"+new\n"
	"@@ -30,2 +32,0 @@ ctx\n"
	"-x\n"
	"-y\n"
	"diff --git a/mm/old.c b/mm/new.c\n"
	"similarity index 90%\n"
	"rename from mm/old.c\n"
	"rename to mm/new.c\n"
	"index 3333333..4444444 100644\n"
	"--- a/mm/old.c\n"
	"+++ b/mm/new.c\n"
	"@@ -5 +4,0 @@\n"
	"-gone\n";

static void test_line_map(void)
{
	struct line_map m;
	struct strbuf err = STRBUF_INIT;
	const char *np;

	ok(!delta_map_parse(&m, diff_u0, strlen(diff_u0), &err), "-U0 diff parsed");
	is_int(delta_map_line(&m, "mm/rmap.c", 5, NULL), 5, "before the hunks");
	is_int(delta_map_line(&m, "mm/rmap.c", 10, NULL), 10, "the line before the insertion");
	is_int(delta_map_line(&m, "mm/rmap.c", 11, NULL), 14, "after the insertion");
	is_int(delta_map_line(&m, "mm/rmap.c", 20, NULL), -1, "changed line");
	is_int(delta_map_line(&m, "mm/rmap.c", 21, NULL), 24, "after the change");
	is_int(delta_map_line(&m, "mm/rmap.c", 30, NULL), -1, "removed line");
	is_int(delta_map_line(&m, "mm/rmap.c", 32, NULL), 33, "after the removal");
	is_int(delta_map_line(&m, "mm/other.c", 32, &np), 32, "untouched file");
	is_str(np, "mm/other.c", "same name");
	is_int(delta_map_line(&m, "mm/old.c", 9, &np), 8, "renamed file");
	is_str(np, "mm/new.c", "new name");
	delta_map_release(&m);
	strbuf_release(&err);
}

static void add(struct diag_list *l, const char *file, int line,
		enum diag_severity sev, const char *msg)
{
	struct diag d = {
		.unit = (char *)"mm/rmap.o", .file = (char *)file, .line = line,
		.col = 5, .sev = sev, .option = (char *)"-Wx",
		.function = (char *)"f", .message = (char *)msg, .tool = (char *)"gcc",
	};

	diag_list_add(l, &d);
}

static void test_delta(void)
{
	struct diag_list base = DIAG_LIST_INIT, cur = DIAG_LIST_INIT;
	struct diag_list dup = DIAG_LIST_INIT, dist = DIAG_LIST_INIT;
	struct line_map m;
	struct strbuf err = STRBUF_INIT;
	bool is_new[8];

	delta_map_parse(&m, diff_u0, strlen(diff_u0), &err);
	add(&base, "mm/rmap.c", 15, DIAG_WARNING, "w1");	/* moves to 18 */
	add(&base, "mm/rmap.c", 20, DIAG_WARNING, "w2");	/* on the changed line */
	add(&base, "mm/rmap.c", 40, DIAG_WARNING, "same");
	add(&base, "include/linux/mm.h", 7, DIAG_WARNING, "hdr");

	add(&cur, "mm/rmap.c", 18, DIAG_WARNING, "w1");
	add(&cur, "mm/rmap.c", 23, DIAG_WARNING, "w2");
	add(&cur, "mm/rmap.c", 38, DIAG_WARNING, "same");
	add(&cur, "mm/rmap.c", 12, DIAG_WARNING, "same");	/* a second one */
	add(&cur, "include/linux/mm.h", 7, DIAG_WARNING, "hdr");
	add(&cur, "mm/rmap.c", 12, DIAG_ERROR, "w1");		/* other severity */
	delta_diag(&base, &cur, &m, is_new);
	ok(!is_new[0], "a warning moved by inserted lines is pre-existing");
	ok(!is_new[1], "a warning on an edited line that stays is pre-existing");
	ok(!is_new[2], "the old one of two same warnings is pre-existing");
	ok(is_new[3], "one more of the same warning is new");
	ok(!is_new[4], "untouched header: pre-existing");
	ok(is_new[5], "same message as an error is new");

	add(&dup, "mm/rmap.c", 18, DIAG_WARNING, "w1");
	add(&dup, "mm/rmap.c", 18, DIAG_WARNING, "w1");
	add(&dup, "mm/rmap.c", 18, DIAG_NOTE, "n");
	delta_list_distinct(&dup, &dist);
	is_int(dist.nr, 1, "distinct: one warning, no notes");

	diag_list_release(&base);
	diag_list_release(&cur);
	diag_list_release(&dup);
	diag_list_release(&dist);
	delta_map_release(&m);
	strbuf_release(&err);
}

/* sparse (make C=2): its "expected/got" lines explain the warning before */
static void test_sparse(void)
{
	static const char out[] =
		"  CHECK   " SRC "/mm/util.c\n"
		SRC "/mm/util.c:231:21: warning: incorrect type in argument 2 "
		"(different address spaces)\n"
		SRC "/mm/util.c:231:21:    expected void const *\n"
		SRC "/mm/util.c:231:21:    got void const [noderef] __user *src\n"
		SRC "/mm/util.c:40:6: warning: context imbalance in 'f' - "
		"unexpected unlock\n"
		SRC "/mm/util.c:41:6:    expected int\n";
	struct diag_parse p;

	diag_parse_init(&p, SRC, OBJ);
	diag_parse_buf(&p, out, strlen(out));
	is_int(p.diags.nr, 2, "two diagnostics, the explaining lines folded");
	if (p.diags.nr == 2) {
		is_str(p.diags.v[0].unit, "mm/util.c", "unit of the CHECK line");
		is_str(p.diags.v[0].message, "incorrect type in argument 2 "
		       "(different address spaces); expected void const *; "
		       "got void const [noderef] __user *src",
		       "expected and got in the message");
		is_int(p.diags.v[0].line, 231, "at its line");
		is_str(p.diags.v[1].message, "context imbalance in 'f' - unexpected unlock",
		       "a line at another place explains nothing");
	}
	diag_parse_release(&p);
}

/* Coccinelle's report mode: a column range, often no severity */
static void test_cocci(void)
{
	static const char out[] =
		"  CHECK   " SRC "/mm/util.c\n"
		"/usr/bin/spatch -D report --no-show-diff --very-quiet --cocci-file "
		SRC "/scripts/coccinelle/api/alloc/zalloc-simple.cocci --no-includes "
		"-I " SRC "/include " SRC "/mm/util.c\n"
		SRC "/mm/util.c:313:5-12: WARNING: kzalloc should be used for p, "
		"instead of kmalloc/memset\n"
		"Running (1 in parallel): /usr/bin/spatch -D report --cocci-file "
		"/home/me/my.cocci " SRC "/mm/util.c\n"
		SRC "/mm/util.c:40:1-7: second lock on line 38\n"
		"mm/util.c:40: not a range\n"
		"/usr/bin/spatch -D report --cocci-file " SRC
		"/scripts/coccinelle/locks/double_lock.cocci\n"
		SRC "/mm/util.c:41:1-7: second lock on line 39\n";
	struct diag_parse p;

	diag_parse_init(&p, SRC, OBJ);
	diag_parse_buf(&p, out, strlen(out));
	is_int(p.diags.nr, 3, "three findings, no command line among them");
	if (p.diags.nr == 3) {
		is_str(p.diags.v[0].option, "api/alloc/zalloc-simple",
		       "named by the rule spatch ran, beneath scripts/coccinelle/");
		is_str(p.diags.v[1].option, "my", "a rule of one's own: its name");
		is_str(p.diags.v[2].option, "locks/double_lock", "the next rule's");
	}
	if (p.diags.nr == 3) {
		const struct diag *d = &p.diags.v[0];

		is_str(d->file, "mm/util.c", "tree-relative file");
		is_int(d->line, 313, "line");
		is_int(d->col, 6, "column counted from 1");
		is_int(d->sev, DIAG_WARNING, "a warning");
		is_str(d->tool, "coccinelle", "tool");
		is_str(d->unit, "mm/util.c", "unit of the CHECK line");
		is_str(d->message, "kzalloc should be used for p, instead of "
		       "kmalloc/memset", "message without WARNING:");
		is_str(p.diags.v[1].message, "second lock on line 38",
		       "a finding without severity is a warning too");
	}
	diag_parse_release(&p);
}

int main(void)
{
	test_parse();
	test_sparse();
	test_cocci();
	test_infra();
	test_storage();
	test_line_map();
	test_delta();
	return done_testing();
}
