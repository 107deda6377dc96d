// SPDX-License-Identifier: GPL-2.0
/*
 * Who reads a header: ci/readers.h.
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/util.h"
#include "ci/kbuild-cmd.h"
#include "ci/readers.h"

#define FILE_MAX (8 << 20)

void readers_release(struct readers *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		free(r->v[i]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* ---- one #include line ---- */

/* "a/b/../c" -> "a/c", "./x" -> "x", in place; false when it leaves the tree */
static bool normalise(char *path)
{
	char *out = path, *p = path;

	while (*p) {
		if (p[0] == '.' && (p[1] == '/' || !p[1]) && (p == path || p[-1] == '/')) {
			p += p[1] ? 2 : 1;
			continue;
		}
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]) &&
		    (p == path || p[-1] == '/')) {
			if (out == path)
				return false;
			out--;	/* the '/' before */
			while (out > path && out[-1] != '/')
				out--;
			p += p[2] ? 3 : 2;
			continue;
		}
		*out++ = *p++;
	}
	*out = '\0';
	return true;
}

/* The name header has between <> (NULL: none), and a second one (uapi) */
static const char *angle(const char *header, const char **also)
{
	const char *p;

	*also = NULL;
	if (util_skip_prefix(header, "include/uapi/", &p)) {
		*also = header + strlen("include/");
		return p;
	}
	if (util_skip_prefix(header, "include/", &p))
		return p;
	if (util_skip_prefix(header, "arch/", &p)) {
		p = strchr(p, '/');
		if (p && util_skip_prefix(p + 1, "include/uapi/", &p))
			return p;
		if (p && util_skip_prefix(p + 1, "include/", &p))
			return p;
	}
	return NULL;
}

bool readers_includes(const char *path, const char *line, size_t len,
		      const char *header)
{
	const char *p = line, *end = line + len, *q, *also, *a = angle(header, &also);
	char close, *name, *dir, *joined;
	bool found;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p++ != '#')
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 7 || memcmp(p, "include", 7))
		return false;
	p += 7;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || (*p != '<' && *p != '"'))
		return false;
	close = *p == '<' ? '>' : '"';
	for (q = ++p; q < end && *q != close; q++)
		;
	if (q == end)
		return false;
	name = xstrndup(p, q - p);
	found = (a && !strcmp(name, a)) || (also && !strcmp(name, also));
	if (!found && close == '"') {
		dir = util_path_dirname(path);
		joined = strcmp(dir, ".") ? xasprintf("%s/%s", dir, name) : xstrdup(name);
		found = normalise(joined) && !strcmp(joined, header);
		free(joined);
		free(dir);
	}
	free(name);
	return found;
}

/* ---- the walk ---- */

struct walk {
	const char *srcdir, *header, *srcarch, *base;	/* base: the header's file name */
	const char *skip[2];	/* directories walked already (or NULL) */
	size_t max;
	uint64_t deadline;
	struct readers *out;
};

static bool done(const struct walk *w)
{
	if (w->out->nr >= w->max || util_now_ms() > w->deadline) {
		w->out->partial = true;
		return true;
	}
	return false;
}

static bool skipped_dir(const struct walk *w, const char *rel)
{
	static const char *const skip[] = {
		"tools", "scripts", "Documentation", "usr", ".git",
	};
	const char *a;
	size_t i, n = strlen(w->srcarch);

	for (i = 0; i < ARRAY_SIZE(skip); i++)
		if (!strcmp(rel, skip[i]))
			return true;
	for (i = 0; i < ARRAY_SIZE(w->skip); i++)
		if (w->skip[i] && !strcmp(rel, w->skip[i]))
			return true;
	/* another architecture's tree */
	return util_skip_prefix(rel, "arch/", &a) && !strchr(a, '/') &&
		(strncmp(a, w->srcarch, n) || a[n]);
}

static bool has(const struct readers *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->v[i], path))
			return true;
	return false;
}

static void look(struct walk *w, const char *rel)
{
	char *path = xasprintf("%s/%s", w->srcdir, rel), *buf = NULL, *p, *end;
	size_t len;

	if (has(w->out, rel) || util_read_file(path, &buf, &len, FILE_MAX)) {
		free(path);
		return;
	}
	free(path);
	end = buf + len;
	/* the header's file name is in every line that includes it */
	for (p = buf; p < end && (p = memmem(p, end - p, w->base, strlen(w->base)));
	     p++) {
		char *bol = p, *eol = memchr(p, '\n', end - p);

		while (bol > buf && bol[-1] != '\n')
			bol--;
		if (!eol)
			eol = end;
		if (readers_includes(rel, bol, eol - bol, w->header)) {
			ALLOC_GROW(w->out->v, w->out->nr + 1, w->out->alloc);
			w->out->v[w->out->nr++] = xstrdup(rel);
			break;
		}
		p = eol;
	}
	free(buf);
}

