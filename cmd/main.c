// SPDX-License-Identifier: GPL-2.0
/*
 * lorebot: a lore-based patch review and CI bot for the Linux mm tree.
 * This is the front door: global options, then a git-style subcommand
 * from the command table.  Only main() exits; everything else returns.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "lib/log.h"
#include "lib/run.h"
#include "bot/stage/stage.h"
#include "bot/store/store.h"
#include "bot/base/version.h"

/* The flags: what main() opens for the command (cmd/cmd.h) */
static const struct cmd commands[] = {
	{ "help", cmd_help, "show help for lorebot or a command", cmd_help_help, 0 },
	{ "version", cmd_version, "print the version", cmd_version_help, 0 },
	{ "config", cmd_config, "check a configuration file, list the keys",
	  cmd_config_help, 0 },
	{ "series", cmd_series, "list the patch series in an mbox or the database",
	  cmd_series_help, 0 },
	{ "check", cmd_check, "review a branch or an mbox: mm rules, checkpatch, typos",
	  cmd_check_help, 0 },
	{ "fetch", cmd_fetch, "follow lists on lore into the database", cmd_fetch_help, 0 },
	{ "db", cmd_db, "maintain the database: assemble every series again", cmd_db_help,
	  CMD_STORE },
	{ "show", cmd_show, "show a stored message or series", cmd_show_help, CMD_STORE },
	{ "record", cmd_record, "record a stage result for a series version",
	  cmd_record_help, CMD_STORE },
	{ "reply", cmd_reply, "mail the replies that are due (or file them)",
	  cmd_reply_help, CMD_STORE },
	{ "serve", cmd_serve, "the dashboard and JSON API over HTTP", cmd_serve_help, 0 },
	{ "mailinfo", cmd_mailinfo, "read a patch mail as git mailinfo, or compare with it",
	  cmd_mailinfo_help, 0 },
	{ "apply", cmd_apply, "apply a series to the kernel tree, or say why not",
	  cmd_apply_help, 0 },
	{ "daemon", cmd_daemon, "follow lore, test every new version, reply",
	  cmd_daemon_help, 0 },
	{ "status", cmd_status, "the daemon's queue, lists and recent results",
	  cmd_status_help, CMD_STORE },
	{ "job", cmd_job, "run one job of the daemon's queue, list the queue",
	  cmd_job_help, 0 },
	{ "build", cmd_build, "build each patch of a series for x86_64, arm64, riscv",
	  cmd_build_help, 0 },
	{ "boot", cmd_boot, "boot a series' kernels in qemu, run the mm kselftests",
	  cmd_boot_help, 0 },
	{ "reproduce", cmd_reproduce, "make a report's build diagnostic again, here",
	  cmd_reproduce_help, 0 },
	{ "patchwork", cmd_patchwork, "post the patchwork checks that are due",
	  cmd_patchwork_help, CMD_STORE },
	{ "export", cmd_export, "the results as KCIDB v5.3 documents", cmd_export_help,
	  CMD_STORE },
	{ "b4-check", cmd_b4_check, "lorebot's verdicts as b4 review's CI checks",
	  cmd_b4_check_help, 0 },
};

const struct cmd *cmd_table(size_t *nr)
{
	*nr = ARRAY_SIZE(commands);
	return commands;
}

const struct cmd *cmd_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* -h or --help among the arguments (before "--"), wherever it is */
static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

/* Whether a command printed its manual: main() checks that it did */
static bool help_printed;

/*
 * The manual of a command: its text (struct cmd's help), the rows of
 * its option table at the end of the text's OPTIONS section, before the
 * next heading (a section of their own when the text has none)
 */
static void print_help(const struct cmd *c, const struct parse_opt *opts)
{
	struct strbuf sb = STRBUF_INIT, rows = STRBUF_INIT;
	const char *text = c->help, *sect, *end;

	parse_options_help(opts, &rows);
	sect = !strncmp(text, "OPTIONS\n", 8) ? text : strstr(text, "\nOPTIONS\n");
	if (!rows.len) {
		strbuf_addstr(&sb, text);
	} else if (!sect) {
		strbuf_addf(&sb, "%s\nOPTIONS\n%s", text, rows.buf);
	} else {
		/* the next heading: a line that starts with neither blank nor newline */
		end = strchr(sect + 1, '\n') + 1;
		while (*end && (*end == ' ' || *end == '\n')) {
			end = strchrnul(end, '\n');
			if (*end)
				end++;
		}
		/* the section's own text ends before its blank lines */
		while (end[-1] == '\n' && end[-2] == '\n')
			end--;
		strbuf_add(&sb, text, end - text);
		strbuf_addbuf(&sb, &rows);
		strbuf_addstr(&sb, end);
	}
	fputs(sb.buf, stdout);
	help_printed = true;
	strbuf_release(&sb);
	strbuf_release(&rows);
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lorebot %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'lorebot %s --help')\n", cmd);
	return EXIT_USAGE;
}

