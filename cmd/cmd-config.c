// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"

const char cmd_config_help[] =
	"NAME\n"
	"    lorebot-config - check a configuration file; list the keys lorebot knows\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot config --check FILE\n"
	"    lorebot config --list-keys\n"
	"    lorebot [--config FILE] config --get KEY\n"
	"\n"
	"DESCRIPTION\n"
	"    lorebot reads its configuration in git-config syntax, as b4 does:\n"
	"    sections, subsections in quotes, 'key = value' lines, # comments.\n"
	"    config/lorebot.conf in the source tree documents every key.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when the file is fine, 1 when it has problems, 2 when it cannot be\n"
	"    read or parsed at all, or on a usage error.\n";

int cmd_config(int argc, char **argv, struct ctx *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	struct config cfg = CONFIG_INIT;
	const char *check = NULL, *get = NULL;
	bool list = false;
	int ret = EXIT_OK;
	const struct parse_opt opts[] = {
		OPT_STRING('c', "check", &check, "FILE",
			   "parse FILE and report every unknown key and bad value as 'FILE:LINE: "
			   "message', as a compiler would"),
		OPT_BOOL('l', "list-keys", &list,
			 "print every key with its type, default and meaning"),
		OPT_STRING('g', "get", &get, "KEY",
			   "print the value in effect for KEY (the default when unset)"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "config", opts, CMD_ANY_ARGS);
	if (argc < 0)
		return EXIT_USAGE;
	if (!check && !list && !get)
		return cmd_usage_error("config", "one of --check, --list-keys, --get");
	if (list) {
		config_describe_keys(&sb);
		fputs(sb.buf, stdout);
	}
	if (get) {
		const char *v = config_lookup(ctx->cfg, get);

		if (!config_find_key(get)) {
			fprintf(stderr, "lorebot: unknown key '%s'\n", get);
			ret = EXIT_USAGE;
		} else if (v) {
			puts(v);
		} else {
			ret = EXIT_FINDINGS;
		}
	}
	if (check) {
		strbuf_reset(&sb);
		if (config_load_file(&cfg, check, &sb)) {
			fprintf(stderr, "%s\n", sb.buf);
			ret = EXIT_USAGE;
		} else {
			strbuf_reset(&sb);
			if (config_check(&cfg, &sb)) {
				fputs(sb.buf, stdout);
				ret = EXIT_FINDINGS;
			}
		}
	}
	strbuf_release(&sb);
	config_release(&cfg);
	return ret;
}
