// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/run.h"
#include "bot/git/git.h"
#include "ci/srctree.h"

#define GIT_TIMEOUT_MS (10 * 60 * 1000)
#define GIT_MAX_OUTPUT (256 << 20)

/*
 * Run git with argv (after "git"); stdout in out.  The repository may
 * belong to another user than the one lorebot runs as.
 */
static int git(const char *git_dir, const char *const *args,
	       const char *const *env, struct strbuf *out, struct strbuf *err)
{
	const char *argv[24], *sub = args[0];
	struct run_cmd cmd = RUN_CMD_INIT;
	size_t n = 0;
	int ret = 0;

	argv[n++] = "git";
	argv[n++] = "-c";
	argv[n++] = "safe.directory=*";
	argv[n++] = "-c";
	argv[n++] = "core.quotePath=false";
	if (git_dir) {
		argv[n++] = "--git-dir";
		argv[n++] = git_dir;
	}
	while (*args && n < ARRAY_SIZE(argv) - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	cmd.argv = argv;
	cmd.env = env;
	cmd.limits.timeout_ms = GIT_TIMEOUT_MS;
	cmd.limits.max_output = GIT_MAX_OUTPUT;
	if (run_cmd(&cmd) < 0) {
		strbuf_addstr(err, "cannot run git");
		ret = -1;
	} else if (cmd.status || cmd.timed_out) {
		strbuf_trim(&cmd.err);
		strbuf_addf(err, "git %s: ", sub);
		if (cmd.err.len)
			strbuf_addbuf(err, &cmd.err);
		else
			run_describe(&cmd, err);
		ret = -1;
	} else if (out) {
		strbuf_addbuf(out, &cmd.out);
	}
	run_cmd_release(&cmd);
	return ret;
}

int srctree_git_dir(const char *repo, struct strbuf *git_dir,
		    struct strbuf *err)
{
	const char *args[] = { "-C", repo, "rev-parse", "--absolute-git-dir", NULL };
	struct strbuf e = STRBUF_INIT;

	if (git(NULL, args, NULL, git_dir, &e)) {
		strbuf_addf(err, "'%s' is not a git repository", repo);
		strbuf_release(&e);
		return -1;
	}
	strbuf_release(&e);
	strbuf_trim(git_dir);
	return 0;
}

static int one_oid(struct strbuf *out, char oid[OID_HEX])
{
	strbuf_trim(out);
	if (out->len != OID_HEX - 1)
		return -1;
	memcpy(oid, out->buf, OID_HEX);
	return 0;
}

int srctree_merge_base(const char *git_dir, const char *a, const char *b,
		       char out[OID_HEX], struct strbuf *err)
{
	const char *args[] = { "merge-base", a, b, NULL };
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
	int ret = 0;

	if (git(git_dir, args, NULL, &o, &e) || one_oid(&o, out)) {
		strbuf_addf(err, "'%s' and '%s' have no common ancestor", a, b);
		ret = -1;
	}
	strbuf_release(&o);
	strbuf_release(&e);
	return ret;
}

bool srctree_is_ancestor(const char *git_dir, const char *a, const char *b)
{
	char id[OID_HEX];
	const char *args[] = { "merge-base", "--is-ancestor", a, id, NULL };
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
	int ret;

	if (git_rev_resolve(git_dir, b, id, NULL))
		return false;
	ret = git(git_dir, args, NULL, &o, &e);
	strbuf_release(&o);
	strbuf_release(&e);
	return !ret;
}

int srctree_rev_parse(const char *git_dir, const char *const *revs,
		      struct strbuf *out, struct strbuf *err)
{
	const char *args[20] = { "rev-parse" };
	size_t n = 1;

	while (*revs && n < ARRAY_SIZE(args) - 1)
		args[n++] = *revs++;
	args[n] = NULL;
	return git(git_dir, args, NULL, out, err);
}

void srctree_commits_release(struct srctree_commits *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->v[i].subject);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int srctree_series(const char *git_dir, const char *base, const char *tip,
		   struct srctree_commits *out, struct strbuf *err)
{
	char *range = xasprintf("%s..%s", base, tip);
	const char *args[] = { "log", "--reverse", "--topo-order",
			       "--format=%H %P%x09%s", range, NULL };
	struct strbuf o = STRBUF_INIT;
	const char *p, *end;
	int ret = 0;

	if (git(git_dir, args, NULL, &o, err)) {
		ret = -1;
		goto out;
	}
	for (p = o.buf, end = o.buf + o.len; p < end;) {
		const char *nl = memchr(p, '\n', end - p);
		const char *tab, *parents;
		struct srctree_commit *c;

		if (!nl)
			nl = end;
		tab = memchr(p, '\t', nl - p);
		if (!tab || tab - p < OID_HEX - 1) {
			strbuf_addf(err, "cannot read the commits of '%s'", range);
			ret = -1;
			goto out;
		}
		parents = p + OID_HEX;
		if (memchr(parents, ' ', tab - parents)) {
			strbuf_addf(err, "'%s' contains the merge %.12s: a series "
				    "is a line of patches", range, p);
			ret = -1;
			goto out;
		}
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		c = &out->v[out->nr++];
		memcpy(c->id, p, OID_HEX - 1);
		c->id[OID_HEX - 1] = '\0';
		c->subject = xstrndup(tab + 1, nl - tab - 1);
		p = nl + 1;
	}
out:
	if (ret)
		srctree_commits_release(out);
	free(range);
	strbuf_release(&o);
	return ret;
}

int srctree_changed(const char *git_dir, const char *a, const char *b,
		    struct strbuf *paths, struct strbuf *err)
{
	const char *args[] = { "diff", "--no-renames", "--name-only", a, b,
			       "--", NULL };

	return git(git_dir, args, NULL, paths, err);
}

int srctree_diff(const char *git_dir, const char *a, const char *b,
		 struct strbuf *diff, struct strbuf *err)
{
	const char *args[] = { "diff", "-U0", "-M", "--no-color",
			       "--no-ext-diff", a, b, "--", NULL };

	return git(git_dir, args, NULL, diff, err);
}

int srctree_show(const char *git_dir, const char *commit, const char *path,
		 struct strbuf *out, struct strbuf *err)
{
	char *spec = xasprintf("%s:%s", commit, path);
	const char *args[] = { "cat-file", "blob", spec, NULL };
	int ret = git(git_dir, args, NULL, out, err);

	free(spec);
	return ret;
}

int srctree_checkout(const char *git_dir, const char *dir, const char *index,
		     const char *commit, struct strbuf *err)
{
	const char *args[] = { "read-tree", "--reset", "-u", commit, NULL };
	char *e_tree = xasprintf("GIT_WORK_TREE=%s", dir);
	char *e_index = xasprintf("GIT_INDEX_FILE=%s", index);
	/*
	 * The repository may be a developer's: its sparse-checkout and
	 * line-ending settings are for its own work tree, not for ours.
	 */
	/*
	 * A tree copied into another build directory with its index (the
	 * base of a repaired configuration, ci/kbuild-seed.c) keeps mtimes
	 * and sizes, not inodes and ctimes: those two say whether git, the
	 * only writer of the tree, wrote a file.  Else every file would be
	 * written again, and make would rebuild every object.
	 */
	const char *env[] = {
		e_tree, e_index, "GIT_CONFIG_COUNT=5",
		"GIT_CONFIG_KEY_0=core.sparseCheckout", "GIT_CONFIG_VALUE_0=false",
		"GIT_CONFIG_KEY_1=core.autocrlf", "GIT_CONFIG_VALUE_1=false",
		"GIT_CONFIG_KEY_2=core.sparseCheckoutCone", "GIT_CONFIG_VALUE_2=false",
		"GIT_CONFIG_KEY_3=core.trustctime", "GIT_CONFIG_VALUE_3=false",
		"GIT_CONFIG_KEY_4=core.checkStat", "GIT_CONFIG_VALUE_4=minimal",
		NULL,
	};
	struct stat st;
	int ret;

	/* without its index, the tree's content is unknown: start over */
	if (stat(index, &st) && !stat(dir, &st) && util_remove_tree(dir)) {
		strbuf_addf(err, "cannot remove '%s'", dir);
		ret = -1;
		goto out;
	}
	if (util_mkdir_p(dir, 0755)) {
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(errno));
		ret = -1;
		goto out;
	}
	ret = git(git_dir, args, env, NULL, err);
out:
	free(e_tree);
	free(e_index);
	return ret;
}
