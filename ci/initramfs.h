/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An initramfs written from C: a "newc" cpio archive built in memory,
 * written out as is or gzip-compressed (zlib, level 1: the guest's
 * inflate under emulation costs more than the host's deflate saves).
 * No cpio(1), no root: device nodes are archive entries, owned by root.
 *
 * Usage:
 *	struct initramfs ir = INITRAMFS_INIT;
 *	initramfs_add_dir(&ir, "dev", 0755);
 *	initramfs_add_chardev(&ir, "dev/console", 0600, 5, 1);
 *	initramfs_add_path(&ir, "init", 0755, NULL, "/path/to/init", &err);
 *	initramfs_write(&ir, "initrd.gz", true, &err);
 *	initramfs_release(&ir);
 */
#ifndef LOREBOT_CI_INITRAMFS_H
#define LOREBOT_CI_INITRAMFS_H

#include <stdbool.h>

#include "lib/strbuf.h"

struct initramfs {
	struct strbuf cpio;
	unsigned int ino;
	unsigned int entries;
};

#define INITRAMFS_INIT { .cpio = STRBUF_INIT, .ino = 1 }

/* Names are relative ("bin/x"); parents must be added first. */
void initramfs_add_dir(struct initramfs *ir, const char *name,
		       unsigned int mode);
void initramfs_add_file(struct initramfs *ir, const char *name,
			unsigned int mode, const void *data, size_t len);
void initramfs_add_chardev(struct initramfs *ir, const char *name,
			   unsigned int mode, unsigned int major,
			   unsigned int minor);
/*
 * A host file's contents under name; 0 or -errno (err says which).  With
 * root, path is under root, a directory a less privileged user writes
 * (the selftests' output): read beneath it, no link followed on the way.
 * Only a regular file is read, never through a link at its name: a FIFO
 * there would block the open, a link could name a file of the host's.
 */
int initramfs_add_path(struct initramfs *ir, const char *name, unsigned int mode,
		       const char *root, const char *path, struct strbuf *err);
/* Append the trailer and write; 0 or -errno with err set */
int initramfs_write(struct initramfs *ir, const char *path, bool gzip,
		    struct strbuf *err);
void initramfs_release(struct initramfs *ir);

#endif
