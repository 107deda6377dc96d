// SPDX-License-Identifier: GPL-2.0
/*
 * lib/parse-options: argv read as getopt_long() read it, its messages
 * word for word, and the usage made from the table.
 */
#include "lib/parse-options.h"
#include "tests/unit/tap.h"

struct vals {
	bool json, raw, help;
	const char *mbox, *color;
	int n, level;
	struct opt_strings bases;
	uint64_t size;
	int calls;
};

static int color_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	struct vals *v = opt->value;

	v->calls++;
	if (arg && strcmp(arg, "always") && strcmp(arg, "never") && strcmp(arg, "auto")) {
		strbuf_addf(err, "bad --color '%s'", arg);
		return -1;
	}
	v->color = arg ? arg : "always";
	return 0;
}

static char *words;

/* Parse the words of line (space separated) into v; the arguments left in rest */
static int run(const char *line, struct vals *v, struct strbuf *err, struct strbuf *rest,
	       unsigned int flags)
{
	const struct parse_opt opts[] = {
		OPT_STRING('m', "mbox", &v->mbox, "FILE", "an mbox"),
		OPT_BOOL('j', "json", &v->json, "print JSON"),
		OPT_BOOL(0, "raw", &v->raw, "the raw message"),
		OPT_INT('n', "recent", &v->n, "N", "the N most recent"),
		OPT_SIZE(0, "max-size", &v->size, "SIZE", "skip larger messages"),
		OPT_SIZE(0, "memory", &v->size, "SIZE", "hold this much"),
		OPT_CALLBACK_OPTARG(0, "color", v, "WHEN", "colour the output", color_cb),
		OPT_SET_INT('v', "verbose", &v->level, "more messages", 2),
		OPT_SET_INT('q', "quiet", &v->level, "fewer messages", 1),
		OPT_STRING_LIST('b', "base", &v->bases, "REV", "a base to try (repeatable)"),
		OPT_BOOL_F('h', "help", &v->help, "the help, at once", PARSE_OPT_LAST),
		OPT_END(),
	};
	char *copy = xstrdup(line), *argv[32], *p;
	int argc = 0, n, i;

	argv[argc++] = (char *)"prog";
	for (p = copy; *p;) {
		char *e = strchr(p, ' ');

		argv[argc++] = p;
		if (!e)
			break;
		*e = 0;
		p = e + 1;
	}
	argv[argc] = NULL;
	parse_opt_strings_release(&v->bases);
	memset(v, 0, sizeof(*v));
	strbuf_reset(err);
	strbuf_reset(rest);
	n = parse_options_err(argc, argv, opts, flags, err);
	for (i = 0; i < n; i++)
		strbuf_addf(rest, "%s%s", i ? "," : "", argv[i]);
	if (n >= 0)
		ok(argv[n] == NULL, "'%s': the arguments end with NULL", line);
	/* the values point into argv: keep the words until the next run */
	free(words);
	words = copy;
	return n;
}

