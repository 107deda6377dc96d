// SPDX-License-Identifier: GPL-2.0
/* What a repository reads outside itself (see gitdirs.h) */
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "bot/git/gitdirs.h"
#include "lib/util.h"

/* git's own limit on nested alternates */
#define ALTERNATE_DEPTH 5

struct found {
	const char *repo;
	char **dirs;
	size_t nr, max;
};

/* path (owned) unless it is inside the repository or already there */
static void add(struct found *f, char *path)
{
	size_t i;

	if (!path)
		return;
	for (i = 0; i < f->nr && strcmp(f->dirs[i], path); i++)
		;
	if (i < f->nr || f->nr == f->max || util_path_within(path, f->repo)) {
		free(path);
		return;
	}
	f->dirs[f->nr++] = path;
}

/* rel against base, resolved; NULL when it does not exist */
static char *resolve(const char *base, const char *rel)
{
	char *p = *rel == '/' ? xstrdup(rel) : xasprintf("%s/%s", base, rel);
	char *r = realpath(p, NULL);

	free(p);
	return r;
}

/* The lines of a small file, or NULL */
static char *small_file(const char *path)
{
	char *buf = NULL;
	size_t len;

	if (util_read_file(path, &buf, &len, 1 << 16)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The first line of path without its end, or NULL */
static char *first_line(const char *path)
{
	char *buf = small_file(path);

	if (buf)
		buf[strcspn(buf, "\r\n")] = '\0';
	return buf;
}

static void alternates(struct found *f, const char *objects, int depth)
{
	char *path = xasprintf("%s/info/alternates", objects);
	char *buf = depth < ALTERNATE_DEPTH ? small_file(path) : NULL;
	char *line, *next;

	for (line = buf; line && *line; line = next) {
		char *dir;
		size_t n;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		n = strlen(line);
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
			line[--n] = '\0';
		if (!n || *line == '#')
			continue;
		dir = resolve(objects, line);
		if (!dir)
			continue;
		add(f, xstrdup(dir));
		alternates(f, dir, depth + 1);
		free(dir);
	}
	free(buf);
	free(path);
}

size_t gitdirs_outside(const char *repo, char **dirs, size_t max)
{
	char *top = realpath(repo, NULL), *dotgit, *gitdir = NULL, *common = NULL;
	char *line, *path;
	struct found f = { .dirs = dirs, .max = max };
	struct stat st;

	if (!top)
		return 0;
	f.repo = top;
	dotgit = xasprintf("%s/.git", top);
	if (!stat(dotgit, &st) && S_ISREG(st.st_mode)) {
		/* a linked worktree: "gitdir: <its git directory>" */
		line = first_line(dotgit);
		if (line && util_starts_with(line, "gitdir: "))
			gitdir = resolve(top, line + 8);
		free(line);
	} else if (!stat(dotgit, &st) && S_ISDIR(st.st_mode)) {
		gitdir = xstrdup(dotgit);
	}
	if (!gitdir)
		gitdir = xstrdup(top);
	add(&f, xstrdup(gitdir));
	/* a worktree's shared objects and refs */
	path = xasprintf("%s/commondir", gitdir);
	line = first_line(path);
	free(path);
	common = line ? resolve(gitdir, line) : NULL;
	free(line);
	if (!common)
		common = xstrdup(gitdir);
	add(&f, xstrdup(common));
	path = xasprintf("%s/objects", common);
	alternates(&f, path, 0);
	free(path);
	free(common);
	free(gitdir);
	free(dotgit);
	free(top);
	return f.nr;
}
