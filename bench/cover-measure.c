// SPDX-License-Identifier: GPL-2.0
/*
 * The coverage benchmark's measuring tool (bench/coverage.py): for each
 * patch (a parent and a commit of the repository), in the profile's
 * build directory of ARCH at BASE (built once, as lorebot build does):
 *
 *   exact:   the commit checked out in src/, the units that read each
 *            changed file preprocessed with the base's commands
 *            (ci/cover-run.c cover_patch()): no build;
 *   cheap:   the Makefiles and #if conditions against the base's .config
 *            (cover_predict_run()), line by line, to measure it against
 *            the exact one;
 *   repair:  what the cheap prediction asks for turned on (and off) by
 *            Kconfig (repair_run()), and the cheap prediction again
 *            against the repaired .config (a header no unit of the base
 *            reads counts as read when a reader of it is predicted
 *            built: ci/readers.h).
 *
 * usage: cover-measure CONFIG GIT_DIR ARCH BASE [FIRST_ARCH] <LIST >JSONL
 * LIST: "ID PARENT COMMIT" lines.  Output: one JSON object per patch.
 * FIRST_ARCH: the first arch of the build; when it is not ARCH, the
 * prediction takes the other branch (struct cover_predict other_branch)
 * and "branched" lists the symbols it asked off for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/strmap.h"
#include "bot/conf/config.h"
#include "ci/cover-run.h"
#include "ci/kbuild.h"
#include "ci/needs.h"
#include "ci/readers.h"
#include "ci/repair.h"

struct lines {
	struct strmap files;	/* path -> struct strbuf of "L:c " items */
	char **keys;
	size_t nr, alloc;
};

struct ctx {
	struct kbuild_tree *t;
	struct readers_headers headers;	/* read by some unit of the base */
	struct cover_memo readers;	/* of the headers no unit of the base reads */
	struct lines *cur;	/* what the line callback fills */
	const struct kconf *config;	/* of the prediction running */
	const char *commit;
	struct strbuf includes;	/* what the commit's compiled .c files include */
	/*
	 * Repairs by the symbols asked for, of the patches that leave
	 * Kconfig as the base has it: one olddefconfig costs seconds, and
	 * many patches ask for the same (NUMA, MEMORY_HOTPLUG)
	 */
	struct strmap memo;	/* "X Y Z" -> struct repair */
	char **mkeys;
	size_t mnr, malloc_;
	bool other_branch;	/* ARCH is not the build's first */
};

static void lines_add(struct lines *l, const char *file, int line, bool compiled)
{
	struct strbuf *sb = strmap_get(&l->files, file);

	if (!sb) {
		sb = xcalloc(1, sizeof(*sb));
		strbuf_init(sb, 0);
		ALLOC_GROW(l->keys, l->nr + 1, l->alloc);
		l->keys[l->nr++] = xstrdup(file);
		strmap_put(&l->files, l->keys[l->nr - 1], sb);
	}
	strbuf_addf(sb, "%d:%d ", line, compiled);
}

static void lines_release(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		struct strbuf *sb = strmap_get(&l->files, l->keys[i]);

		strbuf_release(sb);
		free(sb);
		free(l->keys[i]);
	}
	free(l->keys);
	strmap_release(&l->files);
	memset(l, 0, sizeof(*l));
}

static json_object *lines_json(const struct lines *l)
{
	json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < l->nr; i++) {
		struct strbuf *sb = strmap_get(&l->files, l->keys[i]);

		strbuf_rtrim(sb);
		json_object_object_add(o, l->keys[i], json_object_new_string(sb->buf));
	}
	return o;
}

static void on_line(void *data, size_t k, const char *file, int line, bool compiled)
{
	struct ctx *c = data;

	(void)k;
	lines_add(c->cur, file, line, compiled);
}

static bool compiled_at_base(void *data, const char *path)
{
	struct ctx *c = data;

	return kbuild_compiled(c->t, path);
}

static bool included_at_base(void *data, const char *path)
{
	struct ctx *c = data;

	return readers_headers_has(&c->headers, path);
}

