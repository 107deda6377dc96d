// SPDX-License-Identifier: GPL-2.0
/*
 * What a patch may cost before it is parsed or applied (apply.h): its
 * files and hunks counted in the text, and each binary literal or delta
 * bounded by its inflated size, inflated here in small steps and
 * stopped at the bound, before libgit2 inflates it whole.
 */
#include <string.h>
#include <zlib.h>

#include "bot/apply/apply.h"

static const char b85[] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	"!#$%&()*+-;<=>?@^_`{|}~";

/* One base85 line of git's binary patches into out; 0 or -1 */
static int b85_line(const char *p, size_t len, unsigned char *out, size_t *n)
{
	size_t want, i, k;

	if (len < 1)
		return -1;
	if (*p >= 'A' && *p <= 'Z')
		want = *p - 'A' + 1;
	else if (*p >= 'a' && *p <= 'z')
		want = *p - 'a' + 27;
	else
		return -1;
	p++;
	len--;
	if (len % 5 || len / 5 * 4 < want)
		return -1;
	for (i = 0, k = 0; i < len; i += 5) {
		uint64_t v = 0;
		int j;

		for (j = 0; j < 5; j++) {
			const char *c = memchr(b85, p[i + j], 85);

			if (!c || !p[i + j])
				return -1;
			v = v * 85 + (c - b85);
		}
		if (v > 0xffffffffULL)
			return -1;
		for (j = 3; j >= 0 && k < want; j--, k++)
			out[k] = (v >> (8 * j)) & 0xff;
	}
	*n = want;
	return 0;
}

/*
 * Inflate the base85 lines from *pos (up to a blank line) and count the
 * bytes, stopping past max: 0 with *size, or -1 (corrupt data).
 */
static int inflated_size(const char **pos, const char *end, uint64_t max,
			 uint64_t *size)
{
	unsigned char in[52], out[16384];
	z_stream z = { 0 };
	const char *p = *pos;
	int zr = Z_OK, ret = -1;

	*size = 0;
	if (inflateInit(&z) != Z_OK)
		return -1;
	while (p < end && *p != '\n') {
		const char *nl = memchr(p, '\n', end - p);
		size_t n, len = (nl ? nl : end) - p;

		if (b85_line(p, len, in, &n))
			goto out;
		p = nl ? nl + 1 : end;
		z.next_in = in;
		z.avail_in = n;
		while (z.avail_in && zr != Z_STREAM_END) {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = inflate(&z, Z_NO_FLUSH);
			if (zr != Z_OK && zr != Z_STREAM_END)
				goto out;
			*size += sizeof(out) - z.avail_out;
			if (*size > max) {
				ret = 0;
				goto out;
			}
		}
	}
	ret = 0;
out:
	*pos = p;
	inflateEnd(&z);
	return ret;
}

/* "literal N" or "delta N" from p to eol: true with *n */
static bool block_size(const char *p, const char *eol, unsigned long long *n)
{
	size_t k = eol - p;

	if (k > 8 && !memcmp(p, "literal ", 8))
		p += 8;
	else if (k > 6 && !memcmp(p, "delta ", 6))
		p += 6;
	else
		return false;
	if (eol[-1] == '\n')
		eol--;
	if (p == eol || eol - p > 19)
		return false;
	for (*n = 0; p < eol; p++) {
		if (*p < '0' || *p > '9')
			return false;
		*n = *n * 10 + (*p - '0');
	}
	return true;
}

/* "literal N" / "delta N" blocks of one GIT binary patch, each bounded */
static const char *binary_problem(const char *p, const char *end, uint64_t max,
				  struct strbuf *why)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *next = nl ? nl + 1 : end;
		unsigned long long declared;
		uint64_t got;

		if (block_size(p, next, &declared)) {
			if (declared > max) {
				strbuf_addf(why, "%llu bytes inflated", declared);
				return "binary data larger than apply.maxbinarysize";
			}
			if (inflated_size(&next, end, max, &got)) {
				strbuf_addstr(why, "its base85 or zlib data");
				return "corrupt binary patch";
			}
			if (got > max) {
				strbuf_addf(why, "more than %llu bytes inflated",
					    (unsigned long long)max);
				return "binary data larger than apply.maxbinarysize";
			}
			if (got != declared) {
				strbuf_addf(why, "%llu bytes said, %llu inflated", declared,
					    (unsigned long long)got);
				return "corrupt binary patch";
			}
		} else if (!strncmp(p, "diff --git ", 11)) {
			break;
		}
		p = next;
	}
	return NULL;
}

const char *apply_budget_problem(const char *diff, size_t len,
				 const struct apply_opts *o, struct strbuf *why)
{
	const char *p = diff, *end = diff + len, *problem;
	uint64_t files = 0, hunks = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *next = nl ? nl + 1 : end;
		size_t n = next - p;

		if (n > 11 && !strncmp(p, "diff --git ", 11)) {
			if (o->max_files && ++files > o->max_files) {
				strbuf_addf(why, "more than %llu files",
					    (unsigned long long)o->max_files);
				return "too many files for apply.maxfiles";
			}
		} else if (n > 4 && !strncmp(p, "@@ -", 4)) {
			if (o->max_hunks && ++hunks > o->max_hunks) {
				strbuf_addf(why, "more than %llu hunks",
					    (unsigned long long)o->max_hunks);
				return "too many hunks for apply.maxhunks";
			}
		} else if (o->max_binary_size && n >= 16 &&
			   !strncmp(p, "GIT binary patch", 16)) {
			problem = binary_problem(next, end, o->max_binary_size, why);
			if (problem)
				return problem;
		}
		p = next;
	}
	return NULL;
}
