// SPDX-License-Identifier: GPL-2.0
/*
 * The units of a build directory by their .cmd files (ci/kbuild-cmd.h),
 * and the headers those units read (ci/readers.h), on a fake O= build:
 * nested directories, a top-level unit, files that are not a unit's
 * .cmd, obj/source linking to the sources, and dependencies written by
 * the absolute src/ and, as ccache's base_dir makes them, relative to
 * obj/.
 */
#include <unistd.h>

#include "lib/util.h"
#include "ci/kbuild-cmd.h"
#include "ci/readers.h"
#include "tests/unit/tap.h"

static char *root;

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *dir = xstrdup(p);

	*strrchr(dir, '/') = '\0';
	util_mkdir_p(dir, 0755);
	util_write_file(p, text, strlen(text));
	free(dir);
	free(p);
}

static void paths(void)
{
	char *s = kbuild_cmd_file("/o", "mm/damon/core.o");

	is_str(s, "/o/mm/damon/.core.o.cmd", "a nested unit's .cmd");
	free(s);
	s = kbuild_cmd_file("/o", "vmlinux.o");
	is_str(s, "/o/.vmlinux.o.cmd", "a top-level unit's .cmd");
	free(s);
	s = kbuild_c_unit("mm/rmap.c");
	is_str(s, "mm/rmap.o", "the unit of a .c file");
	free(s);
	ok(!kbuild_c_unit("mm/internal.h") && !kbuild_c_unit(".c") && !kbuild_c_unit(""),
	   "a header, a bare suffix, nothing: no unit");
}

static void units(void)
{
	char *obj = xasprintf("%s/obj", root), *src = xasprintf("%s/src", root);
	char *link = xasprintf("%s/source", obj);
	char **v;
	size_t nr;
	struct readers_headers h = READERS_HEADERS_INIT;

	put("src/mm/.inside-src.o.cmd", "deps_x := x\n");
	put("src/include/linux/mm.h", "");
	put("obj/mm/.rmap.o.cmd", "savedcmd_mm/rmap.o := gcc\ndeps_mm/rmap.o := \\\n"
	    "  ../src/mm/rmap.c \\\n  ../src/include/linux/mm.h \\\n"
	    "  ../src/mm/internal.h \\\n");
	put("obj/mm/damon/.core.o.cmd", "deps_mm/damon/core.o := \\\n"
	    "  SRC/include/linux/damon.h \\\n  /usr/lib/gcc/include/stddef.h \\\n");
	put("obj/.vmlinux.o.cmd", "savedcmd_vmlinux.o := ld\n");
	put("obj/mm/.rmap.o.d", "not a .cmd\n");
	put("obj/mm/.built-in.a.cmd", "an archive, not a unit\n");
	put("obj/mm/rmap.o", "");
	ok(!symlink(src, link), "obj/source links to the sources");

	nr = kbuild_list_units(obj, &v);
	is_int(nr, 3, "three units: the .cmd files of objects, not through obj/source");
	ok(nr == 3 && !strcmp(v[0], "mm/damon/core.o") && !strcmp(v[1], "mm/rmap.o") &&
	   !strcmp(v[2], "vmlinux.o"), "sorted, relative to obj/");
	kbuild_units_free(v, nr);
	nr = kbuild_list_units("/nonexistent/obj", &v);
	ok(nr == 0 && !v, "no build directory: no unit");

	/* the absolute form: SRC stands for the sources' path */
	{
		char *rel = xasprintf("obj/mm/damon/.core.o.cmd");
		char *text = xasprintf("deps_mm/damon/core.o := \\\n  %s/include/linux/damon.h \\\n"
				       "  x%s/include/linux/notours.h \\\n", src, src);

		put(rel, text);
		free(rel);
		free(text);
	}
	readers_headers_scan(&h, obj, src);
	ok(readers_headers_has(&h, "include/linux/mm.h") &&
	   readers_headers_has(&h, "mm/internal.h"), "headers by ../src/ (ccache's base_dir)");
	ok(readers_headers_has(&h, "include/linux/damon.h"), "a header by the absolute src/");
	ok(!readers_headers_has(&h, "mm/rmap.c") &&
	   !readers_headers_has(&h, "include/linux/notours.h"),
	   "not a .c file, not a path that merely ends like src/");
	readers_headers_release(&h);
	free(link);
	free(obj);
	free(src);
}

int main(void)
{
	char tmpl[] = "/tmp/lorebot-t-kbuild-cmd.XXXXXX";

	root = mkdtemp(tmpl);
	if (!root) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	root = xstrdup(root);
	paths();
	units();
	util_remove_tree(root);
	free(root);
	return done_testing();
}
