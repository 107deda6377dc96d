// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "bot/conf/config.h"
#include "bot/conf/config-priv.h"
#include "bot/git/gitcfg.h"

void config_release(struct config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nr; i++) {
		free(cfg->e[i].name);
		free(cfg->e[i].value);
		free(cfg->e[i].file);
	}
	free(cfg->e);
	config_values_free(cfg);
	memset(cfg, 0, sizeof(*cfg));
}

/*
 * Normalise a name: section and key lowercased, subsection kept.
 * "List.linux-MM.URL" -> "list.linux-MM.url".
 */
static char *normalise(const char *name)
{
	char *n = xstrdup(name);
	char *first = strchr(n, '.'), *last = strrchr(n, '.');
	char *p;

	for (p = n; *p && (!first || p < first); p++)
		*p = tolower((unsigned char)*p);
	if (last)
		for (p = last; *p; p++)
			*p = tolower((unsigned char)*p);
	return n;
}

bool config_name_eq(const char *entry, const char *name)
{
	char *n = normalise(name);
	bool eq = !strcmp(entry, n);

	free(n);
	return eq;
}

static void add_entry(struct config *cfg, const char *name, const char *value,
		      const char *file, int line)
{
	struct config_entry *e;

	ALLOC_GROW(cfg->e, cfg->nr + 1, cfg->alloc);
	e = &cfg->e[cfg->nr++];
	e->name = normalise(name);
	e->value = xstrdup_or_null(value);
	e->file = xstrdup_or_null(file);
	e->line = line;
}

void config_set_at(struct config *cfg, const char *name, const char *value,
		   const char *file, int line)
{
	add_entry(cfg, name, value, file, line);
	cfg->parsed = false;
}

void config_set(struct config *cfg, const char *name, const char *value)
{
	config_set_at(cfg, name, value, "command line", 0);
}

/*
 * libgit2 gives names and values but no line numbers; find them with a
 * small lexical pass over the file: section headers and key names, in
 * file order, which is also libgit2's order.
 */
struct located {
	char **names;
	int *lines;
	size_t nr, alloc, next;
};

static void locate_keys(const char *path, struct located *loc)
{
	char *buf, *line;
	char section[256] = "";
	size_t len;
	int lineno = 0;
	bool continued = false;

	if (util_read_file(path, &buf, &len, 16 << 20))
		return;
	for (line = buf; line; ) {
		char *nl = strchr(line, '\n');
		char *p = line;

		if (nl)
			*nl = '\0';
		lineno++;
		if (continued) {
			continued = *p && p[strlen(p) - 1] == '\\';
			goto next;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '[') {
			char *end = strchr(p, ']');
			char *q = strchr(p, '"');
			size_t n;

			if (!end)
				goto next;
			if (q && q < end) {
				char *qe = strrchr(p, '"');

				n = snprintf(section, sizeof(section), "%.*s.%.*s",
					     (int)(q - p - 1), p + 1,
					     (int)(qe > q ? qe - q - 1 : 0), q + 1);
			} else {
				n = snprintf(section, sizeof(section), "%.*s",
					     (int)(end - p - 1), p + 1);
			}
			if (n >= sizeof(section))
				section[0] = '\0';
			/* trim spaces inside "[section "sub"]" */
			for (q = section; *q; q++)
				if (*q == ' ' && q[1] != '\0' && q[-1] != '.') {
					memmove(q, q + 1, strlen(q));
					q--;
				}
			p = end + 1;
			while (isspace((unsigned char)*p))
				p++;
			if (!*p || *p == '#' || *p == ';')
				goto next;
		}
		if (isalpha((unsigned char)*p)) {
			char *k = p, *name;

			while (isalnum((unsigned char)*p) || *p == '-')
				p++;
			name = xasprintf("%s.%.*s", section, (int)(p - k), k);
			ALLOC_GROW(loc->names, loc->nr + 1, loc->alloc);
			loc->lines = xrealloc(loc->lines,
					      loc->alloc * sizeof(*loc->lines));
			loc->names[loc->nr] = normalise(name);
			loc->lines[loc->nr++] = lineno;
			free(name);
			continued = p[0] && line[strlen(line) - 1] == '\\';
		}
next:
		if (!nl)
			break;
		line = nl + 1;
	}
	free(buf);
}

static int find_line(struct located *loc, const char *name)
{
	size_t i;

	for (i = loc->next; i < loc->nr; i++) {
		if (!strcasecmp(loc->names[i], name)) {
			loc->next = i + 1;
			return loc->lines[i];
		}
	}
	return 0;
}

struct load_ctx {
	struct config *cfg;
	struct located loc;
	const char *file;
	const char *prefix;
};

static int load_cb(const char *name, const char *value, void *data)
{
	struct load_ctx *lc = data;

	if (lc->prefix) {
		if (strncasecmp(name, lc->prefix, strlen(lc->prefix)))
			return 0;
		name += strlen(lc->prefix);
	}
	add_entry(lc->cfg, name, value, lc->file,
		  lc->loc.names ? find_line(&lc->loc, name) : 0);
	return 0;
}

static void located_release(struct located *loc)
{
	size_t i;

	for (i = 0; i < loc->nr; i++)
		free(loc->names[i]);
	free(loc->names);
	free(loc->lines);
}

int config_load_file(struct config *cfg, const char *path, struct strbuf *err)
{
	struct load_ctx lc = { .cfg = cfg, .file = path };
	int ret;

	locate_keys(path, &lc.loc);
	ret = gitcfg_read_file(path, load_cb, &lc, err);
	located_release(&lc.loc);
	return ret;
}

