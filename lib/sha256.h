/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHA-256 (FIPS 180-4), for the hashes other systems define with it:
 * KCIDB's patchset_hash.
 *
 *	struct sha256 c;
 *	char hex[SHA256_HEX];
 *	sha256_init(&c);
 *	sha256_update(&c, buf, len);
 *	sha256_hex(&c, hex);
 */
#ifndef LOREBOT_SHA256_H
#define LOREBOT_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX 65	/* 64 hex digits and a NUL */

struct sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed */
	unsigned char buf[64];
	size_t used;
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
/* Finish: the digest as lowercase hex (c is spent) */
void sha256_hex(struct sha256 *c, char hex[SHA256_HEX]);

#endif
