// SPDX-License-Identifier: GPL-2.0
/*
 * Revisions: the one place lorebot turns a name ("mm-new", "origin/mm-new",
 * an abbreviated id, "HEAD~2") into a commit or a tree, for the apply
 * step's repository (gitrepo_resolve_commit()), a developer's repository
 * (gitdev_resolve()), the checkers' trees and the kernel trees of ci/
 * (git_rev_resolve()), with one wording for what does not resolve.
 */
#include <errno.h>
#include <stdlib.h>

#include "bot/git/git-int.h"

/* "name" as refs/remotes/<remote>/<name> when exactly one remote has it */
static int resolve_remote_branch(git_repository *repo, const char *name,
				 git_reference **out)
{
	git_reference_iterator *it;
	git_reference *ref, *found = NULL;
	int valid = 0, n = 0;
	char *glob;

	git_branch_name_is_valid(&valid, name);
	if (!valid || strpbrk(name, "*?[\\"))
		return GIT_ENOTFOUND;
	glob = xasprintf("refs/remotes/*/%s", name);
	if (git_reference_iterator_glob_new(&it, repo, glob)) {
		free(glob);
		return GIT_ENOTFOUND;
	}
	free(glob);
	while (!git_reference_next(&ref, it)) {
		const char *rest = git_reference_name(ref) + strlen("refs/remotes/");
		const char *slash = strchr(rest, '/');

		/* the glob's * may span slashes: insist on one level */
		if (slash && !strcmp(slash + 1, name) && ++n == 1) {
			found = ref;
			continue;
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	if (n != 1) {
		git_reference_free(found);
		return n ? GIT_EAMBIGUOUS : GIT_ENOTFOUND;
	}
	*out = found;
	return 0;
}

static const char *type_name(git_object_t type)
{
	return type == GIT_OBJECT_TREE ? "tree" : "commit";
}

int git_rev_lookup(git_repository *repo, const char *rev, git_object_t type,
		   git_object **out, git_reference **ref, struct strbuf *err)
{
	struct strbuf ignored = STRBUF_INIT;
	git_object *obj = NULL;
	git_reference *r = NULL;
	int ret;

	*out = NULL;
	if (ref)
		*ref = NULL;
	if (!err)
		err = &ignored;
	ret = git_revparse_ext(&obj, &r, repo, rev);
	if (ret == GIT_ENOTFOUND) {
		ret = resolve_remote_branch(repo, rev, &r);
		if (!ret && git_reference_peel(&obj, r, GIT_OBJECT_ANY))
			ret = GIT_ENOTFOUND;
	}
	switch (ret) {
	case 0:
		break;
	case GIT_ENOTFOUND:
	case GIT_EINVALIDSPEC:
		strbuf_addf(err, "'%s' is not a %s", rev, type_name(type));
		ret = -ENOENT;
		goto out;
	case GIT_EAMBIGUOUS:
		strbuf_addf(err, "'%s' is ambiguous", rev);
		ret = -EINVAL;
		goto out;
	default:
		ret = git_fail(ret, err, "cannot resolve '%s'", rev);
		goto out;
	}
	if (git_object_peel(out, obj, type)) {
		/* there, but a blob or a tree where a commit is wanted */
		strbuf_addf(err, "'%s' is not a %s", rev, type_name(type));
		ret = -EINVAL;
		goto out;
	}
	if (ref) {
		*ref = r;
		r = NULL;
	}
out:
	git_object_free(obj);
	git_reference_free(r);
	strbuf_release(&ignored);
	return ret;
}

int git_rev_commit(git_repository *repo, const char *rev, git_commit **out,
		   struct strbuf *err)
{
	return git_rev_lookup(repo, rev, GIT_OBJECT_COMMIT, (git_object **)out,
			      NULL, err);
}

int git_rev_open(const char *repo_dir, const char *rev, git_object_t type,
		 git_repository **repo, git_object **obj, struct strbuf *err)
{
	int ret;

	git_lib_init();
	*repo = NULL;
	*obj = NULL;
	if (git_repository_open_ext(repo, repo_dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL)) {
		if (err)
			git_error_to(err, repo_dir);
		return -EIO;
	}
	ret = git_rev_lookup(*repo, rev, type, obj, NULL, err);
	if (ret) {
		git_repository_free(*repo);
		*repo = NULL;
	}
	/* ambiguous, or of another type: not there either */
	return ret == -EINVAL ? -ENOENT : ret;
}

int git_rev_resolve(const char *repo_dir, const char *rev,
		    char out[41], struct strbuf *err)
{
	git_repository *repo;
	git_object *obj;
	int ret = git_rev_open(repo_dir, rev, GIT_OBJECT_COMMIT, &repo, &obj, err);

	if (ret)
		return ret;
	git_oid_tostr(out, GITOID_HEXSZ + 1, git_object_id(obj));
	git_object_free(obj);
	git_repository_free(repo);
	return 0;
}