int config_load_git(struct config *cfg, const char *repo_dir,
		    const char *prefix, struct strbuf *err)
{
	struct load_ctx lc = { .cfg = cfg, .file = "git config",
			       .prefix = prefix };

	return gitcfg_read_default(repo_dir, load_cb, &lc, err);
}

/* Does table name "list.*.url" match "list.linux-mm.url"? */
bool config_key_matches(const char *pattern, const char *name)
{
	const char *star = strstr(pattern, ".*.");
	const char *dot1, *dot2;

	if (!star)
		return !strcasecmp(pattern, name);
	dot1 = strchr(name, '.');
	dot2 = strrchr(name, '.');
	if (!dot1 || dot1 == dot2)
		return false;
	return (size_t)(dot1 - name) == (size_t)(star - pattern) &&
		!strncasecmp(name, pattern, dot1 - name) &&
		!strcasecmp(dot2 + 1, star + 3);
}

const struct cfg_key *config_find_key(const char *name)
{
	size_t i;

	for (i = 0; i < cfg_keys_nr; i++)
		if (config_key_matches(cfg_keys[i].name, name))
			return &cfg_keys[i];
	return NULL;
}

/* The choice v is, as choices spells it (its length in *out_len), or NULL */
const char *config_choice(const char *choices, const char *v, size_t *out_len)
{
	const char *p = choices;
	size_t n = strlen(v);

	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && !strncasecmp(p, v, n)) {
			*out_len = n;
			return p;
		}
		p = bar ? bar + 1 : NULL;
	}
	return NULL;
}

const char *config_value_problem(const struct cfg_key *k, const char *v)
{
	size_t len;
	uint64_t u;
	bool b;
	char *end;

	if (!v && k->type != CFG_BOOL)
		return "missing value";
	switch (k->type) {
	case CFG_BOOL:
		return util_parse_bool(v, &b) ? "not a boolean" : NULL;
	case CFG_INT:
		errno = 0;
		(void)strtoll(v, &end, 10);
		return errno || end == v || *end ? "not an integer" : NULL;
	case CFG_SIZE:
		return util_parse_size(v, &u) ? "not a size (like 512k, 16m)" : NULL;
	case CFG_DURATION:
		return util_parse_duration_ms(v, &u) ?
			"not a duration (like 30s, 10m, 2h)" : NULL;
	case CFG_ENUM:
		return config_choice(k->choices, v, &len) ? NULL : "not one of the choices";
	case CFG_PATH:
	case CFG_STRING:
	case CFG_LIST:
		return memchr(v, '\0', 0) ? "bad value" : NULL;
	}
	return NULL;
}

/* Every entry against the key table; unknown keys only when asked */
int config_check_entries(const struct config *cfg, bool unknown, struct strbuf *report)
{
	size_t i;
	int problems = 0;

	for (i = 0; i < cfg->nr; i++) {
		const struct config_entry *e = &cfg->e[i];
		const struct cfg_key *k = config_find_key(e->name);
		const char *why;

		if (!k && unknown) {
			strbuf_addf(report, "%s:%d: unknown key '%s'\n",
				    e->file ? e->file : "?", e->line, e->name);
			problems++;
		}
		if (!k)
			continue;
		why = config_value_problem(k, e->value);
		if (why) {
			strbuf_addf(report, "%s:%d: bad value '%s' for '%s': %s",
				    e->file ? e->file : "?", e->line,
				    e->value ? e->value : "", e->name, why);
			if (k->type == CFG_ENUM)
				strbuf_addf(report, " (%s)", k->choices);
			strbuf_addch(report, '\n');
			problems++;
		}
	}
	return problems;
}

int config_check(const struct config *cfg, struct strbuf *report)
{
	return config_check_entries(cfg, true, report);
}

int config_load_strict(struct config *cfg, const char *path, struct strbuf *err)
{
	if (config_load_file(cfg, path, err))
		return -1;
	return config_parse(cfg, err);
}

const char *config_lookup(const struct config *cfg, const char *name)
{
	const struct cfg_key *k = config_find_key(name);
	size_t i = cfg ? cfg->nr : 0;

	while (i--) {
		if (!config_name_eq(cfg->e[i].name, name))
			continue;
		/* config_parse() refused a bad value before anyone asks */
		if (k && config_value_problem(k, cfg->e[i].value))
			break;
		return cfg->e[i].value ? cfg->e[i].value : "true";
	}
	return k ? k->def : NULL;
}

void config_describe_keys(struct strbuf *sb)
{
	static const char *const type_names[] = {
		[CFG_STRING] = "string", [CFG_PATH] = "path",
		[CFG_BOOL] = "bool", [CFG_INT] = "int", [CFG_SIZE] = "size",
		[CFG_DURATION] = "duration", [CFG_ENUM] = "enum",
		[CFG_LIST] = "list",
	};
	size_t i;

	for (i = 0; i < cfg_keys_nr; i++) {
		const struct cfg_key *k = &cfg_keys[i];

		strbuf_addf(sb, "%s (%s", k->name, type_names[k->type]);
		if (k->type == CFG_ENUM)
			strbuf_addf(sb, ": %s", k->choices);
		if (k->def)
			strbuf_addf(sb, ", default %s", k->def);
		strbuf_addf(sb, ")\n\t%s\n", k->help);
	}
}
