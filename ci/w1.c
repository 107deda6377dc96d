// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "ci/kbuild-priv.h"
#include "ci/w1.h"

#define KDOC_SUFFIX ".kdoc"

bool w1_is_unit(const char *unit)
{
	return util_ends_with(unit, ".s") || util_ends_with(unit, KDOC_SUFFIX) ||
		!strcmp(unit, W1_TOP);
}

char *w1_unit_s(const char *file)
{
	return xasprintf("%.*s.s", (int)(strlen(file) - 2), file);
}

char *w1_unit_kdoc(const char *file)
{
	return xasprintf("%s%s", file, KDOC_SUFFIX);
}

static bool candidate(const char *path)
{
	static const char *const skip[] = {
		"scripts/", "tools/", "Documentation/", "samples/", "usr/",
	};
	size_t i;

	if (!util_ends_with(path, ".c"))
		return false;
	for (i = 0; i < ARRAY_SIZE(skip); i++)
		if (util_starts_with(path, skip[i]))
			return false;
	return true;
}

char **w1_files(const struct kbuild_tree *t, char *const *paths, size_t nr,
		size_t *out_nr)
{
	char **out = xcalloc(nr + 1, sizeof(*out));
	size_t i, n = 0;

	for (i = 0; i < nr; i++) {
		char *src;
		struct stat st;

		if (!candidate(paths[i]) || !kbuild_compiled(t, paths[i]))
			continue;
		src = xasprintf("%s/%s", t->src, paths[i]);
		if (!stat(src, &st))
			out[n++] = xstrdup(paths[i]);
		free(src);
	}
	*out_nr = n;
	return out;
}

void w1_files_free(char **files)
{
	size_t i;

	for (i = 0; files && files[i]; i++)
		free(files[i]);
	free(files);
}

/* kernel-doc's messages name the file it was given: a unit per file */
static int kdoc(struct kbuild_tree *t, char *const *files, size_t nr,
		const char *name, struct kbuild_step *out, struct strbuf *err)
{
	struct kbuild_make_opts o = { .name = name };
	struct kbuild_step s;
	struct diag_parse kp = { 0 };
	const char **argv = xcalloc(nr + 3, sizeof(*argv));
	char *prog = xasprintf("%s/scripts/kernel-doc", t->src);
	size_t i, j;
	int ret;

	argv[0] = prog;
	argv[1] = "-none";
	for (i = 0; i < nr; i++)
		argv[i + 2] = xasprintf("%s/%s", t->src, files[i]);
	ret = kbuild_run(t, argv, t->obj, &o, &s, err);
	if (ret)
		goto out;
	if (s.status == KBUILD_INFRA) {
		out->status = KBUILD_INFRA;
		free(out->infra);
		out->infra = xstrdup(s.infra);
	}
	for (i = 0; i < nr; i++) {
		char *unit = w1_unit_kdoc(files[i]);

		ALLOC_GROW(kp.units, kp.units_nr + 1, kp.units_alloc);
		kp.units[kp.units_nr++] = xstrdup(unit);
		for (j = 0; j < s.parse.diags.nr; j++) {
			struct diag *d = &s.parse.diags.v[j];

			if (strcmp(d->file, files[i]))
				continue;
			free(d->unit);
			free(d->tool);
			d->unit = xstrdup(unit);
			d->tool = xstrdup("kernel-doc");
			diag_list_add(&kp.diags, d);
			diag_list_add(&out->parse.diags, d);
		}
		free(unit);
	}
	if (s.status != KBUILD_INFRA)
		kbuild_units_update(t, &kp, W1_TOP);
	out->elapsed_ms += s.elapsed_ms;
out:
	diag_parse_release(&kp);
	kbuild_step_release(&s);
	for (i = 0; i < nr; i++)
		free((char *)argv[i + 2]);
	free(argv);
	free(prog);
	return ret;
}

int w1_run(struct kbuild_tree *t, char *const *files, size_t nr,
	   const char *name, struct kbuild_step *step, struct strbuf *err)
{
	static const char *const vars[] = { "W=1", NULL };
	const char **targets = xcalloc(nr + 1, sizeof(*targets));
	struct kbuild_make_opts o = {
		.name = name, .targets = targets, .vars = vars, .keep_going = true,
		.top = W1_TOP,
	};
	char *kname = xasprintf("%s-kdoc", name);
	size_t i;
	int ret;

	/*
	 * remove the .s files: each is really compiled (obj/ is the build
	 * user's: no link on the way is followed)
	 */
	for (i = 0; i < nr; i++) {
		char *p;
		int r;

		targets[i] = w1_unit_s(files[i]);
		p = xasprintf("%s/%s", t->obj, targets[i]);
		r = util_unlink_beneath(t->obj, p);
		if (r && r != -ENOENT)
			log_warn("cannot remove '%s': %s", p, strerror(-r));
		free(p);
	}
	ret = kbuild_make(t, &o, step, err);
	if (!ret && step->status != KBUILD_INFRA)
		ret = kdoc(t, files, nr, kname, step, err);
	for (i = 0; i < nr; i++)
		free((char *)targets[i]);
	free(targets);
	free(kname);
	return ret;
}

static char *cache_path(const struct kbuild_tree *t, const char *pass, const char *file)
{
	char hash[17];

	util_hash_hex(file, strlen(file), hash);
	return xasprintf("%s/%s/%s.diags", t->dir, pass, hash);
}

int w1_cache_load(const struct kbuild_tree *t, const char *pass, const char *file,
		  struct diag_list *out)
{
	char *path = cache_path(t, pass, file), *buf = NULL;
	size_t len;
	int ret = -1;

	if (!util_read_file(path, &buf, &len, 64 << 20) &&
	    !diag_list_read(out, buf, len))
		ret = 0;
	free(buf);
	free(path);
	return ret;
}

int w1_cache_save(const struct kbuild_tree *t, const char *pass, const char *file,
		  const char *const *units, size_t nr, const struct diag_list *step_diags)
{
	char *dir = xasprintf("%s/%s", t->dir, pass), *path = cache_path(t, pass, file);
	struct diag_list l = DIAG_LIST_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t i, k;
	int ret;

	for (i = 0; i < step_diags->nr; i++)
		for (k = 0; k < nr; k++)
			if (!strcmp(step_diags->v[i].unit, units[k])) {
				diag_list_add(&l, &step_diags->v[i]);
				break;
			}
	diag_list_write(&l, &sb);
	util_mkdir_p(dir, 0755);
	ret = util_write_file(path, sb.buf, sb.len);
	diag_list_release(&l);
	strbuf_release(&sb);
	free(dir);
	free(path);
	return ret;
}

int w1_base_load(const struct kbuild_tree *t, const char *file,
		 struct diag_list *out)
{
	return w1_cache_load(t, "w1", file, out);
}

int w1_base_save(const struct kbuild_tree *t, const char *file,
		 const struct diag_list *step_diags)
{
	char *units[2] = { w1_unit_s(file), w1_unit_kdoc(file) };
	int ret = w1_cache_save(t, "w1", file, (const char *const *)units, 2, step_diags);

	free(units[0]);
	free(units[1]);
	return ret;
}
