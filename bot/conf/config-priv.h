/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the two halves of the configuration module: bot/conf/config.c
 * (files, entries, the table's checks) and bot/conf/config-values.c (the
 * typed values).  Nothing else includes it.
 */
#ifndef LOREBOT_CONFIG_PRIV_H
#define LOREBOT_CONFIG_PRIV_H

#include "bot/conf/config.h"

/* NULL when value v is fine for key k, else what is wrong */
const char *config_value_problem(const struct cfg_key *k, const char *v);
/* The choice v is, as choices ("a|b|c") spells it, its length in *len; or NULL */
const char *config_choice(const char *choices, const char *v, size_t *len);
/* Does table name "list.*.url" match "list.linux-mm.url"? */
bool config_key_matches(const char *pattern, const char *name);
/*
 * Is an entry's (normalised) name this name?  Section and key case-
 * insensitive, the subsection not.
 */
bool config_name_eq(const char *entry, const char *name);
/*
 * Every entry of a known key checked (and with unknown, unknown keys
 * reported); one "file:line: ..." line per problem, the number returned.
 */
int config_check_entries(const struct config *cfg, bool unknown, struct strbuf *report);
/* Free what config_parse() allocated in cfg->v */
void config_values_free(struct config *cfg);

#endif
