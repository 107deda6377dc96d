// SPDX-License-Identifier: GPL-2.0
/*
 * What the rules need from the tree: hunks moved to where apply put them
 * (relocate.c) and the call index (callindex.c), on a tree in memory.
 */
#include <stdlib.h>
#include <unistd.h>

#include "bot/git/git.h"
#include "checkers/callers.h"
#include "tests/unit/tap.h"

static const char patch[] =
	"diff --git a/mm/x.c b/mm/x.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/mm/x.c\n"
	"+++ b/mm/x.c\n"
	"@@ -2,3 +2,4 @@\n"
	" int a;\n"
	"+int new_one;\n"
	" int b;\n"
	" int c;\n"
	"@@ -10,2 +11,3 @@\n"
	" int y;\n"
	"+int new_two;\n"
	" int z;\n";

static void test_relocate(void)
{
	/* the post-image the hunks went into: 5 more lines above them */
	static const char post[] =
		"l1\nl2\nl3\nl4\nl5\nl6\nint a;\nint new_one;\nint b;\nint c;\n"
		"m1\nm2\nm3\nm4\nm5\nint y;\nint new_two;\nint z;\n";
	struct diff d = DIFF_INIT;
	struct strbuf err = STRBUF_INIT;

	if (!ok(!diff_parse(patch, sizeof(patch) - 1, &d, &err), "the diff parses"))
		return;
	is_int(relocate_diff_file(&d.files[0], post, sizeof(post) - 1), 2,
	       "both hunks moved");
	is_int(d.files[0].hunks[0].lines[1].new_no, 8, "the first added line is line 8");
	is_int(d.files[0].hunks[1].lines[1].new_no, 17, "the second is line 17");
	/* in place already: nothing moves */
	is_int(relocate_diff_file(&d.files[0], post, sizeof(post) - 1), 0,
	       "relocated again: nothing moves");
	/* not there at all: the numbers stay */
	is_int(relocate_diff_file(&d.files[0], "x\ny\n", 4), 0, "not found: kept");
	is_int(d.files[0].hunks[0].lines[1].new_no, 8, "and the numbers are unchanged");
	diff_release(&d);
	strbuf_release(&err);
}

struct mem_file {
	const char *path, *text;
};

static const struct mem_file tree_files[] = {
	{ "mm/a.c", "static int helper(int x)\n{\n\treturn x;\n}\n"
		    "int user_one(void)\n{\n\treturn helper(1) + other();\n}\n" },
	{ "mm/b.c", "int user_two(void)\n{\n\tif (helper(2))\n\t\treturn 1;\n"
		    "\treturn help(3);\n}\n" },
	{ "include/linux/mm_thing.h", "static inline int help(int y)\n{\n\treturn y;\n}\n" },
	{ "include/linux/unrelated.h", "static inline int helper(int y)\n{\n\treturn y;\n}\n" },
};

static int walks, reads;
static const char *tree_name = "one";

static int mem_walk(struct check_tree *t, const char *rev, struct git_walk *w)
{
	size_t i, n = strlen(w->dir);

	walks++;
	snprintf(w->tree_id, sizeof(w->tree_id), "%s-%s", w->dir, tree_name);
	for (i = 0; w->file && i < ARRAY_SIZE(tree_files); i++) {
		const struct mem_file *f = &tree_files[i];
		char id[41];

		snprintf(id, sizeof(id), "blob%zu", i);
		if (strncmp(f->path, w->dir, n) || f->path[n] != '/' ||
		    !w->want(f->path, id, w->data))
			continue;
		reads++;
		w->file(f->path, f->text, strlen(f->text), w->data);
	}
	return 0;
}

static void collect(const char *path, void *data)
{
	struct strbuf *sb = data;

	strbuf_addf(sb, "%s ", path);
}

static void test_callindex(void)
{
	struct check_tree t = { .name = "mem", .walk = mem_walk };
	char dir[] = "/tmp/lorebot-t-callers.XXXXXX";
	struct strbuf sb = STRBUF_INIT;
	struct callindex *ci;

	if (!ok(mkdtemp(dir) != NULL, "a cache directory"))
		return;
	ci = callindex_open(&t, "HEAD", dir);
	if (!ok(ci != NULL, "the index of mm/ and the mm headers is built"))
		return;
	callindex_files(ci, "helper", 6, 'c', collect, &sb);
	is_str(sb.buf, "mm/a.c mm/b.c ", "helper() is called in mm/a.c and mm/b.c");
	strbuf_reset(&sb);
	callindex_files(ci, "helper", 6, 'd', collect, &sb);
	is_str(sb.buf, "mm/a.c ", "and defined in mm/a.c (not the unrelated header)");
	strbuf_reset(&sb);
	callindex_files(ci, "help", 4, 'd', collect, &sb);
	is_str(sb.buf, "include/linux/mm_thing.h ",
	       "help(), a prefix of helper, is its own name: defined in the mm header");
	strbuf_reset(&sb);
	callindex_files(ci, "nothing", 7, 'c', collect, &sb);
	is_str(sb.buf, "", "an unknown name has no callers");
	callindex_free(ci);

	/* the second open reads the cache: the tree is only asked for its ids */
	walks = 0;
	ci = callindex_open(&t, "HEAD", dir);
	is_int(walks, 2, "from the cache: two walks for the tree ids, none for files");
	strbuf_reset(&sb);
	if (ci)
		callindex_files(ci, "helper", 6, 'c', collect, &sb);
	is_str(sb.buf, "mm/a.c mm/b.c ", "the cached index answers the same");
	callindex_free(ci);

	/* another tree with the same files: their blobs are not read again */
	tree_name = "two";
	reads = 0;
	ci = callindex_open(&t, "HEAD", dir);
	is_int(reads, 0, "another tree of the same blobs: nothing is parsed again");
	strbuf_reset(&sb);
	if (ci)
		callindex_files(ci, "helper", 6, 'c', collect, &sb);
	is_str(sb.buf, "mm/a.c mm/b.c ", "and the index from the blob cache is the same");
	callindex_free(ci);
	util_remove_tree(dir);
	strbuf_release(&sb);
}

int main(void)
{
	test_relocate();
	test_callindex();
	return done_testing();
}
