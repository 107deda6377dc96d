// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

void oom(size_t n)
{
	fprintf(stderr, "lorebot: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return p;
}

int util_strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool util_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !memcmp(s + a - b, suffix, b);
}

char *util_relative_path(const char *from, const char *to)
{
	size_t common = 0, i, up = 0;
	const char *rest;
	char *out, *p;

	if (!strcmp(from, "/"))
		return xstrdup(to[1] ? to + 1 : ".");
	/* the longest common prefix that ends at a component */
	for (i = 0; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i;
	if ((!from[i] && (!to[i] || to[i] == '/')) || (!to[i] && from[i] == '/'))
		common = i;
	for (i = common; from[i]; i++)
		up += from[i] == '/';
	rest = strcmp(to, "/") ? to + common : "";	/* "" or "/dir..." */
	if (!up)
		return *rest ? xasprintf(".%s", rest) : xstrdup(".");
	/* "..", then "/.." for each further level, then rest and its NUL */
	out = p = xmalloc(3 * up + strlen(rest));
	for (i = 0; i < up; i++) {
		if (i)
			*p++ = '/';
		*p++ = '.';
		*p++ = '.';
	}
	memcpy(p, rest, strlen(rest) + 1);
	return out;
}

bool util_istarts_with(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

bool util_skip_prefix(const char *s, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n))
		return false;
	*rest = s + n;
	return true;
}

bool util_iskip_prefix(const char *s, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncasecmp(s, prefix, n))
		return false;
	*rest = s + n;
	return true;
}

struct unit {
	const char *suffix;
	uint64_t mul;
};

/* A number with one of the suffixes of the table (matched exactly) */
static int parse_scaled(const char *s, const struct unit *units, size_t nr,
			bool icase, uint64_t *out)
{
	unsigned long long v;
	char *end;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	for (i = 0; i < nr; i++)
		if (!(icase ? strcasecmp : strcmp)(end, units[i].suffix))
			break;
	if (i == nr || v > UINT64_MAX / units[i].mul)
		return -EINVAL;
	*out = v * units[i].mul;
	return 0;
}

int util_parse_size(const char *s, uint64_t *out)
{
	static const struct unit units[] = {
		{ "", 1 }, { "k", 1ULL << 10 }, { "m", 1ULL << 20 },
		{ "g", 1ULL << 30 },
	};

	return parse_scaled(s, units, ARRAY_SIZE(units), true, out);
}

int util_parse_duration_ms(const char *s, uint64_t *out)
{
	static const struct unit units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
		{ "d", 86400000 }, { "", 1000 },
	};

	return parse_scaled(s, units, ARRAY_SIZE(units), false, out);
}

int util_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	if (!s) {	/* "[section] key" with no value means true in git */
		*out = true;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

uint64_t util_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t util_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read all of fd, which is closed */
static int read_fd(int fd, char **buf, size_t *len, size_t max)
{
	size_t alloc = 8192, n = 0;
	char *p;

	if (fd < 0)
		return -errno;
	p = xmalloc(alloc);
	for (;;) {
		ssize_t r;

		if (n + 1 >= alloc) {
			alloc *= 2;
			p = xrealloc(p, alloc);
		}
		r = read(fd, p + n, alloc - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			free(p);
			return r;
		}
		if (!r)
			break;
		n += r;
		if (max && n > max) {
			close(fd);
			free(p);
			return -EFBIG;
		}
	}
	close(fd);
	p[n] = '\0';
	*buf = p;
	if (len)
		*len = n;
	return 0;
}

int util_read_file(const char *path, char **buf, size_t *len, size_t max)
{
	return read_fd(open(path, O_RDONLY | O_CLOEXEC), buf, len, max);
}

/* Write all of buf to fd, which is closed */
static int write_fd(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	int ret = 0;

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		p += w;
		len -= w;
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int util_write_file(const char *path, const void *buf, size_t len)
{
	return write_fd(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644),
			buf, len);
}

/*
 * fd, opened with O_NONBLOCK, as a regular file (O_NONBLOCK cleared), or
 * closed and -1 with errno (EINVAL: a FIFO, a socket, a device, a
 * directory): a FIFO planted where lorebot reads or writes would block
 * the open, and a device or a FIFO is not a file's content
 */
static int regular_fd(int fd)
{
	struct stat st;
	int fl, e = EINVAL;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		e = errno;
	else if (S_ISREG(st.st_mode) && (fl = fcntl(fd, F_GETFL)) >= 0 &&
		 !fcntl(fd, F_SETFL, fl & ~O_NONBLOCK))
		return fd;
	else if (S_ISREG(st.st_mode))
		e = errno;
	close(fd);
	errno = e;
	return -1;
}

int util_open_regular(const char *path, int flags, unsigned int mode)
{
	return regular_fd(open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode));
}

