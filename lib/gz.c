// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <zlib.h>

#include "lib/gz.h"

void gz_init(struct gunzip *g, size_t max_out)
{
	memset(g, 0, sizeof(*g));
	g->max_out = max_out;
}

void gz_release(struct gunzip *g)
{
	if (g->z) {
		inflateEnd(g->z);
		free(g->z);
	}
	g->z = NULL;
}

static int fail(struct gunzip *g, struct strbuf *err, const char *what,
		const z_stream *zs)
{
	g->failed = true;
	strbuf_addf(err, "%s at input byte %llu", what,
		    (unsigned long long)g->in);
	if (zs && zs->msg)
		strbuf_addf(err, " (%s)", zs->msg);
	return -1;
}

int gz_feed(struct gunzip *g, const void *in, size_t len,
	    struct strbuf *out, struct strbuf *err)
{
	z_stream *zs = g->z;

	if (g->failed)
		return -1;
	if (!zs) {
		zs = g->z = xcalloc(1, sizeof(*zs));
		/* 16 + MAX_WBITS: gzip wrapper only */
		if (inflateInit2(zs, 16 + MAX_WBITS) != Z_OK) {
			free(zs);
			g->z = NULL;
			return fail(g, err, "cannot start zlib", NULL);
		}
	}
	zs->next_in = (Bytef *)in;
	zs->avail_in = len;
	while (zs->avail_in) {
		size_t before_in = zs->avail_in;
		int rc;

		if (!g->in_member) {
			/* a member starts: it must be gzip, not trailing junk */
			if (zs->avail_in >= 2 && !gz_magic(zs->next_in, zs->avail_in))
				return fail(g, err, "not gzip data", NULL);
			g->in_member = true;
		}
		strbuf_grow(out, 65536);
		zs->next_out = (Bytef *)out->buf + out->len;
		zs->avail_out = out->alloc - out->len - 1;
		rc = inflate(zs, Z_NO_FLUSH);
		g->in += before_in - zs->avail_in;
		{
			size_t produced = (out->alloc - out->len - 1) - zs->avail_out;

			g->out += produced;
			strbuf_setlen(out, out->len + produced);
		}
		if (g->max_out && g->out > g->max_out) {
			strbuf_addf(err, "gzip data decodes to more than %zu bytes",
				    g->max_out);
			g->failed = true;
			return -1;
		}
		if (rc == Z_STREAM_END) {
			g->in_member = false;
			inflateReset(zs);
			continue;
		}
		if (rc == Z_BUF_ERROR && before_in == zs->avail_in)
			break;	/* needs more input */
		if (rc != Z_OK)
			return fail(g, err, "corrupt gzip data", zs);
	}
	return 0;
}

int gz_finish(struct gunzip *g, struct strbuf *err)
{
	if (g->failed)
		return -1;
	if (g->in_member || !g->in)
		return fail(g, err, g->in ? "truncated gzip data" : "empty gzip data",
			    NULL);
	return 0;
}

int gz_gunzip(const void *in, size_t len, size_t max_out, struct strbuf *out,
	      struct strbuf *err)
{
	struct gunzip g;
	int ret;

	gz_init(&g, max_out);
	ret = gz_feed(&g, in, len, out, err);
	if (!ret)
		ret = gz_finish(&g, err);
	gz_release(&g);
	return ret;
}

int gz_gzip(const void *in, size_t len, struct strbuf *out)
{
	z_stream z;
	size_t start = out->len;
	int r;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	strbuf_grow(out, deflateBound(&z, len) + 1);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out->buf + start;
	z.avail_out = (uInt)(out->alloc - start - 1);
	r = deflate(&z, Z_FINISH);
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		strbuf_setlen(out, start);
		return -1;
	}
	strbuf_setlen(out, start + z.total_out);
	return 0;
}

bool gz_magic(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}
