// SPDX-License-Identifier: GPL-2.0
/*
 * The option-table parser (lib/parse-options.h).  It reads argv the way
 * glibc's getopt_long() does, messages included, so that the commands
 * moving from their getopt switches to a table behave and speak as
 * before.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/parse-options.h"
#include "lib/text.h"

static bool takes_arg(const struct parse_opt *o)
{
	return o->type != OPTION_BOOL && o->type != OPTION_SET_INT;
}

static bool arg_optional(const struct parse_opt *o)
{
	return o->flags & PARSE_OPT_OPTARG;
}

/* "--name" or "-n", as a message names the option */
static void opt_name(const struct parse_opt *o, struct strbuf *sb)
{
	if (o->long_name)
		strbuf_addf(sb, "--%s", o->long_name);
	else
		strbuf_addf(sb, "-%c", o->short_name);
}

/* Give o its argument (NULL: none, for a flag or an optional one) */
static int set_value(const struct parse_opt *o, const char *arg, struct strbuf *err)
{
	char *end;
	long v;

	switch (o->type) {
	case OPTION_BOOL:
		*(bool *)o->value = true;
		return 0;
	case OPTION_SET_INT:
		*(int *)o->value = o->defval;
		return 0;
	case OPTION_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPTION_INT:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (!*arg || *end || errno || v < INT_MIN || v > INT_MAX) {
			strbuf_addstr(err, "option '");
			opt_name(o, err);
			strbuf_addf(err, "' expects a number, not '%s'", arg);
			return -1;
		}
		*(int *)o->value = (int)v;
		return 0;
	case OPTION_SIZE:
		if (util_parse_size(arg, o->value)) {
			strbuf_addf(err, "bad size '%s'", arg);
			return -1;
		}
		return 0;
	case OPTION_STRING_LIST: {
		struct opt_strings *l = o->value;

		ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = arg;
		return 0;
	}
	case OPTION_CALLBACK:
		return o->callback(o, arg, err);
	case OPTION_END:
		break;
	}
	return -1;
}

/* set_value(), then 1 when the parse ends after o (PARSE_OPT_LAST) */
static int take(const struct parse_opt *o, const char *arg, struct strbuf *err)
{
	if (set_value(o, arg, err))
		return -1;
	return o->flags & PARSE_OPT_LAST ? 1 : 0;
}

void parse_opt_strings_release(struct opt_strings *l)
{
	free(l->v);
	l->v = NULL;
	l->nr = l->alloc = 0;
}

/*
 * "--name[=value]" at argv[*i] (s after the dashes): an exact name, else
 * a unique prefix of one.  The argument is what follows '=', else the
 * next element of argv whatever it is (as getopt_long() takes it)
 */
static int parse_long(const char *s, int *i, int argc, char **argv,
		      const struct parse_opt *opts, struct strbuf *err)
{
	const char *eq = strchr(s, '=');
	size_t len = eq ? (size_t)(eq - s) : strlen(s);
	const struct parse_opt *o, *found = NULL;
	size_t nr = 0;

	for (o = opts; o->type != OPTION_END; o++) {
		if (!o->long_name || strncmp(o->long_name, s, len))
			continue;
		if (!o->long_name[len]) {
			found = o;
			nr = 1;
			break;
		}
		if (!nr++)
			found = o;
	}
	if (!nr) {
		strbuf_addf(err, "unrecognized option '--%s'", s);
		return -1;
	}
	if (nr > 1) {
		strbuf_addf(err, "option '--%s' is ambiguous; possibilities:", s);
		for (o = opts; o->type != OPTION_END; o++)
			if (o->long_name && !strncmp(o->long_name, s, len))
				strbuf_addf(err, " '--%s'", o->long_name);
		return -1;
	}
	if (!takes_arg(found)) {
		if (eq) {
			strbuf_addf(err, "option '--%s' doesn't allow an argument",
				    found->long_name);
			return -1;
		}
		return take(found, NULL, err);
	}
	if (eq)
		return take(found, eq + 1, err);
	if (arg_optional(found))
		return take(found, NULL, err);
	if (*i + 1 >= argc) {
		strbuf_addf(err, "option '--%s' requires an argument", found->long_name);
		return -1;
	}
	return take(found, argv[++*i], err);
}

/*
 * "-abc" at argv[*i]: flags, the last (or the first taking one) with its
 * argument; as parse_long(), 0, 1 (the parse ends here) or -1
 */
