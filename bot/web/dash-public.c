// SPDX-License-Identifier: GPL-2.0
/*
 * No server paths on public pages: what the stage documents say about
 * the server (logs, job and build directories, the repository) is shown
 * by its name relative to the directory it is under, before any page or
 * API object is made from them.  Logs are reached through /log/<id>.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>

#include "bot/web/dash-int.h"

/* The directories of the server a document may name */
static const enum cfg_id root_keys[] = {
	CFG_ID_web_logroot, CFG_ID_core_statedir, CFG_ID_core_cachedir, CFG_ID_git_repo,
	CFG_ID_lore_gitdir, CFG_ID_web_templates,
};

/* Keys whose values are paths: always shown relative, else by their last part */
static const char *const path_keys[] = {
	"log", "log_path", "logfile", "log_dir", "w1_log", "sparse_log", "coccicheck_log",
	"clang_log", "console_log",
	"build_dir", "src_dir", "obj_dir", "image", "repo", "mbox", "path", "dir", "workdir",
};

static void add_root(struct dash *d, const char *dir)
{
	size_t len = dir ? strlen(dir) : 0;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len < 2 || *dir != '/')
		return;
	ALLOC_GROW(d->roots, d->nr_roots + 1, d->alloc_roots);
	d->roots[d->nr_roots++] = xstrndup(dir, len);
}

static int longest_first(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la < lb ? 1 : la > lb ? -1 : 0;
}

void dash_public_init(struct dash *d, const struct config *cfg)
{
	char real[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(root_keys); i++) {
		const char *dir = config_id_str(cfg, root_keys[i]);

		add_root(d, dir);
		if (dir && realpath(dir, real) && strcmp(real, dir))
			add_root(d, real);
	}
	qsort(d->roots, d->nr_roots, sizeof(*d->roots), longest_first);
}

void dash_public_release(struct dash *d)
{
	size_t i;

	for (i = 0; i < d->nr_roots; i++)
		free(d->roots[i]);
	free(d->roots);
	d->roots = NULL;
	d->nr_roots = d->alloc_roots = 0;
}

/* The length of the root s starts with (followed by '/' or the end of a path), or 0 */
static size_t root_at(const struct dash *d, const char *s)
{
	size_t i, n;

	for (i = 0; i < d->nr_roots; i++) {
		n = strlen(d->roots[i]);
		if (!strncmp(s, d->roots[i], n) &&
		    (s[n] == '/' || !s[n] || strchr(" \t\n'\":,;)]}", s[n])))
			return n;
	}
	return 0;
}

static bool path_char(char c)
{
	/* strchr() finds the terminating NUL too: the end of s is no path character */
	return c && (isalnum((unsigned char)c) || strchr("._+@~/-", c));
}

/*
 * The length of an absolute path of two parts or more at s (a word
 * of its own: not the path of a URL, not "mm/vmscan.c"), or 0
 */
static size_t abs_path_at(const char *start, const char *s)
{
	size_t n = 1;

	if (*s != '/' || (s > start && !strchr(" \t\n'\"(=[,:<", s[-1])) ||
	    (s > start + 1 && s[-1] == ':' && s[-2] != ' '))
		return 0;
	while (path_char(s[n]))
		n++;
	return memchr(s + 1, '/', n - 1) && n > 2 ? n : 0;
}

/* ".../name" of an absolute path outside the known directories */
static void outside_path(const char *s, size_t n, struct strbuf *out)
{
	size_t end = n, b;

	while (end > 1 && s[end - 1] == '/')
		end--;
	for (b = end; b > 0 && s[b - 1] != '/'; b--)
		;
	strbuf_addstr(out, ".../");
	strbuf_add(out, s + b, end - b);
}

void dash_public_text(const struct dash *d, const char *s, struct strbuf *out)
{
	const char *start = s;
	size_t n;

	while (s && *s) {
		n = root_at(d, s);
		if (n) {
			s += n;
			if (*s == '/')
				s++;
			else
				strbuf_addch(out, '.');
			continue;
		}
		n = abs_path_at(start, s);
		if (n) {
			outside_path(s, n, out);
			s += n;
			continue;
		}
		strbuf_addch(out, *s++);
	}
}

static void public_path(const struct dash *d, const char *s, struct strbuf *out)
{
	const char *slash;

	if (*s != '/' || root_at(d, s)) {
		dash_public_text(d, s, out);
		return;
	}
	/* a path outside the known directories: its name alone */
	slash = strrchr(s, '/');
	strbuf_addstr(out, slash[1] ? slash + 1 : ".");
}

static bool is_path_key(const char *key)
{
	size_t i;

	for (i = 0; key && i < ARRAY_SIZE(path_keys); i++)
		if (!strcmp(key, path_keys[i]))
			return true;
	return false;
}

static void public_json(const struct dash *d, json_object *o, const char *key,
			struct strbuf *sb)
{
	size_t i;

	switch (json_object_get_type(o)) {
	case json_type_object: {
		json_object_object_foreach(o, k, v)
			public_json(d, v, k, sb);
		break;
	}
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++)
			public_json(d, json_object_array_get_idx(o, i), key, sb);
		break;
	case json_type_string:
		strbuf_reset(sb);
		if (is_path_key(key))
			public_path(d, json_object_get_string(o), sb);
		else
			dash_public_text(d, json_object_get_string(o), sb);
		if (strcmp(sb->buf, json_object_get_string(o)))
			json_object_set_string_len(o, sb->buf, (int)sb->len);
		break;
	default:
		break;
	}
}

void dash_public_results(const struct dash *d, struct results *rs)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < rs->nr; i++) {
		struct result *r = &rs->v[i];

		public_json(d, r->doc, NULL, &sb);
		strbuf_reset(&sb);
		dash_public_text(d, r->summary, &sb);
		free(r->summary);
		r->summary = strbuf_detach(&sb, NULL);
	}
	strbuf_release(&sb);
}
