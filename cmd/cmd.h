/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command table: every subcommand is a short cmd_*() front end that
 * parses its options and calls the library core.  Exit codes: 0 success,
 * 1 findings or failure of the thing checked, 2 usage or input error,
 * 3 infrastructure error (network, disk, toolchain).
 */
#ifndef LOREBOT_CMD_H
#define LOREBOT_CMD_H

#include "bot/conf/config.h"

enum {
	EXIT_OK = 0,
	EXIT_FINDINGS = 1,
	EXIT_USAGE = 2,
	EXIT_INFRA = 3,
};

struct store;
struct parse_opt;

struct ctx {
	const char *db_path;		/* --db, or core.db from the config */
	const char *config_path;	/* --config */
	struct config *cfg;		/* always set (defaults when no file) */
	struct store *st;		/* a CMD_STORE command's database, else NULL */
	bool json;
	const struct parse_opt *global_opts;	/* main()'s, for 'lorebot help' */
};

/*
 * What main() opens for a command before it runs, and closes after: with
 * CMD_STORE, the database (--db, else core.db; it must exist) in ctx->st.
 * A command whose need depends on its arguments (series with --mbox, job
 * work on a node) or that creates the database (fetch, daemon: not on a
 * usage error) opens it itself with cmd_open_store().
 */
enum cmd_flags {
	CMD_STORE = 1 << 0,
};

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct ctx *ctx);
	const char *summary;
	/*
	 * The man-page style text of -h/--help, its options aside: the rows
	 * of the command's option table go at the end of its OPTIONS section
	 * (cmd_parse_options()); what is not one option's (an argument, a
	 * note on several) stays in the text
	 */
	const char *help;
	unsigned int flags;		/* enum cmd_flags */
};

#define CMD_DECL(n) int cmd_##n(int argc, char **argv, struct ctx *ctx); \
	extern const char cmd_##n##_help[]

CMD_DECL(help);
CMD_DECL(version);
CMD_DECL(config);
CMD_DECL(series);
CMD_DECL(fetch);
CMD_DECL(show);
CMD_DECL(apply);
CMD_DECL(check);
CMD_DECL(build);
CMD_DECL(boot);
CMD_DECL(reply);
CMD_DECL(serve);
CMD_DECL(daemon);
CMD_DECL(status);
CMD_DECL(job);
CMD_DECL(record);
CMD_DECL(mailinfo);
CMD_DECL(db);
CMD_DECL(b4_check);
CMD_DECL(export);
CMD_DECL(patchwork);
CMD_DECL(reproduce);

/* Open --db (or <core.statedir>/lorebot.db); an EXIT_* code, EXIT_OK on success */
int cmd_open_store(struct ctx *ctx, struct store *st, bool create);

const struct cmd *cmd_lookup(const char *name);
const struct cmd *cmd_table(size_t *nr);

int cmd_usage_error(const char *cmd, const char *fmt, ...) PRINTF(2, 3);
/* Each line of err (config_parse()'s file:line: ...) as "lorebot: line"; EXIT_USAGE */
int cmd_config_error(const struct strbuf *err);

/*
 * parse_options() for "lorebot CMD" (its usage errors name it so), then
 * at most max arguments (CMD_ANY_ARGS: the command counts them): their
 * number, in argv[0..n), or -1 after a usage error on stderr ("unexpected
 * argument 'x'" for the first one too many); the caller returns EXIT_USAGE.
 * With -h or --help among the arguments, the command's manual instead,
 * on stdout, and -1: its text (struct cmd's help) with opts, each option
 * and its help, in its OPTIONS section (parse_options_help()); main()
 * exits 0 then.  So every command parses its options before it does
 * anything else, and a command's options are documented only in opts.
 */
#define CMD_ANY_ARGS (-1)
int cmd_parse_options(int argc, char **argv, const char *cmd,
		      const struct parse_opt *opts, int max);

#endif
