// SPDX-License-Identifier: GPL-2.0
/*
 * The typed values: config_parse() reads the entries once into struct
 * config_values (cfg->v, through config_v()); config_sub*() read a
 * subsection's key by its id.  The layout of both comes from
 * bot/conf/config-keys.h.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/conf/config-priv.h"

/* Every key's place in cfg_keys[], which is config-keys.h's order */
enum {
#define CFG_KEY(id, name, type, def, choices, help) IX_K_##id,
#define CFG_SUBKEY(id, name, type, def, choices, help) IX_S_##id,
#include "bot/conf/config-keys.h"
	IX_NR
};

static const struct {
	unsigned int ix;	/* in cfg_keys[] */
	size_t off;		/* of its field in struct config_values */
} plain[CFG_ID_NR] = {
#define CFG_KEY(id, name, type, def, choices, help) \
	[CFG_ID_##id] = { IX_K_##id, offsetof(struct config_values, id) },
#define CFG_SUBKEY(id, name, type, def, choices, help)
#include "bot/conf/config-keys.h"
};

static const unsigned int sub_ix[CFG_SUB_NR] = {
#define CFG_KEY(id, name, type, def, choices, help)
#define CFG_SUBKEY(id, name, type, def, choices, help) [CFG_SUB_##id] = IX_S_##id,
#include "bot/conf/config-keys.h"
};

const struct cfg_key *config_key(enum cfg_id id)
{
	return &cfg_keys[plain[id].ix];
}

const struct cfg_key *config_sub_key(enum cfg_sub id)
{
	return &cfg_keys[sub_ix[id]];
}

/*
 * An ENUM's value as the table spells it: a copy of the choices with
 * each "|" a NUL, made once per key (config_parse() makes them all,
 * before any thread could ask), and kept.
 */
static const char *canonical(const struct cfg_key *k, const char *v)
{
	static char *split[IX_NR];
	size_t ix = (size_t)(k - cfg_keys), len, i;
	const char *p = config_choice(k->choices, v, &len);

	if (!p)
		return v;
	if (!split[ix]) {
		split[ix] = xstrdup(k->choices);
		for (i = 0; split[ix][i]; i++)
			if (split[ix][i] == '|')
				split[ix][i] = '\0';
	}
	return split[ix] + (p - k->choices);
}

/* The last entry of exactly this (normalised) name, or NULL */
static const struct config_entry *last_entry(const struct config *cfg,
					     const char *name)
{
	size_t i = cfg ? cfg->nr : 0;

	while (i--)
		if (!strcmp(cfg->e[i].name, name))
			return &cfg->e[i];
	return NULL;
}

/* Every value of a list key (else its default); the array is the caller's */
static size_t all_values(const struct config *cfg, const struct cfg_key *k,
			 const char *name, const char ***values)
{
	const char **v = NULL;
	size_t i, nr = 0, alloc = 0;

	for (i = 0; cfg && i < cfg->nr; i++) {
		if (strcmp(cfg->e[i].name, name) || !cfg->e[i].value)
			continue;
		ALLOC_GROW(v, nr + 1, alloc);
		v[nr++] = cfg->e[i].value;
	}
	if (!nr && k->def) {
		v = xmalloc(sizeof(*v));
		v[nr++] = k->def;
	}
	*values = v;
	return nr;
}

/* s, a value config_value_problem() passed (NULL: a bare key), into f */
static void parse_value(const struct cfg_key *k, const char *s, void *f)
{
	bool b = true;

	switch (k->type) {
	case CFG_STRING:
	case CFG_PATH:
		*(const char **)f = s;
		break;
	case CFG_ENUM:
		*(const char **)f = s ? canonical(k, s) : NULL;
		break;
	case CFG_BOOL:
		if (s)
			util_parse_bool(s, &b);
		*(bool *)f = b;
		break;
	case CFG_INT:
		*(int64_t *)f = s ? strtoll(s, NULL, 10) : 0;
		break;
	case CFG_SIZE:
		if (s)
			util_parse_size(s, f);
		break;
	case CFG_DURATION:
		if (s)
			util_parse_duration_ms(s, f);
		break;
	case CFG_LIST:
		break;
	}
}

static void parse_key(struct config *cfg, enum cfg_id id)
{
	const struct cfg_key *k = config_key(id);
	void *f = (char *)&cfg->v + plain[id].off;
	const struct config_entry *e;

	if (k->type == CFG_ENUM)
		canonical(k, k->choices);	/* made before any thread runs */
	if (k->type == CFG_LIST) {
		struct cfg_list *l = f;

		l->nr = all_values(cfg, k, k->name, &l->v);
		return;
	}
	e = last_entry(cfg, k->name);
	if (e)
		parse_value(k, e->value, f);
	else if (k->def)
		parse_value(k, k->def, f);
}

void config_values_free(struct config *cfg)
{
	size_t i;

	for (i = 0; i < CFG_ID_NR; i++) {
		if (config_key(i)->type != CFG_LIST)
			continue;
		free(((struct cfg_list *)((char *)&cfg->v + plain[i].off))->v);
	}
	memset(&cfg->v, 0, sizeof(cfg->v));
	cfg->parsed = false;
}

int config_parse(struct config *cfg, struct strbuf *err)
{
	struct strbuf none = STRBUF_INIT;
	size_t i;

	config_values_free(cfg);
	if (config_check_entries(cfg, false, err ? err : &none)) {
		if (err)
			strbuf_trim(err);
		strbuf_release(&none);
		return -1;
	}
	for (i = 0; i < CFG_ID_NR; i++)
		parse_key(cfg, i);
	cfg->parsed = true;
	return 0;
}

const struct config_values *config_v(const struct config *cfg)
{
	static struct config defaults = CONFIG_INIT;

	if (!cfg) {
		if (!defaults.parsed) {
			config_parse(&defaults, NULL);
		}
		return &defaults.v;
	}
	if (!cfg->parsed) {
		fputs("lorebot: BUG: a configuration read before config_parse()\n", stderr);
		abort();
	}
	return &cfg->v;
}

const char **config_list_copy(const struct cfg_list *l)
{
	const char **v;

	if (!l->nr)
		return NULL;
	v = xcalloc(l->nr, sizeof(*v));
	memcpy(v, l->v, l->nr * sizeof(*v));
	return v;
}

static const void *id_field(const struct config *cfg, enum cfg_id id,
			    enum cfg_type type)
{
	if (config_key(id)->type != type) {
		fprintf(stderr, "lorebot: BUG: '%s' read as another type\n",
			config_key(id)->name);
		abort();
	}
	return (const char *)config_v(cfg) + plain[id].off;
}

bool config_id_bool(const struct config *cfg, enum cfg_id id)
{
	return *(const bool *)id_field(cfg, id, CFG_BOOL);
}

const struct cfg_list *config_id_list(const struct config *cfg, enum cfg_id id)
{
	return id_field(cfg, id, CFG_LIST);
}

const char *config_id_str(const struct config *cfg, enum cfg_id id)
{
	enum cfg_type t = config_key(id)->type;

	return *(const char *const *)id_field(cfg, id, t == CFG_PATH || t == CFG_ENUM ?
					      t : CFG_STRING);
}

/* "list.*.url" of "linux-mm": "list.linux-mm.url" (the table is lowercase) */
static char *sub_name(const struct cfg_key *k, const char *sub)
{
	const char *star = strstr(k->name, ".*.");

	return xasprintf("%.*s.%s.%s", (int)(star - k->name), k->name, sub, star + 3);
}

const char *config_sub(const struct config *cfg, enum cfg_sub id, const char *sub)
{
	const struct cfg_key *k = config_sub_key(id);
	char *name = sub_name(k, sub);
	const struct config_entry *e = last_entry(cfg, name);
	const char *s = k->def;

	free(name);
	/* config_parse() refused a bad value before anyone asks */
	if (e && !config_value_problem(k, e->value))
		s = e->value ? e->value : "true";
	if (s && k->type == CFG_ENUM)
		s = canonical(k, s);
	return s;
}

/*
 * A subsection key's value, parsed as parse_value() parses a plain key's
 * into f; false when the key is not of the type the caller reads (f is
 * then left as the caller set it)
 */
static bool sub_value(const struct config *cfg, enum cfg_sub id, const char *sub,
		      enum cfg_type type, void *f)
{
	const struct cfg_key *k = config_sub_key(id);
	char *name;
	const struct config_entry *e;

	if (k->type != type)
		return false;
	name = sub_name(k, sub);
	e = last_entry(cfg, name);
	free(name);
	/* config_parse() refused a bad value before anyone asks */
	if (e && !config_value_problem(k, e->value))
		parse_value(k, e->value, f);
	else if (k->def)
		parse_value(k, k->def, f);
	return true;
}

bool config_sub_bool(const struct config *cfg, enum cfg_sub id, const char *sub)
{
	bool b = false;

	sub_value(cfg, id, sub, CFG_BOOL, &b);
	return b;
}

int64_t config_sub_int(const struct config *cfg, enum cfg_sub id, const char *sub)
{
	int64_t i = 0;

	sub_value(cfg, id, sub, CFG_INT, &i);
	return i;
}

uint64_t config_sub_size(const struct config *cfg, enum cfg_sub id, const char *sub)
{
	uint64_t u = 0;

	sub_value(cfg, id, sub, CFG_SIZE, &u);
	return u;
}

uint64_t config_sub_ms(const struct config *cfg, enum cfg_sub id, const char *sub)
{
	uint64_t u = 0;

	sub_value(cfg, id, sub, CFG_DURATION, &u);
	return u;
}

size_t config_sub_all(const struct config *cfg, enum cfg_sub id, const char *sub,
		      const char ***values)
{
	const struct cfg_key *k = config_sub_key(id);
	char *name = sub_name(k, sub);
	size_t nr = all_values(cfg, k, name, values);

	free(name);
	return nr;
}

size_t config_subsections(const struct config *cfg, enum cfg_sub id, char ***names)
{
	const char *section = config_sub_key(id)->name;
	size_t slen = strchr(section, '.') - section;
	char **out = NULL;
	size_t i, j, nr = 0, alloc = 0;

	for (i = 0; cfg && i < cfg->nr; i++) {
		const char *n = cfg->e[i].name;
		const char *last = strrchr(n, '.');
		char *sub;

		if (strncmp(n, section, slen) || n[slen] != '.' || last == n + slen)
			continue;
		sub = xstrndup(n + slen + 1, last - (n + slen + 1));
		for (j = 0; j < nr; j++)
			if (!strcmp(out[j], sub))
				break;
		if (j < nr) {
			free(sub);
			continue;
		}
		ALLOC_GROW(out, nr + 1, alloc);
		out[nr++] = sub;
	}
	*names = out;
	return nr;
}

char *config_cachedir(const struct config *cfg)
{
	const char *v = getenv("LOREBOT_CACHE");

	if (v && *v)
		return xstrdup(v);
	v = config_v(cfg)->core_cachedir;
	if (v && *v)
		return xstrdup(v);
	if (!geteuid())
		return xstrdup("/var/cache/lorebot");
	v = getenv("XDG_CACHE_HOME");
	if (v && *v)
		return xasprintf("%s/lorebot", v);
	v = getenv("HOME");
	return xasprintf("%s/.cache/lorebot", v && *v ? v : "/tmp");
}
