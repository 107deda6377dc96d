// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration: the key list (bot/conf/config-keys.h) and its typed
 * values, bad values as file:line errors, unknown keys, subsections,
 * the cache directory.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/util.h"
#include "bot/conf/config.h"
#include "tests/unit/tap.h"

static char *dir;

/* A file of text in dir; its path (the caller frees) */
static char *put(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	util_write_file(p, text, strlen(text));
	return p;
}

/* ---- every key's default, read into its field ---- */

static int bad_defaults;

static void PRINTF(1, 2) diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void def_str(const char *name, const char *def, const char *got)
{
	if (!def ? got != NULL : !got || strcmp(got, def)) {
		diag("%s: '%s', not its default '%s'", name, got ? got : "(null)",
		     def ? def : "(null)");
		bad_defaults++;
	}
}

#define def_STRING def_str
#define def_PATH def_str
#define def_ENUM def_str

static void def_BOOL(const char *name, const char *def, bool got)
{
	bool want = false;

	if (!def || util_parse_bool(def, &want) || got != want) {
		diag("%s: bool %d, default '%s'", name, got, def ? def : "(null)");
		bad_defaults++;
	}
}

static void def_INT(const char *name, const char *def, int64_t got)
{
	if (!def || got != strtoll(def, NULL, 10)) {
		diag("%s: %lld, default '%s'", name, (long long)got, def ? def : "(null)");
		bad_defaults++;
	}
}

static void def_u64(const char *name, const char *def, uint64_t got,
		    int (*parse)(const char *s, uint64_t *out))
{
	uint64_t want = 0;

	if (!def || parse(def, &want) || got != want) {
		diag("%s: %llu, default '%s'", name, (unsigned long long)got,
		     def ? def : "(null)");
		bad_defaults++;
	}
}

static void def_SIZE(const char *name, const char *def, uint64_t got)
{
	def_u64(name, def, got, util_parse_size);
}

static void def_DURATION(const char *name, const char *def, uint64_t got)
{
	def_u64(name, def, got, util_parse_duration_ms);
}

static void def_LIST(const char *name, const char *def, struct cfg_list got)
{
	if (def ? got.nr != 1 || strcmp(got.v[0], def) : got.nr != 0) {
		diag("%s: %zu values, default '%s'", name, got.nr, def ? def : "(null)");
		bad_defaults++;
	}
}

/* "list.*.url" -> "list_url", "core.db" -> "core_db" */
static bool id_of(const char *id, const char *name)
{
	char *want = xstrdup(name), *p;
	bool eq;

	p = strstr(want, ".*.");
	if (p)
		memmove(p + 1, p + 3, strlen(p + 3) + 1);
	for (p = want; *p; p++)
		if (*p == '.')
			*p = '_';
	eq = !strcmp(id, want);
	free(want);
	return eq;
}

