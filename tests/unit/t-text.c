// SPDX-License-Identifier: GPL-2.0
/* Wrapping prose, escaping for HTML and URLs, ages */
#include "lib/text.h"
#include "tests/unit/tap.h"

static char *wrap(const char *s, size_t width, const char *indent)
{
	struct strbuf sb = STRBUF_INIT;

	text_wrap(&sb, s, width, indent);
	return strbuf_detach(&sb, NULL);
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *w;

	w = wrap("one two three four five six", 10, NULL);
	is_str(w, "one two\nthree four\nfive six", "words filled to the width");
	free(w);
	w = wrap("para one\nstill one\n\npara two", 72, NULL);
	is_str(w, "para one still one\n\npara two", "paragraphs are filled and kept apart");
	free(w);
	w = wrap("text\n    code line that is long and must stay as it is, whatever the width\nmore", 20, NULL);
	is_str(w, "text\n    code line that is long and must stay as it is, whatever the width\nmore",
	       "indented lines stay as they are");
	free(w);
	w = wrap("> quoted text that is long enough to wrap\n| Reported-by: someone", 10, NULL);
	is_str(w, "> quoted text that is long enough to wrap\n| Reported-by: someone",
	       "quoted and | lines stay");
	free(w);
	w = wrap("see https://example.org/a/very/long/url/that/does/not/fit ok", 20, NULL);
	is_str(w, "see\nhttps://example.org/a/very/long/url/that/does/not/fit\nok",
	       "a word longer than the line stays whole");
	free(w);
	w = wrap("key: one two three four", 12, "     ");
	is_str(w, "key: one two\n     three\n     four", "continuation lines get the indent");
	free(w);
	w = wrap("naïve naïve naïve", 11, NULL);
	is_str(w, "naïve naïve\nnaïve", "UTF-8 counts characters, not bytes");
	free(w);
	w = wrap("", 10, NULL);
	is_str(w, "", "nothing");
	free(w);
	is_int(text_width("\tx", 2), 9, "a tab goes to column 8");
	is_int(text_width("é", strlen("é")), 1, "é is one column");

	text_html_escape(&sb, "<a href=\"x\">'&'</a>");
	is_str(sb.buf, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;", "HTML escaping");
	strbuf_reset(&sb);
	text_html_escape(&sb, NULL);
	is_str(sb.buf, "", "NULL escapes to nothing");
	text_url_escape(&sb, "a b/c?d=e&f@g.h+i");
	is_str(sb.buf, "a%20b%2Fc%3Fd%3De%26f@g.h%2Bi", "URL escaping keeps @, not +");
	strbuf_reset(&sb);

	text_age(&sb, 1000, 1030);
	is_str(sb.buf, "just now", "seconds");
	strbuf_reset(&sb);
	text_age(&sb, 1000, 1000 + 3 * 3600 + 5);
	is_str(sb.buf, "3 hours", "hours");
	strbuf_reset(&sb);
	text_age(&sb, 1000, 1000 + 86400);
	is_str(sb.buf, "1 day", "one day");
	strbuf_reset(&sb);
	text_age(&sb, 1000, 1000 + 400 * 86400);
	is_str(sb.buf, "1 year", "a year");
	strbuf_reset(&sb);
	text_age(&sb, 0, 1000);
	is_str(sb.buf, "?", "unknown");
	strbuf_reset(&sb);

	{
		static const char a[] = "/* x */\n#include <a.h>\n\nint f(void)\n{\n"
			"\treturn 1; // one\n}\n";
		static const char b[] = "/* x */\n\n/*\n * more\n */\n#include <a.h>\n"
			"int f(void) { /* the same */\n  return 1;\n}\n";
		static const char c[] = "#include <a.h>\nint f(void) { return 2; }\n";
		static const char d[] = "char *s = \"/* not a comment */\";\n";
		struct strbuf sa = STRBUF_INIT;

		text_c_code(a, strlen(a), &sa);
		text_c_code(b, strlen(b), &sb);
		is_str(sb.buf, sa.buf, "C: comments (one or two in a row) and layout do not count");
		strbuf_reset(&sb);
		text_c_code(c, strlen(c), &sb);
		ok(strcmp(sb.buf, sa.buf), "C: another value does");
		strbuf_reset(&sb);
		text_c_code(d, strlen(d), &sb);
		is_str(sb.buf, "char *s = \"/* not a comment */\";", "C: a string is kept whole");
		strbuf_release(&sa);
	}
	strbuf_release(&sb);
	return done_testing();
}
