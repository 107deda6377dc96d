// SPDX-License-Identifier: GPL-2.0
/*
 * The initramfs writer: what GNU cpio reads back from it, plain and
 * gzip-compressed, and the guest init's embedded source.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/run.h"
#include "ci/guest-init.h"
#include "ci/initramfs.h"
#include "tests/unit/tap.h"

static char *list(const char *path, bool gz)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	char *sh = xasprintf("%s '%s' | cpio -itv --quiet", gz ? "zcat" : "cat", path);
	const char *argv[] = { "sh", "-c", sh, NULL };
	char *out;

	cmd.argv = argv;
	cmd.limits.timeout_ms = 10000;
	if (run_cmd(&cmd) || cmd.status)
		out = xasprintf("failed: %s", cmd.err.buf);
	else
		out = strbuf_detach(&cmd.out, NULL);
	run_cmd_release(&cmd);
	free(sh);
	return out;
}

static char *extract(const char *path, const char *dir, const char *member)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	char *sh = xasprintf("cd '%s' && cpio -i --quiet --to-stdout '%s' < '%s'",
			     dir, member, path);
	const char *argv[] = { "sh", "-c", sh, NULL };
	char *out;

	cmd.argv = argv;
	cmd.limits.timeout_ms = 10000;
	out = run_cmd(&cmd) || cmd.status ? NULL : strbuf_detach(&cmd.out, NULL);
	run_cmd_release(&cmd);
	free(sh);
	return out;
}

int main(void)
{
	char tmpl[] = "/tmp/t-initramfs.XXXXXX";
	char *dir = mkdtemp(tmpl), *plain, *gz, *src, *l, *x;
	struct initramfs ir = INITRAMFS_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *text;
	size_t len;
	unsigned char big[5000];
	size_t i;

	if (!dir) {
		printf("1..0 # SKIP no temporary directory\n");
		return 0;
	}
	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7);
	plain = xasprintf("%s/a.cpio", dir);
	gz = xasprintf("%s/a.cpio.gz", dir);
	src = xasprintf("%s/src", dir);
	util_write_file(src, "#!/bin/sh\n", 10);

	initramfs_add_dir(&ir, "dev", 0755);
	initramfs_add_chardev(&ir, "dev/console", 0600, 5, 1);
	initramfs_add_dir(&ir, "lorebot", 0755);
	initramfs_add_file(&ir, "lorebot/plan", 0644, "test a 60 - a\n", 14);
	initramfs_add_file(&ir, "lorebot/odd", 0644, "abc", 3);
	initramfs_add_file(&ir, "lorebot/big", 0600, big, sizeof(big));
	ok(initramfs_add_path(&ir, "init", 0755, NULL, src, &err) == 0, "add a host file");
	ok(initramfs_add_path(&ir, "nope", 0755, NULL, "/nonexistent/x", &err) < 0 &&
	   strstr(err.buf, "/nonexistent/x"), "a missing host file is an error naming it");
	is_int(ir.entries, 7, "seven entries");
	/*
	 * what the selftests' make left as a "binary" (issue 38): a FIFO
	 * blocked lorebot in open() for good, a link packed its target
	 */
	{
		char *bin = xasprintf("%s/bin", dir), *fifo = xasprintf("%s/fifo", bin);
		char *link = xasprintf("%s/link", bin), *sub = xasprintf("%s/sub", bin);
		char *via = xasprintf("%s/sub/passwd", bin);
		int r;

		util_mkdir_p(bin, 0755);
		if (mkfifo(fifo, 0755) || symlink("/etc/passwd", link) || symlink("/etc", sub))
			ok(0, "cannot plant: %s", strerror(errno));
		alarm(20);	/* a blocked open fails the test, not hangs it */
		/* each call first: err.buf, an argument of ok(), may move */
		strbuf_reset(&err);
		r = initramfs_add_path(&ir, "fifo", 0755, bin, fifo, &err);
		ok(r < 0 && strstr(err.buf, "not a regular file"), "a FIFO is refused at once: %s",
		   err.buf);
		strbuf_reset(&err);
		r = initramfs_add_path(&ir, "link", 0755, bin, link, &err);
		ok(r < 0, "a link is not followed: %s", err.buf);
		strbuf_reset(&err);
		r = initramfs_add_path(&ir, "via", 0755, bin, via, &err);
		ok(r < 0, "nor a link on the way: %s", err.buf);
		strbuf_reset(&err);
		ok(initramfs_add_path(&ir, "fifo", 0755, NULL, fifo, &err) < 0,
		   "a FIFO is refused without a root too");
		alarm(0);
		is_int(ir.entries, 7, "nothing was added");
		free(bin);
		free(fifo);
		free(link);
		free(sub);
		free(via);
	}
	ok(initramfs_write(&ir, plain, false, &err) == 0, "write plain");
	ok(initramfs_write(&ir, gz, true, &err) == 0, "write gzip");

	l = list(plain, false);
	ok(strstr(l, "crw-------") && strstr(l, "dev/console"), "console is a character device");
	ok(strstr(l, "drwxr-xr-x") && strstr(l, " dev\n"), "dev is a directory");
	ok(strstr(l, "-rwxr-xr-x") && strstr(l, " init\n"), "init is executable");
	ok(strstr(l, "root     root") != NULL, "owned by root");
	free(l);
	l = list(gz, true);
	ok(strstr(l, "lorebot/plan") && strstr(l, "lorebot/big"), "gzip archive lists the same");
	free(l);
	x = extract(plain, dir, "lorebot/odd");
	is_str(x, "abc", "an odd-sized member reads back");
	free(x);
	x = extract(plain, dir, "lorebot/big");
	ok(x && !memcmp(x, big, sizeof(big)), "binary contents read back");
	free(x);

	text = guest_init_source(&len);
	ok(len > 1000 && strstr(text, "KTAP version 1") && text[len] == '\0',
	   "the guest init's source is embedded");
	is_int(strlen(guest_init_hash()), 16, "and hashed");

	initramfs_release(&ir);
	strbuf_release(&err);
	util_remove_tree(dir);
	free(plain);
	free(gz);
	free(src);
	return done_testing();
}
