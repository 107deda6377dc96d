// SPDX-License-Identifier: GPL-2.0
/* Exporting a tree into a directory (gitrepo_export() of bot/git/gitrepo.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/git/git-int.h"

struct export {
	git_repository *repo;
	struct strbuf path;	/* of the current entry, for messages */
	struct strbuf *err;
	size_t files, linked;
};

static bool export_name_ok(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") &&
		strcasecmp(name, ".git") && !strchr(name, '/');
}

static int export_blob(struct export *x, const git_tree_entry *e, int dfd,
		       const char *name, unsigned int mode)
{
	git_blob *b;
	const char *p;
	size_t left;
	int fd, ret;

	ret = git_blob_lookup(&b, x->repo, git_tree_entry_id(e));
	if (ret)
		return git_fail(ret, x->err, "cannot read '%s'", x->path.buf);
	p = git_blob_rawcontent(b);
	left = git_blob_rawsize(b);
	if (mode == GIT_FILEMODE_LINK) {
		char *target = xstrndup(p, left);

		ret = 0;
		if (strlen(target) != left || symlinkat(target, dfd, name))
			ret = -(errno ? errno : EINVAL);
		free(target);
		git_blob_free(b);
		if (ret)
			strbuf_addf(x->err, "cannot create symlink '%s': %s",
				    x->path.buf, strerror(-ret));
		return ret;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0555 : 0444);
	ret = fd < 0 ? -errno : 0;
	while (!ret && left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = n < 0 ? -errno : -EIO;
		else {
			p += n;
			left -= n;
		}
	}
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	git_blob_free(b);
	if (ret)
		strbuf_addf(x->err, "cannot write '%s': %s", x->path.buf, strerror(-ret));
	x->files++;
	return ret;
}

static int export_tree(struct export *x, const git_tree *t, int dfd,
		       const git_tree *reuse, int rfd)
{
	size_t i, n = git_tree_entrycount(t), base = x->path.len;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const git_tree_entry *re = NULL;
		const char *name = git_tree_entry_name(e);
		unsigned int mode = git_tree_entry_filemode(e);
		bool same;

		strbuf_setlen(&x->path, base);
		if (base)
			strbuf_addch(&x->path, '/');
		strbuf_addstr(&x->path, name);
		if (!export_name_ok(name)) {
			strbuf_addf(x->err, "refusing to export '%s'", x->path.buf);
			ret = -EINVAL;
			break;
		}
		if (reuse)
			re = git_tree_entry_byname(reuse, name);
		same = re && git_tree_entry_filemode(re) == mode &&
			!git_oid_cmp(git_tree_entry_id(re), git_tree_entry_id(e));
		switch (mode) {
		case GIT_FILEMODE_TREE: {
			git_tree *sub = NULL, *rsub = NULL;
			int sfd, rsfd = -1;

			if (mkdirat(dfd, name, 0755)) {
				ret = -errno;
				strbuf_addf(x->err, "cannot create '%s': %s",
					    x->path.buf, strerror(errno));
				break;
			}
			sfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd < 0) {
				ret = -errno;
				strbuf_addf(x->err, "cannot open '%s': %s",
					    x->path.buf, strerror(errno));
				break;
			}
			ret = git_tree_lookup(&sub, x->repo, git_tree_entry_id(e));
			if (ret) {
				ret = git_fail(ret, x->err, "cannot read '%s'", x->path.buf);
				close(sfd);
				break;
			}
			if (re && git_tree_entry_type(re) == GIT_OBJECT_TREE &&
			    !git_tree_lookup(&rsub, x->repo, git_tree_entry_id(re))) {
				rsfd = openat(rfd, name, O_RDONLY | O_DIRECTORY |
					      O_NOFOLLOW | O_CLOEXEC);
				if (rsfd < 0) {
					git_tree_free(rsub);
					rsub = NULL;
				}
			}
			ret = export_tree(x, sub, sfd, rsub, rsfd);
			git_tree_free(sub);
			git_tree_free(rsub);
			if (rsfd >= 0)
				close(rsfd);
			close(sfd);
			break;
		}
		case GIT_FILEMODE_BLOB:
		case GIT_FILEMODE_BLOB_EXECUTABLE:
			if (same && !linkat(rfd, name, dfd, name, 0)) {
				x->linked++;
				break;
			}
			ret = export_blob(x, e, dfd, name, mode);
			break;
		case GIT_FILEMODE_LINK:
			ret = export_blob(x, e, dfd, name, mode);
			break;
		case GIT_FILEMODE_COMMIT:
			if (mkdirat(dfd, name, 0755)) {
				ret = -errno;
				strbuf_addf(x->err, "cannot create '%s': %s",
					    x->path.buf, strerror(errno));
			}
			break;
		default:
			strbuf_addf(x->err, "'%s' has an unknown mode %o", x->path.buf, mode);
			ret = -EINVAL;
		}
	}
	strbuf_setlen(&x->path, base);
	return ret;
}

int gitrepo_export(struct gitrepo *r, const struct gitoid *tree,
		   const char *dir, const char *reuse_dir,
		   const struct gitoid *reuse_tree, struct strbuf *err)
{
	struct export x = { .repo = r->repo, .path = STRBUF_INIT, .err = err };
	git_tree *t = NULL, *rt = NULL;
	int dfd = -1, rfd = -1, ret;

	ret = git_tree_lookup(&t, r->repo, to_git(tree));
	if (ret)
		return git_fail(ret, err, "cannot read the tree to export");
	if (mkdir(dir, 0755)) {
		ret = -errno;
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		strbuf_addf(err, "cannot open '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (reuse_dir && reuse_tree &&
	    !git_tree_lookup(&rt, r->repo, to_git(reuse_tree))) {
		rfd = open(reuse_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rfd < 0) {
			git_tree_free(rt);
			rt = NULL;
		}
	}
	ret = export_tree(&x, t, dfd, rt, rfd);
out:
	if (dfd >= 0)
		close(dfd);
	if (rfd >= 0)
		close(rfd);
	git_tree_free(t);
	git_tree_free(rt);
	strbuf_release(&x.path);
	return ret;
}