int main(void)
{
	struct strbuf err = STRBUF_INIT, rest = STRBUF_INIT, usage = STRBUF_INIT;
	struct vals v = { 0 };

	/* the forms getopt_long() takes */
	is_int(run("--mbox a.mbx --json", &v, &err, &rest, 0), 0, "long options");
	is_str(v.mbox, "a.mbx", "--mbox FILE");
	ok(v.json && !v.raw, "--json");
	run("--mbox=b.mbx", &v, &err, &rest, 0);
	is_str(v.mbox, "b.mbx", "--mbox=FILE");
	run("-m c.mbx -j", &v, &err, &rest, 0);
	ok(v.json && !strcmp(v.mbox, "c.mbx"), "-m FILE -j");
	run("-jmd.mbx", &v, &err, &rest, 0);
	ok(v.json && !strcmp(v.mbox, "d.mbx"), "-jmFILE: bundled, the argument attached");
	run("-jm e.mbx", &v, &err, &rest, 0);
	ok(v.json && !strcmp(v.mbox, "e.mbx"), "-jm FILE");
	run("--mb f.mbx --js", &v, &err, &rest, 0);
	ok(v.json && !strcmp(v.mbox, "f.mbx"), "a long name abbreviated to a unique prefix");
	run("--mbox --json", &v, &err, &rest, 0);
	ok(!v.json && !strcmp(v.mbox, "--json"), "a required argument is the next word, whatever it is");
	run("--recent 7", &v, &err, &rest, 0);
	is_int(v.n, 7, "OPT_INT");
	run("-n-3", &v, &err, &rest, 0);
	is_int(v.n, -3, "OPT_INT negative, attached");
	run("--max-size 16m", &v, &err, &rest, 0);
	is_int((long long)v.size, 16 << 20, "OPT_SIZE");
	run("--color", &v, &err, &rest, 0);
	ok(v.calls == 1 && !strcmp(v.color, "always"), "an optional argument not given");
	run("--color never", &v, &err, &rest, 0);
	ok(!strcmp(v.color, "always") && !strcmp(rest.buf, "never"),
	   "an optional argument is only what follows '='");
	run("--color=never", &v, &err, &rest, 0);
	is_str(v.color, "never", "--color=WHEN");

	/* OPT_SET_INT: the last given wins */
	run("-v", &v, &err, &rest, 0);
	is_int(v.level, 2, "OPT_SET_INT sets its value");
	run("-v --quiet", &v, &err, &rest, 0);
	is_int(v.level, 1, "OPT_SET_INT: the last one given wins");
	run("-qv", &v, &err, &rest, 0);
	is_int(v.level, 2, "OPT_SET_INT bundled, in order");
	run("--quiet=1", &v, &err, &rest, 0);
	is_str(err.buf, "option '--quiet' doesn't allow an argument", "OPT_SET_INT takes none");

	/* OPT_STRING_LIST: every one, in order */
	run("--base a x --base=b -bc -b d", &v, &err, &rest, 0);
	is_int((long long)v.bases.nr, 4, "OPT_STRING_LIST: each one kept");
	ok(v.bases.nr == 4 && !strcmp(v.bases.v[0], "a") && !strcmp(v.bases.v[1], "b") &&
	   !strcmp(v.bases.v[2], "c") && !strcmp(v.bases.v[3], "d"),
	   "OPT_STRING_LIST: in the order given, every form");
	is_str(rest.buf, "x", "OPT_STRING_LIST: the arguments left alone");
	run("--json", &v, &err, &rest, 0);
	ok(!v.bases.nr, "OPT_STRING_LIST: none given, none kept");
	run("--base", &v, &err, &rest, 0);
	is_str(err.buf, "option '--base' requires an argument", "OPT_STRING_LIST needs one");

	/* PARSE_OPT_LAST: what follows is not read, errors included */
	is_int(run("--json -h --bogus --mbox", &v, &err, &rest, 0), 2,
	       "PARSE_OPT_LAST: the rest are arguments");
	ok(v.json && v.help && !v.mbox, "PARSE_OPT_LAST: set, and what came before it");
	is_str(rest.buf, "--bogus,--mbox", "PARSE_OPT_LAST: the rest as it was");
	is_int(run("x -hj y", &v, &err, &rest, 0), 2, "PARSE_OPT_LAST in a bundle");
	ok(v.help && !v.json, "PARSE_OPT_LAST: the rest of a bundle is not read");
	is_str(rest.buf, "x,y", "PARSE_OPT_LAST: the arguments before it, then the rest");
	is_int(run("--he --bogus", &v, &err, &rest, 0), 1, "PARSE_OPT_LAST abbreviated");
	is_int(run("--bogus -h", &v, &err, &rest, 0), -1, "PARSE_OPT_LAST: an error before it");
	ok(!v.help, "PARSE_OPT_LAST: an error before it wins");

	/* arguments: in order, options anywhere, "--" ends them, "-" is one */
	is_int(run("x --json y - --mbox m z", &v, &err, &rest, 0), 4, "four arguments");
	is_str(rest.buf, "x,y,-,z", "in order, the options among them taken out");
	ok(v.json && !strcmp(v.mbox, "m"), "the options among them are set");
	is_int(run("--json -- --raw x", &v, &err, &rest, 0), 2, "after --: arguments");
	ok(v.json && !v.raw, "-- ends the options");
	is_str(rest.buf, "--raw,x", "what follows -- is kept as it is");
	is_int(run("--json cmd --raw", &v, &err, &rest, PARSE_OPT_STOP_AT_NON_OPTION), 2,
	       "PARSE_OPT_STOP_AT_NON_OPTION");
	ok(v.json && !v.raw, "options stop at the first argument");
	is_str(rest.buf, "cmd,--raw", "which is kept with what follows it");
	is_int(run("", &v, &err, &rest, 0), 0, "no argument at all");

	/* errors: getopt's words */
	is_int(run("--bogus", &v, &err, &rest, 0), -1, "an unknown option: -1");
	is_str(err.buf, "unrecognized option '--bogus'", "unrecognized, as getopt says it");
	run("--bogus=1", &v, &err, &rest, 0);
	is_str(err.buf, "unrecognized option '--bogus=1'", "with what followed it");
	run("-x", &v, &err, &rest, 0);
	is_str(err.buf, "invalid option -- 'x'", "an unknown short option");
	run("--mbox", &v, &err, &rest, 0);
	is_str(err.buf, "option '--mbox' requires an argument",
	       "a known option without its argument is not called unknown");
	run("--mb", &v, &err, &rest, 0);
	is_str(err.buf, "option '--mbox' requires an argument", "abbreviated: named in full");
	run("-m", &v, &err, &rest, 0);
	is_str(err.buf, "option requires an argument -- 'm'", "short, without its argument");
	run("--json=yes", &v, &err, &rest, 0);
	is_str(err.buf, "option '--json' doesn't allow an argument", "a flag given an argument");
	run("--m x", &v, &err, &rest, 0);
	is_str(err.buf, "option '--m' is ambiguous; possibilities: '--mbox' '--max-size' '--memory'",
	       "an ambiguous prefix, with the possibilities");
	run("--recent ten", &v, &err, &rest, 0);
	is_str(err.buf, "option '--recent' expects a number, not 'ten'", "OPT_INT: not a number");
	run("--recent 99999999999", &v, &err, &rest, 0);
	is_str(err.buf, "option '--recent' expects a number, not '99999999999'",
	       "OPT_INT: out of range");
	run("--memory lots", &v, &err, &rest, 0);
	is_str(err.buf, "bad size 'lots'", "OPT_SIZE: not a size");
	run("--color=purple", &v, &err, &rest, 0);
	is_str(err.buf, "bad --color 'purple'", "a callback's error");
	is_int(run("--json --bogus --raw", &v, &err, &rest, 0), -1, "an error stops the parse");
	ok(v.json && !v.raw, "after what came before it was set");

	/* the manual's OPTIONS, from the table */
	{
		const struct parse_opt opts[] = {
			OPT_STRING('m', "mbox", &v.mbox, "FILE", "an mbox, - for stdin"),
			OPT_BOOL('j', "json", &v.json, "print {\"series\": [...]}: one object per "
				 "series version with title, author, version, total, tree, cover"),
			OPT_SIZE(0, "max-size", &v.size, "SIZE", "skip larger messages\n"
				 "    --max-size 16m\n\nthe default: mail.maxsize"),
			OPT_CALLBACK_OPTARG(0, "color", &v, "WHEN", "colour", color_cb),
			OPT_BOOL(0, "raw", &v.raw, "one sentence.  Two   spaces stay two, one stays one"),
			OPT_INT('C', NULL, &v.n, "N", "http://example.org/a-word-longer-than-a-line-"
				"stays-whole-whatever-the-width-it-takes-up-in-the-end"),
			OPT_END(),
		};

		parse_options_help(opts, &usage);
		is_str(usage.buf,
		       "    -m, --mbox FILE\n"
		       "        an mbox, - for stdin\n"
		       "    -j, --json\n"
		       "        print {\"series\": [...]}: one object per series version with title,\n"
		       "        author, version, total, tree, cover\n"
		       "    --max-size SIZE\n"
		       "        skip larger messages\n"
		       "            --max-size 16m\n"
		       "\n"
		       "        the default: mail.maxsize\n"
		       "    --color[=WHEN]\n"
		       "        colour\n"
		       "    --raw\n"
		       "        one sentence.  Two  spaces stay two, one stays one\n"
		       "    -C N\n"
		       "        http://example.org/a-word-longer-than-a-line-stays-whole-whatever-the-width-it-takes-up-in-the-end\n",
		       "the manual's options: a line per option, its help filled below it");
	}
	parse_opt_strings_release(&v.bases);
	free(words);
	strbuf_release(&err);
	strbuf_release(&rest);
	strbuf_release(&usage);
	return done_testing();
}
