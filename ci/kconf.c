// SPDX-License-Identifier: GPL-2.0
/*
 * A .config's values and an index of a tree's Kconfig symbols: see
 * ci/kconf.h.  The Kconfig reader knows the statements that declare,
 * prompt, depend, select and source; everything else is skipped, and
 * help texts are skipped by their indentation as the Kconfig lexer does.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/util.h"
#include "ci/kconf.h"

#define KCONFIG_MAX (4 << 20)		/* one Kconfig file */
#define SOURCE_DEPTH 32

/* ---- .config ---- */

static void put_value(struct kconf *c, const char *name, size_t nlen,
		      const char *val, size_t vlen)
{
	char *k = xstrndup(name, nlen), *v = xstrndup(val, vlen), *old;

	ALLOC_GROW(c->v, c->nr + 2, c->alloc);
	c->v[c->nr++] = k;
	c->v[c->nr++] = v;
	old = strmap_put(&c->map, k, v);
	(void)old;	/* the last assignment wins, as in Kconfig; freed with v */
}

void kconf_parse(struct kconf *c, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *eq;

		if (!nl)
			nl = end;
		if (nl - p > 7 && !memcmp(p, "CONFIG_", 7) &&
		    (eq = memchr(p, '=', nl - p)) && eq > p + 7)
			put_value(c, p, eq - p, eq + 1, nl - eq - 1);
		p = nl + 1;
	}
}

int kconf_load(struct kconf *c, const char *path)
{
	char *buf = NULL;
	size_t len;
	int ret = util_read_file(path, &buf, &len, 64 << 20);

	if (!ret)
		kconf_parse(c, buf, len);
	free(buf);
	return ret;
}

void kconf_release(struct kconf *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->v[i]);
	free(c->v);
	strmap_release(&c->map);
	memset(c, 0, sizeof(*c));
}

const char *kconf_get(const struct kconf *c, const char *sym)
{
	char buf[160];

	if (util_starts_with(sym, "CONFIG_"))
		return strmap_get(&c->map, sym);
	snprintf(buf, sizeof(buf), "CONFIG_%s", sym);
	return strmap_get(&c->map, buf);
}

const char *kconf_bare(const char *sym)
{
	return util_starts_with(sym, "CONFIG_") ? sym + 7 : sym;
}

bool kconf_on(const struct kconf *c, const char *sym, bool module)
{
	const char *v = kconf_get(c, sym);

	return v && (!strcmp(v, "y") || (module && !strcmp(v, "m")));
}

/* ---- the index ---- */

const char *kconf_srcarch(const char *kernel_arch)
{
	static const char *const map[][2] = {
		{ "x86_64", "x86" }, { "i386", "x86" }, { "x86", "x86" },
		{ "arm64", "arm64" }, { "riscv", "riscv" }, { "sparc64", "sparc" },
		{ "parisc64", "parisc" }, { "sh64", "sh" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(map[i][0], kernel_arch))
			return map[i][1];
	return kernel_arch;
}

static struct kconf_sym *sym_get(struct kconf_index *ix, const char *name,
				 size_t len)
{
	char *n = xstrndup(name, len);
	struct kconf_sym *s = strmap_get(&ix->map, n);

	if (s) {
		free(n);
		return s;
	}
	s = xcalloc(1, sizeof(*s));
	s->name = n;
	ALLOC_GROW(ix->v, ix->nr + 1, ix->alloc);
	ix->v[ix->nr++] = s;
	strmap_put(&ix->map, s->name, s);
	return s;
}

/* Any symbol named, declared or only selected */
static const struct kconf_sym *named(const struct kconf_index *ix, const char *name)
{
	return strmap_get(&ix->map, kconf_bare(name));
}

const struct kconf_sym *kconf_index_get(const struct kconf_index *ix,
					const char *name)
{
	const struct kconf_sym *s = named(ix, name);

	/* "select X" of a driver of every arch does not declare X here */
	return s && s->file ? s : NULL;
}

static void add_unique(char ***v, size_t *nr, size_t *alloc, const char *s)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*v)[i], s))
			return;
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = xstrdup(s);
}

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/*
 * The symbols an expression names, "!X" for those under a negation
 * (or compared "= n"): what to try enabling is the others
 */