static void walk(struct walk *w, const char *rel)
{
	char *path = *rel ? xasprintf("%s/%s", w->srcdir, rel) : xstrdup(w->srcdir);
	DIR *d = opendir(path);
	struct dirent *de;
	char **files = NULL, **dirs = NULL;
	size_t fnr = 0, falloc = 0, dnr = 0, dalloc = 0, i;

	free(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		unsigned char type;
		char *sub;

		if (de->d_name[0] == '.')
			continue;
		sub = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		type = de->d_type;
		if (type == DT_UNKNOWN) {
			char *full = xasprintf("%s/%s", w->srcdir, sub);
			struct stat st;

			type = lstat(full, &st) ? DT_UNKNOWN : S_ISDIR(st.st_mode) ? DT_DIR :
				S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
			free(full);
		}
		if (type == DT_DIR && !skipped_dir(w, sub)) {
			ALLOC_GROW(dirs, dnr + 1, dalloc);
			dirs[dnr++] = sub;
		} else if (type == DT_REG && n > 2 && !strcmp(de->d_name + n - 2, ".c")) {
			ALLOC_GROW(files, fnr + 1, falloc);
			files[fnr++] = sub;
		} else {
			free(sub);
		}
	}
	closedir(d);
	/* in name order, the files of a directory before its subdirectories */
	if (fnr)
		qsort(files, fnr, sizeof(*files), util_strcmp_ptr);
	if (dnr)
		qsort(dirs, dnr, sizeof(*dirs), util_strcmp_ptr);
	for (i = 0; i < fnr; i++) {
		if (!done(w))
			look(w, files[i]);
		free(files[i]);
	}
	for (i = 0; i < dnr; i++) {
		if (!done(w))
			walk(w, dirs[i]);
		free(dirs[i]);
	}
	free(files);
	free(dirs);
}

void readers_find(const char *srcdir, const char *header, const char *srcarch,
		  size_t max, uint64_t ms, struct readers *out)
{
	struct walk w = {
		.srcdir = srcdir, .header = header, .srcarch = srcarch, .max = max,
		.deadline = util_now_ms() + ms, .out = out,
	};
	const char *slash = strrchr(header, '/');
	char *dir = util_path_dirname(header);

	memset(out, 0, sizeof(*out));
	w.base = slash ? slash + 1 : header;
	/*
	 * its own directory (not include/'s: any file may read those), then
	 * mm/, then the rest; each walked once
	 */
	if (strcmp(dir, ".") && !util_starts_with(header, "include/") &&
	    !strstr(header, "/include/")) {
		walk(&w, dir);
		w.skip[0] = dir;
	}
	if (!done(&w)) {
		walk(&w, "mm");
		w.skip[1] = "mm";
	}
	if (!done(&w))
		walk(&w, "");
	free(dir);
}

/* ---- the headers a build directory's units read ---- */

static void add_header(struct readers_headers *h, const char *p, size_t n)
{
	char *k = xstrndup(p, n);

	if (strmap_get(&h->map, k)) {
		free(k);
		return;
	}
	ALLOC_GROW(h->keys, h->nr + 1, h->alloc);
	h->keys[h->nr++] = k;
	strmap_put(&h->map, k, (void *)1);
}

static void scan_cmd(struct readers_headers *h, const char *buf, const char *needle)
{
	size_t n = strlen(needle);
	const char *p;

	for (p = buf; (p = strstr(p, needle)); p += n) {
		const char *s = p + n, *e = s;

		/* a path inside src/, not one that merely ends with the needle */
		if (p > buf && p[-1] != ' ' && p[-1] != '\t')
			continue;
		while (*e && *e != ' ' && *e != '\n' && *e != '\\' && *e != '\t')
			e++;
		if (e - s > 2 && e[-2] == '.' && e[-1] == 'h')
			add_header(h, s, e - s);
	}
}

void readers_headers_scan(struct readers_headers *h, const char *obj, const char *src)
{
	char *rel = util_relative_path(obj, src);
	char *abs_needle = xasprintf("%s/", src), *rel_needle = xasprintf("%s/", rel);
	char **units;
	size_t nr = kbuild_list_units(obj, &units), i;

	for (i = 0; i < nr; i++) {
		char *f = kbuild_cmd_file(obj, units[i]), *buf = NULL;
		size_t len;

		if (!util_read_file_beneath(obj, f, &buf, &len, FILE_MAX)) {
			scan_cmd(h, buf, abs_needle);
			scan_cmd(h, buf, rel_needle);
		}
		free(buf);
		free(f);
	}
	kbuild_units_free(units, nr);
	free(abs_needle);
	free(rel_needle);
	free(rel);
}

bool readers_headers_has(const struct readers_headers *h, const char *path)
{
	return strmap_get(&h->map, path) != NULL;
}

void readers_headers_release(struct readers_headers *h)
{
	size_t i;

	for (i = 0; i < h->nr; i++)
		free(h->keys[i]);
	free(h->keys);
	strmap_release(&h->map);
	memset(h, 0, sizeof(*h));
}
