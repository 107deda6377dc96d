// SPDX-License-Identifier: GPL-2.0
/*
 * Quarantined writes (bot/git/gitrepo-import.c): what a sandboxed apply
 * writes stays out of the repository until the trusted side takes it in,
 * and what a hostile writer could leave there is refused: links in the
 * quarantine, a tree entry named .git or with a slash, a link out of the
 * tree, an object of the wrong type, one that is nowhere, too many.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/git/gitrepo.h"
#include "lib/util.h"
#include "tests/unit/tap.h"

#define like(got, want, ...) ok(strstr((got), (want)) != NULL, __VA_ARGS__)

static const struct gitrepo_import_limits lim = { 1000, 1 << 20 };
static const char *main_git;

static void commit(struct gitrepo *r, const char *text, const struct gitoid *parent,
		   struct gitoid *out)
{
	struct strbuf err = STRBUF_INIT;
	struct gitrepo_sig sig = { "A U Thor", "a@example.org", 1700000000, 0 };
	struct gitrepo_update u = { .path = "dir/f", .mode = GITMODE_FILE };
	struct gitoid tree;

	if (gitrepo_blob_write(r, text, strlen(text), &u.id, &err) ||
	    gitrepo_tree_update(r, NULL, &u, 1, &tree, &err) ||
	    gitrepo_commit_create(r, &tree, parent, &sig, &sig, "m\n", out, &err))
		printf("# %s\n", err.buf);
	strbuf_release(&err);
}

/* Any object at all, as a hostile writer makes it (git hash-object --literally) */
static void raw(const char *q, const char *type, const void *data, size_t len,
		struct gitoid *out)
{
	char *cmd = xasprintf("GIT_OBJECT_DIRECTORY='%s' git --git-dir='%s' hash-object "
			      "--literally -w -t %s --stdin >'%s.id'", q, main_git, type, q);
	char *idf = xasprintf("%s.id", q), hex[64] = "";
	FILE *p = popen(cmd, "w"), *f;

	fwrite(data, 1, len, p);
	pclose(p);
	f = fopen(idf, "r");
	if (!f || !fgets(hex, sizeof(hex), f) || (hex[strcspn(hex, "\n")] = 0, gitoid_parse(out, hex)))
		printf("# cannot write a %s into %s\n", type, q);
	if (f)
		fclose(f);
	free(idf);
	free(cmd);
}

/* A tree of one entry (mode, name) and a commit of it on parent */
static void evil_commit(const char *q, const char *mode, const char *name,
			const struct gitoid *entry, const struct gitoid *parent,
			struct gitoid *out)
{
	struct strbuf t = STRBUF_INIT;
	struct gitoid tree;
	char hex[41], phex[41];
	char *c;

	strbuf_addf(&t, "%s %s", mode, name);
	strbuf_add(&t, "", 1);
	strbuf_add(&t, entry->raw, GITOID_RAWSZ);
	raw(q, "tree", t.buf, t.len, &tree);
	gitoid_hex(&tree, hex);
	gitoid_hex(parent, phex);
	c = xasprintf("tree %s\nparent %s\nauthor E <e@x> 1700000000 +0000\n"
		      "committer E <e@x> 1700000000 +0000\n\nevil\n", hex, phex);
	raw(q, "commit", c, strlen(c), out);
	free(c);
	strbuf_release(&t);
}

static int import(struct gitrepo *r, const char *q, const struct gitoid *tip,
		  const struct gitrepo_import_limits *l, size_t *nr, struct strbuf *err)
{
	strbuf_reset(err);
	return gitrepo_import(r, q, tip, l, nr, err);
}

static bool has_commit(const struct gitoid *id)
{
	struct strbuf err = STRBUF_INIT;
	struct gitrepo *r;
	struct gitoid tree;
	bool ok;

	if (gitrepo_open(&r, main_git, false, &err))
		return false;
	ok = !gitrepo_commit_tree(r, id, &tree, &err);
	gitrepo_close(r);
	strbuf_release(&err);
	return ok;
}

