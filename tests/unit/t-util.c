// SPDX-License-Identifier: GPL-2.0
/*
 * The fast paths of the mail reading hot loop, against slow references:
 * util_utf8_valid() word at a time, strbuf's inline adds, the JSON writer's
 * numbers and indentation (and its text the same as jx_text()'s of the
 * json-c tree), the jx_ helpers that build values, and the Date: parser that stands in for
 * GMime's on the common form.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonw.h"
#include "lib/jsonx.h"
#include "bot/mail/mail.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "tests/unit/tap.h"

/* A byte at a time, as RFC 3629 says */
static bool ref_utf8_valid(const unsigned char *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = p[i];
		size_t n, k;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return false;
		if (i + n >= len)
			return false;
		for (k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

static void test_utf8(void)
{
	static const char *const pieces[] = {
		"a", "From ", "\t", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
		"\xc3", "\x80", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80",
		"0123456789abcdef0123456789abcdef",
	};
	unsigned char buf[256];
	unsigned int seed = 12345, i, bad = 0, valid = 0;

	for (i = 0; i < 20000; i++) {
		size_t len = 0;

		while (len < 200) {
			const char *pc;

			seed = seed * 1103515245 + 12345;
			if ((seed >> 16) % 16 == 0)
				break;
			pc = pieces[(seed >> 8) % (sizeof(pieces) / sizeof(*pieces))];
			/* mostly ASCII, as mail is */
			if ((seed >> 20) % 4)
				pc = (seed >> 24) % 2 ? "0123456789abcdef0123456789abcdef" : "x";
			memcpy(buf + len, pc, strlen(pc));
			len += strlen(pc);
		}
		if (util_utf8_valid((const char *)buf, len) != ref_utf8_valid(buf, len))
			bad++;
		valid += ref_utf8_valid(buf, len);
	}
	ok(!bad, "util_utf8_valid agrees with a byte-at-a-time reference"
	   " (%u of 20000 differ)", bad);
	ok(valid > 1000 && valid < 19000, "both valid and invalid inputs were tried (%u valid)", valid);
	memset(buf, 'a', 64);
	buf[63] = 0xc3;
	ok(!util_utf8_valid((const char *)buf, 64), "a lead byte at the very end, after 63 ASCII");
	buf[40] = 0xff;
	ok(!util_utf8_valid((const char *)buf, 41), "0xff after a 32-byte ASCII run");
	ok(util_utf8_valid((const char *)buf, 40), "the 40 ASCII bytes before it");
	ok(util_utf8_valid("", 0), "empty");
}

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char want[5001];
	int i;

	for (i = 0; i < 5000; i++) {
		if (i % 3)
			strbuf_addch(&sb, 'a' + i % 26);
		else
			strbuf_add(&sb, &(char){ 'a' + i % 26 }, 1);
		want[i] = 'a' + i % 26;
	}
	want[5000] = '\0';
	ok(sb.len == 5000 && !strcmp(sb.buf, want), "inline adds across many grows");
	strbuf_add(&sb, "", 0);
	ok(sb.len == 5000 && sb.buf[5000] == '\0', "adding nothing keeps the NUL");
	strbuf_release(&sb);
	strbuf_add(&sb, "", 0);
	ok(sb.len == 0 && sb.buf[0] == '\0', "adding nothing to an empty strbuf");
	strbuf_release(&sb);
}

static void test_jsonw(void)
{
	static const int64_t nums[] = { 0, 7, -7, 10, 1234567890123LL,
					INT64_MAX, INT64_MIN };
	struct strbuf sb = STRBUF_INIT;
	struct jsonw w = JSONW_INIT(&sb, true);
	json_object *o;
	size_t i;
	int d;

	jw_obj(&w);
	jw_key(&w, "nums");
	jw_arr(&w);
	for (i = 0; i < sizeof(nums) / sizeof(*nums); i++)
		jw_int(&w, nums[i]);
	jw_end_arr(&w);
	jw_key(&w, "deep");
	for (d = 0; d < 40; d++)
		jw_arr(&w);
	jw_str(&w, "a\"b\\c\n\x01");
	for (d = 0; d < 40; d++)
		jw_end_arr(&w);
	jw_end_obj(&w);
	{
		/* json-c's default depth limit is 32 */
		struct json_tokener *tok = json_tokener_new_ex(64);

		o = json_tokener_parse_ex(tok, sb.buf, sb.len);
		json_tokener_free(tok);
	}
	ok(o != NULL, "the writer's output parses");
	if (o) {
		json_object *a = NULL, *v = o;

		json_object_object_get_ex(o, "nums", &a);
		for (i = 0; a && i < sizeof(nums) / sizeof(*nums); i++)
			is_int(json_object_get_int64(json_object_array_get_idx(a, i)),
			       nums[i], "number %zu", i);
		json_object_object_get_ex(o, "deep", &v);
		for (d = 0; d < 40 && v; d++)
			v = json_object_array_get_idx(v, 0);
		is_str(v ? json_object_get_string(v) : NULL, "a\"b\\c\n\x01",
		       "a string 40 arrays deep, escaped and read back");
		{
			char want[100];

			/* the object and 40 arrays: 82 spaces */
			want[0] = '\n';
			memset(want + 1, ' ', 82);
			memcpy(want + 83, "\"a", 3);
			ok(strstr(sb.buf, want) != NULL,
			   "indented by two spaces per level, 41 levels deep");
		}
		json_object_put(o);
	}
	strbuf_release(&sb);
}

/* The fast Date: parser gives what GMime gives */
static void test_dates(void)
{
	static const char *const dates[] = {
		"Mon, 6 May 2024 10:00:00 +0000",
		"Tue, 14 Nov 2023 22:23:21 -0000",
		"Sat, 07 Feb 2026 16:16:13 +0800",
		"7 Feb 2026 08:16:13 -0530",
		"Wed, 15 Jan 2025 11:38:07 +1300 (NZDT)",
		"Thu, 1 Jan 1970 00:00:00 +0000",
		"Fri, 29 Feb 2028 23:59:59 +1400",
		"Thu, 29 Feb 2024 12:00:00 +0000",
		"Mon, 1 Mar 2100 00:00:00 +0000",
		"Wed, 1 Mar 2000 00:00:00 -1200",
		"Fri, 31 Dec 1999 23:59:59 +0000",
		"Sat, 1 Jan 2039 03:14:08 +0000",
	};
	size_t i;

	for (i = 0; i < sizeof(dates) / sizeof(*dates); i++) {
		struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
		struct mail m;
		int64_t t = 0;
		int tz = 0;

		strbuf_addf(&raw, "From: a <a@b.c>\nMessage-ID: <x@y>\n"
			    "Date: %s\nSubject: s\n\nbody\n", dates[i]);
		ok(!mail_parse(raw.buf, raw.len, &m, &err), "parsed with Date: %s", dates[i]);
		ok(!mail_parse_date(dates[i], &t, &tz), "GMime reads %s", dates[i]);
		is_int(m.date, t, "same time for %s", dates[i]);
		is_int(m.tz, tz, "same zone for %s", dates[i]);
		mail_release(&m);
		strbuf_release(&raw);
		strbuf_release(&err);
	}
}

/* The header values share one buffer: an empty one must stay empty */
static void test_headers(void)
{
	static const char raw[] =
		"Subject:\n"
		"From: A U Thor <author@example.org>\n"
		"Message-ID:\n"
		"In-Reply-To: <parent@example.org>\n"
		"References: <root@example.org>\n"
		" <parent@example.org>\n"
		"Date: Mon, 6 May 2024 10:00:00 +0000\n"
		"\n"
		"body\n";
	struct strbuf err = STRBUF_INIT;
	struct mail m;

	ok(!mail_parse(raw, sizeof(raw) - 1, &m, &err), "parsed");
	is_str(m.subject, "", "an empty Subject: first stays empty");
	is_str(m.from.email, "author@example.org", "the From: after it");
	is_str(m.msgid, NULL, "an empty Message-ID: is none");
	is_str(m.in_reply_to, "parent@example.org", "In-Reply-To after an empty one");
	is_int(m.nr_refs, 2, "a folded References: keeps both ids");
	if (m.nr_refs == 2)
		is_str(m.refs[1], "parent@example.org", "the id on the folded line");
	mail_release(&m);
	strbuf_release(&err);
}

/*
 * Files under a directory another user owns (a build's obj/): a link
 * planted there, last or on the way, is refused, never followed as root
 */
static void test_beneath(void)
{
	char root[] = "/tmp/t-util-beneath-XXXXXX";
	char *p, *buf = NULL, *secret;
	size_t len;
	int fd;

	if (!mkdtemp(root)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	secret = xasprintf("%s.secret", root);
	util_write_file(secret, "root only\n", 10);
	p = xasprintf("%s/.config", root);
	is_int(util_write_file_beneath(root, p, "CONFIG_MM=y\n", 12), 0,
	       "beneath: a file is written");
	is_int(util_read_file_beneath(root, p, &buf, &len, 0), 0, "and read");
	is_str(buf, "CONFIG_MM=y\n", "with what was written");
	free(buf);
	buf = NULL;
	unlink(p);
	if (symlink(secret, p))
		ok(0, "symlink: %s", strerror(errno));
	is_int(util_read_file_beneath(root, p, &buf, &len, 0), -ELOOP,
	       "a planted link is not read through");
	is_int(util_write_file_beneath(root, p, "x", 1), -ELOOP, "nor written through");
	free(p);
	p = xasprintf("%s/arch", root);
	if (symlink("/etc", p))
		ok(0, "symlink: %s", strerror(errno));
	free(p);
	p = xasprintf("%s/arch/passwd", root);
	is_int(util_read_file_beneath(root, p, &buf, &len, 0), -ELOOP,
	       "nor a link on the way (arch -> /etc)");
	free(p);
	p = xasprintf("%s/../%s", root, strrchr(secret, '/') + 1);
	is_int(util_read_file_beneath(root, p, &buf, &len, 0), -EXDEV, "nor .. out of it");
	free(p);
	/* up -> /tmp: unlinking up/<secret> must not remove the secret */
	p = xasprintf("%s/up", root);
	if (symlink("/tmp", p))
		ok(0, "symlink: %s", strerror(errno));
	free(p);
	p = xasprintf("%s/up/%s", root, strrchr(secret, '/') + 1);
	is_int(util_unlink_beneath(root, p), -ELOOP,
	       "unlink beneath: not through a link on the way");
	free(p);
	p = xasprintf("%s/%s", root, "gone.o");
	is_int(util_unlink_beneath(root, p), 0, "a file already gone is 0");
	util_write_file(p, "x", 1);
	is_int(util_unlink_beneath(root, p), 0, "a file is removed");
	ok(access(p, F_OK) && errno == ENOENT, "and is gone");
	free(p);
	p = xasprintf("%s/dir", root);
	util_mkdir_p(p, 0755);
	free(p);
	p = xasprintf("%s/dir/x.o", root);
	util_write_file(p, "x", 1);
	is_int(util_unlink_beneath(root, p), 0, "one in a directory too");
	free(p);
	fd = util_open_beneath(root, "/etc/passwd", O_RDONLY, 0);
	ok(fd < 0 && errno == EINVAL, "a path outside the root is refused");
	/*
	 * a FIFO where lorebot reads or writes (issue 38: one at
	 * obj/.config, the image or the ccache log blocked the build
	 * engine in open() for good): refused at once, either way
	 */
	p = xasprintf("%s/fifo", root);
	if (mkfifo(p, 0666))
		ok(0, "mkfifo: %s", strerror(errno));
	alarm(20);
	is_int(util_read_file_beneath(root, p, &buf, &len, 0), -EINVAL,
	       "beneath: a FIFO is not read (nor waited on)");
	ok(util_write_file_beneath(root, p, "x", 1) < 0, "nor written");
	is_int(util_read_regular(p, &buf, &len, 0), -EINVAL, "util_read_regular() refuses it too");
	fd = util_open_regular(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
	ok(fd < 0, "and util_open_regular() for appending");
	alarm(0);
	free(p);
	p = xasprintf("%s/dir", root);
	util_mkdir_p(p, 0755);
	is_int(util_read_file_beneath(root, p, &buf, &len, 0), -EINVAL, "nor a directory");
	free(p);
	p = xasprintf("%s/file", root);
	util_write_file(p, "abc", 3);
	fd = util_open_regular(p, O_RDONLY, 0);
	ok(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK), "a file opens, blocking as usual");
	if (fd >= 0)
		close(fd);
	free(p);
	buf = NULL;
	is_int(util_read_file(secret, &buf, &len, 0), 0, "the target was left alone");
	is_str(buf ? buf : "", "root only\n", "and unchanged");
	free(buf);
	unlink(secret);
	free(secret);
	p = xasprintf("rm -rf '%s'", root);
	if (system(p))
		ok(0, "cleanup");
	free(p);
}

static void test_within(void)
{
	ok(util_path_within("/usr", "/usr"), "util_path_within: the directory itself");
	ok(util_path_within("/usr/bin/gcc", "/usr"), "util_path_within: below it");
	ok(!util_path_within("/usrx/bin", "/usr"), "util_path_within: a longer name is not below");
	ok(!util_path_within("/us", "/usr"), "util_path_within: nor a shorter one");
}

/* One document through jsonw, pretty and plain */
static void write_doc(struct strbuf *sb, bool pretty)
{
	struct jsonw w = JSONW_INIT(sb, pretty);

	jw_obj(&w);
	jw_key(&w, "url");
	jw_str(&w, "https://lore.kernel.org/linux-mm/");
	jw_key(&w, "n");
	jw_int(&w, -12);
	jw_key(&w, "ok");
	jw_bool(&w, true);
	jw_key(&w, "none");
	jw_null(&w);
	jw_key(&w, "empty");
	jw_obj(&w);
	jw_end_obj(&w);
	jw_key(&w, "list");
	jw_arr(&w);
	jw_str(&w, "a\"b\tc\x7f\xc3\xa9");
	jw_arr(&w);
	jw_end_arr(&w);
	jw_obj(&w);
	jw_key(&w, "k");
	jw_str(&w, NULL);
	jw_end_obj(&w);
	jw_end_arr(&w);
	jw_end_obj(&w);
}

/* jw_raw(): documents of their own, streamed into an array */
static void test_jsonw_raw(void)
{
	static const char *const items[] = { "{\"a\":1}", "[]", "\"x\"" };
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int pretty;

	for (pretty = 0; pretty < 2; pretty++) {
		struct jsonw w = JSONW_INIT(&sb, pretty);

		strbuf_reset(&sb);
		jw_obj(&w);
		jw_key(&w, "items");
		jw_arr(&w);
		for (i = 0; i < ARRAY_SIZE(items); i++)
			jw_raw(&w, items[i]);
		jw_end_arr(&w);
		jw_key(&w, "one");
		jw_raw(&w, "{\"b\":[2,3]}");
		jw_key(&w, "n");
		jw_int(&w, 3);
		jw_end_obj(&w);
		is_str(sb.buf, pretty ?
		       "{\n  \"items\":[\n    {\"a\":1},\n    [],\n    \"x\"\n  ],\n"
		       "  \"one\":{\"b\":[2,3]},\n  \"n\":3\n}" :
		       "{\"items\":[{\"a\":1},[],\"x\"],\"one\":{\"b\":[2,3]},\"n\":3}",
		       "jw_raw(), %s: each value where the next goes, as it is",
		       pretty ? "pretty" : "plain");
	}
	strbuf_release(&sb);
}

static void test_jx(void)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	json_object *o;
	int pretty;

	for (pretty = 0; pretty < 2; pretty++) {
		strbuf_reset(&sb);
		write_doc(&sb, pretty);
		o = jx_parse(sb.buf, sb.len, &err);
		ok(o && !strcmp(jx_text(o, pretty), sb.buf),
		   "jx_text(%s) of the tree is what jsonw wrote", pretty ? "pretty" : "plain");
		if (o && strcmp(jx_text(o, pretty), sb.buf))
			printf("# jsonw:   %s\n# jx_text: %s\n", sb.buf, jx_text(o, pretty));
		json_object_put(o);
	}
	strbuf_release(&sb);
	strbuf_release(&err);

	o = json_object_new_object();
	jx_add_str(o, "s", "x/y");
	jx_add_str(o, "absent", NULL);
	json_object_object_add(o, "null", jx_new_str(NULL));
	json_object_object_add(o, "empty", jx_new_nonempty(""));
	json_object_object_add(o, "full", jx_new_nonempty("z"));
	json_object_object_add(o, "n", json_object_new_int(12));
	is_str(jx_text(o, false), "{\"s\":\"x/y\",\"null\":null,\"empty\":null,\"full\":\"z\",\"n\":12}",
	       "jx_add_str() skips NULL, jx_new_nonempty() makes \"\" null, '/' unescaped");
	is_str(jx_str_any(o, "n"), "12", "jx_str_any(): a number as text");
	ok(!jx_str(o, "n"), "jx_str(): a number is not a string");
	ok(!jx_str_any(o, "null") && !jx_str_any(o, "absent"), "jx_str_any(): null and absent");
	json_object_put(o);
}

static void test_relative_path(void)
{
	static const char *const cases[][3] = {
		{ "/c/b/obj", "/c/b/src", "../src" },	/* a build directory */
		{ "/a", "/a/b", "./b" },
		{ "/a/b", "/a", ".." },
		{ "/a/b/c", "/a", "../.." },
		{ "/a", "/a", "." },
		{ "/ab", "/ac", "../ac" },		/* not a common component */
		{ "/a/bc/d", "/a/b", "../../b" },
		{ "/", "/x/y", "x/y" },
		{ "/x", "/", ".." },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *r = util_relative_path(cases[i][0], cases[i][1]);

		is_str(r, cases[i][2], "relative path from %s to %s", cases[i][0], cases[i][1]);
		free(r);
	}
}

/*
 * util_hash128_hex() is MurmurHash3 x64_128 with seed 0: the reference's
 * digests of "", "hello" and the fox (mmh3.hash128(..., signed=False)
 * prints h2 h1 as one number), and every tail length of a block differs
 */
static void test_hash128(void)
{
	static const char fox[] = "The quick brown fox jumps over the lazy dog";
	static const char *const vectors[][2] = {
		{ "", "00000000000000000000000000000000" },
		{ "hello", "cbd8a7b341bd9b025b1e906a48ae1d19" },
		{ fox, "e34bbc7bbc071b6c7a433ca9c49a9347" },
	};
	char h[33], prev[33] = "";
	size_t n;

	for (n = 0; n < ARRAY_SIZE(vectors); n++) {
		util_hash128_hex(vectors[n][0], strlen(vectors[n][0]), h);
		is_str(h, vectors[n][1], "hash128 of '%s'", vectors[n][0]);
	}
	for (n = 0; n <= 33; n++) {
		util_hash128_hex(fox, n, h);
		if (!strcmp(h, prev))
			break;
		memcpy(prev, h, sizeof(h));
	}
	is_int(n, 34, "hash128: each of 34 prefixes hashes otherwise");
}

int main(void)
{
	test_relative_path();
	test_beneath();
	test_within();
	test_utf8();
	test_strbuf();
	test_jsonw();
	test_jsonw_raw();
	test_jx();
	test_dates();
	test_headers();
	test_hash128();
	return done_testing();
}