static int parse_short(const char *s, int *i, int argc, char **argv,
		       const struct parse_opt *opts, struct strbuf *err)
{
	for (; *s; s++) {
		const struct parse_opt *o;

		for (o = opts; o->type != OPTION_END; o++)
			if (o->short_name && o->short_name == *s)
				break;
		if (o->type == OPTION_END) {
			strbuf_addf(err, "invalid option -- '%c'", *s);
			return -1;
		}
		if (!takes_arg(o)) {
			int r = take(o, NULL, err);

			if (r)
				return r;
			continue;
		}
		if (s[1])
			return take(o, s + 1, err);
		if (arg_optional(o))
			return take(o, NULL, err);
		if (*i + 1 >= argc) {
			strbuf_addf(err, "option requires an argument -- '%c'", *s);
			return -1;
		}
		return take(o, argv[++*i], err);
	}
	return 0;
}

int parse_options_err(int argc, char **argv, const struct parse_opt *opts,
		      unsigned int flags, struct strbuf *err)
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (flags & PARSE_OPT_STOP_AT_NON_OPTION)
				break;
			argv[n++] = argv[i];
			continue;
		}
		if (a[1] == '-')
			r = parse_long(a + 2, &i, argc, argv, opts, err);
		else
			r = parse_short(a + 1, &i, argc, argv, opts, err);
		if (r < 0)
			return -1;
		if (r) {
			i++;
			break;
		}
	}
	while (i < argc)
		argv[n++] = argv[i++];
	argv[n] = NULL;
	return n;
}

int parse_options(int argc, char **argv, const char *prog,
		  const struct parse_opt *opts)
{
	struct strbuf err = STRBUF_INIT;
	int n = parse_options_err(argc, argv, opts, 0, &err);

	if (n < 0)
		fprintf(stderr, "%s: %s\n(see '%s --help')\n", prog, err.buf, prog);
	strbuf_release(&err);
	return n;
}

/* "--mbox FILE", "-j", "--color[=WHEN]" */
static void synopsis(const struct parse_opt *o, struct strbuf *sb)
{
	opt_name(o, sb);
	if (!takes_arg(o))
		return;
	if (arg_optional(o))
		strbuf_addf(sb, o->long_name ? "[=%s]" : "[%s]", o->argh ? o->argh : "ARG");
	else
		strbuf_addf(sb, " %s", o->argh ? o->argh : "ARG");
}

/* "-m, --mbox FILE", "--color[=WHEN]", "-C N": how the manual names o */
static void row_name(const struct parse_opt *o, struct strbuf *sb)
{
	if (o->short_name && o->long_name)
		strbuf_addf(sb, "-%c, ", o->short_name);
	synopsis(o, sb);
}

/*
 * One line of help filled into lines of at most width columns, each
 * starting with indent; a word longer than that stays whole, two spaces
 * between words (after a full stop) stay two within a line
 */
static void fill(struct strbuf *out, const char *s, size_t len,
		 const char *indent, size_t width)
{
	size_t col = 0, i = 0, ilen = strlen(indent);

	while (i < len) {
		size_t start, wlen, gap = 0;

		while (i < len && s[i] == ' ') {
			i++;
			gap++;
		}
		if (i >= len)
			break;
		gap = gap > 1 ? 2 : 1;
		start = i;
		while (i < len && s[i] != ' ')
			i++;
		wlen = text_width(s + start, i - start);
		if (col && col + gap + wlen > width) {
			strbuf_addch(out, '\n');
			col = 0;
		}
		if (!col) {
			strbuf_addstr(out, indent);
			col = ilen;
		} else {
			strbuf_addf(out, "%.*s", (int)gap, "  ");
			col += gap;
		}
		strbuf_add(out, s + start, i - start);
		col += wlen;
	}
	strbuf_addch(out, '\n');
}

void parse_options_help(const struct parse_opt *opts, struct strbuf *out)
{
	const struct parse_opt *o;

	for (o = opts; o->type != OPTION_END; o++) {
		const char *p = o->help ? o->help : "";

		strbuf_addstr(out, "    ");
		row_name(o, out);
		strbuf_addch(out, '\n');
		while (*p) {
			const char *nl = strchrnul(p, '\n');

			if (nl == p)			/* a blank line */
				strbuf_addch(out, '\n');
			else if (*p == ' ')		/* kept as it is */
				strbuf_addf(out, "        %.*s\n", (int)(nl - p), p);
			else
				fill(out, p, nl - p, "        ", PARSE_OPT_HELP_WIDTH);
			p = *nl ? nl + 1 : nl;
		}
	}
}