/* read by a unit of the base, or #included by a changed .c file (name match) */
static bool included_repaired(void *data, const char *path)
{
	struct ctx *c = data;
	const char *inc = util_starts_with(path, "include/") ? path + 8 :
		strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return included_at_base(data, path) || strstr(c->includes.buf, inc);
}

static int predict(struct ctx *c, struct cover_predict *p, const struct kconf *config,
		   struct lines *out, struct cover_needs *want, int *changed, int *compiled)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	c->cur = out;
	ret = cover_predict_run(p, config, want, changed, compiled, &err);
	if (ret)
		fprintf(stderr, "cover-measure: prediction: %s\n", err.buf);
	strbuf_release(&err);
	return ret;
}

/* What the changed .c files of the commit #include (for the repaired headers) */
static void collect_includes(struct ctx *c, const char *git_dir, const char *parent,
			     const char *commit)
{
	struct strbuf paths = STRBUF_INIT, err = STRBUF_INIT, text = STRBUF_INIT;
	char *p, *nl;

	strbuf_reset(&c->includes);
	if (srctree_changed(git_dir, parent, commit, &paths, &err))
		goto out;
	for (p = paths.buf; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		*nl = *nl ? '\0' : *nl;
		if (!util_ends_with(p, ".c"))
			continue;
		strbuf_reset(&text);
		if (!srctree_show(git_dir, commit, p, &text, &err)) {
			char *q;

			for (q = text.buf; (q = strstr(q, "#include")); q++) {
				char *e = strchrnul(q, '\n');

				strbuf_add(&c->includes, q, e - q);
				strbuf_addch(&c->includes, '\n');
			}
		}
		if (!*nl)
			break;
		nl[0] = '\n';
	}
out:
	strbuf_release(&paths);
	strbuf_release(&err);
	strbuf_release(&text);
}

static json_object *presult_json(const struct cover_presult *pr)
{
	json_object *o = json_object_new_object(), *miss = json_object_new_object();
	json_object *reasons = json_object_new_array();
	size_t i, j;

	json_object_object_add(o, "done", json_object_new_boolean(pr->done));
	json_object_object_add(o, "changed", json_object_new_int(pr->changed));
	json_object_object_add(o, "compiled", json_object_new_int(pr->compiled));
	json_object_object_add(o, "arch", json_object_new_int(pr->arch));
	json_object_object_add(o, "units", json_object_new_int(pr->units));
	json_object_object_add(o, "ms", json_object_new_int64((int64_t)pr->ms));
	for (i = 0; i < pr->nr; i++) {
		struct strbuf sb = STRBUF_INIT;

		for (j = 0; j < pr->f[i].nr; j++) {
			json_object *r = json_object_new_object();

			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", pr->f[i].r[j].spans);
			json_object_object_add(r, "file", json_object_new_string(pr->f[i].file));
			json_object_object_add(r, "spans", json_object_new_string(pr->f[i].r[j].spans));
			json_object_object_add(r, "lines", json_object_new_int(pr->f[i].r[j].lines));
			json_object_object_add(r, "reason", json_object_new_string(pr->f[i].r[j].reason));
			json_object_object_add(r, "arch", json_object_new_boolean(pr->f[i].r[j].arch));
			json_object_array_add(reasons, r);
		}
		json_object_object_add(miss, pr->f[i].file, json_object_new_string(sb.buf));
		strbuf_release(&sb);
	}
	json_object_object_add(o, "miss", miss);
	json_object_object_add(o, "ranges", reasons);
	return o;
}

/* Does commit leave what Kconfig reads as base has it? */
static bool kconfig_as_base(const char *git_dir, const char *base, const char *commit)
{
	const char *argv[] = {
		"git", "--git-dir", git_dir, "diff", "--quiet", base, commit, "--",
		":(glob)**/Kconfig*", "Makefile", ":(glob)arch/*/Makefile",
		":(glob)scripts/kconfig/**", NULL
	};
	struct run_cmd cmd = RUN_CMD_INIT;
	bool same;

	cmd.argv = argv;
	same = !run_cmd(&cmd) && cmd.status == 0;
	strbuf_release(&cmd.out);
	strbuf_release(&cmd.err);
	return same;
}

