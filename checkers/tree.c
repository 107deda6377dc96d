// SPDX-License-Identifier: GPL-2.0
/*
 * The checkers' tree in a git repository.  Patches are applied by the
 * apply engine (bot/apply/apply.h: the same placement as 'lorebot apply')
 * into a scratch repository that borrows the repository's objects
 * (alternates), so nothing is ever written to the repository checked.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/apply/apply.h"
#include "bot/git/git.h"
#include "lib/log.h"
#include "lib/run.h"
#include "checkers/tree.h"

#define GIT_TIMEOUT_MS (120 * 1000)

static int tree_read(struct check_tree *ct, const char *rev, const char *path,
		     struct strbuf *out)
{
	struct git_tree *t = ct->data;

	/* the scratch repository sees the repository's objects and its own */
	return git_read_file_at(t->scratch_git ? t->scratch_git : t->repo, rev,
				path, out);
}

static int tree_walk(struct check_tree *ct, const char *rev, struct git_walk *w)
{
	struct git_tree *t = ct->data;

	return git_walk_dir(t->scratch_git ? t->scratch_git : t->repo, rev, w);
}

static int tree_commit(struct check_tree *ct, const char *id, struct strbuf *out)
{
	struct git_tree *t = ct->data;

	return git_commit_subject(t->repo, id, out);
}

/* Run git; its output in out (trimmed), stderr in err when it failed */
static int run_git(const char *const *argv, const char *const *env,
		   const char *in, size_t in_len, struct strbuf *out,
		   struct strbuf *err)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	int ret;

	cmd.argv = argv;
	cmd.env = env;
	cmd.in = in;
	cmd.in_len = in_len;
	cmd.limits.timeout_ms = GIT_TIMEOUT_MS;
	ret = run_cmd(&cmd);
	if (ret < 0) {
		strbuf_addf(err, "cannot run git: %s", strerror(-ret));
	} else if (cmd.status || cmd.timed_out) {
		strbuf_trim(&cmd.err);
		strbuf_addstr(err, cmd.err.len ? cmd.err.buf : "git failed");
		ret = -1;
	} else if (out) {
		strbuf_addbuf(out, &cmd.out);
		strbuf_trim(out);
	}
	run_cmd_release(&cmd);
	return ret;
}

int tree_open(struct git_tree *t, const char *repo, struct strbuf *err)
{
	const char *argv[] = { "git", "-C", repo, "rev-parse", "--path-format=absolute",
			       "--git-dir", NULL };
	struct strbuf out = STRBUF_INIT;

	memset(t, 0, sizeof(*t));
	if (run_git(argv, NULL, NULL, 0, &out, err)) {
		strbuf_release(&out);
		return -1;
	}
	t->repo = xstrdup(repo);
	t->gitdir = strbuf_detach(&out, NULL);
	t->base.name = t->repo;
	t->base.read = tree_read;
	t->base.commit = tree_commit;
	t->base.walk = tree_walk;
	t->base.checkpatch_gitdir = t->gitdir;
	t->base.data = t;
	return 0;
}

void tree_release(struct git_tree *t)
{
	if (t->scratch)
		util_remove_tree(t->scratch);
	free(t->repo);
	free(t->gitdir);
	free(t->scratch);
	free(t->scratch_git);
	memset(t, 0, sizeof(*t));
}

/* rev as a full commit id (caller frees), or NULL */
static char *resolve(struct git_tree *t, const char *rev)
{
	char id[41];

	return git_rev_resolve(t->gitdir, rev, id, NULL) ? NULL : xstrdup(id);
}

static int make_scratch(struct git_tree *t, struct strbuf *err)
{
	char tmpl[] = "/tmp/lorebot-check.XXXXXX";
	struct strbuf alt = STRBUF_INIT, path = STRBUF_INIT;
	const char *argv[] = { "git", "init", "-q", "--bare", NULL, NULL };
	int ret;

	if (!mkdtemp(tmpl)) {
		strbuf_addf(err, "cannot create a scratch directory: %s", strerror(errno));
		return -1;
	}
	t->scratch = xstrdup(tmpl);
	t->scratch_git = xasprintf("%s/scratch.git", tmpl);
	argv[4] = t->scratch_git;
	if (run_git(argv, NULL, NULL, 0, NULL, err))
		return -1;
	strbuf_addf(&alt, "%s/objects\n", t->gitdir);
	strbuf_addf(&path, "%s/objects/info/alternates", t->scratch_git);
	ret = util_write_file(path.buf, alt.buf, alt.len);
	if (ret)
		strbuf_addf(err, "cannot write '%s': %s", path.buf, strerror(-ret));
	strbuf_release(&alt);
	strbuf_release(&path);
	return ret ? -1 : 0;
}

int tree_apply(struct git_tree *t, struct check_series *s,
	       const char *const *bases, size_t nr_bases, struct strbuf *err)
{
	struct apply_opts o = APPLY_OPTS_INIT;
	struct gitrepo *r = NULL;
	struct gitoid commit, tree;
	char hex[GITOID_HEXSZ + 1];
	char *base = NULL;
	size_t i;
	int failed = 0, ret = -1;

	if (s->base_commit)
		base = resolve(t, s->base_commit);
	for (i = 0; !base && i < nr_bases; i++)
		base = resolve(t, bases[i]);
	if (!base) {
		strbuf_addf(err, "no base to apply to in '%s' (base-commit %s, %s)",
			    t->repo, s->base_commit ? s->base_commit : "none",
			    nr_bases ? bases[0] : "HEAD");
		return -1;
	}
	s->base_rev = base;
	/* the configured branches, never what a mail names */
	for (i = 0; !s->trusted_rev && i < nr_bases; i++)
		s->trusted_rev = resolve(t, bases[i]);
	if (!s->trusted_rev && !nr_bases)
		s->trusted_rev = resolve(t, "HEAD");
	if (!t->scratch && make_scratch(t, err))
		return -1;
	if (gitrepo_open(&r, t->scratch_git, false, err))
		goto out;
	if (gitoid_parse(&commit, base)) {
		strbuf_addf(err, "bad base '%s'", base);
		goto out;
	}
	if (gitrepo_commit_tree(r, &commit, &tree, err))
		goto out;
	o.no_alone = true;
	gitoid_hex(&tree, hex);
	for (i = 0; i < s->nr; i++) {
		struct check_patch *p = s->patches[i];
		struct apply_input in = { .subject = p->subject, .p = &p->p };
		struct apply_patch pr;
		struct strbuf e = STRBUF_INIT;
		struct gitoid post;
		int rc;

		if (failed) {
			p->apply_error = xasprintf("not applied: patch %d did not apply",
						   failed);
			continue;
		}
		p->pre_rev = xstrdup(hex);
		if (!p->p.diff) {
			p->post_rev = xstrdup(hex);
			continue;
		}
		memset(&pr, 0, sizeof(pr));
		rc = apply_patch_tree(r, &o, &tree, &in, &pr, &post, &e);
		if (rc) {
			p->apply_error = xasprintf("does not apply to %.12s: %s", base,
						   rc < 0 ? e.buf : pr.message ? pr.message :
						   "a hunk does not fit");
			log_info("patch %d does not apply: %s", p->n, p->apply_error);
			free(p->pre_rev);
			p->pre_rev = NULL;
			failed = p->n;
		} else {
			tree = post;
			gitoid_hex(&tree, hex);
			p->post_rev = xstrdup(hex);
		}
		apply_patch_release(&pr);
		strbuf_release(&e);
	}
	ret = 0;
out:
	gitrepo_close(r);
	return ret;
}
