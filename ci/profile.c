// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ci/profile.h"

/* Bump when the way a build directory is made changes */
#define RECIPE_VERSION "lorebot-kbuild-1"

static const char *const small_fragments[] = {
	"boot.config", "boot-{arch}.config", "mm.config", "kselftest.config", NULL,
};
static const char *const production_fragments[] = { "mm.config", NULL };

static const struct {
	const char *name;
	const char *base;
	const char *const *fragments;
} builtin_profiles[] = {
	{ "small", "tinyconfig", small_fragments },
	{ "production", "defconfig", production_fragments },
};

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

char *profile_fragment_dir(const struct config *cfg)
{
	const char *v = config_v(cfg)->build_fragments;
	char exe[PATH_MAX];
	ssize_t n;

	if (v)
		return xstrdup(v);
	/* build/lorebot -> build/../config/fragments */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash, *dir;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			dir = xasprintf("%s/../config/fragments", exe);
			if (is_dir(dir))
				return dir;
			free(dir);
			/* <prefix>/bin/lorebot -> <prefix>/share/lorebot (make install) */
			dir = xasprintf("%s/../share/lorebot/fragments", exe);
			if (is_dir(dir))
				return dir;
			free(dir);
		}
	}
	return xstrdup("/usr/share/lorebot/fragments");
}

static char *expand(const char *name, const struct arch *arch)
{
	const char *at = strstr(name, "{arch}");

	if (!at)
		return xstrdup(name);
	return xasprintf("%.*s%s%s", (int)(at - name), name, arch->name, at + 6);
}

static int add_fragment(struct profile *p, const char *dir, const char *name,
			const struct arch *arch, struct strbuf *err)
{
	char *n = expand(name, arch), *path, *real;

	path = strchr(n, '/') ? xstrdup(n) : xasprintf("%s/%s", dir, n);
	real = realpath(path, NULL);
	if (!real) {
		strbuf_addf(err, "config fragment '%s' of profile '%s': %s",
			    path, p->name, strerror(errno));
		free(n);
		free(path);
		return -1;
	}
	p->fragments = xrealloc(p->fragments, (p->nr + 1) * sizeof(*p->fragments));
	p->fragments[p->nr++] = real;
	free(n);
	free(path);
	return 0;
}

static void profile_hash(struct profile *p, const struct arch *arch)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addf(&sb, "%s\n%s\n%s\n%s\n%s\n", RECIPE_VERSION, arch->name,
		    arch->kernel_arch, arch->cross_compile, p->base);
	for (i = 0; i < p->nr; i++) {
		char *buf = NULL;
		size_t len = 0;

		const char *slash = strrchr(p->fragments[i], '/');

		/*
		 * The name and the content, not the path: two checkouts of
		 * lorebot on one machine share their build directories.
		 */
		strbuf_addf(&sb, "%s\n", slash ? slash + 1 : p->fragments[i]);
		if (!util_read_file(p->fragments[i], &buf, &len, 1 << 20))
			strbuf_add(&sb, buf, len);
		free(buf);
	}
	util_hash_hex(sb.buf, sb.len, p->hash);
	strbuf_release(&sb);
}

int profile_load(const struct config *cfg, const char *name,
		 const struct arch *arch, struct profile *p, struct strbuf *err)
{
	const char *const *builtin = NULL;
	const char **list = NULL;
	char *dir = profile_fragment_dir(cfg);
	const char *base;
	size_t i, nr;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	for (i = 0; i < ARRAY_SIZE(builtin_profiles); i++) {
		if (!strcmp(builtin_profiles[i].name, name)) {
			builtin = builtin_profiles[i].fragments;
			p->base = xstrdup(builtin_profiles[i].base);
		}
	}
	base = config_sub(cfg, CFG_SUB_profile_base, name);
	if (base) {
		free(p->base);
		p->base = xstrdup(base);
	}
	if (!p->base) {
		strbuf_addf(err, "unknown build profile '%s' (built in: small, "
			    "production; or set profile.%s.base)", name, name);
		goto out;
	}
	nr = config_sub_all(cfg, CFG_SUB_profile_fragment, name, &list);
	if (nr) {
		for (i = 0; i < nr; i++)
			if (add_fragment(p, dir, list[i], arch, err))
				goto out;
	} else {
		for (i = 0; builtin && builtin[i]; i++)
			if (add_fragment(p, dir, builtin[i], arch, err))
				goto out;
	}
	free(list);
	nr = config_sub_all(cfg, CFG_SUB_arch_fragment, arch->name, &list);
	for (i = 0; i < nr; i++)
		if (add_fragment(p, dir, list[i], arch, err))
			goto out;
	profile_hash(p, arch);
	ret = 0;
out:
	free(list);
	free(dir);
	if (ret)
		profile_release(p);
	return ret;
}

int profile_add_fragment(struct profile *p, const char *path,
			 const struct arch *arch, struct strbuf *err)
{
	char *name;

	if (add_fragment(p, "/", path, arch, err))
		return -1;
	p->repair = p->fragments[p->nr - 1];
	if (!util_ends_with(p->name, "+r")) {
		name = xasprintf("%s+r", p->name);
		free(p->name);
		p->name = name;
	}
	profile_hash(p, arch);
	return 0;
}

void profile_release(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->fragments[i]);
	free(p->fragments);
	free(p->name);
	free(p->base);
	memset(p, 0, sizeof(*p));
}