static void sorted(char *const *syms, size_t nr, const char *prefix, struct strbuf *sb)
{
	char **v = xcalloc(nr + 1, sizeof(*v));
	size_t i;

	memcpy(v, syms, nr * sizeof(*v));
	qsort(v, nr, sizeof(*v), util_strcmp_ptr);
	for (i = 0; i < nr; i++)
		strbuf_addf(sb, "%s%s%s", sb->len ? " " : "", prefix, v[i]);
	free(v);
}

static char *memo_key(const struct cover_needs *want)
{
	struct strbuf sb = STRBUF_INIT;

	sorted(want->on, want->on_nr, "", &sb);
	sorted(want->off, want->off_nr, "!", &sb);
	return strbuf_detach(&sb, NULL);
}

static void one(struct ctx *c, const char *git_dir, const char *id, const char *parent,
		const char *commit)
{
	struct kbuild_tree *t = c->t;
	const char *commits[] = { commit, NULL };
	struct cover_needs want = { 0 }, more = { 0 }, branched = { 0 };
	struct cover_predict p = {
		.git_dir = git_dir, .base = parent, .commits = (char **)commits, .nr = 1,
		.srcdir = t->src, .srcarch = kconf_srcarch(t->arch.kernel_arch),
		.compiled = compiled_at_base, .data = c, .line = on_line,
		.included = included_at_base, .readers = &c->readers,
		.other_branch = c->other_branch, .branched = &branched,
	};
	json_object *o = json_object_new_object(), *rep = json_object_new_object();
	struct lines small = { .files = STRMAP_INIT }, repaired = { .files = STRMAP_INIT };
	struct cover_presult pr;
	struct cover_ctx cx;
	struct kconf base = KCONF_INIT;
	struct repair r, *rp = &r;
	struct strbuf err = STRBUF_INIT;
	char *cfg = kbuild_base_config(t), *key = NULL;
	bool memo = false;
	int changed = 0, cs = 0, cr = 0, ch2 = 0;
	uint64_t t0 = util_now_ms();
	size_t i;

	memset(&r, 0, sizeof(r));
	json_object_object_add(o, "id", json_object_new_string(id));
	json_object_object_add(o, "arch", json_object_new_string(t->arch.name));
	if (srctree_checkout(git_dir, t->src, t->index, commit, &err)) {
		json_object_object_add(o, "error", json_object_new_string(err.buf));
		goto print;
	}
	memcpy(t->cur, commit, OID_HEX);
	kconf_load(&base, cfg);
	/* exact, with the base's units */
	cover_ctx_init(&cx, t, NULL);
	if (cover_patch(&cx, git_dir, parent, commit, &pr, &err))
		json_object_object_add(o, "error", json_object_new_string(err.buf));
	json_object_object_add(o, "exact", presult_json(&pr));
	cover_presult_release(&pr);
	cover_ctx_release(&cx);
	/* cheap, line by line */
	if (!predict(c, &p, &base, &small, &want, &changed, &cs)) {
		json_object_object_add(o, "changed", json_object_new_int(changed));
		json_object_object_add(o, "cheap_small", json_object_new_int(cs));
		json_object_object_add(o, "cheap_small_lines", lines_json(&small));
	}
	json_object_object_add(o, "want", jx_new_str_array(want.on, want.on_nr));
	json_object_object_add(o, "want_off", jx_new_str_array(want.off, want.off_nr));
	json_object_object_add(o, "branched", jx_new_str_array(branched.off, branched.off_nr));
	p.branched = NULL;
	json_object_object_add(o, "exact_ms", json_object_new_int64((int64_t)(util_now_ms() - t0)));
	if (!want.on_nr && !want.off_nr)
		goto print;
	/* the repair, and the cheap prediction with it */
	if (kconfig_as_base(git_dir, t->base, commit)) {
		key = memo_key(&want);
		rp = strmap_get(&c->memo, key);
		memo = rp;
		if (!rp)
			rp = &r;
	}
	if (!memo && repair_run(t, &want, &r, &err)) {
		json_object_object_add(rep, "error", json_object_new_string(err.buf));
	} else {
		json_object *fails = json_object_new_array();

		json_object_object_add(rep, "set", jx_new_str_array(rp->set, rp->set_nr));
		json_object_object_add(rep, "unset", jx_new_str_array(rp->unset, rp->unset_nr));
		for (i = 0; i < rp->fail_nr; i++) {
			json_object *f = json_object_new_object();

			json_object_object_add(f, "symbol", json_object_new_string(rp->fail[i].sym));
			json_object_object_add(f, "why", json_object_new_string(rp->fail[i].why));
			json_object_object_add(f, "arch", json_object_new_boolean(rp->fail[i].arch));
			json_object_object_add(f, "off", json_object_new_boolean(rp->fail[i].off));
			json_object_array_add(fails, f);
		}
		json_object_object_add(rep, "failed", fails);
		json_object_object_add(rep, "rounds", json_object_new_int(rp->rounds));
		json_object_object_add(rep, "ms", json_object_new_int64((int64_t)rp->ms));
		/* the same repair as an earlier patch's: its time is not this one's */
		json_object_object_add(rep, "memo", json_object_new_boolean(memo));
		collect_includes(c, git_dir, parent, commit);
		p.included = included_repaired;
		p.compiled = compiled_at_base;
		if (!predict(c, &p, &rp->result, &repaired, &more, &ch2, &cr)) {
			json_object_object_add(rep, "cheap", json_object_new_int(cr));
			json_object_object_add(rep, "cheap_lines", lines_json(&repaired));
		}
	}
	json_object_object_add(o, "repair", rep);
	rep = NULL;
print:
	json_object_put(rep);
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), stdout);
	putchar('\n');
	fflush(stdout);
	json_object_put(o);
	lines_release(&small);
	lines_release(&repaired);
	cover_needs_release(&want);
	cover_needs_release(&more);
	cover_needs_release(&branched);
	if (key && !memo && rp == &r && !err.len) {
		struct repair *keep = xmalloc(sizeof(*keep));

		*keep = r;
		ALLOC_GROW(c->mkeys, c->mnr + 1, c->malloc_);
		c->mkeys[c->mnr++] = key;
		strmap_put(&c->memo, key, keep);
		key = NULL;
	} else if (!memo) {
		repair_release(&r);
	}
	free(key);
	kconf_release(&base);
	strbuf_release(&err);
	free(cfg);
}

