// SPDX-License-Identifier: GPL-2.0
/*
 * The call index of a tree: for mm/ and the mm headers of include/linux/,
 * which names each file defines (a function body) and calls (a name
 * followed by "(" inside a function).  One line per name and file,
 * "name\tK\tpath" with K 'd' or 'c', sorted, so that a lookup is a binary
 * search.  Built with the checkers' own scanner (cscan.h) and kept in
 * <cachedir>/callindex/<mm tree>-<include/linux tree>.idx; the lines of
 * each file are kept too, by blob id (<cachedir>/callindex/blobs/), so
 * that the index of another tree parses only the files that changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/git/git.h"
#include "lib/log.h"
#include "lib/strmap.h"
#include "checkers/callers.h"

#define MAX_INDEX (256 << 20)

struct callindex {
	char *text;
	size_t len;
	size_t *line;		/* offsets of the lines */
	size_t nr;
};

/* The headers of include/linux/ that hold mm code */
static const char *const mm_headers[] = {
	"mm", "huge_mm", "rmap", "swap", "page", "memcontrol", "khugepaged",
	"hugetlb", "pgtable", "vmstat", "migrate", "ksm", "userfaultfd",
	"mmzone", "gfp", "shmem", "mempolicy", "highmem", "folio", "memremap",
};

static const char *const not_calls[] = {
	"if", "while", "for", "switch", "return", "sizeof", "typeof",
	"__typeof__", "defined", "__attribute__", "asm", "__asm__",
	"_Generic", "alignof", "__alignof__", "offsetof",
};

struct builder {
	struct strbuf out;
	size_t files;		/* parsed */
	size_t cached;		/* taken from the blob cache */
	const char *blobdir;	/* <cachedir>/callindex/blobs, or NULL */
	char id[41];		/* the blob want() said yes to */
};

static bool is_c(const char *path)
{
	return util_ends_with(path, ".c") || util_ends_with(path, ".h");
}

static bool is_mm_header(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	if (!util_ends_with(base, ".h") || strncmp(path, "include/linux/", 14) ||
	    strchr(path + 14, '/'))
		return false;
	for (i = 0; i < ARRAY_SIZE(mm_headers); i++)
		if (!strncmp(base, mm_headers[i], strlen(mm_headers[i])))
			return true;
	return false;
}

/* The cached lines of a blob ("name\tK") added for path; false: not cached */
static bool from_blob_cache(struct builder *b, const char *path, const char *id)
{
	char *file, *text = NULL;
	size_t len, pos = 0;

	if (!b->blobdir)
		return false;
	file = xasprintf("%s/%s", b->blobdir, id);
	if (util_read_file(file, &text, &len, MAX_INDEX)) {
		free(file);
		return false;
	}
	while (pos < len) {
		const char *l = text + pos, *e = memchr(l, '\n', len - pos);
		size_t n = e ? (size_t)(e - l) : len - pos;

		strbuf_addf(&b->out, "%.*s\t%s\n", (int)n, l, path);
		pos += n + 1;
	}
	b->cached++;
	free(text);
	free(file);
	return true;
}

static bool want_file(const char *path, const char *id, void *data, bool ok)
{
	struct builder *b = data;

	if (!ok || from_blob_cache(b, path, id))
		return false;
	memcpy(b->id, id, sizeof(b->id) - 1);
	return true;
}

static bool want_c(const char *path, const char *id, void *data)
{
	return want_file(path, id, data, is_c(path));
}

static bool want_header(const char *path, const char *id, void *data)
{
	return want_file(path, id, data, is_mm_header(path));
}

static void add(struct builder *b, struct strmap *seen, const struct ctok *t,
		char kind, const char *path, struct strbuf *blob)
{
	char *key = xasprintf("%.*s\t%c", t->len, t->s, kind);

	if (strmap_get(seen, key)) {
		free(key);
		return;
	}
	strmap_put(seen, key, (void *)1);
	strbuf_addf(&b->out, "%s\t%s\n", key, path);
	strbuf_addf(blob, "%s\n", key);
}

static void save(const char *path, const struct strbuf *text);

static int index_file(const char *path, const char *text, size_t len, void *data)
{
	struct builder *b = data;
	struct strmap seen = STRMAP_INIT;
	struct strbuf blob = STRBUF_INIT;
	struct cview v;
	size_t k;
	int i;

	cview_from_text(&v, xstrndup(text, len), len, NULL);
	for (i = 0; i < v.nr_nodes; i++) {
		const struct cnode *n = &v.nodes[i];
		int t;

		if (n->kind != CN_FUNC || n->name < 0)
			continue;
		add(b, &seen, &v.toks[n->name], 'd', path, &blob);
		if (n->child < 0)
			continue;
		for (t = v.nodes[n->child].first; t < v.nodes[n->child].last; t++)
			if (v.toks[t].kind == CT_IDENT && cv_is(&v, t + 1, "(") &&
			    !ctok_in(&v.toks[t], not_calls, ARRAY_SIZE(not_calls)) &&
			    !cv_is(&v, t - 1, ".") && !cv_is(&v, t - 1, "->"))
				add(b, &seen, &v.toks[t], 'c', path, &blob);
	}
	for (k = 0; k < seen.size; k++)
		if (seen.e[k].hash)
			free((char *)seen.e[k].key);
	strmap_release(&seen);
	cview_release(&v);
	if (b->blobdir) {
		char *file = xasprintf("%s/%s", b->blobdir, b->id);

		save(file, &blob);
		free(file);
	}
	strbuf_release(&blob);
	b->files++;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	for (; *x == *y && *x != '\n'; x++, y++)
		;
	return (*x == '\n' ? 0 : (unsigned char)*x) -
	       (*y == '\n' ? 0 : (unsigned char)*y);
}

