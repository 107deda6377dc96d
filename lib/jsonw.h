/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A streaming JSON writer into a strbuf, for output that is written once
 * and never looked up: no object tree is built.  The text is what
 * jx_text() (lib/jsonx.h) makes of a json-c tree, pretty (two spaces,
 * "key":value) or plain, '/' not escaped, so stored documents compare
 * equal whichever of the two made them.
 *
 *	struct jsonw w = JSONW_INIT(&sb, true);
 *	jw_obj(&w); jw_key(&w, "n"); jw_int(&w, 1); jw_end_obj(&w);
 */
#ifndef LOREBOT_JSONW_H
#define LOREBOT_JSONW_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/strbuf.h"

/* Nesting deeper than this is a programming error: it aborts */
#define JSONW_MAX_DEPTH 64

struct jsonw {
	struct strbuf *sb;
	bool pretty;
	int depth;
	bool has_items[JSONW_MAX_DEPTH];	/* per open object or array */
	bool after_key;
};

#define JSONW_INIT(sb, pretty) { (sb), (pretty), 0, { false }, false }

void jw_obj(struct jsonw *w);
void jw_end_obj(struct jsonw *w);
void jw_arr(struct jsonw *w);
void jw_end_arr(struct jsonw *w);
void jw_key(struct jsonw *w, const char *key);
void jw_str(struct jsonw *w, const char *s);		/* NULL: null */
void jw_str_len(struct jsonw *w, const char *s, size_t len);
void jw_int(struct jsonw *w, int64_t v);
void jw_bool(struct jsonw *w, bool v);
void jw_null(struct jsonw *w);
/*
 * A value that is JSON text already (jx_text() of one json-c tree), put
 * where the next value goes: a stream of documents made one at a time
 * without a tree of them all.  Its text is copied as it is, so in a
 * pretty writer a plain one stays on one line.
 */
void jw_raw(struct jsonw *w, const char *json);

#endif
