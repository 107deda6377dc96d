// SPDX-License-Identifier: GPL-2.0
/* gzip decoding: members, streaming, truncation, corruption, limits */
#include "lib/gz.h"
#include "tests/unit/tap.h"

/* gzip -n of "hello\n" and of "world\n" */
static const unsigned char hello[] = {
	0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd,
	0xc9, 0xc9, 0xe7, 0x02, 0x00, 0x20, 0x30, 0x3a, 0x36, 0x06, 0x00, 0x00, 0x00,
};
static const unsigned char world[] = {
	0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x2b, 0xcf, 0x2f,
	0xca, 0x49, 0xe1, 0x02, 0x00, 0xa8, 0x61, 0x38, 0xdd, 0x06, 0x00, 0x00, 0x00,
};

int main(void)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	unsigned char two[sizeof(hello) + sizeof(world)], bad[sizeof(hello)];
	struct gunzip g;
	size_t i;
	int r;

	is_int(gz_gunzip(hello, sizeof(hello), 0, &out, &err), 0, "one member");
	is_str(out.buf, "hello\n", "decoded");

	memcpy(two, hello, sizeof(hello));
	memcpy(two + sizeof(hello), world, sizeof(world));
	strbuf_reset(&out);
	is_int(gz_gunzip(two, sizeof(two), 0, &out, &err), 0, "two members");
	is_str(out.buf, "hello\nworld\n", "both members decoded");

	/* byte by byte, as a network would deliver it */
	strbuf_reset(&out);
	gz_init(&g, 0);
	for (i = 0, r = 0; i < sizeof(two) && !r; i++)
		r = gz_feed(&g, two + i, 1, &out, &err);
	is_int(r, 0, "streamed one byte at a time");
	is_int(gz_finish(&g, &err), 0, "ends after a complete member");
	gz_release(&g);
	is_str(out.buf, "hello\nworld\n", "the same output");

	/* cut anywhere inside: never silently short */
	for (i = 1; i < sizeof(hello); i++) {
		strbuf_reset(&out);
		strbuf_reset(&err);
		if (!gz_gunzip(hello, i, 0, &out, &err))
			break;
	}
	is_int(i, sizeof(hello), "every truncation of a member is an error");
	strbuf_reset(&err);
	gz_gunzip(two, sizeof(two) - 3, 0, &out, &err);
	ok(strstr(err.buf, "truncated gzip data") != NULL, "truncated: '%s'", err.buf);

	memcpy(bad, hello, sizeof(hello));
	bad[sizeof(bad) - 6] ^= 0xff;	/* the CRC */
	strbuf_reset(&err);
	is_int(gz_gunzip(bad, sizeof(bad), 0, &out, &err), -1, "a bad CRC is an error");
	ok(strstr(err.buf, "corrupt gzip data") != NULL, "corrupt: '%s'", err.buf);

	strbuf_reset(&err);
	is_int(gz_gunzip("hello, world", 12, 0, &out, &err), -1, "not gzip");
	ok(strstr(err.buf, "not gzip data") != NULL, "says '%s'", err.buf);

	strbuf_reset(&err);
	memcpy(two + sizeof(hello), "junk", 4);
	is_int(gz_gunzip(two, sizeof(hello) + 4, 0, &out, &err), -1,
	       "junk after a member is an error");

	strbuf_reset(&err);
	is_int(gz_gunzip(hello, 0, 0, &out, &err), -1, "no data is an error");
	ok(strstr(err.buf, "empty gzip data") != NULL, "says '%s'", err.buf);

	strbuf_reset(&err);
	is_int(gz_gunzip(hello, sizeof(hello), 3, &out, &err), -1, "output limit");
	ok(strstr(err.buf, "more than 3 bytes") != NULL, "says '%s'", err.buf);

	ok(gz_magic(hello, sizeof(hello)) && !gz_magic("ab", 2), "gz_magic");
	/* gz_gzip: what it writes reads back, and is gzip */
	{
		struct strbuf z = STRBUF_INIT, back = STRBUF_INIT;
		char big[100000];

		for (i = 0; i < sizeof(big); i++)
			big[i] = "CONFIG_MMU=y\n"[i % 13];
		is_int(gz_gzip(big, sizeof(big), &z), 0, "gz_gzip: 100 kB");
		ok(gz_magic(z.buf, z.len) && z.len < sizeof(big) / 10, "gzip, and smaller");
		is_int(gz_gunzip(z.buf, z.len, 0, &back, &err), 0, "it reads back");
		ok(back.len == sizeof(big) && !memcmp(back.buf, big, sizeof(big)),
		   "the same bytes");
		strbuf_reset(&z);
		is_int(gz_gzip("", 0, &z), 0, "gz_gzip of nothing");
		strbuf_reset(&back);
		is_int(gz_gunzip(z.buf, z.len, 0, &back, &err), 0, "reads back empty");
		is_int((int)back.len, 0, "empty");
		strbuf_release(&z);
		strbuf_release(&back);
	}
	strbuf_release(&out);
	strbuf_release(&err);
	return done_testing();
}
