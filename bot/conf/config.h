/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Configuration in git-config syntax (the files b4 users know), read
 * with libgit2's config parser (through bot/git/git.c).  Every key lorebot
 * understands is in one list (config-keys.h) with its type, default and
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

#include <stdbool.h>
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

/*
 * The typed value of each key, one field per CFG_KEY() of config-keys.h,
 * named by its id (config_v(cfg)->build_jobs is "build.jobs"): STRING and PATH
 * const char * (NULL when unset without a default), ENUM const char *
 * spelt as in the table's choices (a value is matched case-insensitively
 * and given back as the table spells it, so strcmp(v, "all") works), BOOL
 * bool, INT int64_t, SIZE uint64_t bytes, DURATION uint64_t milliseconds,
 * LIST struct cfg_list.  Strings and arrays belong to the config: valid
 * until config_release() or the next config_parse().
 */
struct cfg_list {
	const char **v;		/* the values in order, else the default */
	size_t nr;
};

#define CFG_CTYPE_STRING const char *
#define CFG_CTYPE_PATH const char *
#define CFG_CTYPE_ENUM const char *
#define CFG_CTYPE_BOOL bool
#define CFG_CTYPE_INT int64_t
#define CFG_CTYPE_SIZE uint64_t
#define CFG_CTYPE_DURATION uint64_t
#define CFG_CTYPE_LIST struct cfg_list

struct config_values {
#define CFG_KEY(id, name, type, def, choices, help) CFG_CTYPE_##type id;
#define CFG_SUBKEY(id, name, type, def, choices, help)
#include "bot/conf/config-keys.h"
};

/* A key of a section, for a table that names one: CFG_ID_build_sparse */
enum cfg_id {
#define CFG_KEY(id, name, type, def, choices, help) CFG_ID_##id,
#define CFG_SUBKEY(id, name, type, def, choices, help)
#include "bot/conf/config-keys.h"
	CFG_ID_NR
};

/* A key of a subsection: CFG_SUB_list_url is "list.*.url" */
enum cfg_sub {
#define CFG_KEY(id, name, type, def, choices, help)
#define CFG_SUBKEY(id, name, type, def, choices, help) CFG_SUB_##id,
#include "bot/conf/config-keys.h"
	CFG_SUB_NR
};

struct config_entry {
	char *name;
	char *value;		/* NULL for a bare "key" (boolean true) */
	char *file;
	int line;		/* 0 when not known */
};

struct config {
	struct config_entry *e;
	size_t nr, alloc;
	bool parsed;		/* v is the entries' (config_parse()) */
	struct config_values v;	/* read through config_v() */
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
 * config_load_file(), then config_parse(): a value its key cannot take
 * is an error, -1 with a line "file:line: bad value ..." in err for
 * each (never the default in its place).  Unknown keys are
 * config_check()'s business.
 */
int config_load_strict(struct config *cfg, const char *path, struct strbuf *err);
/*
 * Add or override one value (command-line options).  The values are
 * parsed again by the next config_parse(); config_v() refuses them before.
 */
void config_set(struct config *cfg, const char *name, const char *value);
/* The same, the value from file:line (one config copied into another) */
void config_set_at(struct config *cfg, const char *name, const char *value,
		   const char *file, int line);
/*
 * Check every value of a known key and parse the last of each (else its
 * default) into cfg->v: 0, or -1 with "file:line: bad value '...' for
 * 'key': why" lines in err (also what a subsection's key is set to; err
 * may be NULL).  A config that failed is not read: config_v() refuses it.
 * Every front end calls it once its files and command line are read.
 */
int config_parse(struct config *cfg, struct strbuf *err);

/*
 * The parsed values (NULL: every default).  Calling it before
 * config_parse(), or after a config_set() not parsed since, is a bug: it
 * aborts, rather than hand out defaults in place of what is set.
 */
const struct config_values *config_v(const struct config *cfg);

/*
 * Check every entry against the key table.  Appends one line per problem
 * ("file:line: unknown key 'x.y'") to report; returns the number.
 */
int config_check(const struct config *cfg, struct strbuf *report);

/* The table entry for a name, or NULL */
const struct cfg_key *config_find_key(const char *name);
/* The table entry of a key, of a subsection's key */
const struct cfg_key *config_key(enum cfg_id id);
const struct cfg_key *config_sub_key(enum cfg_sub id);

/*
 * A value by a name given at run time ("lorebot config --get KEY"): the
 * last value set, else the table default, else NULL.  The code reads
 * config_v() and config_sub*(), whose ids a misspelling does not compile.
 */
const char *config_lookup(const struct config *cfg, const char *name);

/*
 * A key of subsection sub ("linux-mm" for list.linux-mm.url; its case
 * counts, as in git, the section's and key's do not): the last value set,
 * else the default, else NULL (so a key without a default is NULL when
 * unset).  An ENUM is spelt as the table does.
 */
const char *config_sub(const struct config *cfg, enum cfg_sub id, const char *sub);
/* The same, parsed; false, 0 when unset and without default */
bool config_sub_bool(const struct config *cfg, enum cfg_sub id, const char *sub);
int64_t config_sub_int(const struct config *cfg, enum cfg_sub id, const char *sub);
uint64_t config_sub_size(const struct config *cfg, enum cfg_sub id, const char *sub);
uint64_t config_sub_ms(const struct config *cfg, enum cfg_sub id, const char *sub);
/* All values of a LIST key of sub, in order; caller frees the array */
size_t config_sub_all(const struct config *cfg, enum cfg_sub id, const char *sub,
		      const char ***values);
/*
 * Distinct subsections of id's section that set any key ("list" ->
 * "linux-mm"), in the order first set; caller frees the names and array.
 */
size_t config_subsections(const struct config *cfg, enum cfg_sub id, char ***names);

/* A copy of a list's array (the strings stay the config's); caller frees */
const char **config_list_copy(const struct cfg_list *l);

/* Typed reads by id, for tables that name a key (ci/kcheck.c) */
bool config_id_bool(const struct config *cfg, enum cfg_id id);
const struct cfg_list *config_id_list(const struct config *cfg, enum cfg_id id);
const char *config_id_str(const struct config *cfg, enum cfg_id id);

/*
 * The cache directory (kernel trees, build directories, check's
 * checkpatch.pl and mm.git): $LOREBOT_CACHE, else core.cachedir, else
 * /var/cache/lorebot as root, else $XDG_CACHE_HOME/lorebot or
 * ~/.cache/lorebot.  Caller frees.
 */
char *config_cachedir(const struct config *cfg);

/* Print the key table as documentation (lorebot config --list-keys) */
void config_describe_keys(struct strbuf *sb);

#endif