int cmd_config_error(const struct strbuf *err)
{
	const char *p = err->buf;

	while (*p) {
		const char *nl = strchrnul(p, '\n');

		fprintf(stderr, "lorebot: %.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
	return EXIT_USAGE;
}

int cmd_parse_options(int argc, char **argv, const char *cmd,
		      const struct parse_opt *opts, int max)
{
	const struct cmd *c = cmd_lookup(cmd);
	char *prog;
	int n;

	if (c && wants_help(argc, argv)) {
		print_help(c, opts);
		return -1;
	}
	prog = xasprintf("lorebot %s", cmd);
	n = parse_options(argc, argv, prog, opts);
	free(prog);
	if (max != CMD_ANY_ARGS && n > max) {
		cmd_usage_error(cmd, "unexpected argument '%s'", argv[max]);
		return -1;
	}
	return n;
}

static const char main_usage[] =
	"usage: lorebot [--config FILE] [--db FILE] [--hide PATH]... [-v | -q] <command> "
	"[<args>]\n";

/* The usage, the command table, and the global options with their help */
static void print_commands(FILE *f, const struct parse_opt *global)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	fputs(main_usage, f);
	fputs("\ncommands:\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	if (global) {
		parse_options_help(global, &sb);
		fprintf(f, "\nglobal options (before the command):\n%s", sb.buf);
		strbuf_release(&sb);
	}
	fputs("\n'lorebot help <command>' or 'lorebot <command> --help' tells more.\n", f);
}

const char cmd_help_help[] =
	"NAME\n"
	"    lorebot-help - show help for lorebot or one of its commands\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot help [<command>]\n"
	"\n"
	"DESCRIPTION\n"
	"    Without a command, lists the commands and the global options. With\n"
	"    one, prints its manual, the same text as 'lorebot <command> --help'.\n";

int cmd_help(int argc, char **argv, struct ctx *ctx)
{
	const struct parse_opt opts[] = { OPT_END() };
	const struct cmd *c;
	char *av[3];
	int ret;

	argc = cmd_parse_options(argc, argv, "help", opts, 1);
	if (argc < 0)
		return EXIT_USAGE;
	if (!argc) {
		print_commands(stdout, ctx->global_opts);
		return EXIT_OK;
	}
	c = cmd_lookup(argv[0]);
	if (!c) {
		fprintf(stderr, "lorebot: '%s' is not a lorebot command\n", argv[0]);
		return EXIT_USAGE;
	}
	/* what 'lorebot <command> --help' prints, from the command's table */
	av[0] = xstrdup(c->name);
	av[1] = xstrdup("--help");
	av[2] = NULL;
	help_printed = false;
	c->fn(2, av, ctx);
	ret = help_printed ? EXIT_OK : EXIT_INFRA;
	if (!help_printed)
		fprintf(stderr, "lorebot: BUG: '%s' printed no manual for --help\n", c->name);
	free(av[0]);
	free(av[1]);
	return ret;
}

const char cmd_version_help[] =
	"NAME\n"
	"    lorebot-version - print the version of lorebot and its libraries\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot version\n";

int cmd_version(int argc, char **argv, struct ctx *ctx)
{
	const struct parse_opt opts[] = { OPT_END() };

	(void)ctx;
	if (cmd_parse_options(argc, argv, "version", opts, 0) < 0)
		return EXIT_USAGE;
	printf("lorebot %s\n", version_string());
	return EXIT_OK;
}

/*
 * What no sandbox of this process may see: the state directory, the
 * database (and SQLite's files beside it), the configuration and the
 * SMTP credentials, where ever they are (issue 18: a build read --db
 * FILE and core.db; a sandbox runs as the daemon's uid, which owns them)
 */
static void hide_state(const struct ctx *ctx, const struct config *cfg)
{
	static const char *const sqlite_files[] = { "", "-wal", "-shm", "-journal" };
	size_t i;

	run_hide_always(config_v(cfg)->core_statedir);
	run_hide_always(ctx->config_path);
	run_hide_always(config_v(cfg)->smtp_credentials);
	if (!ctx->db_path)
		return;
	for (i = 0; i < ARRAY_SIZE(sqlite_files); i++) {
		char *f = xasprintf("%s%s", ctx->db_path, sqlite_files[i]);

		run_hide_always(f);
		free(f);
	}
}

int main(int argc, char **argv)
{
	struct config cfg = CONFIG_INIT;
	struct ctx ctx = { .cfg = &cfg };
	struct strbuf err = STRBUF_INIT;
	struct opt_strings hide = { 0 };
	struct store st;
	const struct cmd *c;
	bool help = false, version = false;
	size_t i;
	int level = -1, ret;
	/* -h and --version act at once, whatever follows them */
	const struct parse_opt opts[] = {
		OPT_STRING('c', "config", &ctx.config_path, "FILE",
			   "read the configuration, in git-config syntax, from FILE (see "
			   "lorebot.conf(5)).  Without it every key has its default"),
		OPT_STRING('d', "db", &ctx.db_path, "FILE",
			   "the state database (SQLite); default core.db, else "
			   "<core.statedir>/lorebot.db where a command needs one"),
		OPT_STRING_LIST(0, "hide", &hide, "PATH",
				"a path no sandbox of this command may see (repeatable), besides "
				"the state directory, the database, the configuration and the "
				"credentials it hides anyway.  The daemon's job runner gives each "
				"stage command its state directory and outbox this way"),
		OPT_SET_INT('v', "verbose", &level, "more messages on stderr (debug)",
			    LOG_LVL_DEBUG),
		OPT_SET_INT('q', "quiet", &level,
			    "fewer messages on stderr (warnings and errors only)", LOG_LVL_WARN),
		OPT_BOOL_F('h', "help", &help, "list the commands and these options",
			   PARSE_OPT_LAST),
		OPT_BOOL_F('V', "version", &version, "print the version", PARSE_OPT_LAST),
		OPT_END(),
	};

	/* the stages, to the layers below that read them (bot/results/plan.h) */
	stage_register();
	ctx.global_opts = opts;
	/* stop at the first non-option: the command */
	argc = parse_options_err(argc, argv, opts, PARSE_OPT_STOP_AT_NON_OPTION, &err);
	/* what the daemon hands a stage: its state directory, its outbox */
	for (i = 0; argc >= 0 && i < hide.nr; i++)
		run_hide_always(hide.v[i]);
	parse_opt_strings_release(&hide);
	if (argc < 0) {
		fprintf(stderr, "lorebot: %s\n", err.buf);
		fputs(main_usage, stderr);
		strbuf_release(&err);
		return EXIT_USAGE;
	}
	strbuf_release(&err);
	if (level >= 0)
		log_set_level(level);
	if (help) {
		print_commands(stdout, opts);
		return EXIT_OK;
	}
	if (version) {
		printf("lorebot %s\n", version_string());
		return EXIT_OK;
	}
	if (!argc) {
		print_commands(stderr, NULL);
		return EXIT_USAGE;
	}
	c = cmd_lookup(argv[0]);
	if (!c) {
		fprintf(stderr, "lorebot: '%s' is not a lorebot command; see 'lorebot help'\n",
			argv[0]);
		return EXIT_USAGE;
	}
	/* a value its key cannot take stops here, every one named */
	if (ctx.config_path ? config_load_strict(&cfg, ctx.config_path, &err) :
	    config_parse(&cfg, &err)) {
		ret = cmd_config_error(&err);
		strbuf_release(&err);
		config_release(&cfg);
		return ret;
	}
	if (!ctx.db_path)
		ctx.db_path = config_v(&cfg)->core_db;
	hide_state(&ctx, &cfg);
	if (wants_help(argc, argv)) {
		/*
		 * the command prints its manual, text and option table, from
		 * cmd_parse_options() (git's "-h"): it opens nothing before
		 */
		c->fn(argc, argv, &ctx);
		config_release(&cfg);
		if (!help_printed) {
			fprintf(stderr, "lorebot: BUG: '%s' printed no manual for --help\n",
				c->name);
			return EXIT_INFRA;
		}
		return EXIT_OK;
	}
	if (c->flags & CMD_STORE) {
		ret = cmd_open_store(&ctx, &st, false);
		if (ret) {
			config_release(&cfg);
			return ret;
		}
		ctx.st = &st;
	}
	ret = c->fn(argc, argv, &ctx);
	if (ctx.st)
		store_close(ctx.st);
	config_release(&cfg);
	return ret;
}
