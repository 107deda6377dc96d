// SPDX-License-Identifier: GPL-2.0
/*
 * Which paths and symbolic links a patch may create: git apply's
 * verify_path() and its "beyond a symbolic link" rule, stricter where a
 * bot needs it (links must stay inside the tree).
 */
#include <stdlib.h>
#include <strings.h>

#include "bot/apply/apply.h"

/* ".git", and what names it on case-insensitive or NTFS file systems */
static bool is_dotgit(const char *c, size_t len)
{
	size_t i;

	if (len == 5 && !strncasecmp(c, "git~1", 5))
		return true;
	if (len < 4 || strncasecmp(c, ".git", 4))
		return false;
	for (i = 4; i < len; i++)
		if (c[i] != '.' && c[i] != ' ')
			return false;
	return true;
}

const char *apply_path_problem(const char *path)
{
	const char *p = path;
	size_t i, len = strlen(path);

	if (!len)
		return "empty path";
	if (len > APPLY_PATH_MAX)
		return "path too long";
	if (path[0] == '/')
		return "absolute path";
	for (i = 0; i < len; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f)
			return "control character in the path";
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (!n)
			return "empty path component";
		if (n == 1 && p[0] == '.')
			return "'.' path component";
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "'..' path component (outside the tree)";
		if (is_dotgit(p, n))
			return "'.git' path component";
		if (!slash)
			return NULL;
		p = slash + 1;
	}
}

const char *apply_symlink_problem(const char *path, const char *target,
				  size_t len)
{
	const char *p = target, *end = target + len;
	long depth = 0;

	if (!len)
		return "empty symbolic link";
	if (memchr(target, '\0', len))
		return "NUL byte in a symbolic link";
	if (len > APPLY_PATH_MAX)
		return "symbolic link too long";
	if (target[0] == '/')
		return "symbolic link to an absolute path (outside the tree)";
	for (; *path; path++)
		depth += *path == '/';
	while (p < end) {
		const char *slash = memchr(p, '/', end - p);
		size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return "symbolic link pointing outside the tree";
		} else if (is_dotgit(p, n)) {
			return "symbolic link into '.git'";
		} else if (n && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p = slash ? slash + 1 : end;
	}
	return NULL;
}

/*
 * Paths as the patch text writes them.  libgit2's parser turns
 * "a//etc/passwd" into "etc/passwd", "dir//x" into "dir/x", and reads
 * git's C-style quoting ("a/\057abs" is "a//abs"); git apply refuses
 * such paths as invalid, and so do we: an absolute path or an empty
 * component, in the path as written and as unquoted (issue 38).  Header
 * lines are only read outside hunk bodies (a removed "-- x" line reads
 * "--- x").
 */
static const char *path_text_problem(const char *p, size_t len, bool prefixed)
{
	if (prefixed && len >= 2 && p[1] == '/' && (*p == 'a' || *p == 'b')) {
		p += 2;
		len -= 2;
	}
	if (len && *p == '/')
		return "absolute path";
	if (memmem(p, len, "//", 2))
		return "empty path component";
	return NULL;
}

/*
 * A quoted path at p (git's quote_c_style(): \a \b \t \n \v \f \r \"
 * \\ and \ooo), unquoted into out: the end of its closing quote, or NULL
 * when it does not end
 */
static const char *unquote(const char *p, const char *end, struct strbuf *out)
{
	static const char esc[] = "a\ab\bt\tn\nv\vf\fr\r\"\"\\\\";
	const char *e;

	for (p++; p < end && *p != '"'; p++) {
		if (*p != '\\') {
			strbuf_addch(out, *p);
			continue;
		}
		if (++p == end)
			return NULL;
		if (*p >= '0' && *p <= '3' && end - p >= 3 && p[1] >= '0' && p[1] <= '7' &&
		    p[2] >= '0' && p[2] <= '7') {
			strbuf_addch(out, (char)((p[0] - '0') << 6 | (p[1] - '0') << 3 |
						 (p[2] - '0')));
			p += 2;
			continue;
		}
		e = strchr(esc, *p);
		if (!*p || !e || (e - esc) % 2)
			return NULL;
		strbuf_addch(out, e[1]);
	}
	return p < end ? p + 1 : NULL;
}

static const char *raw_path(const char *p, size_t len, bool prefixed)
{
	const char *end = p + len, *why = NULL;

	if (!len || *p != '"')
		return path_text_problem(p, len, prefixed);
	/* one quoted path, or two ("diff --git "a/x" "b/x"") */
	while (p < end && *p == '"' && !why) {
		struct strbuf path = STRBUF_INIT;

		p = unquote(p, end, &path);
		why = !p ? "a quoted path that does not end" :
			path_text_problem(path.buf, path.len, prefixed);
		strbuf_release(&path);
		while (p && p < end && *p == ' ')
			p++;
		if (!p)
			break;
	}
	if (!why && p && p < end && *p != '\t' && prefixed)
		why = path_text_problem(p, end - p, prefixed);
	return why;
}

const char *apply_header_problem(const char *text, size_t len,
				 struct strbuf *line)
{
	static const struct {
		const char *prefix;
		bool prefixed;
	} heads[] = {
		{ "diff --git ", true }, { "--- ", true }, { "+++ ", true },
		{ "rename from ", false }, { "rename to ", false },
		{ "copy from ", false }, { "copy to ", false },
	};
	const char *p = text, *end = text + len;
	long old = 0, new = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), i;

		if (old > 0 || new > 0) {
			char c = n ? *p : ' ';

			if (c == ' ' || c == '-')
				old--;
			if (c == ' ' || c == '+')
				new--;
		} else if (n > 4 && !memcmp(p, "@@ -", 4)) {
			char *e;

			old = new = 1;
			strtol(p + 4, &e, 10);
			if (*e == ',')
				old = strtol(e + 1, &e, 10);
			if (*e == ' ' && e[1] == '+') {
				strtol(e + 2, &e, 10);
				if (*e == ',')
					new = strtol(e + 1, &e, 10);
			}
		} else {
			for (i = 0; i < ARRAY_SIZE(heads); i++) {
				size_t hl = strlen(heads[i].prefix);
				const char *why;

				if (n < hl || memcmp(p, heads[i].prefix, hl) ||
				    (n - hl == 9 && !memcmp(p + hl, "/dev/null", 9)))
					continue;
				why = raw_path(p + hl, n - hl, heads[i].prefixed);
				if (why) {
					strbuf_add_escaped(line, p, MIN(n, 200));
					return why;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}
