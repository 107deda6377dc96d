// SPDX-License-Identifier: GPL-2.0
/*
 * The Kconfig symbols kbuild needs to build an object: ci/needs.h.
 * A Makefile is read as lines "VAR op words" inside ifdef/ifeq blocks;
 * nothing is expanded but $(SRCARCH).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"
#include "ci/needs.h"

#define MAKEFILE_MAX (1 << 20)
#define DEPTH 6

struct cond {
	char *sym;		/* CONFIG_X, or NULL: a condition we cannot read */
	bool on;
};

struct mline {
	char *var;		/* "obj-$(CONFIG_X)" */
	bool assign;		/* ":=" or "=": replaces what the variable held */
	char **words;
	size_t nr;
	struct cond *conds;	/* the blocks around it */
	size_t conds_nr;
	int lineno;
};

struct mfile {
	char *path;		/* relative */
	struct mline *v;
	size_t nr, alloc;
};

static void mfile_release(struct mfile *m)
{
	size_t i, j;

	for (i = 0; i < m->nr; i++) {
		struct mline *l = &m->v[i];

		free(l->var);
		for (j = 0; j < l->nr; j++)
			free(l->words[j]);
		free(l->words);
		for (j = 0; j < l->conds_nr; j++)
			free(l->conds[j].sym);
		free(l->conds);
	}
	free(m->v);
	free(m->path);
	memset(m, 0, sizeof(*m));
}

