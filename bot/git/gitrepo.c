// SPDX-License-Identifier: GPL-2.0
/*
 * Repository operations (bot/git/gitrepo.h): everything the apply step does
 * with the object database, refs and remotes.  Exporting a tree is in
 * gitrepo-export.c, binary patches and merges in gitrepo-apply.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bot/git/git-int.h"
#include "lib/log.h"

/* when this process first opened a repository: its locks come after */
static struct timespec started;

int gitrepo_open(struct gitrepo **out, const char *path, bool create,
		 struct strbuf *err)
{
	git_repository *repo;
	int ret;

	git_lib_init();
	if (!started.tv_sec)
		clock_gettime(CLOCK_REALTIME, &started);
	*out = NULL;
	ret = git_repository_open_ext(&repo, path,
				      GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (ret == GIT_ENOTFOUND && create) {
		ret = util_mkdir_p(path, 0755);
		if (ret) {
			strbuf_addf(err, "cannot create '%s': %s", path, strerror(-ret));
			return ret;
		}
		ret = git_repository_init(&repo, path, 1);
		if (ret)
			return git_fail(ret, err, "cannot create a repository in '%s'", path);
	} else if (ret) {
		return git_fail(ret, err, "cannot open repository '%s'", path);
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->repo = repo;
	(*out)->path = xstrdup(path);
	return 0;
}

void gitrepo_close(struct gitrepo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r->path);
	free(r);
}

const char *gitrepo_path(const struct gitrepo *r)
{
	return r->path;
}

const char *gitrepo_gitdir(const struct gitrepo *r)
{
	return git_repository_path(r->repo);
}

/* Fetch the refspecs from url, as remote name (no tags, no FETCH_HEAD) */
static int fetch_specs(struct gitrepo *r, const char *name, const char *url,
		       git_strarray *specs, struct strbuf *err)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	git_remote_create_options ro;
	git_fetch_options fo;
	git_remote *remote = NULL;
	int ret;

	/*
	 * Not git_remote_create_anonymous(): its url.insteadOf lookup leaks
	 * pcre2 match data in libgit2 1.5 (fixed upstream in #6382), about
	 * 160 KB per fetch, which a daemon fetching every few minutes feels.
	 */
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = r->repo;
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
		GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	ret = git_remote_create_with_opts(&remote, url, &ro);
	if (ret)
		return git_fail(ret, err, "remote '%s'", name);
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	/*
	 * A server that refuses a want (git daemon: "not our ref") closes
	 * the connection while libgit2 still writes: EPIPE, not SIGPIPE,
	 * as curl does around its transfers.
	 */
	sigaction(SIGPIPE, &ign, &old);
	ret = git_remote_fetch(remote, specs, &fo, "lorebot: fetch");
	sigaction(SIGPIPE, &old, NULL);
	if (ret)
		ret = git_fail(ret, err, "cannot fetch from '%s' (%s)", url, name);
	git_remote_free(remote);
	return ret;
}

int gitrepo_fetch(struct gitrepo *r, const char *name, const char *url,
		  const char *const *branches, size_t nr, struct strbuf *err)
{
	git_strarray specs = { NULL, 0 };
	size_t i;
	int valid = 0, ret;

	git_remote_name_is_valid(&valid, name);
	if (!valid) {
		strbuf_addf(err, "invalid remote name '%s'", name);
		return -EINVAL;
	}
	if (!nr) {
		strbuf_addf(err, "remote '%s': no branches to fetch", name);
		return -EINVAL;
	}
	specs.strings = xcalloc(nr, sizeof(char *));
	for (i = 0; i < nr; i++) {
		valid = 0;
		git_branch_name_is_valid(&valid, branches[i]);
		if (!valid) {
			strbuf_addf(err, "remote '%s': invalid branch name '%s'",
				    name, branches[i]);
			ret = -EINVAL;
			goto out;
		}
		specs.strings[specs.count++] =
			xasprintf("+refs/heads/%s:refs/remotes/%s/%s",
				  branches[i], name, branches[i]);
	}
	ret = fetch_specs(r, name, url, &specs, err);
out:
	for (i = 0; i < specs.count; i++)
		free(specs.strings[i]);
	free(specs.strings);
	return ret;
}

int gitrepo_fetch_commit(struct gitrepo *r, const char *name, const char *url,
			 const char *hex, struct strbuf *err)
{
	char *spec;
	git_strarray specs = { &spec, 1 };
	struct gitoid id;
	int valid = 0, ret;

	git_remote_name_is_valid(&valid, name);
	if (!valid) {
		strbuf_addf(err, "invalid remote name '%s'", name);
		return -EINVAL;
	}
	if (gitoid_parse(&id, hex)) {
		strbuf_addf(err, "'%s' is not a full commit id", hex);
		return -EINVAL;
	}
	spec = xasprintf("%s:refs/lorebot/bases/%s", hex, hex);
	ret = fetch_specs(r, name, url, &specs, err);
	free(spec);
	return ret;
}