static void expr_names(const char *e, char ***v, size_t *nr, size_t *alloc)
{
	bool neg[64] = { false };
	int depth = 0;
	bool bang = false;
	const char *p = e;

	while (*p) {
		if (*p == '"') {
			p = strchrnul(p + 1, '"');
			if (*p)
				p++;
			continue;
		}
		if (*p == '!' && p[1] != '=') {
			bang = !bang;
			p++;
			continue;
		}
		if (*p == '(') {
			if (depth < 63) {
				depth++;
				neg[depth] = neg[depth - 1] ^ bang;
			}
			bang = false;
			p++;
			continue;
		}
		if (*p == ')') {
			if (depth)
				depth--;
			p++;
			continue;
		}
		if (is_ident((unsigned char)*p)) {
			const char *s = p, *q;
			bool n = neg[depth] ^ bang;
			char *name;

			while (is_ident((unsigned char)*p))
				p++;
			bang = false;
			if (p - s == 1 && strchr("ymn", *s))
				continue;
			if (isdigit((unsigned char)*s))
				continue;
			q = p;
			while (*q == ' ' || *q == '\t')
				q++;
			if ((q[0] == '=' && q[1] != '=') || (q[0] == '!' && q[1] == '=')) {
				bool ne = q[0] == '!';

				q += ne ? 2 : 1;
				while (*q == ' ' || *q == '\t')
					q++;
				if (*q == 'n' && !is_ident((unsigned char)q[1]))
					n ^= !ne;
				else if (ne)
					n = !n;
			}
			name = xasprintf("%s%.*s", n ? "!" : "", (int)(p - s), s);
			add_unique(v, nr, alloc, name);
			free(name);
			continue;
		}
		bang = false;
		p++;
	}
}

/* A block around entries: if, menu, choice */
struct frame {
	char **deps;
	size_t nr, alloc;
	bool open_deps;		/* menu/choice: its "depends on" lines follow */
};

struct reader {
	struct kconf_index *ix;
	const char *srcdir, *srcarch;
	struct frame *fr;
	size_t fr_nr, fr_alloc;
	struct strbuf *err;
};

static void frame_push(struct reader *r, bool open_deps)
{
	ALLOC_GROW(r->fr, r->fr_nr + 1, r->fr_alloc);
	memset(&r->fr[r->fr_nr], 0, sizeof(r->fr[0]));
	r->fr[r->fr_nr++].open_deps = open_deps;
}

static void frame_pop(struct reader *r)
{
	struct frame *f;
	size_t i;

	if (!r->fr_nr)
		return;
	f = &r->fr[--r->fr_nr];
	for (i = 0; i < f->nr; i++)
		free(f->deps[i]);
	free(f->deps);
}

