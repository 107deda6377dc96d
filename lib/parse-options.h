/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options as data (git's parse-options.h): a command declares its options
 * in a table ending with OPT_END(), pointing at the variables they set,
 *
 *	bool json = false;
 *	const char *mbox = NULL;
 *	const struct parse_opt opts[] = {
 *		OPT_STRING('m', "mbox", &mbox, "FILE", "an mbox, - for stdin"),
 *		OPT_BOOL('j', "json", &json, "print JSON"),
 *		OPT_END(),
 *	};
 *	argc = parse_options(argc, argv, "lorebot series", opts);
 *	if (argc < 0)
 *		return EXIT_USAGE;
 *
 * and parse_options() reads argv as GNU getopt_long() did for the
 * hand-written switches it replaces: "--name value", "--name=value",
 * "-x value", "-xvalue", bundled flags ("-jx value"), a long name
 * abbreviated to a unique prefix, options anywhere among the arguments
 * (unless PARSE_OPT_STOP_AT_NON_OPTION), "--" ending them.  Its messages
 * are getopt's, word for word, so that scripts and tests reading them
 * see no change.  The macros check the type of what they point at
 * (tools/lib/subcmd/parse-options.h in the kernel does the same): an
 * OPT_BOOL on an int does not compile.
 */
#ifndef LOREBOT_PARSE_OPTIONS_H
#define LOREBOT_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/strbuf.h"

enum parse_opt_type {
	OPTION_END,
	OPTION_BOOL,		/* bool *: set to true */
	OPTION_SET_INT,		/* int *: set to defval (the last given wins) */
	OPTION_STRING,		/* const char **: the argument (in argv) */
	OPTION_INT,		/* int *: a decimal integer */
	OPTION_SIZE,		/* uint64_t *: util_parse_size() ("16m") */
	OPTION_STRING_LIST,	/* struct opt_strings *: each argument appended */
	OPTION_CALLBACK,	/* the argument to callback(), value its data */
};

enum parse_opt_flags {
	/* the argument is optional: only "--name=value" gives one */
	PARSE_OPT_OPTARG = 1 << 0,
	/*
	 * the parse ends after this option: what follows it is left in
	 * argv, unread, as arguments (-h and --version that act at once,
	 * as they did returning from a getopt loop, whatever follows them)
	 */
	PARSE_OPT_LAST = 1 << 1,
};

/*
 * What a repeatable option (OPT_STRING_LIST) collects: the arguments in
 * the order given, pointing into argv; parse_opt_strings_release() frees the
 * array, not the strings.
 */
struct opt_strings {
	const char **v;
	size_t nr, alloc;
};

#define OPT_STRINGS_INIT { 0 }

void parse_opt_strings_release(struct opt_strings *l);

struct parse_opt;

/* Take arg (NULL: an optional one not given); 0, or -1 with why in err */
typedef int parse_opt_cb(const struct parse_opt *opt, const char *arg,
			 struct strbuf *err);

struct parse_opt {
	enum parse_opt_type type;
	int short_name;		/* 0: none */
	const char *long_name;	/* NULL: none */
	void *value;
	const char *argh;	/* the argument in a usage line: "FILE" */
	const char *help;	/* what it does: the manual's text (parse_options_help()) */
	parse_opt_cb *callback;
	unsigned int flags;	/* enum parse_opt_flags */
	int defval;		/* what OPTION_SET_INT sets */
};

/* A compile error unless v has the type t */
#define PARSE_OPT_CHECK(v, t) \
	((v) + 0 * sizeof(char[__builtin_types_compatible_p(__typeof__(v), t) ? 1 : -1]))

#define OPT_END() { .type = OPTION_END }
#define OPT_BOOL(s, l, v, h) \
	{ .type = OPTION_BOOL, .short_name = (s), .long_name = (l), \
	  .value = PARSE_OPT_CHECK(v, bool *), .help = (h) }
#define OPT_BOOL_F(s, l, v, h, f) \
	{ .type = OPTION_BOOL, .short_name = (s), .long_name = (l), \
	  .value = PARSE_OPT_CHECK(v, bool *), .help = (h), .flags = (f) }
/* a flag that sets *v to i: "-v" and "-q" on one level, the last wins */
#define OPT_SET_INT(s, l, v, h, i) \
	{ .type = OPTION_SET_INT, .short_name = (s), .long_name = (l), \
	  .value = PARSE_OPT_CHECK(v, int *), .help = (h), .defval = (i) }
#define OPT_STRING(s, l, v, a, h) \
	{ .type = OPTION_STRING, .short_name = (s), .long_name = (l), \
	  .value = PARSE_OPT_CHECK(v, const char **), .argh = (a), .help = (h) }
#define OPT_INT(s, l, v, a, h) \
	{ .type = OPTION_INT, .short_name = (s), .long_name = (l), \
	  .value = PARSE_OPT_CHECK(v, int *), .argh = (a), .help = (h) }
#define OPT_SIZE(s, l, v, a, h) \
	{ .type = OPTION_SIZE, .short_name = (s), .long_name = (l), \
	  .value = PARSE_OPT_CHECK(v, uint64_t *), .argh = (a), .help = (h) }
/* repeatable: every "--base X" appended to a struct opt_strings */
#define OPT_STRING_LIST(s, l, v, a, h) \
	{ .type = OPTION_STRING_LIST, .short_name = (s), .long_name = (l), \
	  .value = PARSE_OPT_CHECK(v, struct opt_strings *), .argh = (a), .help = (h) }
#define OPT_CALLBACK(s, l, v, a, h, cb) \
	{ .type = OPTION_CALLBACK, .short_name = (s), .long_name = (l), \
	  .value = (v), .argh = (a), .help = (h), .callback = (cb) }
/* the same with an optional argument: cb gets NULL for a bare "--name" */
#define OPT_CALLBACK_OPTARG(s, l, v, a, h, cb) \
	{ .type = OPTION_CALLBACK, .short_name = (s), .long_name = (l), \
	  .value = (v), .argh = (a), .help = (h), .callback = (cb), \
	  .flags = PARSE_OPT_OPTARG }

enum parse_options_flags {
	/* options end at the first argument that is not one (lorebot's own) */
	PARSE_OPT_STOP_AT_NON_OPTION = 1 << 0,
};

/*
 * Parse argv[1..argc) (argv[0] is the program) against opts, setting
 * what each option points at, in the order given.  The arguments that
 * are not options are moved, in order, to argv[0..n) (argv[n] = NULL)
 * and n is returned (after an option marked PARSE_OPT_LAST, the rest
 * of argv is among them, unread).  On a usage error, -1 with the message in err
 * (getopt's: "unrecognized option '--bogus'", "option '--mbox' requires
 * an argument", ...), values set by the options before it.
 */
int parse_options_err(int argc, char **argv, const struct parse_opt *opts,
		      unsigned int flags, struct strbuf *err);

/*
 * The same, printing a usage error on stderr in two lines, the message
 * naming prog ("lorebot series: unrecognized option '--bogus'") and a
 * pointer to the manual ("(see 'lorebot series --help')"): -1 then.
 */
int parse_options(int argc, char **argv, const char *prog,
		  const struct parse_opt *opts);

/* The width parse_options_help() fills the help to */
#define PARSE_OPT_HELP_WIDTH 80

/*
 * The OPTIONS of a manual from the table, in its order: per option a
 * line "    -m, --mbox FILE" ("--color[=WHEN]" for an optional argument),
 * then its help filled 8 columns in, PARSE_OPT_HELP_WIDTH wide; in the
 * help, a newline starts a new line and a line that starts with a blank
 * is kept as it is (a table, an example)
 */
void parse_options_help(const struct parse_opt *opts, struct strbuf *out);

#endif