int main(void)
{
	char tmpl[] = "/tmp/t-gitimport.XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct gitrepo *r, *w;
	struct gitoid c1, c2, blob, evil;
	struct gitrepo_import_limits tight = { 2, 1 << 20 };
	char *q, *link;
	size_t nr = 0;

	if (!mkdtemp(tmpl))
		return 1;
	main_git = xasprintf("%s/repo.git", tmpl);
	if (gitrepo_open(&r, main_git, true, &err)) {
		printf("# %s\n", err.buf);
		return 1;
	}
	commit(r, "one\n", NULL, &c1);

	/* an honest writer */
	q = xasprintf("%s/q1", tmpl);
	mkdir(q, 0755);
	if (gitrepo_open(&w, main_git, false, &err) || gitrepo_quarantine(w, q, &err))
		printf("# %s\n", err.buf);
	commit(w, "two\n", &c1, &c2);
	gitrepo_close(w);
	ok(!has_commit(&c2), "a quarantined commit is not in the repository");
	ok(has_commit(&c1), "... which it read (its parent)");
	is_int(import(r, q, &c2, &lim, &nr, &err), 0, "taken in");
	is_int((int)nr, 4, "... its commit, two trees and a blob");
	ok(has_commit(&c2), "... and in the repository now");
	is_int(import(r, q, &c2, &lim, &nr, &err), 0, "taken in again");
	is_int((int)nr, 0, "... nothing new");
	is_int(import(r, q, &c2, &tight, &nr, &err), -E2BIG,
	       "a quarantine beyond the budget: refused, new objects or not");
	free(q);

	/* more objects than allowed */
	q = xasprintf("%s/q2", tmpl);
	mkdir(q, 0755);
	gitrepo_open(&w, main_git, false, &err);
	gitrepo_quarantine(w, q, &err);
	commit(w, "three\n", &c1, &c2);
	gitrepo_close(w);
	is_int(import(r, q, &c2, &tight, &nr, &err), -E2BIG, "beyond the budget: refused");
	like(err.buf, "more than 2", "... saying the limit: %s", err.buf);
	ok(!has_commit(&c2), "... nothing of it taken in");

	/* a link in the quarantine lends the writer an object it could not read */
	link = xasprintf("%s/zz", q);
	symlink("/etc", link);
	is_int(import(r, q, &c2, &lim, &nr, &err), -EPERM, "a link in the quarantine: refused");
	like(err.buf, "not a directory of loose objects", "... %s", err.buf);
	unlink(link);
	free(link);
	/* ... or the quarantine itself a link to another repository's objects */
	link = xasprintf("%s/qlink", tmpl);
	symlink(q, link);
	is_int(import(r, link, &c2, &lim, &nr, &err), -EPERM,
	       "a quarantine that is a link: refused");
	like(err.buf, "is not a directory", "... %s", err.buf);
	free(link);
	free(q);

	/* hostile trees */
	q = xasprintf("%s/q3", tmpl);
	mkdir(q, 0755);
	raw(q, "blob", "x\n", 2, &blob);
	evil_commit(q, "100644", ".git", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), -EPERM, "an entry named .git: refused");
	like(err.buf, "bad name '.git'", "... %s", err.buf);
	ok(!has_commit(&evil), "... not taken in");
	evil_commit(q, "100644", ".GiT", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), -EPERM, "... nor .GiT");
	evil_commit(q, "100644", "..", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), -EPERM, "... nor ..");
	evil_commit(q, "100644", "a/b", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), -EPERM, "... nor a/b");
	evil_commit(q, "100645", "odd", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), -EPERM, "a mode git does not make: refused");
	raw(q, "blob", "../x", 4, &blob);
	evil_commit(q, "120000", "up", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), -EPERM, "a link out of the tree: refused");
	like(err.buf, "points outside the tree", "... %s", err.buf);
	raw(q, "blob", "/etc/passwd", 11, &blob);
	evil_commit(q, "120000", "abs", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), -EPERM, "an absolute link: refused");
	raw(q, "blob", "a/../b", 6, &blob);
	evil_commit(q, "120000", "in", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), 0, "a link that stays inside: taken in");
	ok(has_commit(&evil), "... there");
	/* a tree where a blob should be */
	raw(q, "tree", "", 0, &blob);
	evil_commit(q, "100644", "f", &blob, &c1, &evil);
	is_int(import(r, q, &evil, &lim, &nr, &err), -EPERM, "a tree as a file: refused");
	like(err.buf, "is a tree, not a blob", "... %s", err.buf);
	/* the tip a blob */
	raw(q, "blob", "tip\n", 4, &blob);
	is_int(import(r, q, &blob, &lim, &nr, &err), -EPERM, "a tip that is no commit: refused");
	/* an object neither side has */
	memset(blob.raw, 0x42, GITOID_RAWSZ);
	evil_commit(q, "100644", "f", &blob, &c1, &evil);
	ok(import(r, q, &evil, &lim, &nr, &err) < 0, "an object that is nowhere: refused");
	like(err.buf, "in neither", "... %s", err.buf);
	free(q);

	gitrepo_close(r);
	util_remove_tree(tmpl);
	strbuf_release(&err);
	return done_testing();
}