static void test_table(void)
{
	struct config cfg = CONFIG_INIT;
	struct strbuf err = STRBUF_INIT;
	int bad_ids = 0;
	size_t i, nr = 0;

	is_int(cfg_keys_nr, CFG_ID_NR + CFG_SUB_NR, "one table row per key of the list");
#define CFG_KEY(id, key, type, def, choices, help) \
	bad_ids += !id_of(#id, key) || strcmp(config_key(CFG_ID_##id)->name, key);
#define CFG_SUBKEY(id, key, type, def, choices, help) \
	bad_ids += !id_of(#id, key) || strcmp(config_sub_key(CFG_SUB_##id)->name, key);
#include "bot/conf/config-keys.h"
	is_int(bad_ids, 0, "each id is its key's name, and names its row");

	/* every default is a value its key can take */
	for (i = 0; i < cfg_keys_nr; i++) {
		const char *name = cfg_keys[i].name, *star = strstr(name, ".*.");

		if (!cfg_keys[i].def)
			continue;
		if (star) {
			char *n = xasprintf("%.*s.x.%s", (int)(star - name), name, star + 3);

			config_set(&cfg, n, cfg_keys[i].def);
			free(n);
		} else {
			config_set(&cfg, name, cfg_keys[i].def);
		}
		nr++;
	}
	ok(nr > 50, "%zu defaults set as values", nr);
	is_int(config_parse(&cfg, &err), 0, "every default parses as a value of its key");
	is_str(err.buf, "", "no problem named");
	config_release(&cfg);

	/* and, unset, each field holds its default */
	is_int(config_parse(&cfg, &err), 0, "an empty configuration parses");
#define CFG_KEY(id, name, type, def, choices, help) def_##type(name, def, cfg.v.id);
#define CFG_SUBKEY(id, name, type, def, choices, help)
#include "bot/conf/config-keys.h"
	is_int(bad_defaults, 0, "every field of an empty configuration is its key's default");
	ok(config_v(NULL)->build_jobs == cfg.v.build_jobs &&
	   !strcmp(config_v(NULL)->core_statedir, "/var/lib/lorebot"),
	   "config_v(NULL): the defaults");
	config_release(&cfg);
	strbuf_release(&err);
}

/* ---- values of a file ---- */

static void test_values(void)
{
	struct config cfg = CONFIG_INIT;
	struct strbuf err = STRBUF_INIT;
	char *path = put("good.conf",
			 "[core]\n"
			 "\tsyslog\n"
			 "\tLogLevel = DEBUG\n"
			 "[build]\n"
			 "\tjobs = 12\n"
			 "\tmemory = 2g\n"
			 "\ttimeout = 90m\n"
			 "\tarch = riscv\n"
			 "\tarch = arm64\n"
			 "[reply]\n"
			 "\tto = Author\n");

	is_int(config_load_strict(&cfg, path, &err), 0, "a good file loads: %s", err.buf);
	ok(cfg.v.core_syslog, "a bare key is true");
	is_str(cfg.v.core_loglevel, "debug", "an enum as the table spells it (DEBUG)");
	is_str(cfg.v.reply_to, "author", "... (Author)");
	ok(cfg.v.build_jobs == 12, "an int");
	ok(cfg.v.build_memory == 2ULL << 30, "a size");
	ok(cfg.v.build_timeout == 90 * 60000ULL, "a duration, in ms");
	ok(cfg.v.build_arch.nr == 2 && !strcmp(cfg.v.build_arch.v[0], "riscv") &&
	   !strcmp(cfg.v.build_arch.v[1], "arm64"), "a list, every line in order");
	ok(cfg.v.git_base.nr == 1 && !strcmp(cfg.v.git_base.v[0], "mm-new"),
	   "an unset list: its default");
	ok(config_id_bool(&cfg, CFG_ID_core_syslog) &&
	   config_id_list(&cfg, CFG_ID_build_arch)->nr == 2 &&
	   !strcmp(config_id_str(&cfg, CFG_ID_core_loglevel), "debug"),
	   "read by id, as a table does");

	config_set(&cfg, "build.jobs", "3");
	ok(!cfg.parsed, "a value set: not parsed until config_parse()");
	is_int(config_parse(&cfg, &err), 0, "parsed again");
	ok(cfg.v.build_jobs == 3, "the command line's value comes last, and wins");
	is_str(config_lookup(&cfg, "Build.Jobs"), "3", "config_lookup(): a name given at run time");
	is_str(config_lookup(&cfg, "build.keep"), "3", "... its default when unset");
	ok(!config_lookup(&cfg, "build.nosuch"), "... NULL for no key");
	config_release(&cfg);
	free(path);
	strbuf_release(&err);
}

/* ---- a bad value of each type: file:line, not the default ---- */

static void test_bad(void)
{
	static const struct {
		const char *line, *want;
	} bad[] = {
		{ "[core]\n\tsyslog = maybe\n",
		  "bad.conf:2: bad value 'maybe' for 'core.syslog': not a boolean" },
		{ "[build]\n\tjobs = 4x\n",
		  "bad.conf:2: bad value '4x' for 'build.jobs': not an integer" },
		{ "[build]\n\tmemory = lots\n",
		  "bad.conf:2: bad value 'lots' for 'build.memory': not a size" },
		{ "[build]\n\ttimeout = soon\n",
		  "bad.conf:2: bad value 'soon' for 'build.timeout': not a duration" },
		{ "[reply]\n\tto = everyone\n",
		  "bad.conf:2: bad value 'everyone' for 'reply.to': not one of the choices "
		  "(author|all)" },
		{ "[build]\n\tuser\n",
		  "bad.conf:2: bad value '' for 'build.user': missing value" },
		{ "# a list\n[list \"mm\"]\n\turl = x\n\tpollinterval = often\n",
		  "bad.conf:4: bad value 'often' for 'list.mm.pollinterval': not a duration" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct config cfg = CONFIG_INIT;
		struct strbuf err = STRBUF_INIT;
		char *path = put("bad.conf", bad[i].line);
		const char *at;

		is_int(config_load_strict(&cfg, path, &err), -1, "refused: %s",
		       bad[i].want + strlen("bad.conf:2: "));
		at = strstr(err.buf, bad[i].want);
		ok(at && (at == err.buf || at[-1] == '/'), "named as file:line: %s", err.buf);
		ok(!cfg.parsed, "not read as its default");
		config_release(&cfg);
		strbuf_release(&err);
		free(path);
	}
	/* all of them, each on its line */
	{
		struct config cfg = CONFIG_INIT;
		struct strbuf err = STRBUF_INIT;
		char *path = put("two.conf", "[build]\n\tjobs = x\n\tkeep = y\n");

		is_int(config_load_strict(&cfg, path, &err), -1, "two bad values");
		ok(strstr(err.buf, "two.conf:2: ") && strstr(err.buf, "two.conf:3: ") &&
		   strchr(err.buf, '\n'), "both named, a line each");
		config_release(&cfg);
		strbuf_release(&err);
		free(path);
	}
}

/* ---- an unknown key (config --check) ---- */

static void test_unknown(void)
{
	struct config cfg = CONFIG_INIT;
	struct strbuf err = STRBUF_INIT, report = STRBUF_INIT;
	char *path = put("typo.conf", "[check]\n\tcolumns = 100\n\tcolums = 90\n"
			 "[list \"mm\"]\n\tulr = x\n");

	is_int(config_load_file(&cfg, path, &err), 0, "a file with typos loads");
	is_int(config_check(&cfg, &report), 2, "config_check(): two problems");
	ok(strstr(report.buf, "typo.conf:3: unknown key 'check.colums'") != NULL,
	   "a misspelt key: file:line");
	ok(strstr(report.buf, "typo.conf:5: unknown key 'list.mm.ulr'") != NULL,
	   "... of a subsection too");
	is_int(config_parse(&cfg, &err), 0, "loading does not refuse unknown keys");
	ok(cfg.v.check_columns == 100, "... and reads the known ones");
	config_release(&cfg);
	strbuf_release(&err);
	strbuf_release(&report);
	free(path);
}

/* ---- subsections ---- */

static void test_subsections(void)
{
	struct config cfg = CONFIG_INIT;
	struct strbuf err = STRBUF_INIT;
	const char **v;
	char **names;
	size_t nr, i;
	char *path = put("sub.conf",
			 "[list \"linux-mm\"]\n"
			 "\tURL = https://lore.kernel.org/linux-mm/\n"
			 "\tmethod = GIT\n"
			 "[LIST \"Linux-MM\"]\n"
			 "\turl = https://example.org/other/\n"
			 "\tenabled = false\n"
			 "[remote \"mm\"]\n"
			 "\tbranch = mm-new\n"
			 "\tbranch = mm-unstable\n"
			 "[slurm \"build\"]\n"
			 "\tmem = 8g\n"
			 "\tcpus = 12\n"
			 "\ttime = 90m\n");

	is_int(config_load_strict(&cfg, path, &err), 0, "subsections load: %s", err.buf);
	is_str(config_sub(&cfg, CFG_SUB_list_url, "linux-mm"),
	       "https://lore.kernel.org/linux-mm/", "by subsection: its value (key case ignored)");
	is_str(config_sub(&cfg, CFG_SUB_list_url, "Linux-MM"), "https://example.org/other/",
	       "a subsection's case counts (section case ignored)");
	ok(!config_sub(&cfg, CFG_SUB_list_url, "LINUX-MM"), "another case: another subsection");
	is_str(config_sub(&cfg, CFG_SUB_list_method, "linux-mm"), "git",
	       "an enum as the table spells it");
	ok(config_sub_bool(&cfg, CFG_SUB_list_enabled, "linux-mm") &&
	   !config_sub_bool(&cfg, CFG_SUB_list_enabled, "Linux-MM"), "a bool, its default");
	ok(config_sub_ms(&cfg, CFG_SUB_list_pollinterval, "linux-mm") == 5 * 60000ULL,
	   "an unset duration: its default (5m)");
	ok(config_sub_size(&cfg, CFG_SUB_slurm_mem, "build") == 8ULL << 30 &&
	   !config_sub(&cfg, CFG_SUB_slurm_mem, "boot"), "a size; unset without default: NULL");
	ok(config_sub_int(&cfg, CFG_SUB_slurm_cpus, "build") == 12 &&
	   config_sub_ms(&cfg, CFG_SUB_slurm_time, "build") == 90 * 60000ULL &&
	   !config_sub_int(&cfg, CFG_SUB_slurm_cpus, "boot"), "an int and a duration; unset: 0");
	ok(!config_sub_int(&cfg, CFG_SUB_slurm_mem, "build") &&
	   !config_sub_bool(&cfg, CFG_SUB_slurm_cpus, "build") &&
	   !config_sub_ms(&cfg, CFG_SUB_list_url, "linux-mm"),
	   "read as another type than the table's: nothing");
	nr = config_sub_all(&cfg, CFG_SUB_remote_branch, "mm", &v);
	ok(nr == 2 && !strcmp(v[0], "mm-new") && !strcmp(v[1], "mm-unstable"),
	   "a list of a subsection, in order");
	free(v);
	nr = config_subsections(&cfg, CFG_SUB_list_url, &names);
	ok(nr == 2 && !strcmp(names[0], "linux-mm") && !strcmp(names[1], "Linux-MM"),
	   "the subsections of a section, as first set");
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	config_release(&cfg);
	strbuf_release(&err);
	free(path);
}

/* ---- the cache directory ---- */

static void test_cachedir(void)
{
	struct config cfg = CONFIG_INIT;
	char *old = xstrdup_or_null(getenv("LOREBOT_CACHE")), *c;

	config_set(&cfg, "core.cachedir", "/from/config");
	config_parse(&cfg, NULL);
	setenv("LOREBOT_CACHE", "/from/env", 1);
	c = config_cachedir(&cfg);
	is_str(c, "/from/env", "$LOREBOT_CACHE wins over core.cachedir");
	free(c);
	setenv("LOREBOT_CACHE", "", 1);
	c = config_cachedir(&cfg);
	is_str(c, "/from/config", "an empty $LOREBOT_CACHE: core.cachedir");
	free(c);
	unsetenv("LOREBOT_CACHE");
	c = config_cachedir(&cfg);
	is_str(c, "/from/config", "no $LOREBOT_CACHE: core.cachedir");
	free(c);
	c = config_cachedir(NULL);
	ok(c && *c == '/', "neither: a default (%s)", c);
	free(c);
	if (old)
		setenv("LOREBOT_CACHE", old, 1);
	free(old);
	config_release(&cfg);
}

int main(void)
{
	char tmpl[] = "/tmp/lorebot-t-config.XXXXXX";

	dir = mkdtemp(tmpl);
	if (!dir) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_table();
	test_values();
	test_bad();
	test_unknown();
	test_subsections();
	test_cachedir();
	util_remove_tree(dir);
	return done_testing();
}
