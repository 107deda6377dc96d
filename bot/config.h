/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Configuration in git-config syntax (the files b4 users know), read
 * with libgit2's config parser (through bot/git.c).  Every key lorebot
 * understands is in one table (config-keys.c) with its type, default and
 * help; config/lorebot.conf is the self-documenting example and
 * "lorebot config --check FILE" reports "file:line: message" for unknown
 * keys and bad values.
 *
 * Names: "section.key" or "section.subsection.key"; in the table, a
 * subsection is written "*" ("list.*.url").  Section and key names are
 * case-insensitive, subsections are not (as in git).
 */
#ifndef LOREBOT_CONFIG_H
#define LOREBOT_CONFIG_H

#include <stdint.h>

#include "lib/strbuf.h"

enum cfg_type {
	CFG_STRING,
	CFG_PATH,
	CFG_BOOL,
	CFG_INT,
	CFG_SIZE,	/* 16m, 512k */
	CFG_DURATION,	/* 90s, 10m, 2h; plain numbers are seconds */
	CFG_ENUM,	/* one of choices, "a|b|c" */
	CFG_LIST,	/* multi-valued: every line counts */
};

struct cfg_key {
	const char *name;
	enum cfg_type type;
	const char *def;
	const char *choices;
	const char *help;
};

extern const struct cfg_key cfg_keys[];
extern const size_t cfg_keys_nr;

struct config_entry {
	char *name;
	char *value;		/* NULL for a bare "key" (boolean true) */
	char *file;
	int line;		/* 0 when not known */
};

struct config {
	struct config_entry *e;
	size_t nr, alloc;
};

#define CONFIG_INIT { 0 }

void config_release(struct config *cfg);

/* Read a git-config file; 0, or -1 with a "file:line: message" in err. */
int config_load_file(struct config *cfg, const char *path, struct strbuf *err);
/*
 * Read the user's and (with repo_dir) a repository's git configuration,
 * keeping keys under prefix ("lorebot.") with the prefix removed.
 */
int config_load_git(struct config *cfg, const char *repo_dir,
		    const char *prefix, struct strbuf *err);
/*
 * config_load_file(), and a value its key cannot take is an error: -1
 * with a line "file:line: bad value ..." in err for each (never the
 * default in its place).  Unknown keys are config_check()'s business.
 */
int config_load_strict(struct config *cfg, const char *path, struct strbuf *err);
/* Add or override one value (command-line options). */
void config_set(struct config *cfg, const char *name, const char *value);

/*
 * Check every entry against the key table.  Appends one line per problem
 * ("file:line: unknown key 'x.y'") to report; returns the number.
 */
int config_check(const struct config *cfg, struct strbuf *report);

/* The table entry for a name, or NULL */
const struct cfg_key *config_find_key(const char *name);

/* Last value set, else the table default, else NULL */
const char *config_get(const struct config *cfg, const char *name);
bool config_get_bool(const struct config *cfg, const char *name);
int64_t config_get_int(const struct config *cfg, const char *name);
uint64_t config_get_size(const struct config *cfg, const char *name);
uint64_t config_get_ms(const struct config *cfg, const char *name);
/* All values of a multi-valued key, in order; caller frees the array */
size_t config_get_all(const struct config *cfg, const char *name,
		      const char ***values);
/* Distinct subsections of a section ("list" -> "linux-mm"); caller frees */
size_t config_subsections(const struct config *cfg, const char *section,
			  char ***names);

/* Print the key table as documentation (lorebot config --list-keys) */
void config_describe_keys(struct strbuf *sb);

#endif