int main(int argc, char **argv)
{
	struct config cfg = CONFIG_INIT;
	struct kbuild_env env;
	struct strbuf err = STRBUF_INIT;
	struct ctx c = {
		.headers = READERS_HEADERS_INIT, .readers = COVER_MEMO_INIT,
		.memo = STRMAP_INIT,
	};
	struct arch a;
	char line[512];

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: cover-measure CONFIG GIT_DIR ARCH BASE [FIRST_ARCH] <LIST\n");
		return 2;
	}
	strbuf_init(&c.includes, 0);
	if (config_load_strict(&cfg, argv[1], &err) || kbuild_env_init(&env, &cfg, &err) ||
	    kbuild_arch(&cfg, argv[3], &a, &err) ||
	    kbuild_open(&c.t, &env, &a, config_v(&cfg)->build_profile, argv[2],
			argv[4], NULL, &err)) {
		fprintf(stderr, "cover-measure: %s\n", err.buf);
		return 3;
	}
	c.other_branch = argc == 6 && strcmp(argv[5], a.name);
	readers_headers_scan(&c.headers, c.t->obj, c.t->src);
	fprintf(stderr, "cover-measure: %s: %zu headers read by the base's units\n", a.name,
		c.headers.nr);
	while (fgets(line, sizeof(line), stdin)) {
		char id[128], parent[64], commit[64];

		if (sscanf(line, "%127s %63s %63s", id, parent, commit) != 3)
			continue;
		one(&c, argv[2], id, parent, commit);
	}
	/* the tree back at the base, as lorebot build leaves it at the next open */
	srctree_checkout(argv[2], c.t->src, c.t->index, c.t->base, &err);
	memcpy(c.t->cur, c.t->base, OID_HEX);
	kbuild_close(c.t);
	readers_headers_release(&c.headers);
	cover_memo_release(&c.readers);
	return 0;
}