int gitrepo_resolve_commit(struct gitrepo *r, const char *rev,
			   struct gitoid *commit, char **full_name,
			   struct strbuf *err)
{
	git_object *obj;
	git_reference *ref;
	int ret;

	if (full_name)
		*full_name = NULL;
	ret = git_rev_lookup(r->repo, rev, GIT_OBJECT_COMMIT, &obj, &ref, err);
	if (ret)
		return ret;
	from_git(commit, git_object_id(obj));
	if (full_name) {
		char hex[GITOID_HEXSZ + 1];

		gitoid_hex(commit, hex);
		*full_name = xstrdup(ref ? git_reference_name(ref) : hex);
	}
	git_object_free(obj);
	git_reference_free(ref);
	return 0;
}

int gitrepo_find_object(struct gitrepo *r, const char *hex, struct gitoid *id)
{
	size_t len = strlen(hex);
	git_oid shortid, full;
	git_odb *odb;
	int ret;

	if (len < GIT_OID_MINPREFIXLEN || len > GITOID_HEXSZ ||
	    strspn(hex, "0123456789abcdefABCDEF") != len)
		return -EINVAL;
	if (git_oid_fromstrn(&shortid, hex, len))
		return -EINVAL;
	if (git_repository_odb(&odb, r->repo))
		return -EIO;
	ret = git_odb_exists_prefix(&full, odb, &shortid, len);
	git_odb_free(odb);
	if (ret)
		return git_errno(ret);
	if (id)
		from_git(id, &full);
	return 0;
}

int gitrepo_commit_tree(struct gitrepo *r, const struct gitoid *commit,
			struct gitoid *tree, struct strbuf *err)
{
	git_commit *c;
	int ret;

	ret = git_commit_lookup(&c, r->repo, to_git(commit));
	if (ret) {
		char hex[GITOID_HEXSZ + 1];

		gitoid_hex(commit, hex);
		return git_fail(ret, err, "no commit %s", hex);
	}
	from_git(tree, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

int gitrepo_tree_entry(struct gitrepo *r, const struct gitoid *tree,
		       const char *path, struct gitoid *id, unsigned int *mode,
		       char **blocker)
{
	git_tree *t = NULL, *sub;
	const char *p = path;
	int ret;

	if (blocker)
		*blocker = NULL;
	ret = git_tree_lookup(&t, r->repo, to_git(tree));
	if (ret)
		return git_errno(ret);
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		char *name = xstrndup(p, len);
		const git_tree_entry *e = git_tree_entry_byname(t, name);

		free(name);
		if (!e) {
			ret = -ENOENT;
			break;
		}
		if (!slash) {
			if (id)
				from_git(id, git_tree_entry_id(e));
			if (mode)
				*mode = git_tree_entry_filemode(e);
			ret = 0;
			break;
		}
		if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
			if (blocker)
				*blocker = xstrndup(path, slash - path);
			ret = -ENOTDIR;
			break;
		}
		ret = git_tree_lookup(&sub, r->repo, git_tree_entry_id(e));
		if (ret) {
			ret = git_errno(ret);
			break;
		}
		git_tree_free(t);
		t = sub;
		p = slash + 1;
	}
	git_tree_free(t);
	return ret;
}

int gitrepo_blob_read(struct gitrepo *r, const struct gitoid *id,
		      struct strbuf *out, size_t max, struct strbuf *err)
{
	char hex[GITOID_HEXSZ + 1];
	git_blob *b;
	size_t size;
	int ret;

	ret = git_blob_lookup(&b, r->repo, to_git(id));
	if (ret) {
		gitoid_hex(id, hex);
		return git_fail(ret, err, "no blob %s", hex);
	}
	size = git_blob_rawsize(b);
	if (max && size > max) {
		gitoid_hex(id, hex);
		strbuf_addf(err, "blob %s is %zu bytes, more than %zu", hex, size, max);
		git_blob_free(b);
		return -EFBIG;
	}
	strbuf_reset(out);
	strbuf_add(out, git_blob_rawcontent(b), size);
	git_blob_free(b);
	return 0;
}

int gitrepo_blob_write(struct gitrepo *r, const void *buf, size_t len,
		       struct gitoid *id, struct strbuf *err)
{
	git_oid g;
	int ret;

	ret = git_blob_create_from_buffer(&g, r->repo, buf, len);
	if (ret)
		return git_fail(ret, err, "cannot write a blob");
	from_git(id, &g);
	return 0;
}

int gitrepo_tree_update(struct gitrepo *r, const struct gitoid *base,
			const struct gitrepo_update *u, size_t nr,
			struct gitoid *out, struct strbuf *err)
{
	git_tree_update *gu = xcalloc(nr, sizeof(*gu));
	git_tree *t = NULL;
	git_oid g;
	size_t i;
	int ret;

