// SPDX-License-Identifier: GPL-2.0
/*
 * ci/objguard.c: what an untrusted build leaves in obj/ is removed,
 * what a trusted one left is kept.  The attacks are those a series'
 * make can do: a new object, an object rewritten and dated back to its
 * old mtime (same size), a file replaced by a link, a new directory, a
 * name with a line end; and what it must not cost: files it did not
 * touch, directories whose times changed, the skipped names.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/strbuf.h"
#include "lib/util.h"
#include "ci/objguard.h"
#include "tests/unit/tap.h"

static const char *const skip[] = { ".config", NULL };

static char *at(const char *root, const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

static void put(const char *root, const char *rel, const char *text)
{
	char *p = at(root, rel);

	if (util_write_file(p, text, strlen(text)))
		ok(0, "write %s: %s", p, strerror(errno));
	free(p);
}

static bool there(const char *root, const char *rel)
{
	char *p = at(root, rel);
	struct stat st;
	bool r = !lstat(p, &st);

	free(p);
	return r;
}

int main(void)
{
	char tmpl[] = "/tmp/t-objguard.XXXXXX";
	char *root = mkdtemp(tmpl), *obj, *man, *p;
	struct strbuf err = STRBUF_INIT;
	struct timespec times[2];
	unsigned long removed = 99, missing = 99;
	struct stat st;

	if (!root)
		return ok(0, "mkdtemp: %s", strerror(errno)), done_testing();
	obj = at(root, "obj");
	man = at(root, "obj.manifest");
	is_int(objguard_restore(obj, man, skip, &removed, &missing, &err), -ENOENT,
	       "no manifest: -ENOENT, nothing touched");

	/* the base build */
	p = at(obj, "mm");
	util_mkdir_p(p, 0755);
	free(p);
	put(obj, "mm/a.o", "base object a");
	put(obj, "mm/b.o", "base object b");
	put(obj, "vmlinux", "the base image");
	put(obj, ".config", "CONFIG_MM=y\n");
	is_int(objguard_save(obj, man, skip, &err), 0, "saved: %s", err.buf);
	is_int(objguard_restore(obj, man, skip, &removed, &missing, &err), 0, "restore right after");
	is_int((long)removed, 0, "removes nothing");
	is_int((long)missing, 0, "misses nothing: obj/ is as recorded");
	ok(objguard_recorded(man, "mm/a.o"), "the record has mm/a.o");
	ok(!objguard_recorded(man, "mm/a"), "and not a prefix of it");
	ok(!objguard_recorded(man, ".config"), "nor a skipped name");

	/* what a series' make does */
	sleep(1);
	put(obj, "mm/planted.o", "a series' object");			/* new */
	p = at(obj, "mm/b.o");
	stat(p, &st);
	put(obj, "mm/b.o", "base object B");				/* same size */
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	utimensat(AT_FDCWD, p, times, AT_SYMLINK_NOFOLLOW);		/* dated back */
	{
		struct stat now;

		ok(!stat(p, &now) && now.st_ino == st.st_ino && now.st_size == st.st_size &&
		   now.st_mtim.tv_sec == st.st_mtim.tv_sec &&
		   now.st_mtim.tv_nsec == st.st_mtim.tv_nsec,
		   "b.o: same inode, size and mtime as the base's (only ctime tells)");
	}
	free(p);
	p = at(obj, "vmlinux");
	unlink(p);
	if (symlink("/etc/passwd", p))
		ok(0, "symlink: %s", strerror(errno));
	free(p);
	p = at(obj, "new-dir");
	util_mkdir_p(p, 0755);
	free(p);
	put(obj, "new-dir/deep.o", "x");
	put(obj, "mm/line\nend.o", "x");
	put(obj, ".config", "CONFIG_EVIL=y\n");			/* skipped */

	is_int(objguard_restore(obj, man, skip, &removed, &missing, &err), 0, "restore: %s", err.buf);
	is_int((long)removed, 5, "five entries removed (the new directory once)");
	is_int((long)missing, 2, "two recorded entries are not there any more (b.o, vmlinux)");
	ok(!there(obj, "mm/planted.o"), "a new object is removed");
	ok(!there(obj, "mm/b.o"), "an object rewritten and dated back is removed (ctime)");
	ok(!there(obj, "vmlinux"), "a file replaced by a link is removed");
	ok(access("/etc/passwd", R_OK) == 0, "the link's target is still there");
	ok(!there(obj, "new-dir"), "a new directory is removed with what it holds");
	ok(!there(obj, "mm/line\nend.o"), "a name with a line end is removed");
	ok(there(obj, "mm/a.o"), "an object the series did not touch stays");
	ok(there(obj, "mm"), "its directory stays, though its times changed");
	ok(there(obj, ".config"), "a skipped name stays (kbuild.c restores it by content)");

	/* a trusted build's output is recorded again and kept */
	put(obj, "mm/b.o", "base object b");
	put(obj, "mm/tab\tname.o", "a name with a tab");
	is_int(objguard_save(obj, man, skip, &err), 0, "saved after a trusted build");
	is_int(objguard_restore(obj, man, skip, &removed, &missing, &err), 0, "restore");
	is_int((long)removed, 0, "keeps what it wrote");
	is_int((long)missing, 0, "and finds all of it");
	ok(there(obj, "mm/b.o"), "the rebuilt object is there");
	ok(there(obj, "mm/tab\tname.o"), "and a name with a tab, read back whole");

	/*
	 * a skipped name that is not a regular file (issue 38: a link at
	 * .config made every later build on the base "cannot restore", a
	 * FIFO hung it): removed, as anything new is
	 */
	p = at(obj, ".config");
	unlink(p);
	if (symlink("/etc/passwd", p))
		ok(0, "symlink: %s", strerror(errno));
	is_int(objguard_restore(obj, man, skip, &removed, &missing, &err), 0, "restore");
	is_int((long)removed, 1, "a link at a skipped name is removed");
	ok(!there(obj, ".config"), "... .config is gone");
	ok(access("/etc/passwd", R_OK) == 0, "... not its target");
	if (mkfifo(p, 0644))
		ok(0, "mkfifo: %s", strerror(errno));
	is_int(objguard_restore(obj, man, skip, &removed, &missing, &err), 0, "restore");
	is_int((long)removed, 1, "a FIFO at a skipped name is removed");
	ok(!there(obj, ".config"), "... .config is gone");
	put(obj, ".config", "CONFIG_MM=y\n");
	is_int(objguard_restore(obj, man, skip, &removed, &missing, &err), 0, "restore");
	is_int((long)removed, 0, "a regular .config is left to kbuild.c");
	free(p);

	/* a recorded entry that is gone (removed by an earlier clean, or by
	 * the recovery of a stopped step) is missing, though nothing is removed */
	p = at(obj, "mm/a.o");
	unlink(p);
	free(p);
	is_int(objguard_restore(obj, man, skip, &removed, &missing, &err), 0, "restore");
	is_int((long)removed, 0, "nothing to remove");
	is_int((long)missing, 1, "but mm/a.o is missing: obj/ is not as recorded");

	util_remove_tree(root);
	free(obj);
	free(man);
	strbuf_release(&err);
	return done_testing();
}
