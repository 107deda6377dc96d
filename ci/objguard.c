// SPDX-License-Identifier: GPL-2.0
/* The object directory as a trusted build left it; see objguard.h */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/strmap.h"
#include "lib/util.h"
#include "ci/objguard.h"

#define MANIFEST_MAX (256u << 20)

struct walk {
	struct strbuf path;	/* relative to obj, "" at the top */
	const char *const *skip;
	struct strbuf *out;	/* save: the manifest */
	struct strmap *want;	/* restore: path -> signature */
	unsigned long removed;
	unsigned long kept;	/* restore: recorded entries found as recorded */
	int err;
};

/* What may not change: type and inode; for a file or link its times and size */
static void signature(const struct stat *st, char *buf, size_t len)
{
	if (S_ISDIR(st->st_mode))
		snprintf(buf, len, "d %llu", (unsigned long long)st->st_ino);
	else
		snprintf(buf, len, "%c %llu %lld %lld.%09ld %lld.%09ld",
			 S_ISREG(st->st_mode) ? 'f' : S_ISLNK(st->st_mode) ? 'l' : 'o',
			 (unsigned long long)st->st_ino, (long long)st->st_size,
			 (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

static bool skipped(const struct walk *w)
{
	const char *const *s;

	for (s = w->skip; s && *s; s++)
		if (!strcmp(w->path.buf, *s))
			return true;
	return false;
}

/* Remove name in dfd, a directory with all it holds; no link followed */
static int remove_at(int dfd, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd, ret = 0;

	if (!unlinkat(dfd, name, 0))
		return 0;
	if (errno != EISDIR)
		return -errno;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		int r;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = remove_at(dirfd(d), de->d_name);
		if (r && !ret)
			ret = r;
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) && !ret)
		ret = -errno;
	return ret;
}

static void walk_dir(struct walk *w, int fd)
{
	struct dirent *de;
	DIR *d = fdopendir(fd);

	if (!d) {
		close(fd);
		w->err = -errno;
		return;
	}
	while ((de = readdir(d))) {
		size_t len = w->path.len;
		char sig[128];
		const char *want;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;	/* gone meanwhile */
		if (len)
			strbuf_addch(&w->path, '/');
		strbuf_addstr(&w->path, de->d_name);
		if (skipped(w)) {
			/*
			 * lorebot's own files are read and written as files:
			 * a link or a FIFO left there (which lorebot refuses
			 * to open) would fail every later build on this base
			 */
			if (w->want && !S_ISREG(st.st_mode)) {
				int r = remove_at(dirfd(d), de->d_name);

				if (r && !w->err)
					w->err = r;
				w->removed++;
			}
			goto next;
		}
		signature(&st, sig, sizeof(sig));
		if (w->out) {
			/* a name the manifest cannot hold is not recorded: removed later */
			if (!strchr(w->path.buf, '\n'))
				strbuf_addf(w->out, "%s\t%s\n", sig, w->path.buf);
		} else {
			want = strmap_get(w->want, w->path.buf);
			if (!want || strcmp(want, sig)) {
				int r = remove_at(dirfd(d), de->d_name);

				if (r && !w->err)
					w->err = r;
				w->removed++;
				goto next;
			}
			w->kept++;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				walk_dir(w, sub);
			else if (!w->err)
				w->err = -errno;
		}
next:
		strbuf_setlen(&w->path, len);
	}
	closedir(d);
}

static int open_obj(const char *obj, struct strbuf *err)
{
	int fd = open(obj, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		strbuf_addf(err, "cannot open '%s': %s", obj, strerror(errno));
	return fd;
}

int objguard_save(const char *obj, const char *manifest,
		  const char *const *skip, struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	struct walk w = { .path = STRBUF_INIT, .skip = skip, .out = &out };
	char *tmp = xasprintf("%s.tmp", manifest);
	int fd = open_obj(obj, err), ret;

	if (fd < 0) {
		free(tmp);
		return -errno;
	}
	walk_dir(&w, fd);
	ret = w.err;
	if (ret)
		strbuf_addf(err, "cannot read '%s': %s", obj, strerror(-ret));
	if (!ret && (ret = util_write_file(tmp, out.buf, out.len)))
		strbuf_addf(err, "cannot write '%s': %s", tmp, strerror(-ret));
	if (!ret && rename(tmp, manifest)) {
		ret = -errno;
		strbuf_addf(err, "cannot rename '%s': %s", tmp, strerror(errno));
	}
	if (ret)
		unlink(tmp);
	free(tmp);
	strbuf_release(&out);
	strbuf_release(&w.path);
	return ret;
}

bool objguard_recorded(const char *manifest, const char *path)
{
	char *buf, *line;
	size_t len;
	bool found;

	if (util_read_file(manifest, &buf, &len, MANIFEST_MAX))
		return false;
	line = xasprintf("\t%s\n", path);
	found = memmem(buf, len, line, strlen(line)) != NULL;
	free(line);
	free(buf);
	return found;
}

int objguard_restore(const char *obj, const char *manifest,
		     const char *const *skip, unsigned long *removed,
		     unsigned long *missing, struct strbuf *err)
{
	struct strmap want = STRMAP_INIT;
	struct walk w = { .path = STRBUF_INIT, .skip = skip, .want = &want };
	unsigned long recorded = 0;
	char *buf, *p;
	size_t len;
	int fd, ret;

	*removed = 0;
	*missing = 0;
	ret = util_read_file(manifest, &buf, &len, MANIFEST_MAX);
	if (ret) {
		if (ret != -ENOENT)
			strbuf_addf(err, "cannot read '%s': %s", manifest, strerror(-ret));
		return ret;
	}
	/* "signature\tpath\n" lines; the map borrows both from buf */
	for (p = buf; *p;) {
		char *nl = strchrnul(p, '\n'), *tab = memchr(p, '\t', nl - p);
		bool last = !*nl;

		*nl = '\0';
		if (tab) {
			*tab = '\0';
			strmap_put(&want, tab + 1, p);
			recorded++;
		}
		if (last)
			break;
		p = nl + 1;
	}
	fd = open_obj(obj, err);
	if (fd < 0) {
		ret = -errno;
	} else {
		walk_dir(&w, fd);
		ret = w.err;
		if (ret)
			strbuf_addf(err, "cannot clean '%s': %s", obj, strerror(-ret));
	}
	*removed = w.removed;
	if (!ret && recorded > w.kept)
		*missing = recorded - w.kept;
	strmap_release(&want);
	strbuf_release(&w.path);
	free(buf);
	return ret;
}
