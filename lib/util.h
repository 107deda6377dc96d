/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers every file may use: allocation that cannot fail (an
 * allocation failure aborts: there is nothing sensible to do), array
 * growth, string prefixes.
 */
#ifndef LOREBOT_UTIL_H
#define LOREBOT_UTIL_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#undef MIN
#undef MAX
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define UNUSED __attribute__((unused))
#define PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Say so and abort: what the x*() allocators do when there is none */
void oom(size_t n) __attribute__((noreturn));
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xstrdup(), or NULL for NULL */
char *xstrdup_or_null(const char *s);
char *xasprintf(const char *fmt, ...) PRINTF(1, 2);

/*
 * Grow array x (of *alloc elements) so that it holds at least nr
 * elements.  As git's ALLOC_GROW().
 */
#define ALLOC_GROW(x, nr, alloc)					\
	do {								\
		if ((size_t)(nr) > (alloc)) {				\
			size_t n_ = (alloc) * 3 / 2 + 16;		\
			if (n_ < (size_t)(nr))				\
				n_ = (nr);				\
			(x) = xrealloc((x), n_ * sizeof(*(x)));		\
			(alloc) = n_;					\
		}							\
	} while (0)

static inline bool util_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool util_ends_with(const char *s, const char *suffix);
/* qsort()'s comparison for an array of strings (char *), by strcmp() */
int util_strcmp_ptr(const void *a, const void *b);
/*
 * The path of directory to as seen from directory from, both absolute and
 * normalised (no "." or ".." components, no trailing '/'):
 * ("/c/b/obj", "/c/b/src") -> "../src".  Caller frees.
 */
char *util_relative_path(const char *from, const char *to);
bool util_istarts_with(const char *s, const char *prefix);

/* If s starts with prefix, point *rest after it and return true. */
bool util_skip_prefix(const char *s, const char *prefix, const char **rest);
bool util_iskip_prefix(const char *s, const char *prefix, const char **rest);

/* Parse a size such as "16m", "512k", "100" into *out. 0 or -EINVAL. */
int util_parse_size(const char *s, uint64_t *out);
/* Parse a duration such as "90s", "10m", "2h", "500ms" into ms. */
int util_parse_duration_ms(const char *s, uint64_t *out);
/* Parse a boolean as git does: true/yes/on/1, false/no/off/0. */
int util_parse_bool(const char *s, bool *out);

/* Monotonic and wall clocks in milliseconds. */
uint64_t util_now_ms(void);
uint64_t util_wall_ms(void);

/* Read a whole file; returns 0 or -errno.  *len excludes the added NUL. */
int util_read_file(const char *path, char **buf, size_t *len, size_t max);
int util_write_file(const char *path, const void *buf, size_t len);
/*
 * A file a less privileged user could have put there: a link is not
 * followed (-ELOOP), and anything but a regular file (a FIFO, whose open
 * would block; a socket, a device) is refused (-EINVAL) without waiting.
 * util_open_regular() returns the descriptor, or -1 with errno.
 */
int util_open_regular(const char *path, int flags, unsigned int mode);
int util_read_regular(const char *path, char **buf, size_t *len, size_t max);
/*
 * The same for a path under root that a less privileged user can change
 * (a build's obj/, a job's directory): opened with openat2() beneath
 * root, no symlink and no mount point followed on the way, so a link
 * planted there is refused (-ELOOP or -EXDEV) instead of being read or
 * truncated as root, and only a regular file is opened (-EINVAL).
 * util_open_beneath() returns the descriptor, or -1 with errno.
 */
int util_open_beneath(const char *root, const char *path, int flags, unsigned int mode);
int util_read_file_beneath(const char *root, const char *path, char **buf,
			   size_t *len, size_t max);
int util_write_file_beneath(const char *root, const char *path, const void *buf,
			    size_t len);
/*
 * Remove the file path under root as util_open_beneath() opens it (no
 * link followed on the way); a path already gone is 0.  0 or -errno.
 */
int util_unlink_beneath(const char *root, const char *path);
/* mkdir -p; 0 or -errno */
int util_mkdir_p(const char *path, unsigned int mode);
/* Give path and everything under it to uid:gid (not following links) */
int util_chown_tree(const char *path, uid_t uid, gid_t gid);
/* rm -rf; 0 or -errno */
int util_remove_tree(const char *path);
/*
 * path made absolute: resolved when it exists, else joined to the
 * current directory; NULL stays NULL.  Caller frees.
 */
char *util_path_absolute(const char *path);
/* The directory part of path ("." when it has no '/'); caller frees */
char *util_path_dirname(const char *path);
/* Whether path is dir or below it, by name ("/usr" is not "/usrx") */
bool util_path_within(const char *path, const char *dir);
/*
 * Can uid read path, every directory on the way searchable by it (as its
 * owner or as anyone; groups are not counted: a dropped child has none)?
 */
bool util_path_readable_by(const char *path, uid_t uid);

/* FNV-1a 64-bit hash of buf as 16 lowercase hex digits; out holds 17. */
void util_hash_hex(const void *buf, size_t len, char out[17]);
/*
 * A fast 128-bit hash of buf (MurmurHash3 x64_128, seed 0: h1 then h2) as
 * 32 lowercase hex digits; out holds 33.  Not made to resist crafted
 * collisions: for data whose sender gains nothing by one.
 */
void util_hash128_hex(const void *buf, size_t len, char out[33]);

/* Is s[0..len) well-formed UTF-8? */
bool util_utf8_valid(const char *s, size_t len);

#include "lib/banned.h"

#endif