	if (base) {
		ret = git_tree_lookup(&t, r->repo, to_git(base));
		if (ret) {
			free(gu);
			return git_fail(ret, err, "cannot read the base tree");
		}
	}
	for (i = 0; i < nr; i++) {
		gu[i].action = u[i].remove ? GIT_TREE_UPDATE_REMOVE :
			GIT_TREE_UPDATE_UPSERT;
		memcpy(gu[i].id.id, u[i].id.raw, GITOID_RAWSZ);
		gu[i].filemode = u[i].mode;
		gu[i].path = u[i].path;
	}
	ret = git_tree_create_updated(&g, r->repo, t, nr, gu);
	if (ret)
		ret = git_fail(ret, err, "cannot write the new tree");
	else
		from_git(out, &g);
	git_tree_free(t);
	free(gu);
	return ret;
}

static int make_sig(git_signature **sig, const struct gitrepo_sig *s,
		    struct strbuf *err)
{
	int ret = git_signature_new(sig, s->name, s->email, s->time, s->tz);

	if (ret)
		return git_fail(ret, err, "bad identity '%s <%s>'", s->name, s->email);
	return 0;
}

int gitrepo_commit_create(struct gitrepo *r, const struct gitoid *tree,
			  const struct gitoid *parent,
			  const struct gitrepo_sig *author,
			  const struct gitrepo_sig *committer,
			  const char *message, struct gitoid *out,
			  struct strbuf *err)
{
	git_signature *a = NULL, *c = NULL;
	const git_commit *parents[1];
	git_commit *p = NULL;
	git_tree *t = NULL;
	git_oid g;
	int ret;

	ret = make_sig(&a, author, err);
	if (!ret)
		ret = make_sig(&c, committer, err);
	if (ret)
		goto out;
	ret = git_tree_lookup(&t, r->repo, to_git(tree));
	if (ret) {
		ret = git_fail(ret, err, "cannot read the tree to commit");
		goto out;
	}
	if (parent) {
		ret = git_commit_lookup(&p, r->repo, to_git(parent));
		if (ret) {
			ret = git_fail(ret, err, "cannot read the parent commit");
			goto out;
		}
		parents[0] = p;
	}
	ret = git_commit_create(&g, r->repo, NULL, a, c, NULL, message, t,
				p ? 1 : 0, parents);
	if (ret)
		ret = git_fail(ret, err, "cannot write the commit");
	else
		from_git(out, &g);
out:
	git_commit_free(p);
	git_tree_free(t);
	git_signature_free(a);
	git_signature_free(c);
	return ret;
}

bool gitrepo_ref_name_ok(const char *name)
{
	int valid = 0;

	git_lib_init();
	return !git_reference_name_is_valid(&valid, name) && valid;
}

/*
 * A lock on one of lorebot's own refs (refs/heads/lorebot/) that is
 * older than this process: a run killed between taking and renaming it
 * (the daemon's kill takes its jobs along).  The queue runs one apply of
 * a version at a time, so nobody else is updating that ref: the lock is
 * removed and the update tried once more.  Nobody else's refs, and no
 * lock taken after this process started, are touched.
 */
static bool stale_own_lock(struct gitrepo *r, const char *name)
{
	struct strbuf lock = STRBUF_INIT;
	struct stat st;
	bool stale = false;

	if (strncmp(name, "refs/heads/lorebot/", 19))
		return false;
	strbuf_addf(&lock, "%s%s.lock", git_repository_path(r->repo), name);
	if (!lstat(lock.buf, &st) && S_ISREG(st.st_mode) &&
	    (st.st_mtim.tv_sec < started.tv_sec ||
	     (st.st_mtim.tv_sec == started.tv_sec &&
	      st.st_mtim.tv_nsec < started.tv_nsec)) &&
	    !unlink(lock.buf)) {
		log_warn("%s: removed a lock left by a run that was killed", lock.buf);
		stale = true;
	}
	strbuf_release(&lock);
	return stale;
}

int gitrepo_ref_set(struct gitrepo *r, const char *name,
		    const struct gitoid *id, const char *why,
		    struct strbuf *err)
{
	git_reference *ref;
	char *msg = xasprintf("lorebot: %s", why);
	int ret;

	ret = git_reference_create(&ref, r->repo, name, to_git(id), 1, msg);
	if (ret == GIT_ELOCKED && stale_own_lock(r, name))
		ret = git_reference_create(&ref, r->repo, name, to_git(id), 1, msg);
	free(msg);
	if (ret)
		return git_fail(ret, err, "cannot update '%s'", name);
	git_reference_free(ref);
	return 0;
}

int gitrepo_ref_get(struct gitrepo *r, const char *name, struct gitoid *id)
{
	git_oid g;
	int ret = git_reference_name_to_id(&g, r->repo, name);

	if (ret)
		return git_errno(ret);
	from_git(id, &g);
	return 0;
}
