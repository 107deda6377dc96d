// SPDX-License-Identifier: GPL-2.0
/*
 * The outbox: each reply as one file of a maildir (tmp/, new/, cur/),
 * written to tmp/, synced, and renamed into new/ so that a reader never
 * sees half a mail.  The file name is made from the reply's creation
 * time and Message-ID, so delivering the same reply again finds it
 * there instead of writing a second file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/report/reply-int.h"

char *reply_outbox_name(const struct reply_row *r)
{
	char hash[17];

	util_hash_hex(r->msgid, strlen(r->msgid), hash);
	return xasprintf("%lld.%s.lorebot", (long long)r->created, hash);
}

int reply_outbox_has(const char *dir, const char *name)
{
	char *path = xasprintf("%s/new/%s", dir, name), *cur;
	struct dirent *e;
	size_t nlen = strlen(name);
	DIR *d;
	int found = access(path, F_OK) == 0;

	free(path);
	if (found)
		return 1;
	/* a mail reader moves it to cur/, adding ":2,<flags>" */
	cur = xasprintf("%s/cur", dir);
	d = opendir(cur);
	free(cur);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, name, nlen) && (!e->d_name[nlen] || e->d_name[nlen] == ':'))
			found = 1;
	closedir(d);
	return found;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	int r;

	if (fd < 0)
		return -errno;
	r = fsync(fd) ? -errno : 0;
	close(fd);
	return r;
}

int reply_outbox_deliver(const char *dir, const char *name, const char *mail, size_t len,
			 struct strbuf *err)
{
	static const char *const subdirs[] = { "tmp", "new", "cur" };
	char *tmp = NULL, *dst = NULL, *sub;
	size_t i, off = 0;
	int fd = -1, ret = -1;

	for (i = 0; i < ARRAY_SIZE(subdirs); i++) {
		sub = xasprintf("%s/%s", dir, subdirs[i]);
		if (util_mkdir_p(sub, 0755)) {
			strbuf_addf(err, "cannot create the outbox '%s': %s", sub, strerror(errno));
			free(sub);
			return -1;
		}
		free(sub);
	}
	if (reply_outbox_has(dir, name))
		return 0;
	tmp = xasprintf("%s/tmp/%s", dir, name);
	dst = xasprintf("%s/new/%s", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		strbuf_addf(err, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, mail + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			strbuf_addf(err, "cannot write '%s': %s", tmp, strerror(errno));
			goto out;
		}
		off += n;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		strbuf_addf(err, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, dst)) {
		strbuf_addf(err, "cannot move '%s' to '%s': %s", tmp, dst, strerror(errno));
		goto out;
	}
	sub = xasprintf("%s/new", dir);
	sync_dir(sub);
	free(sub);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (ret)
		unlink(tmp);
	free(tmp);
	free(dst);
	return ret;
}
