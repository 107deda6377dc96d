// SPDX-License-Identifier: GPL-2.0
/* SHA-256: FIPS 180-4's examples, and the same digest fed in pieces */
#include "lib/sha256.h"
#include "tests/unit/tap.h"

static void hex_of(const void *data, size_t len, char hex[SHA256_HEX])
{
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_hex(&c, hex);
}

int main(void)
{
	static const char two_blocks[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[SHA256_HEX], again[SHA256_HEX], a[1000];
	struct sha256 c;
	size_t i;

	hex_of("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty");
	hex_of("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "abc");
	hex_of(two_blocks, strlen(two_blocks), hex);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	       "448 bits: the padding takes a second block");
	memset(a, 'a', sizeof(a));
	sha256_init(&c);
	for (i = 0; i < 1000; i++)
		sha256_update(&c, a, sizeof(a));
	sha256_hex(&c, hex);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "a million a's, a thousand at a time");
	sha256_init(&c);
	for (i = 0; i < strlen(two_blocks); i++)
		sha256_update(&c, two_blocks + i, 1);
	sha256_hex(&c, again);
	hex_of(two_blocks, strlen(two_blocks), hex);
	is_str(again, hex, "byte by byte: the same digest");
	return done_testing();
}
