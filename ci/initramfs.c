// SPDX-License-Identifier: GPL-2.0
/* newc cpio writer and gzip through zlib; see initramfs.h */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ci/initramfs.h"

#define MAX_MEMBER (256u << 20)

static void pad4(struct strbuf *sb)
{
	while (sb->len & 3)
		strbuf_addch(sb, '\0');
}

static void add_entry(struct initramfs *ir, const char *name,
		      unsigned int mode, unsigned int rmajor,
		      unsigned int rminor, const void *data, size_t len)
{
	size_t namesize = strlen(name) + 1;

	/* magic, ino, mode, uid, gid, nlink, mtime, filesize, dev maj/min,
	 * rdev maj/min, namesize, check */
	strbuf_addf(&ir->cpio,
		    "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		    ir->ino++, mode, 0, 0, S_ISDIR(mode) ? 2 : 1, 0,
		    (unsigned int)len, 0, 0, rmajor, rminor,
		    (unsigned int)namesize, 0);
	strbuf_add(&ir->cpio, name, namesize);
	pad4(&ir->cpio);
	if (len) {
		strbuf_add(&ir->cpio, data, len);
		pad4(&ir->cpio);
	}
	ir->entries++;
}

void initramfs_add_dir(struct initramfs *ir, const char *name,
		       unsigned int mode)
{
	add_entry(ir, name, S_IFDIR | (mode & 07777), 0, 0, NULL, 0);
}

void initramfs_add_file(struct initramfs *ir, const char *name,
			unsigned int mode, const void *data, size_t len)
{
	add_entry(ir, name, S_IFREG | (mode & 07777), 0, 0, data, len);
}

void initramfs_add_chardev(struct initramfs *ir, const char *name,
			   unsigned int mode, unsigned int major,
			   unsigned int minor)
{
	add_entry(ir, name, S_IFCHR | (mode & 07777), major, minor, NULL, 0);
}

int initramfs_add_path(struct initramfs *ir, const char *name, unsigned int mode,
		       const char *root, const char *path, struct strbuf *err)
{
	char *buf;
	size_t len;
	int r = root ? util_read_file_beneath(root, path, &buf, &len, MAX_MEMBER) :
		util_read_regular(path, &buf, &len, MAX_MEMBER);

	if (r) {
		strbuf_addf(err, "cannot read '%s': %s", path,
			    r == -EINVAL ? "not a regular file" : strerror(-r));
		return r;
	}
	initramfs_add_file(ir, name, mode, buf, len);
	free(buf);
	return 0;
}

static int write_gzip(const struct strbuf *data, const char *path,
		      struct strbuf *err)
{
	gzFile gz = gzopen(path, "wb1");
	size_t off = 0;
	int ret = 0;

	if (!gz) {
		ret = errno ? -errno : -ENOMEM;
		strbuf_addf(err, "cannot create '%s': %s", path, strerror(-ret));
		return ret;
	}
	while (off < data->len) {
		unsigned int n = MIN(data->len - off, 1u << 30);
		int w = gzwrite(gz, data->buf + off, n);

		if (w <= 0) {
			ret = -EIO;
			break;
		}
		off += w;
	}
	if (gzclose(gz) != Z_OK)
		ret = -EIO;
	if (ret)
		strbuf_addf(err, "cannot write '%s'", path);
	return ret;
}

int initramfs_write(struct initramfs *ir, const char *path, bool gzip,
		    struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	int ret;

	strbuf_addbuf(&out, &ir->cpio);
	/* the trailer is a zero-length entry named TRAILER!!! */
	strbuf_addf(&out, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		    0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 11, 0);
	strbuf_add(&out, "TRAILER!!!", 11);
	pad4(&out);
	/* the kernel reads initrds in 512-byte blocks; pad as cpio does */
	while (out.len % 512)
		strbuf_addch(&out, '\0');
	if (gzip) {
		ret = write_gzip(&out, path, err);
	} else {
		ret = util_write_file(path, out.buf, out.len);
		if (ret)
			strbuf_addf(err, "cannot write '%s': %s", path,
				    strerror(-ret));
	}
	strbuf_release(&out);
	return ret;
}

void initramfs_release(struct initramfs *ir)
{
	strbuf_release(&ir->cpio);
	ir->ino = 1;
	ir->entries = 0;
}
