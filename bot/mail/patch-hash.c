// SPDX-License-Identifier: GPL-2.0
/*
 * A patch's identity across versions, as patchwork computes it and b4
 * uses it: b4 0.12 carries the trailers given in reply to a patch of an
 * earlier version to the patch of the latest one whose hash is the same
 * (LoreMailbox.get_series(), its trailer_map).
 */
#include <stdlib.h>
#include <string.h>

#include "bot/mail/patch.h"
#include "lib/strbuf.h"

/* "123" at *p: its value, and p moved past it; -1 when no digit */
static long number(const char **p, const char *end)
{
	long v = 0;

	if (*p >= end || **p < '0' || **p > '9')
		return -1;
	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++)
		if (v < 100000000)
			v = v * 10 + (**p - '0');
	return v;
}

/* lead, a line number and ",count" or not at *p: the count (1 if none) */
static bool range(const char **p, const char *end, const char *lead, long *count)
{
	size_t n = strlen(lead);

	if ((size_t)(end - *p) < n || memcmp(*p, lead, n))
		return false;
	*p += n;
	if (number(p, end) < 0)
		return false;
	*count = 1;
	if (*p < end && **p == ',') {
		(*p)++;
		*count = number(p, end);
	}
	return *count >= 0;
}

/* "@@ -a[,b] +c[,d] @@": the counts b and d */
static bool hunk_counts(const char *p, const char *end, long *b, long *d)
{
	return range(&p, end, "@@ -", b) && range(&p, end, " +", d) &&
		end - p >= 3 && !memcmp(p, " @@", 3);
}

/* v in decimal onto sb (strbuf_addf() would cost a printf a hunk) */
static void add_number(struct strbuf *sb, long v)
{
	char digits[24];
	size_t n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(digits));
	while (n)
		strbuf_addch(sb, digits[--n]);
}

/* "--- a/x" or "+++ b/x": a file line, whose name the hash normalises */
static bool file_line(const char *p, size_t n)
{
	return n > 4 && (*p == '-' || *p == '+') && p[1] == *p && p[2] == *p &&
		p[3] == ' ' && p[4] != ' ' && p[4] != '\t';
}

/*
 * A line the hash reads otherwise than as it is, onto sb: "--- a/x/y"
 * and "+++ b/x/y" lose their first directory (a -p0 diff hashes as a -p1
 * one), a hunk header its line numbers; any other line that does not
 * begin with '-', '+' or ' ' is left out.
 */
static void odd_line(const char *p, size_t n, struct strbuf *sb)
{
	long b, d;

	if (file_line(p, n)) {
		const char *path = p + 4, *e = path, *slash;

		while (e < p + n && *e != ' ' && *e != '\t')
			e++;
		slash = memchr(path, '/', e - path);
		strbuf_addstr(sb, *p == '-' ? "--- a/" : "+++ b/");
		if (slash)
			strbuf_add(sb, slash + 1, e - slash - 1);
		strbuf_addch(sb, '\n');
	} else if (*p == '@' && hunk_counts(p, p + n, &b, &d)) {
		strbuf_addstr(sb, "@@ -");
		add_number(sb, b);
		strbuf_addstr(sb, " +");
		add_number(sb, d);
		strbuf_addstr(sb, " @@\n");
	}
}

void patch_diff_hash(const char *body, size_t len, char hex[PATCH_HASH_HEX])
{
	const char *p = body, *end = body + len, *run = NULL;
	struct strbuf sb = STRBUF_INIT;

	strbuf_grow(&sb, len + 1);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		/* lines hashed as they are, newlines included, copied in runs */
		if (n && (*p == ' ' || *p == '-' || *p == '+') && !file_line(p, n)) {
			if (!run)
				run = p;
		} else {
			if (run)
				strbuf_add(&sb, run, p - run);
			run = NULL;
			if (n)
				odd_line(p, n, &sb);
		}
		p += n + 1;
	}
	if (run) {
		strbuf_add(&sb, run, end - run);
		strbuf_complete_line(&sb);	/* the last line without one */
	}
	util_hash128_hex(sb.buf, sb.len, hex);
	strbuf_release(&sb);
}