/* The CONFIG_ symbol named in s ("$(CONFIG_X)", "ifdef CONFIG_X"), or NULL */
static char *config_in(const char *s)
{
	const char *p = strstr(s, "CONFIG_"), *e;

	if (!p)
		return NULL;
	for (e = p + 7; (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') ||
		     (*e >= 'a' && *e <= 'z') || *e == '_'; e++)
		;
	return xstrndup(p, e - p);
}

/* "ifdef CONFIG_X", "ifeq ($(CONFIG_X),y)", "ifneq ($(CONFIG_X),)" */
static struct cond read_cond(const char *kw, const char *arg)
{
	struct cond c = { .sym = config_in(arg), .on = true };
	const char *comma = strchr(arg, ',');
	bool empty;

	if (!strcmp(kw, "ifndef")) {
		c.on = false;
	} else if (!strcmp(kw, "ifeq") || !strcmp(kw, "ifneq")) {
		/* compared with "y" (on) or with nothing (off) */
		if (!comma) {
			free(c.sym);
			c.sym = NULL;
			return c;
		}
		comma++;
		while (*comma == ' ')
			comma++;
		empty = *comma == ')';
		if (!empty && strncmp(comma, "y)", 2)) {
			free(c.sym);
			c.sym = NULL;
			return c;
		}
		c.on = empty ^ !strcmp(kw, "ifeq");
	}
	return c;
}

static char *subst_arch(const char *w, const char *srcarch)
{
	const char *at = strstr(w, "$(SRCARCH)");

	if (!at)
		return xstrdup(w);
	return xasprintf("%.*s%s%s", (int)(at - w), w, srcarch, at + 10);
}

/* dir's Kbuild, else its Makefile (only the Makefile: makefile_only) */
static int mfile_read(struct mfile *m, const char *srcdir, const char *dir,
		      const char *srcarch, bool makefile_only)
{
	struct cond *stack = NULL;
	size_t snr = 0, salloc = 0, i;
	char *path, *buf = NULL, *p, *next;
	int ret = -ENOENT, lineno = 0;

	memset(m, 0, sizeof(*m));
	path = xasprintf("%s/%s%sKbuild", srcdir, dir, *dir ? "/" : "");
	if (!makefile_only)
		ret = util_read_file(path, &buf, NULL, MAKEFILE_MAX);
	if (ret) {
		free(path);
		path = xasprintf("%s/%s%sMakefile", srcdir, dir, *dir ? "/" : "");
		ret = util_read_file(path, &buf, NULL, MAKEFILE_MAX);
	}
	m->path = xstrdup(path + strlen(srcdir) + 1);
	free(path);
	if (ret)
		return ret;
	for (p = buf; p && *p; p = next) {
		char *nl, *hash, *op, *q, *save = NULL, *w;
		struct mline *l;

		nl = strchr(p, '\n');
		lineno++;
		while (nl && nl > p && nl[-1] == '\\') {
			nl[-1] = ' ';
			*nl = ' ';
			lineno++;
			nl = strchr(nl, '\n');
		}
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			continue;
		if (util_starts_with(p, "ifdef ") || util_starts_with(p, "ifndef ") ||
		    util_starts_with(p, "ifeq") || util_starts_with(p, "ifneq")) {
			char kw[8];
			size_t n = strcspn(p, " (\t");

			snprintf(kw, sizeof(kw), "%.*s", (int)MIN(n, 7), p);
			ALLOC_GROW(stack, snr + 1, salloc);
			stack[snr++] = read_cond(kw, p + n);
			continue;
		}
		if (util_starts_with(p, "else")) {
			if (snr)
				stack[snr - 1].on = !stack[snr - 1].on;
			continue;
		}
		if (util_starts_with(p, "endif")) {
			if (snr)
				free(stack[--snr].sym);
			continue;
		}
		op = strstr(p, "=");
		if (!op || op == p)
			continue;
		q = op;
		if (q[-1] == '+' || q[-1] == ':' || q[-1] == '?')
			q--;
		while (q > p && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		ALLOC_GROW(m->v, m->nr + 1, m->alloc);
		l = &m->v[m->nr++];
		memset(l, 0, sizeof(*l));
		l->var = xstrndup(p, q - p);
		l->assign = op[-1] != '+' && op[-1] != '?';
		l->lineno = lineno;
		for (w = strtok_r(op + 1, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			l->words = xrealloc(l->words, (l->nr + 1) * sizeof(*l->words));
			l->words[l->nr++] = subst_arch(w, srcarch);
		}
		l->conds = xcalloc(snr + 1, sizeof(*l->conds));
		for (i = 0; i < snr; i++) {
			l->conds[i].sym = xstrdup_or_null(stack[i].sym);
			l->conds[i].on = stack[i].on;
		}
		l->conds_nr = snr;
	}
	for (i = 0; i < snr; i++)
		free(stack[i].sym);
	free(stack);
	free(buf);
	return 0;
}

static bool terminal(const char *var)
{
	static const char *const kinds[] = {
		"obj-", "lib-", "core-", "drivers-", "libs-", "subdir-", "always-",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (util_starts_with(var, kinds[i]))
			return true;
	return false;
}

struct search {
	const char *srcdir, *srcarch;
	const struct kconf *c;
	struct strbuf *why;
};

/*
 * A later "P-$(CONFIG_Y) := ..." replaces what "P-y := x.o" put in
 * P-y when Y is on (mm/Makefile's nommu.o): x.o needs Y off
 */
/* The variable's stem: "memory-hotplug" of "memory-hotplug-$(CONFIG_X)" */
static size_t stem(const char *var)
{
	const char *d = strstr(var, "-$("), *last = strrchr(var, '-');

	if (d)
		return d - var;
	return last ? (size_t)(last - var) : strlen(var);
}

static void replaced_by(const struct mfile *m, const struct mline *l,
			struct cover_needs *n)
{
	size_t plen = stem(l->var), i;

	if (!l->assign || !l->var[plen])
		return;
	for (i = l - m->v + 1; i < m->nr; i++) {
		const struct mline *x = &m->v[i];
		char *sym;

		if (!x->assign || strncmp(x->var, l->var, plen + 1) ||
		    !(sym = config_in(x->var)))
			continue;
		cover_needs_off(n, sym);
		free(sym);
	}
}

/* A match: its needs, whether they hold already */
static void line_needs(const struct mfile *m, const struct mline *l,
		       struct cover_needs *n)
{
	char *sym = config_in(l->var);
	size_t i;

	replaced_by(m, l, n);
	if (sym) {
		cover_needs_on(n, sym);
		free(sym);
	} else if (!strcmp(l->var + stem(l->var), "-m")) {
		cover_needs_fixed(n, "built as a module only (obj-m)");
	}
	for (i = 0; i < l->conds_nr; i++) {
		if (!l->conds[i].sym)
			continue;
		if (l->conds[i].on)
			cover_needs_on(n, l->conds[i].sym);
		else
			cover_needs_off(n, l->conds[i].sym);
	}
}

static bool holds(const struct search *s, const struct cover_needs *n)
{
	size_t i;

	if (n->fixed)
		return false;
	for (i = 0; i < n->on_nr; i++)
		if (!kconf_on(s->c, n->on[i], false))
			return false;
	for (i = 0; i < n->off_nr; i++)
		if (kconf_on(s->c, n->off[i], true))
			return false;
	return true;
}

static bool word_refers(const char *w, const char *target, const char *name)
{
	if (!strcmp(w, target))
		return true;
	if (name) {
		char *ref = xasprintf("$(%s-", name);
		bool r = strstr(w, ref) != NULL;

		free(ref);
		return r;
	}
	return false;
}

/*
 * target ("vaddr.o", "damon/") in m: into out the needs of the best
 * line building it.  0 found, -1 not.
 */
static int find(const struct search *s, const struct mfile *m, const char *target,
		const char *name, int depth, struct cover_needs *out)
{
	struct cover_needs best = { 0 };
	const struct mline *chosen = NULL;
	bool found = false, best_holds = false;
	size_t i, j;

	if (depth > DEPTH)
		return -1;
	for (i = 0; i < m->nr && !best_holds; i++) {
		const struct mline *l = &m->v[i];
		struct cover_needs n = { 0 };
		bool hit = false;
		int r = 0;

		for (j = 0; j < l->nr && !hit; j++)
			hit = word_refers(l->words[j], target, name);
		if (!hit)
			continue;
		line_needs(m, l, &n);
		if (!terminal(l->var)) {
			/* a composite object or a list: what builds it */
			size_t len = stem(l->var);
			char *comp = xstrndup(l->var, len);
			char *obj = xasprintf("%s.o", comp);

			r = !strcmp(l->var, comp) ? -1 :
				find(s, m, obj, comp, depth + 1, &n);
			free(obj);
			free(comp);
		}
		if (!r && (!found || (!best_holds && holds(s, &n)))) {
			cover_needs_release(&best);
			best = n;
			chosen = l;
			found = true;
			best_holds = holds(s, &n);
		} else {
			cover_needs_release(&n);
		}
	}
	if (found)
		cover_needs_merge(out, &best);
	if (found && s->why)
		strbuf_addf(s->why, "%s%s:%d: %s", s->why->len ? ", " : "", m->path,
			    chosen->lineno, chosen->var);
	cover_needs_release(&best);
	return found ? 0 : -1;
}

/* full ("arch/x86/lib/") in the lists of the root and the arch Makefile */
static int find_top(const struct search *s, const char *full, struct cover_needs *out)
{
	char *arch_dir = xasprintf("arch/%s", s->srcarch);
	const char *dirs[] = { "", "", arch_dir };
	struct mfile m;
	size_t i;
	int ret = -1;

	/* the root's Kbuild, the root's Makefile, the arch's Makefile */
	for (i = 0; i < ARRAY_SIZE(dirs) && ret; i++) {
		if (!mfile_read(&m, s->srcdir, dirs[i], s->srcarch, i > 0))
			ret = find(s, &m, full, NULL, 0, out);
		mfile_release(&m);
	}
	free(arch_dir);
	return ret;
}

/* The needs of dir/target, then of dir in its parent, up to the top */
static int walk(const struct search *s, const char *dir, const char *target,
		struct cover_needs *out)
{
	struct mfile m;
	char *parent, *slash, *sub, *full;
	const char *arch_dir;
	int ret = -1;

	if (util_skip_prefix(dir, "arch/", &arch_dir) &&
	    (strncmp(arch_dir, s->srcarch, strlen(s->srcarch)) ||
	     (arch_dir[strlen(s->srcarch)] && arch_dir[strlen(s->srcarch)] != '/'))) {
		char *why = xasprintf("arch/%.*s is built for that architecture only",
				      (int)strcspn(arch_dir, "/"), arch_dir);

		cover_needs_fixed(out, why);
		free(why);
		return -1;
	}
	if (!mfile_read(&m, s->srcdir, dir, s->srcarch, false))
		ret = find(s, &m, target, NULL, 0, out);
	mfile_release(&m);
	full = xasprintf("%s%s%s", dir, *dir ? "/" : "", target);
	if (ret) {
		/* core-y, libs-y, drivers-y of the root and the arch Makefile */
		ret = find_top(s, full, out);
		if (!ret) {
			free(full);
			return 0;
		}
		if (!out->fixed) {
			char *why = xasprintf("no Makefile line builds %s", full);

			cover_needs_fixed(out, why);
			free(why);
		}
		free(full);
		return -1;
	}
	free(full);
	if (!*dir)
		return 0;
	/* the directory in its parent: "damon/" in mm */
	parent = xstrdup(dir);
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		sub = xasprintf("%s/", slash + 1);
	} else {
		*parent = '\0';
		sub = xasprintf("%s/", dir);
	}
	ret = walk(s, parent, sub, out);
	free(parent);
	free(sub);
	return ret;
}

int needs_object(const char *srcdir, const char *path, const char *srcarch,
		 const struct kconf *c, struct cover_needs *out, struct strbuf *why)
{
	struct search s = { .srcdir = srcdir, .srcarch = srcarch, .c = c, .why = why };
	char *dir = util_path_dirname(path), *obj;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	int ret;

	if (n < 3 || strcmp(base + n - 2, ".c")) {
		cover_needs_fixed(out, "not a .c file");
		free(dir);
		return -1;
	}
	obj = xasprintf("%.*s.o", (int)(n - 2), base);
	ret = walk(&s, strcmp(dir, ".") ? dir : "", obj, out);
	free(obj);
	free(dir);
	return ret;
}