int util_read_regular(const char *path, char **buf, size_t *len, size_t max)
{
	return read_fd(util_open_regular(path, O_RDONLY, 0), buf, len, max);
}

/*
 * root opened for openat2() of path, which must be under it: the
 * descriptor and *rel (path relative to root), or -1 with errno
 */
static int beneath_root(const char *root, const char *path, const char **rel)
{
	size_t n = strlen(root);

	if (strncmp(path, root, n) || path[n] != '/' || !path[n + 1]) {
		errno = EINVAL;
		return -1;
	}
	*rel = path + n + 1;
	return open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int util_open_beneath(const char *root, const char *path, int flags, unsigned int mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK),
		.mode = flags & O_CREAT ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	const char *rel;
	int dfd, fd, e;

	dfd = beneath_root(root, path, &rel);
	if (dfd < 0)
		return -1;
	fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	e = errno;
	close(dfd);
	errno = e;
	return regular_fd(fd);
}

int util_read_file_beneath(const char *root, const char *path, char **buf,
			   size_t *len, size_t max)
{
	return read_fd(util_open_beneath(root, path, O_RDONLY, 0), buf, len, max);
}

int util_write_file_beneath(const char *root, const char *path, const void *buf,
			    size_t len)
{
	return write_fd(util_open_beneath(root, path, O_WRONLY | O_CREAT | O_TRUNC, 0644),
			buf, len);
}

int util_unlink_beneath(const char *root, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	const char *slash = strrchr(path, '/'), *rel;
	char *parent;
	int dfd, pfd, ret = 0;

	if (slash && !slash[1])
		return -EINVAL;
	dfd = beneath_root(root, path, &rel);
	if (dfd < 0)
		return -errno;
	if (slash < rel) {
		pfd = dfd;
	} else {
		parent = xstrndup(rel, slash - rel);
		pfd = (int)syscall(SYS_openat2, dfd, parent, &how, sizeof(how));
		if (pfd < 0)
			ret = -errno;
		free(parent);
	}
	if (!ret && unlinkat(pfd, slash + 1, 0) && errno != ENOENT)
		ret = -errno;
	if (pfd >= 0 && pfd != dfd)
		close(pfd);
	close(dfd);
	return ret;
}

int util_mkdir_p(const char *path, unsigned int mode)
{
	char *p = xstrdup(path), *s;
	int ret = 0;

	for (s = p + 1; ; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			ret = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

char *util_path_absolute(const char *path)
{
	char *r, *cwd;

	if (!path)
		return NULL;
	r = realpath(path, NULL);
	if (r)
		return r;
	if (*path == '/')
		return xstrdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return xstrdup(path);
	r = xasprintf("%s/%s", cwd, path);
	free(cwd);
	return r;
}

char *util_path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, slash - path);
}

