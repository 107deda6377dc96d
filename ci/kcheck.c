// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "lib/run.h"
#include "ci/kbuild-priv.h"
#include "ci/kcheck.h"
#include "ci/w1.h"

const struct kcheck kchecks[KCHECK_NR] = {
	[KCHECK_SPARSE] = {
		.name = "sparse", .tool = "sparse", .suffix = ".sparse",
		.top = "make C=2", .programs = { "sparse" }, .package = "sparse",
		.key = CFG_ID_build_sparse, .recipe_vars = "C=2",
	},
	[KCHECK_COCCI] = {
		.name = "coccicheck", .tool = "coccinelle", .suffix = ".cocci",
		.top = "make C=2 coccicheck", .programs = { "spatch" },
		.package = "coccinelle", .key = CFG_ID_build_coccicheck,
		/* make runs it in O=: the tree's script by its absolute path */
		.recipe_vars = "C=2 CHECK=$PWD/scripts/coccicheck MODE=report",
	},
	[KCHECK_CLANG] = {
		.name = "clang", .tool = "clang", .suffix = ".clang",
		.top = "make LLVM=1",
		.programs = { "clang", "ld.lld", "llvm-objcopy" },
		.package = "clang, lld and llvm", .key = CFG_ID_build_clang,
		.arch_list = true, .errors = true,
		.recipe_vars = "LLVM=1", .own_obj = true,
	},
};

bool kcheck_wanted(const struct kcheck *c, const struct config *cfg,
		   const char *arch)
{
	const struct cfg_list *v;
	size_t i;
	bool ret = false;

	if (!c->arch_list)
		return config_id_bool(cfg, c->key);
	/* "clang = x86_64 arm64", "clang = x86_64, arm64" or a line each */
	v = config_id_list(cfg, c->key);
	for (i = 0; i < v->nr && !ret; i++) {
		const char *p = v->v[i];

		while (*p && !ret) {
			size_t len;

			p += strspn(p, " \t,");
			len = strcspn(p, " \t,");
			ret = len && len == strlen(arch) && !strncmp(p, arch, len);
			p += len;
		}
	}
	return ret;
}

const char *kcheck_missing(const struct kcheck *c)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c->programs) && c->programs[i]; i++)
		if (!run_have_program(c->programs[i]))
			return c->programs[i];
	return NULL;
}

bool kcheck_is_unit(const struct kcheck *c, const char *unit)
{
	return util_ends_with(unit, c->suffix) || !strcmp(unit, c->top);
}

bool kcheck_any_unit(const char *unit)
{
	size_t i;

	for (i = 0; i < KCHECK_NR; i++)
		if (kcheck_is_unit(&kchecks[i], unit))
			return true;
	return false;
}

char *kcheck_unit(const struct kcheck *c, const char *file)
{
	return xasprintf("%s%s", file, c->suffix);
}

struct filter_data {
	const struct kcheck *c;
	char *const *files;
	const char *const *units;	/* each file's, as make names it */
	size_t nr;
	bool compile_failed;	/* a compiler's error: a file did not build */
	bool unit_error;	/* an error of a checked file's */
};

/* Which file unit is, or -1 */
static ssize_t checked(const struct filter_data *fd, const char *unit)
{
	size_t i;

	for (i = 0; i < fd->nr; i++)
		if (!strcmp(fd->units[i], unit))
			return i;
	return -1;
}

/*
 * "  CHECK   mm/rmap.c" made the unit "mm/rmap.c" (clang's "CC mm/rmap.o"
 * the unit "mm/rmap.o"): it becomes "mm/rmap.c.sparse", its messages the
 * checker's.  Everything else the make printed (a compile it redid,
 * clang's prepare) is dropped.
 */
static void filter(struct diag_parse *p, void *data)
{
	struct filter_data *fd = data;
	struct diag_list keep = DIAG_LIST_INIT;
	size_t i, n = 0;

	for (i = 0; i < p->diags.nr; i++) {
		struct diag *d = &p->diags.v[i], *k;
		ssize_t f = checked(fd, d->unit);

		if (f < 0) {
			if (d->sev == DIAG_ERROR && strcmp(d->tool, "make"))
				fd->compile_failed = true;
			continue;
		}
		diag_list_add(&keep, d);
		k = &keep.v[keep.nr - 1];
		free(k->tool);
		k->tool = xstrdup(fd->c->tool);
		if (k->sev == DIAG_ERROR && fd->c->errors)
			fd->unit_error = true;
		else if (k->sev == DIAG_ERROR)
			k->sev = DIAG_WARNING;
		free(k->unit);
		k->unit = kcheck_unit(fd->c, fd->files[f]);
	}
	diag_list_release(&p->diags);
	p->diags = keep;
	for (i = 0; i < p->units_nr; i++) {
		ssize_t f = checked(fd, p->units[i]);

		if (f >= 0) {
			char *u = kcheck_unit(fd->c, fd->files[f]);

			free(p->units[i]);
			p->units[n++] = u;
		} else {
			free(p->units[i]);
		}
	}
	p->units_nr = n;
}

int kcheck_make(const struct kcheck *c, struct kbuild_tree *t,
		char *const *files, const char *const *units, size_t nr,
		const struct kbuild_make_opts *opts, struct kbuild_step *step,
		struct strbuf *err)
{
	struct filter_data fd = { c, files, units, nr, false, false };
	struct kbuild_make_opts o = *opts;
	int ret;

