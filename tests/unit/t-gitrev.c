// SPDX-License-Identifier: GPL-2.0
/*
 * The one revision resolver (bot/git/git-rev.c) through its three entry
 * points: git_rev_resolve() on a path, gitrepo_resolve_commit() and
 * gitdev_resolve() on an open repository; names, ids, the remote-branch
 * fallback, and the one wording of what does not resolve.
 */
#include <errno.h>
#include <stdlib.h>

#include "bot/git/git.h"
#include "bot/git/gitdev.h"
#include "bot/git/gitrepo.h"
#include "lib/util.h"
#include "tests/unit/tap.h"

static void commit(struct gitrepo *r, const char *text, const struct gitoid *parent,
		   struct gitoid *out)
{
	struct strbuf err = STRBUF_INIT;
	struct gitrepo_sig sig = { "A U Thor", "a@example.org", 1700000000, 0 };
	struct gitrepo_update u = { .path = "f", .mode = GITMODE_FILE };
	struct gitoid tree;

	if (gitrepo_blob_write(r, text, strlen(text), &u.id, &err) ||
	    gitrepo_tree_update(r, NULL, &u, 1, &tree, &err) ||
	    gitrepo_commit_create(r, &tree, parent, &sig, &sig, "m\n", out, &err))
		printf("# %s\n", err.buf);
	strbuf_release(&err);
}

static void set(struct gitrepo *r, const char *ref, const struct gitoid *id)
{
	struct strbuf err = STRBUF_INIT;

	if (gitrepo_ref_set(r, ref, id, "test", &err))
		printf("# %s\n", err.buf);
	strbuf_release(&err);
}

int main(void)
{
	char tmpl[] = "/tmp/t-gitrev.XXXXXX", *dir, *name;
	char hex1[41], hex2[41], out[41], treehex[41];
	struct strbuf err = STRBUF_INIT;
	struct gitdev_repo dev;
	struct gitrepo *r;
	struct gitoid c1, c2, got, tree;
	int ret;

	if (!mkdtemp(tmpl))
		return 1;
	dir = xasprintf("%s/repo.git", tmpl);
	if (gitrepo_open(&r, dir, true, &err)) {
		printf("# %s\n", err.buf);
		return 1;
	}
	commit(r, "one\n", NULL, &c1);
	commit(r, "two\n", &c1, &c2);
	gitoid_hex(&c1, hex1);
	gitoid_hex(&c2, hex2);
	set(r, "refs/heads/main", &c2);
	set(r, "HEAD", &c2);
	set(r, "refs/remotes/origin/mm-new", &c1);
	set(r, "refs/remotes/origin/both", &c1);
	set(r, "refs/remotes/other/both", &c2);

	is_int(git_rev_resolve(dir, "main", out, &err), 0, "a branch");
	is_str(out, hex2, "... its commit");
	is_int(git_rev_resolve(dir, "main~1", out, &err), 0, "rev-parse syntax");
	is_str(out, hex1, "... the parent");
	hex1[10] = '\0';
	is_int(git_rev_resolve(dir, hex1, out, &err), 0, "an abbreviated id");
	gitoid_hex(&c1, hex1);
	is_str(out, hex1, "... in full");
	is_int(git_rev_resolve(dir, "mm-new", out, &err), 0,
	       "a name only one remote has");
	is_str(out, hex1, "... that remote's branch");
	is_int(git_rev_resolve(dir, "origin/mm-new", out, &err), 0,
	       "a remote-tracking branch");
	is_str(err.buf, "", "no message when it resolves");

	ret = git_rev_resolve(dir, "nosuch", out, &err);
	is_int(ret, -ENOENT, "an unknown name: -ENOENT");
	is_str(err.buf, "'nosuch' is not a commit", "... in the one wording");
	strbuf_reset(&err);
	ret = git_rev_resolve(dir, "both", out, &err);
	is_int(ret, -ENOENT, "a name two remotes have: not resolved");
	is_str(err.buf, "'both' is ambiguous", "... said so");
	strbuf_reset(&err);
	gitrepo_commit_tree(r, &c1, &tree, &err);
	gitoid_hex(&tree, treehex);
	name = xasprintf("'%s' is not a commit", treehex);
	ret = git_rev_resolve(dir, treehex, out, &err);
	is_int(ret, -ENOENT, "a tree id: not a commit");
	is_str(err.buf, name, "... in the same wording");
	free(name);
	strbuf_reset(&err);

	/* the same resolver on an open repository */
	ret = gitrepo_resolve_commit(r, "mm-new", &got, &name, &err);
	is_int(ret, 0, "gitrepo: the remote fallback");
	ok(gitoid_eq(&got, &c1), "gitrepo: its commit");
	is_str(name, "refs/remotes/origin/mm-new", "gitrepo: the ref named");
	free(name);
	ret = gitrepo_resolve_commit(r, "nosuch", &got, NULL, &err);
	is_int(ret, -ENOENT, "gitrepo: an unknown name");
	is_str(err.buf, "'nosuch' is not a commit", "gitrepo: the one wording");
	strbuf_reset(&err);

	ok(!gitdev_open(&dev, dir, &err), "gitdev: opened");
	is_int(gitdev_resolve(&dev, "main", out, &err), 0, "gitdev: a branch");
	is_str(out, hex2, "gitdev: its commit");
	is_int(gitdev_resolve(&dev, "nosuch", out, &err), -ENOENT,
	       "gitdev: an unknown name");
	is_str(err.buf, "'nosuch' is not a commit", "gitdev: the one wording");
	gitdev_release(&dev);

	gitrepo_close(r);
	util_remove_tree(tmpl);
	free(dir);
	strbuf_release(&err);
	return done_testing();
}
