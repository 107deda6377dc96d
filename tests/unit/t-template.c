// SPDX-License-Identifier: GPL-2.0
/* Templates: placeholders, escaping, dropped lines, prose wrapping, errors */
#include "lib/template.h"
#include "tests/unit/tap.h"

static char *expand(const char *text, const struct tvars *v, enum template_mode mode,
		    int *ret, char **err)
{
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;

	*ret = template_expand("t.txt", text, v, mode, &out, &e);
	*err = strbuf_detach(&e, NULL);
	return strbuf_detach(&out, NULL);
}

#define CHECK(text, vars, mode, want, name) do {			\
	int r_;								\
	char *e_, *o_ = expand(text, vars, mode, &r_, &e_);		\
	is_int(r_, 0, "%s: expands", name);				\
	is_str(o_, want, "%s", name);					\
	free(o_);							\
	free(e_);							\
} while (0)

#define FAILS(text, vars, want_err, name) do {				\
	int r_;								\
	char *e_, *o_ = expand(text, vars, TEMPLATE_TEXT, &r_, &e_);	\
	is_int(r_, -1, "%s: fails", name);				\
	is_str(e_, want_err, "%s: the error", name);			\
	free(o_);							\
	free(e_);							\
} while (0)

int main(void)
{
	struct tvars v = TVARS_INIT;

	template_set(&v, "name", "Barry");
	template_set(&v, "empty", "");
	template_set(&v, "html", "<b>\"x\" & 'y'</b>");
	template_set_html(&v, "markup", "<em>ok</em>");
	template_set(&v, "block", "line 1\nline 2");
	template_setf(&v, "n", "%d", 42);

	CHECK("Hi ${name},\n", &v, TEMPLATE_TEXT, "Hi Barry,\n", "a placeholder");
	CHECK("${n} $${name} $5 $x\n", &v, TEMPLATE_TEXT, "42 ${name} $5 $x\n",
	      "$$ is a dollar; a lone $ stays");
	CHECK("a\nbase: ${empty}\nb\n", &v, TEMPLATE_TEXT, "a\nb\n",
	      "a line whose placeholders are all empty is dropped");
	CHECK("a\n\n${empty}\n\nb\n", &v, TEMPLATE_TEXT, "a\n\nb\n",
	      "and one of the blank lines around it");
	CHECK("a\n${empty} ${name}\nb\n", &v, TEMPLATE_TEXT, "a\n Barry\nb\n",
	      "a line with one non-empty value stays");
	CHECK("a\n\nb\n", &v, TEMPLATE_TEXT, "a\n\nb\n", "blank lines of the template stay");
	CHECK("x ${block}\n", &v, TEMPLATE_TEXT, "x line 1\nline 2\n", "multi-line values");
	CHECK("<p>${html}</p>\n", &v, TEMPLATE_HTML,
	      "<p>&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;</p>\n", "HTML mode escapes values");
	CHECK("<p>${markup}</p>\n", &v, TEMPLATE_HTML, "<p><em>ok</em></p>\n",
	      "markup set as HTML is not escaped again");
	CHECK("${html}\n", &v, TEMPLATE_TEXT, "<b>\"x\" & 'y'</b>\n", "text mode does not escape");
	CHECK("<td>${empty}</td>\n", &v, TEMPLATE_HTML, "<td></td>\n", "HTML mode drops no lines");
	CHECK("no newline ${name}", &v, TEMPLATE_TEXT, "no newline Barry", "no final newline");

	template_set(&v, "archs", "arm64, riscv, x86_64, and every other architecture there is");
	CHECK("lorebot noticed the following build errors on ${archs}:\n", &v, TEMPLATE_TEXT,
	      "lorebot noticed the following build errors on arm64, riscv, x86_64, and\n"
	      "every other architecture there is:\n", "a long prose line is wrapped at 72");
	CHECK("patch subject: ${archs} and more words to make it long\n", &v, TEMPLATE_TEXT,
	      "patch subject: arm64, riscv, x86_64, and every other architecture there is and more words to make it long\n",
	      "a key: value line is not wrapped");
	CHECK("[auto build test ERROR on ${archs} and more words]\n", &v, TEMPLATE_TEXT,
	      "[auto build test ERROR on arm64, riscv, x86_64, and every other architecture there is and more words]\n",
	      "a bracketed line is not wrapped");
	CHECK("   ${archs} and more words to make it long enough\n", &v, TEMPLATE_TEXT,
	      "   arm64, riscv, x86_64, and every other architecture there is and more words to make it long enough\n",
	      "an indented line is not wrapped");
	CHECK("This line has no placeholder and is longer than seventy-eight columns, which is the author's choice\n",
	      &v, TEMPLATE_TEXT,
	      "This line has no placeholder and is longer than seventy-eight columns, which is the author's choice\n",
	      "the template's own text is not rewrapped");

	FAILS("Hi ${nmae},\n", &v, "t.txt:1: unknown variable 'nmae'", "an unknown variable");
	FAILS("a\nb ${name\n", &v, "t.txt:2: '${' without a closing '}'", "an unclosed placeholder");
	FAILS("${9x}\n", &v, "t.txt:1: bad placeholder '${9x}'", "a bad name");
	FAILS("${a-b}\n", &v, "t.txt:1: bad placeholder '${a-b}'", "a bad character");
	FAILS("${}\n", &v, "t.txt:1: bad placeholder '${}'", "an empty name");

	template_set(&v, "name", "Song");
	is_str(template_get(&v, "name"), "Song", "setting again replaces");
	is_str(template_get(&v, "nothing"), NULL, "an unset variable is NULL");
	template_vars_release(&v);
	return done_testing();
}
