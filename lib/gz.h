/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gzip with zlib (the only file that includes zlib.h): decoding lore's
 * t.mbox.gz, x=m search results and manifest.js.gz; encoding a report's
 * files.  Streams of several
 * gzip members (concatenated files) are one stream.  Truncated or
 * corrupt data is an error, never silently short output.
 */
#ifndef LOREBOT_GZ_H
#define LOREBOT_GZ_H

#include "lib/strbuf.h"

struct gunzip {
	void *z;		/* z_stream * */
	size_t max_out;		/* output limit; 0: none */
	uint64_t in, out;	/* bytes consumed and produced */
	bool in_member;		/* inside a member (header seen, no trailer yet) */
	bool failed;
};

void gz_init(struct gunzip *g, size_t max_out);
void gz_release(struct gunzip *g);

/*
 * Decode len bytes of input, appending the output to out.  0, or -1 with
 * the reason in err ("corrupt gzip data: ...", "more than N bytes").
 */
int gz_feed(struct gunzip *g, const void *in, size_t len,
	    struct strbuf *out, struct strbuf *err);
/* The input ended: 0 when it ended after a complete member, else -1 */
int gz_finish(struct gunzip *g, struct strbuf *err);

/* All of it at once: init, feed, finish, release */
int gz_gunzip(const void *in, size_t len, size_t max_out, struct strbuf *out,
	      struct strbuf *err);

/*
 * Encode len bytes as one gzip member appended to out (lorebot's own
 * data kept compressed: a report's .config).  0, or -1 when zlib fails.
 */
int gz_gzip(const void *in, size_t len, struct strbuf *out);

/* Does buf start like gzip data (1f 8b)? */
bool gz_magic(const void *buf, size_t len);

#endif