/* Sort the lines of text in place: sort pointers, then write them out */
static void sort_lines(struct strbuf *text)
{
	const char **l = NULL;
	size_t nr = 0, alloc = 0, pos = 0, i;
	struct strbuf out = STRBUF_INIT;

	while (pos < text->len) {
		const char *e = memchr(text->buf + pos, '\n', text->len - pos);

		ALLOC_GROW(l, nr + 1, alloc);
		l[nr++] = text->buf + pos;
		pos = e ? (size_t)(e - text->buf) + 1 : text->len;
	}
	qsort(l, nr, sizeof(*l), cmp_line);
	strbuf_grow(&out, text->len);
	for (i = 0; i < nr; i++) {
		const char *e = strchr(l[i], '\n');

		strbuf_add(&out, l[i], e - l[i] + 1);
	}
	free(l);
	strbuf_release(text);
	*text = out;
}

static void index_lines(struct callindex *ci)
{
	size_t pos = 0, alloc = 0;

	while (pos < ci->len) {
		const char *e = memchr(ci->text + pos, '\n', ci->len - pos);

		ALLOC_GROW(ci->line, ci->nr + 1, alloc);
		ci->line[ci->nr++] = pos;
		pos = e ? (size_t)(e - ci->text) + 1 : ci->len;
	}
}

static char *cache_path(const char *cachedir, const char *mm, const char *inc)
{
	return cachedir ? xasprintf("%s/callindex/%.16s-%.16s.idx", cachedir, mm, inc) :
	       NULL;
}

static void save(const char *path, const struct strbuf *text)
{
	char *dir = xstrdup(path), *tmp;

	*strrchr(dir, '/') = '\0';
	tmp = xasprintf("%s.%d", path, (int)getpid());
	if (util_mkdir_p(dir, 0755) || util_write_file(tmp, text->buf, text->len) ||
	    rename(tmp, path)) {
		log_debug("callindex: cannot write '%s'", path);
		unlink(tmp);
	}
	free(tmp);
	free(dir);
}

struct callindex *callindex_open(struct check_tree *t, const char *rev,
				 const char *cachedir)
{
	struct git_walk mm = { .dir = "mm", .want = want_c };
	struct git_walk inc = { .dir = "include/linux", .want = want_header };
	struct builder b = { .out = STRBUF_INIT };
	struct callindex *ci;
	char *path, *blobdir = NULL;

	if (!t->walk || !rev || t->walk(t, rev, &mm))
		return NULL;
	if (t->walk(t, rev, &inc))
		memcpy(inc.tree_id, "none", 5);
	ci = xcalloc(1, sizeof(*ci));
	path = cache_path(cachedir, mm.tree_id, inc.tree_id);
	if (path && !util_read_file(path, &ci->text, &ci->len, MAX_INDEX)) {
		index_lines(ci);
		free(path);
		return ci;
	}
	/*
	 * A tree not seen yet: the files whose blobs were seen in another
	 * tree (mm-new moves a few files a day) come from the blob cache,
	 * only the others are parsed
	 */
	if (cachedir)
		b.blobdir = blobdir = xasprintf("%s/callindex/blobs", cachedir);
	mm.file = inc.file = index_file;
	mm.data = inc.data = &b;
	if (t->walk(t, rev, &mm) || (strcmp(inc.tree_id, "none") &&
				     t->walk(t, rev, &inc))) {
		strbuf_release(&b.out);
		free(blobdir);
		free(path);
		free(ci);
		return NULL;
	}
	free(blobdir);
	sort_lines(&b.out);
	log_debug("callindex: %zu files parsed, %zu from the blob cache, %zu bytes",
		  b.files, b.cached, b.out.len);
	if (path)
		save(path, &b.out);
	ci->len = b.out.len;
	ci->text = strbuf_detach(&b.out, NULL);
	index_lines(ci);
	free(path);
	return ci;
}

void callindex_free(struct callindex *ci)
{
	if (!ci)
		return;
	free(ci->text);
	free(ci->line);
	free(ci);
}

/* name[0..len) against the name of line i */
static int cmp_name(const struct callindex *ci, size_t i, const char *name, int len)
{
	const char *l = ci->text + ci->line[i];
	int k;

	for (k = 0; k < len && l[k] != '\t' && l[k] != '\n'; k++)
		if (l[k] != name[k])
			return (unsigned char)l[k] - (unsigned char)name[k];
	if (k < len)
		return -1;	/* the line's name is a prefix of name */
	return l[k] == '\t' ? 0 : 1;
}

void callindex_files(const struct callindex *ci, const char *name, int len,
		     char kind, void (*fn)(const char *path, void *data),
		     void *data)
{
	size_t lo = 0, hi = ci->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_name(ci, mid, name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ci->nr && !cmp_name(ci, lo, name, len); lo++) {
		const char *l = ci->text + ci->line[lo] + len + 1;
		const char *e = memchr(l, '\n', ci->len - (l - ci->text));
		char *path;

		if (*l != kind || l[1] != '\t' || !e)
			continue;
		path = xstrndup(l + 2, e - (l + 2));
		fn(path, data);
		free(path);
	}
}