bool util_path_readable_by(const char *path, uid_t uid)
{
	char *p = xstrdup(path), *slash = p;
	bool ok = true;
	struct stat st;

	while (ok && (slash = strchr(slash + 1, '/')) != NULL) {
		*slash = '\0';
		if (!stat(p, &st) && st.st_uid != uid && !(st.st_mode & 0001))
			ok = false;
		*slash = '/';
	}
	if (ok && (stat(p, &st) || (st.st_uid != uid && !(st.st_mode & 0004)) ||
		   (S_ISDIR(st.st_mode) && st.st_uid != uid && !(st.st_mode & 0001))))
		ok = false;
	free(p);
	return ok;
}

bool util_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

int util_remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) ? -errno : 0;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		if (util_remove_tree(sub) && !ret)
			ret = -errno;
		free(sub);
	}
	closedir(d);
	if (rmdir(path) && !ret)
		ret = -errno;
	return ret;
}

void util_hash_hex(const void *buf, size_t len, char out[17])
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static inline uint64_t rotl64(uint64_t x, int n)
{
	return (x << n) | (x >> (64 - n));
}

static inline uint64_t fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* a little-endian word of 8 bytes, or of the n < 8 left */
static inline uint64_t word64(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	if (n >= 8) {
		memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = __builtin_bswap64(v);
#endif
		return v;
	}
	while (n--)
		v = (v << 8) | p[n];
	return v;
}

void util_hash128_hex(const void *buf, size_t len, char out[33])
{
	const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
	const unsigned char *p = buf;
	uint64_t h1 = 0, h2 = 0, k1, k2;
	size_t i, rest;

	for (i = 0; i + 16 <= len; i += 16) {
		k1 = word64(p + i, 8);
		k2 = word64(p + i + 8, 8);
		h1 ^= rotl64(k1 * c1, 31) * c2;
		h1 = (rotl64(h1, 27) + h2) * 5 + 0x52dce729;
		h2 ^= rotl64(k2 * c2, 33) * c1;
		h2 = (rotl64(h2, 31) + h1) * 5 + 0x38495ab5;
	}
	rest = len - i;
	if (rest > 8)
		h2 ^= rotl64(word64(p + i + 8, rest - 8) * c2, 33) * c1;
	if (rest)
		h1 ^= rotl64(word64(p + i, rest > 8 ? 8 : rest) * c1, 31) * c2;
	h1 ^= len;
	h2 ^= len;
	h1 += h2;
	h2 += h1;
	h1 = fmix64(h1);
	h2 = fmix64(h2);
	h1 += h2;
	h2 += h1;
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h1,
		 (unsigned long long)h2);
}

bool util_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		unsigned char c;
		size_t n, i;
		uint32_t cp;
		uint64_t w;

		/* ASCII runs, 32 then eight bytes at a time */
		while ((size_t)(end - p) >= 32) {
			uint64_t a[4];

			memcpy(a, p, 32);
			if ((a[0] | a[1] | a[2] | a[3]) & 0x8080808080808080ULL)
				break;
			p += 32;
		}
		if ((size_t)(end - p) >= 8) {
			memcpy(&w, p, 8);
			if (!(w & 0x8080808080808080ULL)) {
				p += 8;
				continue;
			}
		}
		if (p == end)
			break;
		c = *p;
		if (c < 0x80) {
			p++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if ((size_t)(end - p) <= n)
			return false;
		for (i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		/* overlong forms, surrogates, beyond U+10FFFF */
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		p += n + 1;
	}
	return true;
}

static uid_t chown_uid;
static gid_t chown_gid;

static int chown_tree_cb(const char *path, const struct stat *st, int flag,
			 struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	if (st->st_uid != chown_uid && lchown(path, chown_uid, chown_gid))
		return -1;
	return 0;
}

int util_chown_tree(const char *path, uid_t uid, gid_t gid)
{
	chown_uid = uid;
	chown_gid = gid;
	return nftw(path, chown_tree_cb, 32, FTW_PHYS) ? -1 : 0;
}
