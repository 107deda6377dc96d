// SPDX-License-Identifier: GPL-2.0
/*
 * The evidence of preprocessed units (ci/cover.h): which conditional
 * groups of the changed files the compiler was given.
 */
#include <stdlib.h>

#include "lib/util.h"
#include "lib/strmap.h"
#include "ci/cover.h"

void cover_file_init(struct cover_file *f, const char *path, const char *text,
		     size_t len)
{
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	cover_src_scan(&f->src, text ? text : "", text ? len : 0);
	f->taken = xcalloc(f->src.g_nr + 1, sizeof(*f->taken));
}

void cover_file_release(struct cover_file *f)
{
	cover_src_release(&f->src);
	free(f->taken);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* "/a/b/../c" -> "/a/c", in place */
static void normalise(char *path)
{
	char *out = path, *p = path;

	while (*p) {
		if (p[0] == '/' && p[1] == '.' && (p[2] == '/' || !p[2])) {
			p += 2;
			continue;
		}
		if (p[0] == '/' && p[1] == '.' && p[2] == '.' && (p[3] == '/' || !p[3])) {
			while (out > path && *--out != '/')
				;
			p += 3;
			continue;
		}
		*out++ = *p++;
	}
	*out = '\0';
}

/* The file name of a line marker ('# 12 "name" 2'), unescaped; NULL if none */
static char *marker(const char *line, const char *end, long *num)
{
	const char *p = line + 2;
	struct strbuf sb = STRBUF_INIT;
	char *e;

	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	*num = strtol(p, &e, 10);
	p = e;
	if (p + 2 > end || p[0] != ' ' || p[1] != '"')
		return NULL;
	for (p += 2; p < end && *p != '"'; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		strbuf_addch(&sb, *p);
	}
	if (strstr(sb.buf, "/."))
		normalise(sb.buf);
	return strbuf_detach(&sb, NULL);
}

static void take(struct cover_file *f, int line)
{
	int g;

	if (line < 1 || line > f->src.nr)
		return;
	for (g = f->src.group[line]; g >= 0 && !f->taken[g]; g = f->src.g[g].parent)
		f->taken[g] = true;
}

int cover_i_parse(const char *buf, size_t len, const char *srcdir,
		  struct cover_file **files, size_t nr)
{
	struct strmap idx = STRMAP_INIT;
	char **abs = xcalloc(nr + 1, sizeof(*abs));
	bool *read = xcalloc(nr + 1, sizeof(*read));
	const char *p = buf, *end = buf + len;
	struct cover_file *cur = NULL;
	long line = 0;
	size_t i;
	int count = 0;

	for (i = 0; i < nr; i++) {
		abs[i] = xasprintf("%s/%s", srcdir, files[i]->path);
		strmap_put(&idx, abs[i], (void *)(uintptr_t)(i + 1));
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *q;
		long num;
		char *name;

		if (!nl)
			nl = end;
		if (nl - p > 3 && p[0] == '#' && p[1] == ' ' &&
		    (name = marker(p, nl, &num))) {
			uintptr_t k = (uintptr_t)strmap_get(&idx, name);

			cur = k ? files[k - 1] : NULL;
			if (k)
				read[k - 1] = true;
			line = num;
			free(name);
			p = nl + 1;
			continue;
		}
		if (cur) {
			for (q = p; q < nl && (*q == ' ' || *q == '\t'); q++)
				;
			if (q < nl)
				take(cur, (int)line);
		}
		line++;
		p = nl + 1;
	}
	for (i = 0; i < nr; i++) {
		if (!read[i])
			continue;
		files[i]->entered = true;
		files[i]->taken[0] = true;
		files[i]->units++;
		count++;
	}
	for (i = 0; i < nr; i++)
		free(abs[i]);
	free(abs);
	free(read);
	strmap_release(&idx);
	return count;
}

bool cover_file_compiled(const struct cover_file *f, int line)
{
	if (!f->entered || line < 1 || line > f->src.nr)
		return false;
	return f->taken[f->src.group[line]];
}

int cover_file_blocker(const struct cover_file *f, int line)
{
	int g, outer = -1;

	if (!f->entered || line < 1 || line > f->src.nr)
		return -1;
	for (g = f->src.group[line]; g > 0 && !f->taken[g]; g = f->src.g[g].parent)
		outer = g;
	return outer;
}
