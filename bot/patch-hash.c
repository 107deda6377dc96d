// SPDX-License-Identifier: GPL-2.0
/*
 * A patch's identity across versions, as patchwork computes it and b4
 * uses it: b4 0.12 carries the trailers given in reply to a patch of an
 * earlier version to the patch of the latest one whose hash is the same
 * (LoreMailbox.get_series(), its trailer_map).
 */
#include <stdlib.h>
#include <string.h>

#include "bot/patch.h"
#include "lib/sha256.h"
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

/*
 * One line as the hash reads it, into sb; false when it leaves it out.
 * "--- a/x/y" and "+++ b/x/y" lose their first directory (a -p0 diff
 * hashes as a -p1 one), a hunk header its line numbers.
 */
static bool hashed_line(const char *p, size_t n, struct strbuf *sb)
{
	long b, d;

	strbuf_reset(sb);
	if (n > 4 && (!memcmp(p, "--- ", 4) || !memcmp(p, "+++ ", 4)) &&
	    p[4] != ' ' && p[4] != '\t') {
		const char *path = p + 4, *e = path, *slash;

		while (e < p + n && *e != ' ' && *e != '\t')
			e++;
		slash = memchr(path, '/', e - path);
		strbuf_addf(sb, "%.3s %c/", p, *p == '-' ? 'a' : 'b');
		if (slash)
			strbuf_add(sb, slash + 1, e - slash - 1);
		return true;
	}
	if (hunk_counts(p, p + n, &b, &d)) {
		strbuf_addf(sb, "@@ -%ld +%ld @@", b, d);
		return true;
	}
	if (*p != '-' && *p != '+' && *p != ' ')
		return false;
	strbuf_add(sb, p, n);
	return true;
}

void patch_diff_hash(const char *body, size_t len, char hex[PATCH_HASH_HEX])
{
	const char *p = body, *end = body + len;
	struct strbuf line = STRBUF_INIT;
	char full[SHA256_HEX];
	struct sha256 c;

	sha256_init(&c);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n && hashed_line(p, n, &line)) {
			strbuf_addch(&line, '\n');
			sha256_update(&c, line.buf, line.len);
		}
		p += n + 1;
	}
	strbuf_release(&line);
	sha256_hex(&c, full);
	memcpy(hex, full, PATCH_HASH_HEX - 1);
	hex[PATCH_HASH_HEX - 1] = '\0';
}
