// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/git/checkout.h"

/* chmod every directory under path (not following links) */
static int chmod_dirs(const char *path, mode_t mode)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return 0;
	/* writable first so that a removal can go in; sealed last */
	if ((mode & 0200) && chmod(path, mode))
		return -errno;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		if (!ret)
			ret = chmod_dirs(sub, mode);
		free(sub);
	}
	closedir(d);
	if (!ret && !(mode & 0200) && chmod(path, mode))
		ret = -errno;
	return ret;
}

int checkout_remove(const char *path)
{
	int ret = chmod_dirs(path, 0755);

	if (ret && ret != -ENOENT)
		return ret;
	return util_remove_tree(path);
}

static int tree_of(struct gitrepo *r, const char *rev, struct gitoid *tree,
		   char hex[GITOID_HEXSZ + 1], struct strbuf *err)
{
	struct gitoid commit;
	int ret = gitrepo_resolve_commit(r, rev, &commit, NULL, err);

	if (!ret)
		ret = gitrepo_commit_tree(r, &commit, tree, err);
	if (!ret)
		gitoid_hex(tree, hex);
	return ret;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

/* The newest checkout under root whose tree the repository has */
static char *newest_checkout(struct gitrepo *r, const char *root,
			     struct gitoid *tree)
{
	struct dirent *de;
	char *best = NULL;
	time_t best_time = 0;
	DIR *d = opendir(root);

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		struct gitoid id;
		struct stat st;
		char *path;

		if (gitoid_parse(&id, de->d_name) || gitrepo_find_object(r, de->d_name, NULL))
			continue;
		path = xasprintf("%s/%s", root, de->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode) &&
		    (!best || st.st_mtime > best_time)) {
			free(best);
			best = path;
			best_time = st.st_mtime;
			*tree = id;
			continue;
		}
		free(path);
	}
	closedir(d);
	return best;
}

int checkout_tree(struct gitrepo *r, const char *rev, const char *root,
		  const char *reuse_rev, struct strbuf *path, struct strbuf *err)
{
	char hex[GITOID_HEXSZ + 1], reuse_hex[GITOID_HEXSZ + 1];
	struct gitoid tree, reuse_tree;
	char *final = NULL, *tmp = NULL, *reuse_dir = NULL;
	int ret;

	ret = tree_of(r, rev, &tree, hex, err);
	if (ret)
		return ret;
	final = xasprintf("%s/%s", root, hex);
	if (is_dir(final))
		goto done;
	ret = util_mkdir_p(root, 0755);
	if (ret) {
		strbuf_addf(err, "cannot create '%s': %s", root, strerror(-ret));
		goto out;
	}
	if (reuse_rev) {
		struct strbuf ignore = STRBUF_INIT;

		if (!tree_of(r, reuse_rev, &reuse_tree, reuse_hex, &ignore)) {
			reuse_dir = xasprintf("%s/%s", root, reuse_hex);
			if (!is_dir(reuse_dir)) {
				free(reuse_dir);
				reuse_dir = NULL;
			}
		}
		strbuf_release(&ignore);
	} else {
		reuse_dir = newest_checkout(r, root, &reuse_tree);
	}
	tmp = xasprintf("%s/.tmp-%s-%ld-%ld", root, hex, (long)getpid(),
			(long)time(NULL));
	ret = gitrepo_export(r, &tree, tmp, reuse_dir, reuse_dir ? &reuse_tree : NULL,
			     err);
	if (!ret) {
		ret = chmod_dirs(tmp, 0555);
		if (ret)
			strbuf_addf(err, "cannot seal '%s': %s", tmp, strerror(-ret));
	}
	if (!ret && rename(tmp, final)) {
		ret = -errno;
		if (is_dir(final)) {
			/* someone else finished first: theirs is as good */
			ret = 0;
		} else {
			strbuf_addf(err, "cannot rename '%s' to '%s': %s", tmp, final,
				    strerror(errno));
		}
	}
	if (is_dir(tmp))
		checkout_remove(tmp);
	if (ret)
		goto out;
done:
	strbuf_reset(path);
	strbuf_addstr(path, final);
out:
	free(final);
	free(tmp);
	free(reuse_dir);
	return ret;
}
