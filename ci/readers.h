/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who reads a header: the .c files of a tree that #include it directly,
 * and the headers the units of a build directory read.
 *
 * The config repair (ci/cover-run.h cover_predict_run()) uses both for
 * a changed header that no unit of the base reads: it finds the files
 * that include it and takes the needs of one of them (ci/needs.h), so
 * that a unit reading the header is built.  A reader is found by the
 * include path of the header (<linux/foo.h> for include/linux/foo.h
 * and arch/x86/include/linux/foo.h, <uapi/...> too for include/uapi/)
 * or by a quoted name relative to the reader ("foo.h", "../foo.h"):
 * the reader's own text, not what its build's -I options would find.
 * A header included only through another header is not found.
 */
#ifndef LOREBOT_CI_READERS_H
#define LOREBOT_CI_READERS_H

#include "lib/strbuf.h"
#include "lib/strmap.h"

/* The search's bounds: readers kept, and time spent walking the tree */
#define READERS_MAX 16
#define READERS_MS 20000

struct readers {
	char **v;		/* .c files relative to the tree, nearest first */
	size_t nr, alloc;
	bool partial;		/* stopped at a bound: there may be more */
};

void readers_release(struct readers *r);

/*
 * The .c files of srcdir that include header (relative to srcdir), on
 * srcarch (another arch's arch/ directory is not searched, nor tools/,
 * scripts/, Documentation/, usr/): those in the header's own directory
 * first, then mm/, then the rest of the tree; at most max, within ms
 * milliseconds (out->partial when a bound stopped it).
 */
void readers_find(const char *srcdir, const char *header, const char *srcarch,
		  size_t max, uint64_t ms, struct readers *out);

/*
 * Is line (1-based) of text an #include of header, for a file at path?
 * (what readers_find() looks for, one line)
 */
bool readers_includes(const char *path, const char *line, size_t len,
		      const char *header);

/*
 * The headers (relative to src) the units of obj read, from their .o.cmd
 * files (kbuild's deps_ lists: "src/include/linux/mm.h" by the absolute
 * src/, or "../src/..." where ccache's base_dir made them relative):
 * into out as path -> (void *)1, keys owned by out's caller through
 * keys (freed with readers_headers_release()).
 */
struct readers_headers {
	struct strmap map;
	char **keys;
	size_t nr, alloc;
};

#define READERS_HEADERS_INIT { .map = STRMAP_INIT }

void readers_headers_scan(struct readers_headers *h, const char *obj, const char *src);
bool readers_headers_has(const struct readers_headers *h, const char *path);
void readers_headers_release(struct readers_headers *h);

#endif