	o.keep_going = true;
	o.top = c->top;
	o.filter = filter;
	o.filter_data = &fd;
	ret = kbuild_make(t, &o, step, err);
	if (ret || step->status != KBUILD_FAILED)
		return ret;
	/*
	 * A file that does not compile with gcc is not checked: the patch's
	 * build reports its errors, and the checker did not fail.  clang's
	 * own errors on the checked files are its findings; an error
	 * anywhere else (its prepare) is clang failing.
	 */
	if (c->errors ? fd.unit_error && !fd.compile_failed : fd.compile_failed)
		step->status = KBUILD_OK;
	return ret;
}

/*
 * C=2 checks every object the make visits, also those prepare builds
 * (scripts/mod/empty.o; arm64's and riscv's vDSO): for Coccinelle that is
 * every rule of the tree on a file no series touches, two minutes a step.
 * CHECK is a wrapper that runs the checker only when the file make names
 * last is one of the touched ones.  It is written before each step (the
 * build user may have replaced it); the names are data of a quoted here
 * document, never code.  0, or -1 with err.
 */
#define WRAPPER ".lorebot-check"
#define WRAPPER_END "LOREBOT_CHECKED_FILES"

static int write_wrapper(struct kbuild_tree *t, char *const *files, size_t nr,
			 char **path, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int ret;

	strbuf_addstr(&sb,
		"# lorebot's CHECK (ci/kcheck.c): \"$1\" on the touched files only\n"
		"real=$1\n"
		"shift\n"
		"for last; do :; done\n"
		"while IFS= read -r f; do\n"
		"\tcase ${last:-} in \"$f\" | */\"$f\") exec \"$real\" \"$@\" ;; esac\n"
		"done <<'" WRAPPER_END "'\n");
	for (i = 0; i < nr; i++)
		if (!strchr(files[i], '\n') && strcmp(files[i], WRAPPER_END))
			strbuf_addf(&sb, "%s\n", files[i]);
	strbuf_addstr(&sb, WRAPPER_END "\nexit 0\n");
	*path = xasprintf("%s/" WRAPPER, t->obj);
	kbuild_obj_file_reset(*path);
	ret = util_write_file_beneath(t->obj, *path, sb.buf, sb.len);
	if (ret)
		strbuf_addf(err, "cannot write '%s': %s", *path, strerror(-ret));
	strbuf_release(&sb);
	return ret ? -1 : 0;
}

int kcheck_run(const struct kcheck *c, struct kbuild_tree *t,
		char *const *files, size_t nr, const char *name,
		struct kbuild_step *step, struct strbuf *err)
{
	const char *vars[4] = { "C=2" }, *missing = kcheck_missing(c), **targets;
	char *check, *wrapper = NULL;
	struct kbuild_make_opts o = { .name = name, .vars = vars };
	size_t i;
	int ret;

	if (missing) {
		strbuf_addf(err, "'%s' not found (Debian package %s)", missing,
			    c->package);
		return -1;
	}
	if (c == &kchecks[KCHECK_CLANG])
		return kcheck_clang_run(t, files, nr, name, step, err);
	targets = xcalloc(nr + 1, sizeof(*targets));
	o.targets = targets;
	if (write_wrapper(t, files, nr, &wrapper, err)) {
		free(wrapper);
		free(targets);
		return -1;
	}
	if (c == &kchecks[KCHECK_COCCI]) {
		/* V=1: each spatch command is printed, naming its rule */
		check = xasprintf("CHECK=sh %s env V=1 %s/scripts/coccicheck", wrapper,
				  t->src);
		vars[2] = "MODE=report";
	} else {
		check = xasprintf("CHECK=sh %s %s", wrapper, c->programs[0]);
	}
	vars[1] = check;
	/* C=2: the object is checked whether or not make rebuilds it */
	for (i = 0; i < nr; i++)
		targets[i] = xasprintf("%.*s.o", (int)(strlen(files[i]) - 2), files[i]);
	ret = kcheck_make(c, t, files, (const char *const *)files, nr, &o, step, err);
	for (i = 0; i < nr; i++)
		free((char *)targets[i]);
	free(targets);
	free(check);
	free(wrapper);
	return ret;
}

void kcheck_recipe(const struct kcheck *c, const struct kbuild_tree *t, const char *obj,
		   char *const *files, size_t nr, struct strbuf *sb)
{
	struct strbuf head = STRBUF_INIT;
	char *own = c->own_obj ? xasprintf("%s-%s", obj, c->name) : NULL;
	size_t i;

	if (!nr)
		return;
	kbuild_recipe_head(t, own ? own : obj, &head);
	strbuf_addf(&head, " %s", c->recipe_vars);
	if (own)
		strbuf_addf(sb, "mkdir -p %s && cp %s/.config %s/\n%s olddefconfig\n",
			    own, obj, own, head.buf);
	strbuf_addstr(sb, head.buf);
	for (i = 0; i < nr; i++)
		strbuf_addf(sb, " %.*s.o", (int)(strlen(files[i]) - 2), files[i]);
	strbuf_addch(sb, '\n');
	strbuf_release(&head);
	free(own);
}

int kcheck_base_load(const struct kcheck *c, const struct kbuild_tree *t,
		      const char *file, struct diag_list *out)
{
	size_t i;

	if (w1_cache_load(t, c->name, file, out))
		return -1;
	/*
	 * Kept before Coccinelle's findings were named by their rule: made
	 * again, else every finding of the base would be new.
	 */
	for (i = 0; c == &kchecks[KCHECK_COCCI] && i < out->nr; i++)
		if (!*out->v[i].option) {
			diag_list_release(out);
			return -1;
		}
	return 0;
}

int kcheck_base_save(const struct kcheck *c, const struct kbuild_tree *t,
		      const char *file, const struct diag_list *step_diags)
{
	char *unit = kcheck_unit(c, file);
	int ret = w1_cache_save(t, c->name, file, (const char *const *)&unit, 1, step_diags);

	free(unit);
	return ret;
}