static int indent_of(const char *s, const char *end)
{
	int n = 0;

	for (; s < end && (*s == ' ' || *s == '\t'); s++)
		n = *s == '\t' ? (n & ~7) + 8 : n + 1;
	return n;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The word at s (an identifier or keyword), its length; rest after it */
static size_t word(const char *s, const char **rest)
{
	const char *p = s;

	while (is_ident((unsigned char)*p) || *p == '-')
		p++;
	*rest = skip_ws(p);
	return p - s;
}

static bool kw(const char *s, size_t n, const char *k)
{
	return strlen(k) == n && !memcmp(s, k, n);
}

static int read_file(struct reader *r, const char *rel, int depth);

/* source "path": $(SRCARCH) and $(srctree)/ expanded, globs allowed */
static int do_source(struct reader *r, const char *cur, const char *arg,
		     bool relative, bool optional, int depth)
{
	struct strbuf path = STRBUF_INIT;
	const char *p = skip_ws(arg), *q;
	int ret = 0;

	if (*p != '"')
		return 0;
	for (q = p + 1; *q && *q != '"'; q++) {
		if (util_starts_with(q, "$(SRCARCH)")) {
			strbuf_addstr(&path, r->srcarch);
			q += 9;
		} else if (util_starts_with(q, "$(srctree)/")) {
			q += 10;
		} else {
			strbuf_addch(&path, *q);
		}
	}
	if (relative) {
		char *dir = util_path_dirname(cur);
		char *joined = strcmp(dir, ".") ? xasprintf("%s/%s", dir, path.buf) :
			xstrdup(path.buf);

		strbuf_reset(&path);
		strbuf_addstr(&path, joined);
		free(joined);
		free(dir);
	}
	if (strchr(path.buf, '*') || strchr(path.buf, '?')) {
		char *pat = xasprintf("%s/%s", r->srcdir, path.buf);
		glob_t g;
		size_t i, skip = strlen(r->srcdir) + 1;

		if (!glob(pat, 0, NULL, &g)) {
			for (i = 0; i < g.gl_pathc && !ret; i++)
				ret = read_file(r, g.gl_pathv[i] + skip, depth + 1);
			globfree(&g);
		}
		free(pat);
	} else {
		ret = read_file(r, path.buf, depth + 1);
		if (ret == -ENOENT)
			ret = 0;	/* missing: skipped, as osource */
	}
	(void)optional;
	strbuf_release(&path);
	return ret;
}

static void entry_deps(struct reader *r, struct kconf_sym *s)
{
	size_t i, j;

	for (i = 0; i < r->fr_nr; i++)
		for (j = 0; j < r->fr[i].nr; j++)
			add_unique(&s->deps, &s->deps_nr, &s->deps_alloc, r->fr[i].deps[j]);
}

static int parse(struct reader *r, const char *rel, char *buf, int depth)
{
	struct kconf_sym *entry = NULL;
	size_t frames_at_start = r->fr_nr;
	char *line = buf, *next;
	int help_indent = -1;	/* in a help text: -1 no, 0 before its first line */
	bool in_help = false;
	int ret = 0;

	for (; line && *line && !ret; line = next) {
		char *nl = strchr(line, '\n'), *hash;
		const char *p, *rest;
		size_t n;
		bool q = false;

		/* a logical line: continuations joined in place */
		while (nl && nl > line && nl[-1] == '\\') {
			nl[-1] = ' ';
			*nl = ' ';
			nl = strchr(nl, '\n');
		}
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if (in_help) {
			int ind = indent_of(line, line + strlen(line));

			if (!*skip_ws(line))
				continue;
			if (help_indent < 0)
				help_indent = ind;
			if (ind >= help_indent && help_indent > 0)
				continue;
			in_help = false;
		}
		for (hash = line; *hash; hash++) {
			if (*hash == '"')
				q = !q;
			if (*hash == '#' && !q) {
				*hash = '\0';
				break;
			}
		}
		p = skip_ws(line);
		if (!*p)
			continue;
		n = word(p, &rest);
		if (kw(p, n, "config") || kw(p, n, "menuconfig")) {
			const char *nm = rest, *e;

			for (e = nm; is_ident((unsigned char)*e); e++)
				;
			entry = e > nm ? sym_get(r->ix, nm, e - nm) : NULL;
			if (entry && !entry->file)
				entry->file = xstrdup(rel);
			if (entry)
				entry_deps(r, entry);
			if (r->fr_nr)
				r->fr[r->fr_nr - 1].open_deps = false;
		} else if (kw(p, n, "if")) {
			entry = NULL;
			frame_push(r, false);
			expr_names(rest, &r->fr[r->fr_nr - 1].deps,
				   &r->fr[r->fr_nr - 1].nr, &r->fr[r->fr_nr - 1].alloc);
		} else if (kw(p, n, "menu") || kw(p, n, "choice")) {
			entry = NULL;
			frame_push(r, true);
		} else if (kw(p, n, "endif") || kw(p, n, "endmenu") ||
			   kw(p, n, "endchoice")) {
			entry = NULL;
			if (r->fr_nr > frames_at_start)
				frame_pop(r);
		} else if (kw(p, n, "source") || kw(p, n, "osource") ||
			   kw(p, n, "rsource") || kw(p, n, "orsource")) {
			entry = NULL;
			ret = do_source(r, rel, rest, p[0] == 'r' || p[1] == 'r',
					p[0] == 'o', depth);
		} else if (kw(p, n, "comment") || kw(p, n, "mainmenu")) {
			entry = NULL;
			if (r->fr_nr)
				r->fr[r->fr_nr - 1].open_deps = false;
		} else if (kw(p, n, "help") || kw(p, n, "---help---")) {
			in_help = true;
			help_indent = -1;
		} else if (kw(p, n, "depends")) {
			const char *e;

			n = word(rest, &e);
			if (!kw(rest, n, "on"))
				continue;
			if (entry) {
				expr_names(e, &entry->deps, &entry->deps_nr, &entry->deps_alloc);
			} else if (r->fr_nr && r->fr[r->fr_nr - 1].open_deps) {
				struct frame *f = &r->fr[r->fr_nr - 1];

				expr_names(e, &f->deps, &f->nr, &f->alloc);
			}
		} else if (entry && (kw(p, n, "select") || kw(p, n, "imply"))) {
			const char *e;
			struct kconf_sym *t;

			for (e = rest; is_ident((unsigned char)*e); e++)
				;
			if (e > rest) {
				t = sym_get(r->ix, rest, e - rest);
				add_unique(&t->selected_by, &t->sel_nr, &t->sel_alloc,
					   entry->name);
			}
		} else if (entry && (kw(p, n, "bool") || kw(p, n, "tristate") ||
				     kw(p, n, "string") || kw(p, n, "int") ||
				     kw(p, n, "hex") || kw(p, n, "prompt"))) {
			if (*rest == '"')
				entry->prompt = true;
		}
	}
	while (r->fr_nr > frames_at_start)
		frame_pop(r);
	return ret;
}

static int read_file(struct reader *r, const char *rel, int depth)
{
	char *path, *buf = NULL;
	size_t len;
	int ret;

	if (depth > SOURCE_DEPTH) {
		strbuf_addf(r->err, "Kconfig sources nested deeper than %d at '%s'",
			    SOURCE_DEPTH, rel);
		return -ELOOP;
	}
	path = xasprintf("%s/%s", r->srcdir, rel);
	ret = util_read_file(path, &buf, &len, KCONFIG_MAX);
	free(path);
	if (ret)
		return ret;
	r->ix->files++;
	ret = parse(r, rel, buf, depth);
	free(buf);
	return ret;
}

int kconf_index_build(struct kconf_index *ix, const char *srcdir,
		      const char *srcarch, struct strbuf *err)
{
	struct reader r = { .ix = ix, .srcdir = srcdir, .srcarch = srcarch, .err = err };
	int ret = read_file(&r, "Kconfig", 0);

	while (r.fr_nr)
		frame_pop(&r);
	free(r.fr);
	if (ret == -ENOENT) {
		strbuf_addf(err, "no Kconfig in '%s'", srcdir);
		return -1;
	}
	if (ret && !err->len)
		strbuf_addf(err, "cannot read the Kconfig files of '%s': %s", srcdir,
			    strerror(-ret));
	return ret ? -1 : 0;
}

void kconf_index_release(struct kconf_index *ix)
{
	size_t i, j;

	for (i = 0; i < ix->nr; i++) {
		struct kconf_sym *s = ix->v[i];

		for (j = 0; j < s->deps_nr; j++)
			free(s->deps[j]);
		for (j = 0; j < s->sel_nr; j++)
			free(s->selected_by[j]);
		free(s->deps);
		free(s->selected_by);
		free(s->name);
		free(s->file);
		free(s);
	}
	free(ix->v);
	strmap_release(&ix->map);
	memset(ix, 0, sizeof(*ix));
}

/* ---- other arches ---- */

/* Does a line of path "config name" (or, with sel, "select name")? */
static bool file_names(const char *path, const char *name, bool sel)
{
	char *buf = NULL, *p, *next;
	size_t len, n = strlen(name);
	bool found = false;

	if (util_read_file(path, &buf, &len, KCONFIG_MAX))
		return false;
	for (p = buf; p && !found; p = next) {
		const char *s = skip_ws(p), *rest;
		size_t w;

		next = strchr(p, '\n');
		if (next)
			next++;
		w = word(s, &rest);
		if ((sel ? kw(s, w, "select") : (kw(s, w, "config") || kw(s, w, "menuconfig"))) &&
		    !strncmp(rest, name, n) && !is_ident((unsigned char)rest[n]))
			found = true;
	}
	free(buf);
	return found;
}

static bool dir_names(const char *dir, const char *name, bool sel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char *p;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode) && depth < 3)
			found = dir_names(p, name, sel, depth + 1);
		else if (S_ISREG(st.st_mode) && util_starts_with(de->d_name, "Kconfig"))
			found = file_names(p, name, sel);
		free(p);
	}
	closedir(d);
	return found;
}

/* The arch directories whose Kconfig files declare (or select) name */
static void in_arches(const char *srcdir, const char *name, bool sel,
		      struct strbuf *out)
{
	char *arch = xasprintf("%s/arch", srcdir);
	DIR *d = opendir(arch);
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0, i, j;

	name = kconf_bare(name);
	while (d && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", arch, de->d_name);
		if (dir_names(p, name, sel, 0)) {
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = xstrdup(de->d_name);
		}
		free(p);
	}
	if (d)
		closedir(d);
	/* readdir() order is the file system's: sorted for stable text */
	for (i = 1; i < nr; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (i = 0; i < nr; i++) {
		strbuf_addf(out, "%s%s", i ? ", " : "", names[i]);
		free(names[i]);
	}
	free(names);
	free(arch);
}

void kconf_declared_in_arches(const char *srcdir, const char *name,
			      struct strbuf *out)
{
	in_arches(srcdir, name, false, out);
}

void kconf_selected_in_arches(const char *srcdir, const char *name,
			      struct strbuf *out)
{
	in_arches(srcdir, name, true, out);
}
