// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/diff.h"
#include "bot/git.h"
#include "bot/gitrepo.h"
#include "bot/mail.h"

void git_lib_init(void)
{
	static bool done;

	if (done)
		return;
	git_libgit2_init();
	/* our repositories are ours; do not chase ownership of others */
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	done = true;
}

static void git_error_to(struct strbuf *err, const char *what)
{
	const git_error *e = git_error_last();

	strbuf_addf(err, "%s: %s", what, e && e->message ? e->message : "unknown error");
}

static int cfg_foreach(git_config *cfg, gitcfg_cb cb, void *data)
{
	git_config_iterator *it;
	git_config_entry *entry;
	int ret = 0;

	if (git_config_iterator_new(&it, cfg))
		return -1;
	while (!ret && !git_config_next(&entry, it))
		ret = cb(entry->name, entry->value, data);
	git_config_iterator_free(it);
	return ret;
}

int gitcfg_read_file(const char *path, gitcfg_cb cb, void *data,
		     struct strbuf *err)
{
	git_config *cfg;
	int ret;

	git_lib_init();
	if (git_config_new(&cfg))
		return -1;
	if (git_config_add_file_ondisk(cfg, path, GIT_CONFIG_LEVEL_APP, NULL, 1)) {
		git_error_to(err, path);
		git_config_free(cfg);
		return -1;
	}
	ret = cfg_foreach(cfg, cb, data);
	git_config_free(cfg);
	return ret;
}

int gitcfg_read_default(const char *repo_dir, gitcfg_cb cb, void *data,
			struct strbuf *err)
{
	git_repository *repo = NULL;
	git_config *cfg;
	int ret;

	git_lib_init();
	if (repo_dir) {
		if (git_repository_open_ext(&repo, repo_dir, 0, NULL)) {
			git_error_to(err, repo_dir);
			return -1;
		}
		ret = git_repository_config_snapshot(&cfg, repo);
	} else {
		ret = git_config_open_default(&cfg);
	}
	if (ret) {
		git_error_to(err, "git config");
		git_repository_free(repo);
		return -1;
	}
	ret = cfg_foreach(cfg, cb, data);
	git_config_free(cfg);
	git_repository_free(repo);
	return ret;
}

/* diffs */

/* line_cb()'s return: a line with a NUL byte (d->nul_line) */
#define DIFF_STOP_NUL 1

static int file_cb(const git_diff_delta *delta, float progress, void *payload)
{
	struct diff *d = payload;
	struct diff_file *f;

	(void)progress;
	ALLOC_GROW(d->files, d->nr + 1, d->alloc);
	f = &d->files[d->nr++];
	memset(f, 0, sizeof(*f));
	switch (delta->status) {
	case GIT_DELTA_ADDED:
		f->status = DIFF_ADDED;
		break;
	case GIT_DELTA_DELETED:
		f->status = DIFF_DELETED;
		break;
	case GIT_DELTA_RENAMED:
		f->status = DIFF_RENAMED;
		break;
	case GIT_DELTA_COPIED:
		f->status = DIFF_COPIED;
		break;
	default:
		f->status = DIFF_MODIFIED;
		break;
	}
	if (delta->status != GIT_DELTA_ADDED && delta->old_file.path)
		f->old_path = xstrdup(delta->old_file.path);
	if (delta->status != GIT_DELTA_DELETED && delta->new_file.path)
		f->new_path = xstrdup(delta->new_file.path);
	f->old_mode = delta->old_file.mode;
	f->new_mode = delta->new_file.mode;
	git_oid_tostr(f->old_id, sizeof(f->old_id), &delta->old_file.id);
	git_oid_tostr(f->new_id, sizeof(f->new_id), &delta->new_file.id);
	if (delta->old_file.id_abbrev && delta->old_file.id_abbrev < 40)
		f->old_id[delta->old_file.id_abbrev] = '\0';
	if (delta->new_file.id_abbrev && delta->new_file.id_abbrev < 40)
		f->new_id[delta->new_file.id_abbrev] = '\0';
	f->binary = delta->flags & GIT_DIFF_FLAG_BINARY;
	return 0;
}

static int binary_cb(const git_diff_delta *delta, const git_diff_binary *b,
		     void *payload)
{
	struct diff *d = payload;

	(void)delta;
	(void)b;
	if (d->nr)
		d->files[d->nr - 1].binary = true;
	return 0;
}

static int hunk_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
		   void *payload)
{
	struct diff *d = payload;
	struct diff_file *f = &d->files[d->nr - 1];
	struct diff_hunk *h;
	size_t hl = hunk->header_len;

	(void)delta;
	ALLOC_GROW(f->hunks, f->nr + 1, f->alloc);
	h = &f->hunks[f->nr++];
	memset(h, 0, sizeof(*h));
	h->old_start = hunk->old_start;
	h->old_lines = hunk->old_lines;
	h->new_start = hunk->new_start;
	h->new_lines = hunk->new_lines;
	while (hl && (hunk->header[hl - 1] == '\n' || hunk->header[hl - 1] == '\r'))
		hl--;
	h->header = xstrndup(hunk->header, hl);
	return 0;
}

static int line_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
		   const git_diff_line *line, void *payload)
{
	struct diff *d = payload;
	struct diff_file *f = &d->files[d->nr - 1];
	struct diff_hunk *h;
	struct diff_line *l;
	size_t len = line->content_len;

	(void)delta;
	if (!hunk || !f->nr)
		return 0;
	/*
	 * libgit2 copies a line up to its first NUL byte and still says
	 * content_len: what lies beyond is not the line's (nor ours to
	 * read).  A text diff carries no NUL; refuse it.
	 */
	if (strnlen(line->content, len) < len) {
		d->nul_line = line->new_lineno > 0 ? line->new_lineno :
			line->old_lineno > 0 ? line->old_lineno : 1;
		return DIFF_STOP_NUL;
	}
	h = &f->hunks[f->nr - 1];
	switch (line->origin) {
	case GIT_DIFF_LINE_CONTEXT:
	case GIT_DIFF_LINE_ADDITION:
	case GIT_DIFF_LINE_DELETION:
		break;
	case GIT_DIFF_LINE_CONTEXT_EOFNL:
	case GIT_DIFF_LINE_ADD_EOFNL:
	case GIT_DIFF_LINE_DEL_EOFNL:
		if (h->nr)
			h->lines[h->nr - 1].no_eol = true;
		return 0;
	default:
		return 0;
	}
	ALLOC_GROW(h->lines, h->nr + 1, h->alloc);
	l = &h->lines[h->nr++];
	l->kind = line->origin;
	l->old_no = line->old_lineno;
	l->new_no = line->new_lineno;
	if (len && line->content[len - 1] == '\n')
		len--;
	l->text = xstrndup(line->content, len);
	l->len = len;
	l->no_eol = false;
	return 0;
}

int diff_parse(const char *patch, size_t len, struct diff *d, struct strbuf *err)
{
	git_diff *gd;
	git_oid id;
	int r;

	git_lib_init();
	memset(d, 0, sizeof(*d));
	if (git_diff_from_buffer(&gd, patch, len)) {
		git_error_to(err, "cannot parse diff");
		return -1;
	}
	r = git_diff_foreach(gd, file_cb, binary_cb, hunk_cb, line_cb, d);
	if (r == DIFF_STOP_NUL) {
		const struct diff_file *f = &d->files[d->nr - 1];

		strbuf_addf(err, "a NUL byte in line %d of '%s': not a text diff",
			    d->nul_line, f->new_path ? f->new_path : f->old_path);
		git_diff_free(gd);
		diff_release(d);
		return -1;
	}
	if (r) {
		git_error_to(err, "cannot read diff");
		git_diff_free(gd);
		diff_release(d);
		return -1;
	}
	if (!git_diff_patchid(&id, gd, NULL))
		git_oid_tostr(d->patch_id, sizeof(d->patch_id), &id);
	git_diff_free(gd);
	return 0;
}

void diff_release(struct diff *d)
{
	size_t i, j, k;

	for (i = 0; i < d->nr; i++) {
		struct diff_file *f = &d->files[i];

		for (j = 0; j < f->nr; j++) {
			for (k = 0; k < f->hunks[j].nr; k++)
				free(f->hunks[j].lines[k].text);
			free(f->hunks[j].lines);
			free(f->hunks[j].header);
		}
		free(f->hunks);
		free(f->old_path);
		free(f->new_path);
	}
	free(d->files);
	memset(d, 0, sizeof(*d));
}

/* files and commits of a revision (the checkers' tree) */

static int git_open_rev(const char *repo_dir, const char *rev,
			git_repository **repo, git_object **obj)
{
	git_lib_init();
	*repo = NULL;
	*obj = NULL;
	if (git_repository_open_ext(repo, repo_dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL))
		return -EIO;
	if (git_revparse_single(obj, *repo, rev)) {
		git_repository_free(*repo);
		*repo = NULL;
		return -ENOENT;
	}
	return 0;
}

/* The entry of type at path in the tree of obj (a commit or a tree), or NULL */
static git_tree_entry *entry_at(git_object *obj, const char *path,
				git_object_t type)
{
	git_object *tree_obj = NULL;
	git_tree_entry *e = NULL;

	if (!git_object_peel(&tree_obj, obj, GIT_OBJECT_TREE) &&
	    !git_tree_entry_bypath(&e, (git_tree *)tree_obj, path) &&
	    git_tree_entry_type(e) != type) {
		git_tree_entry_free(e);
		e = NULL;
	}
	git_object_free(tree_obj);
	return e;
}

/* path in the tree of obj (a commit or a tree) into out: 0, -ENOENT, -EIO */
static int read_path(git_repository *repo, git_object *obj, const char *path,
		     struct strbuf *out)
{
	git_tree_entry *entry = entry_at(obj, path, GIT_OBJECT_BLOB);
	git_blob *blob = NULL;
	int ret = -ENOENT;

	if (!entry)
		goto out;
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(entry))) {
		ret = -EIO;
		goto out;
	}
	strbuf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	ret = 0;
out:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	return ret;
}

int git_read_file_at(const char *repo_dir, const char *rev, const char *path,
		     struct strbuf *out)
{
	git_repository *repo;
	git_object *obj;
	int ret = git_open_rev(repo_dir, rev, &repo, &obj);

	if (ret)
		return ret;
	ret = read_path(repo, obj, path, out);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

struct walk_ctx {
	git_repository *repo;
	const struct git_walk *w;
	struct strbuf path;
	int ret;
};

static int walk_tree(struct walk_ctx *c, git_tree *t)
{
	size_t i, n = git_tree_entrycount(t), base = c->path.len;

	for (i = 0; i < n && !c->ret; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		git_object_t type = git_tree_entry_type(e);

		strbuf_setlen(&c->path, base);
		strbuf_addf(&c->path, "/%s", git_tree_entry_name(e));
		if (type == GIT_OBJECT_TREE) {
			git_tree *sub;

			if (git_tree_lookup(&sub, c->repo, git_tree_entry_id(e))) {
				c->ret = -EIO;
				break;
			}
			c->ret = walk_tree(c, sub);
			git_tree_free(sub);
		} else if (type == GIT_OBJECT_BLOB) {
			char id[GIT_OID_HEXSZ + 1];
			git_blob *b;

			git_oid_tostr(id, sizeof(id), git_tree_entry_id(e));
			if (!c->w->want(c->path.buf, id, c->w->data))
				continue;

			if (git_blob_lookup(&b, c->repo, git_tree_entry_id(e))) {
				c->ret = -EIO;
				break;
			}
			c->ret = c->w->file(c->path.buf, git_blob_rawcontent(b),
					    (size_t)git_blob_rawsize(b), c->w->data);
			git_blob_free(b);
		}
	}
	strbuf_setlen(&c->path, base);
	return c->ret;
}

static int walk_dir(git_repository *repo, git_object *obj, struct git_walk *w)
{
	struct walk_ctx c = { .repo = repo, .w = w, .path = STRBUF_INIT };
	git_tree_entry *e = entry_at(obj, w->dir, GIT_OBJECT_TREE);
	git_tree *t = NULL;
	int ret = -ENOENT;

	if (!e)
		goto out;
	git_oid_tostr(w->tree_id, sizeof(w->tree_id), git_tree_entry_id(e));
	ret = 0;
	if (!w->file)
		goto out;
	if (git_tree_lookup(&t, repo, git_tree_entry_id(e))) {
		ret = -EIO;
		goto out;
	}
	strbuf_addstr(&c.path, w->dir);
	ret = walk_tree(&c, t);
out:
	strbuf_release(&c.path);
	git_tree_free(t);
	git_tree_entry_free(e);
	return ret;
}

int git_walk_dir(const char *repo_dir, const char *rev, struct git_walk *w)
{
	git_repository *repo;
	git_object *obj;
	int ret = git_open_rev(repo_dir, rev, &repo, &obj);

	if (ret)
		return ret;
	ret = walk_dir(repo, obj, w);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

int git_commit_subject(const char *repo_dir, const char *id, struct strbuf *out)
{
	git_repository *repo;
	git_object *obj, *commit = NULL;
	int ret = git_open_rev(repo_dir, id, &repo, &obj);

	if (ret)
		return ret;
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT)) {
		ret = -ENOENT;
	} else {
		const char *s = git_commit_summary((git_commit *)commit);

		strbuf_addstr(out, s ? s : "");
	}
	git_object_free(commit);
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

/*
 * Repository operations (bot/gitrepo.h): everything the apply step does
 * with the object database, refs and remotes.  Keep these together.
 */

struct gitrepo {
	git_repository *repo;
	char *path;
};

static inline const git_oid *to_git(const struct gitoid *id)
{
	return (const git_oid *)id->raw;
}

static inline void from_git(struct gitoid *id, const git_oid *g)
{
	memcpy(id->raw, g->id, GITOID_RAWSZ);
}

void gitoid_hex(const struct gitoid *id, char out[GITOID_HEXSZ + 1])
{
	git_oid_tostr(out, GITOID_HEXSZ + 1, to_git(id));
}

int gitoid_parse(struct gitoid *id, const char *hex)
{
	git_oid g;

	if (strlen(hex) != GITOID_HEXSZ || git_oid_fromstr(&g, hex))
		return -EINVAL;
	from_git(id, &g);
	return 0;
}

bool gitoid_eq(const struct gitoid *a, const struct gitoid *b)
{
	return !memcmp(a->raw, b->raw, GITOID_RAWSZ);
}

bool gitoid_is_zero(const struct gitoid *id)
{
	static const struct gitoid zero;

	return gitoid_eq(id, &zero);
}

void gitoid_hash_blob(struct gitoid *id, const void *buf, size_t len)
{
	git_oid g;

	git_odb_hash(&g, buf, len, GIT_OBJECT_BLOB);
	from_git(id, &g);
}

/* libgit2's error codes as errno values */
static int git_errno(int code)
{
	switch (code) {
	case GIT_ENOTFOUND:
		return -ENOENT;
	case GIT_EAMBIGUOUS:
	case GIT_EINVALIDSPEC:
	case GIT_EINVALID:
		return -EINVAL;
	case GIT_EEXISTS:
		return -EEXIST;
	default:
		return -EIO;
	}
}

static int git_fail(int code, struct strbuf *err, const char *fmt, ...)
	PRINTF(3, 4);

static int git_fail(int code, struct strbuf *err, const char *fmt, ...)
{
	const git_error *e = git_error_last();
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	if (e && e->message)
		strbuf_addf(err, ": %s", e->message);
	return git_errno(code);
}

int gitrepo_open(struct gitrepo **out, const char *path, bool create,
		 struct strbuf *err)
{
	git_repository *repo;
	int ret;

	git_lib_init();
	*out = NULL;
	ret = git_repository_open_ext(&repo, path,
				      GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (ret == GIT_ENOTFOUND && create) {
		ret = mkdir_p(path, 0755);
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

/* "name" as refs/remotes/<remote>/<name> when exactly one remote has it */
static int resolve_remote_branch(struct gitrepo *r, const char *name,
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
	if (git_reference_iterator_glob_new(&it, r->repo, glob)) {
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

int gitrepo_resolve_commit(struct gitrepo *r, const char *rev,
			   struct gitoid *commit, char **full_name,
			   struct strbuf *err)
{
	git_object *obj = NULL, *peeled = NULL;
	git_reference *ref = NULL;
	int ret;

	if (full_name)
		*full_name = NULL;
	ret = git_revparse_ext(&obj, &ref, r->repo, rev);
	if (ret == GIT_ENOTFOUND && !resolve_remote_branch(r, rev, &ref)) {
		ret = git_reference_peel(&obj, ref, GIT_OBJECT_ANY);
		if (ret)
			ret = GIT_ENOTFOUND;
	}
	if (ret == GIT_ENOTFOUND) {
		strbuf_addf(err, "no commit or branch '%s' in the repository", rev);
		ret = -ENOENT;
		goto out;
	}
	if (ret) {
		ret = git_fail(ret, err, "cannot resolve '%s'", rev);
		goto out;
	}
	ret = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (ret) {
		strbuf_addf(err, "'%s' is not a commit", rev);
		ret = -EINVAL;
		goto out;
	}
	from_git(commit, git_object_id(peeled));
	if (full_name) {
		char hex[GITOID_HEXSZ + 1];

		gitoid_hex(commit, hex);
		*full_name = xstrdup(ref ? git_reference_name(ref) : hex);
	}
out:
	git_object_free(peeled);
	git_object_free(obj);
	git_reference_free(ref);
	return ret;
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

int gitrepo_ref_set(struct gitrepo *r, const char *name,
		    const struct gitoid *id, const char *why,
		    struct strbuf *err)
{
	git_reference *ref;
	char *msg = xasprintf("lorebot: %s", why);
	int ret;

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

int gitrepo_apply_binary(struct gitrepo *r, const char *old_path,
			 const struct gitoid *old, unsigned int old_mode,
			 const char *new_path, const char *section, size_t len,
			 struct gitoid *out, struct strbuf *err)
{
	git_apply_options ao;
	const git_index_entry *e;
	git_index *index = NULL;
	git_diff *diff = NULL;
	git_tree *pre = NULL;
	git_oid pre_id;
	int ret;

	if (old) {
		git_tree_update u = {
			.action = GIT_TREE_UPDATE_UPSERT,
			.filemode = old_mode,
			.path = old_path,
		};

		memcpy(u.id.id, old->raw, GITOID_RAWSZ);
		ret = git_tree_create_updated(&pre_id, r->repo, NULL, 1, &u);
	} else {
		ret = git_tree_create_updated(&pre_id, r->repo, NULL, 0, NULL);
	}
	if (!ret)
		ret = git_tree_lookup(&pre, r->repo, &pre_id);
	if (ret) {
		ret = git_fail(ret, err, "cannot prepare '%s'", old_path);
		goto out;
	}
	ret = git_diff_from_buffer(&diff, section, len);
	if (ret) {
		ret = git_fail(ret, err, "cannot parse the binary patch");
		goto out;
	}
	git_apply_options_init(&ao, GIT_APPLY_OPTIONS_VERSION);
	ret = git_apply_to_tree(&index, r->repo, pre, diff, &ao);
	if (ret) {
		ret = git_fail(ret, err, "binary patch does not apply");
		goto out;
	}
	e = git_index_get_bypath(index, new_path, 0);
	if (!e) {
		strbuf_addf(err, "binary patch gave no '%s'", new_path);
		ret = -EINVAL;
		goto out;
	}
	from_git(out, &e->id);
out:
	git_index_free(index);
	git_diff_free(diff);
	git_tree_free(pre);
	return ret;
}

int git_merge_contents(const char *base, size_t base_len,
		       const char *ours, size_t ours_len,
		       const char *theirs, size_t theirs_len,
		       struct strbuf *out, struct strbuf *err)
{
	git_merge_file_input in[3];
	git_merge_file_result res = { 0 };
	int i, ret;

	git_lib_init();
	for (i = 0; i < 3; i++)
		git_merge_file_input_init(&in[i], GIT_MERGE_FILE_INPUT_VERSION);
	in[0].ptr = base;
	in[0].size = base_len;
	in[1].ptr = ours;
	in[1].size = ours_len;
	in[2].ptr = theirs;
	in[2].size = theirs_len;
	ret = git_merge_file(&res, &in[0], &in[1], &in[2], NULL);
	if (ret)
		return git_fail(ret, err, "three-way merge failed");
	ret = res.automergeable ? 1 : 0;
	strbuf_reset(out);
	strbuf_add(out, res.ptr, res.len);
	git_merge_file_result_free(&res);
	return ret;
}

/* exporting trees */

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

/* a developer's repository (lorebot check in a kernel tree) */

static char *path_dup_trim(const char *p)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		n--;
	return xstrndup(p, n);
}

int gitdev_open(struct gitdev_repo *r, const char *dir, struct strbuf *err)
{
	git_reference *head = NULL;
	const char *wd;

	git_lib_init();
	memset(r, 0, sizeof(*r));
	if (git_repository_open_ext(&r->repo, dir, 0, NULL)) {
		strbuf_addf(err, "'%s' is not in a git repository", dir);
		return -1;
	}
	r->gitdir = path_dup_trim(git_repository_path(r->repo));
	wd = git_repository_workdir(r->repo);
	r->workdir = wd ? path_dup_trim(wd) : NULL;
	if (!git_repository_head(&head, r->repo)) {
		if (git_reference_is_branch(head))
			r->branch = xstrdup(git_reference_shorthand(head));
		git_oid_tostr(r->head, sizeof(r->head), git_reference_target(head));
		git_reference_free(head);
	} else if (git_repository_head_unborn(r->repo) == 1) {
		if (!git_repository_head(&head, r->repo))
			git_reference_free(head);
	}
	return 0;
}

void gitdev_release(struct gitdev_repo *r)
{
	git_repository_free(r->repo);
	free(r->gitdir);
	free(r->workdir);
	free(r->branch);
	memset(r, 0, sizeof(*r));
}

struct refspec_ctx {
	const char *merge;
	struct strbuf *out;
	bool found;
};

static int refspec_cb(const git_config_entry *e, void *data)
{
	struct refspec_ctx *rc = data;
	git_refspec *spec;
	git_buf dst = GIT_BUF_INIT;

	if (rc->found || git_refspec_parse(&spec, e->value, true))
		return 0;
	if (git_refspec_src_matches(spec, rc->merge) &&
	    !git_refspec_transform(&dst, spec, rc->merge)) {
		strbuf_add(rc->out, dst.ptr, dst.size);
		rc->found = true;
	}
	git_buf_dispose(&dst);
	git_refspec_free(spec);
	return 0;
}

/*
 * branch.<name>.remote and .merge through the remote's fetch refspecs,
 * as git does; read key by key (git_branch_upstream() lists the remotes
 * with a regular expression, and libgit2 1.5 leaks on every non-match)
 */
int gitdev_upstream(struct gitdev_repo *r, const char *branch, struct strbuf *out)
{
	struct strbuf key = STRBUF_INIT, ref = STRBUF_INIT;
	struct refspec_ctx rc = { .out = &ref };
	git_config *cfg = NULL;
	git_buf remote = GIT_BUF_INIT, merge = GIT_BUF_INIT;
	git_reference *target = NULL;
	int ret = -ENOENT;

	if (git_repository_config_snapshot(&cfg, r->repo))
		return -EIO;
	strbuf_addf(&key, "branch.%s.remote", branch);
	if (git_config_get_string_buf(&remote, cfg, key.buf))
		goto out;
	strbuf_reset(&key);
	strbuf_addf(&key, "branch.%s.merge", branch);
	if (git_config_get_string_buf(&merge, cfg, key.buf))
		goto out;
	if (!strcmp(remote.ptr, ".")) {
		strbuf_addstr(&ref, merge.ptr);
	} else {
		rc.merge = merge.ptr;
		strbuf_reset(&key);
		strbuf_addf(&key, "remote.%s.fetch", remote.ptr);
		git_config_get_multivar_foreach(cfg, key.buf, NULL, refspec_cb, &rc);
		if (!rc.found)
			goto out;
	}
	if (git_reference_lookup(&target, r->repo, ref.buf))
		goto out;
	strbuf_addstr(out, git_reference_shorthand(target));
	ret = 0;
out:
	git_reference_free(target);
	git_buf_dispose(&remote);
	git_buf_dispose(&merge);
	git_config_free(cfg);
	strbuf_release(&key);
	strbuf_release(&ref);
	return ret;
}

static int lookup_commit(git_repository *repo, const char *rev, git_commit **out)
{
	git_object *obj = NULL, *c = NULL;

	*out = NULL;
	if (git_revparse_single(&obj, repo, rev))
		return -ENOENT;
	if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT)) {
		git_object_free(obj);
		return -ENOENT;
	}
	git_object_free(obj);
	*out = (git_commit *)c;
	return 0;
}

int gitdev_resolve(struct gitdev_repo *r, const char *rev, char out[41])
{
	git_commit *c;

	if (lookup_commit(r->repo, rev, &c))
		return -ENOENT;
	git_oid_tostr(out, 41, git_commit_id(c));
	git_commit_free(c);
	return 0;
}

int gitdev_merge_base(struct gitdev_repo *r, const char *a, const char *b,
		      char out[41])
{
	git_commit *ca, *cb;
	git_oid base;
	int ret = -ENOENT;

	if (lookup_commit(r->repo, a, &ca))
		return -ENOENT;
	if (!lookup_commit(r->repo, b, &cb)) {
		if (!git_merge_base(&base, r->repo, git_commit_id(ca), git_commit_id(cb))) {
			git_oid_tostr(out, 41, &base);
			ret = 0;
		}
		git_commit_free(cb);
	}
	git_commit_free(ca);
	return ret;
}

void gitdev_commits_release(struct gitdev_commits *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->v[i].subject);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int gitdev_rev_list(struct gitdev_repo *r, const char *hide, const char *tip,
		    size_t max, struct gitdev_commits *out, struct strbuf *err)
{
	git_revwalk *walk = NULL;
	git_commit *t = NULL, *h = NULL;
	git_oid id;
	int ret = -ENOENT;

	if (lookup_commit(r->repo, tip, &t)) {
		strbuf_addf(err, "'%s' is not a commit", tip);
		return -ENOENT;
	}
	if (hide && lookup_commit(r->repo, hide, &h)) {
		strbuf_addf(err, "'%s' is not a commit", hide);
		goto out;
	}
	ret = -EIO;
	if (git_revwalk_new(&walk, r->repo) ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) ||
	    git_revwalk_push(walk, git_commit_id(t)) ||
	    (h && git_revwalk_hide(walk, git_commit_id(h)))) {
		git_error_to(err, "cannot walk the history");
		goto out;
	}
	ret = 0;
	while (!git_revwalk_next(&id, walk)) {
		struct gitdev_commit *gc;
		git_commit *c;

		if (out->nr >= max) {
			strbuf_addf(err, "more than %zu commits in the range", max);
			ret = -E2BIG;
			break;
		}
		if (git_commit_lookup(&c, r->repo, &id)) {
			git_error_to(err, "cannot read a commit");
			ret = -EIO;
			break;
		}
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		gc = &out->v[out->nr++];
		memset(gc, 0, sizeof(*gc));
		git_oid_tostr(gc->id, sizeof(gc->id), &id);
		gc->parents = git_commit_parentcount(c);
		if (gc->parents) {
			git_commit *p;

			git_oid_tostr(gc->parent, sizeof(gc->parent),
				      git_commit_parent_id(c, 0));
			if (!git_commit_parent(&p, c, 0)) {
				gc->empty = git_oid_equal(git_commit_tree_id(p),
							  git_commit_tree_id(c));
				git_commit_free(p);
			}
		}
		gc->subject = xstrdup(git_commit_summary(c) ? git_commit_summary(c) : "");
		git_commit_free(c);
	}
out:
	git_revwalk_free(walk);
	git_commit_free(t);
	git_commit_free(h);
	return ret;
}

int gitdev_find_message(struct gitdev_repo *r, const char *tip,
			const char *needle, size_t max, char out[41])
{
	git_commit *c, *parent;
	size_t n;

	if (lookup_commit(r->repo, tip, &c))
		return -ENOENT;
	for (n = 0; c && n < max; n++) {
		const char *msg = git_commit_message(c);

		if (msg && strstr(msg, needle)) {
			git_oid_tostr(out, 41, git_commit_id(c));
			git_commit_free(c);
			return 0;
		}
		if (!git_commit_parentcount(c) || git_commit_parent(&parent, c, 0))
			parent = NULL;
		git_commit_free(c);
		c = parent;
	}
	git_commit_free(c);
	return -ENOENT;
}

int gitdev_message(struct gitdev_repo *r, const char *id, struct strbuf *out)
{
	git_commit *c;
	const char *msg;

	if (lookup_commit(r->repo, id, &c))
		return -ENOENT;
	msg = git_commit_message(c);
	strbuf_addstr(out, msg ? msg : "");
	git_commit_free(c);
	return 0;
}

int gitdev_read_file(struct gitdev_repo *r, const char *rev, const char *path,
		     struct strbuf *out)
{
	git_commit *c;
	int ret;

	if (lookup_commit(r->repo, rev, &c))
		return -ENOENT;
	ret = read_path(r->repo, (git_object *)c, path, out);
	git_commit_free(c);
	return ret;
}

int gitdev_walk_dir(struct gitdev_repo *r, const char *rev, struct git_walk *w)
{
	git_commit *c;
	int ret;

	if (lookup_commit(r->repo, rev, &c))
		return -ENOENT;
	ret = walk_dir(r->repo, (git_object *)c, w);
	git_commit_free(c);
	return ret;
}

int gitdev_subject(struct gitdev_repo *r, const char *id, struct strbuf *out)
{
	git_commit *c;
	const char *s;

	if (lookup_commit(r->repo, id, &c))
		return -ENOENT;
	s = git_commit_summary(c);
	strbuf_addstr(out, s ? s : "");
	git_commit_free(c);
	return 0;
}

int gitdev_identity(struct gitdev_repo *r, struct strbuf *name,
		    struct strbuf *email)
{
	git_signature *sig;

	if (git_signature_default(&sig, r->repo))
		return -ENOENT;
	strbuf_addstr(name, sig->name);
	strbuf_addstr(email, sig->email);
	git_signature_free(sig);
	return 0;
}

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

struct paths {
	char **v;
	size_t nr, alloc;
};

static void paths_add(struct paths *p, const char *prefix, const char *name)
{
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr++] = xasprintf("%s%s", prefix, name);
}

static void paths_release(struct paths *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->v[i]);
	free(p->v);
}

/*
 * The paths that differ between trees a and b (either may be NULL),
 * descending only into subtrees whose ids differ: a commit of a kernel
 * tree reads a handful of trees, not its 5,000.
 */
static int changed_paths(git_repository *repo, git_tree *a, git_tree *b,
			 const char *prefix, struct paths *out)
{
	size_t na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < na && !ret; i++) {
		const git_tree_entry *ea = git_tree_entry_byindex(a, i);
		const git_tree_entry *eb = b ? git_tree_entry_byname(b, git_tree_entry_name(ea)) : NULL;
		bool ta = git_tree_entry_type(ea) == GIT_OBJECT_TREE;
		bool tb = eb && git_tree_entry_type(eb) == GIT_OBJECT_TREE;
		git_tree *sa = NULL, *sb = NULL;
		char *sub;

		if (eb && git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)) &&
		    git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb))
			continue;
		if (!ta && !tb) {
			paths_add(out, prefix, git_tree_entry_name(ea));
			continue;
		}
		if (!ta || !tb)		/* a file became a directory, or back */
			paths_add(out, prefix, git_tree_entry_name(ea));
		sub = xasprintf("%s%s/", prefix, git_tree_entry_name(ea));
		if ((ta && git_tree_lookup(&sa, repo, git_tree_entry_id(ea))) ||
		    (tb && git_tree_lookup(&sb, repo, git_tree_entry_id(eb))))
			ret = -1;
		else
			ret = changed_paths(repo, sa, sb, sub, out);
		git_tree_free(sa);
		git_tree_free(sb);
		free(sub);
	}
	for (i = 0; i < nb && !ret; i++) {
		const git_tree_entry *eb = git_tree_entry_byindex(b, i);
		git_tree *sb = NULL;
		char *sub;

		if (a && git_tree_entry_byname(a, git_tree_entry_name(eb)))
			continue;
		if (git_tree_entry_type(eb) != GIT_OBJECT_TREE) {
			paths_add(out, prefix, git_tree_entry_name(eb));
			continue;
		}
		sub = xasprintf("%s%s/", prefix, git_tree_entry_name(eb));
		if (git_tree_lookup(&sb, repo, git_tree_entry_id(eb)))
			ret = -1;
		else
			ret = changed_paths(repo, NULL, sb, sub, out);
		git_tree_free(sb);
		free(sub);
	}
	return ret;
}

static int commit_diff(git_repository *repo, git_commit *c, git_diff **diff)
{
	git_diff_options opts;
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	struct paths paths = { 0 };
	int ret = -1;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (git_commit_parentcount(c) && git_commit_parent(&parent, c, 0))
		return -1;
	if ((parent && git_commit_tree(&old, parent)) || git_commit_tree(&new, c))
		goto out;
	/* only the paths that changed: the diff then walks no other tree */
	if (changed_paths(repo, old, new, "", &paths))
		goto out;
	opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	opts.pathspec.strings = paths.v;
	opts.pathspec.count = paths.nr;
	if (!paths.nr) {
		/* an empty pathspec means everything; nothing changed at all */
		static char *none[] = { "" };

		opts.pathspec.strings = none;
		opts.pathspec.count = 1;
	}
	if (git_diff_tree_to_tree(diff, repo, old, new, &opts))
		goto out;
	ret = git_diff_find_similar(*diff, NULL);
out:
	paths_release(&paths);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	return ret;
}

struct stat_line {
	char *name;
	size_t adds, dels;
	bool binary;
};

/* The diffstat as format-patch writes it (72 columns) */
static void diffstat(const struct stat_line *v, size_t nr, struct strbuf *out)
{
	size_t i, name_w = 0, max = 0, adds = 0, dels = 0, num_w = 1, graph_w, n;

	for (i = 0; i < nr; i++) {
		name_w = MAX(name_w, strlen(v[i].name));
		max = MAX(max, v[i].adds + v[i].dels);
		adds += v[i].adds;
		dels += v[i].dels;
	}
	for (n = max; n >= 10; n /= 10)
		num_w++;
	name_w = MIN(name_w, (size_t)50);
	graph_w = 72 - MIN((size_t)60, name_w + num_w + 4);
	for (i = 0; i < nr; i++) {
		size_t len = strlen(v[i].name), total = v[i].adds + v[i].dels;
		size_t pa = v[i].adds, pd = v[i].dels;
		const char *name = v[i].name;

		if (len > name_w) {
			strbuf_addstr(out, " ...");
			name += len - name_w + 3;
			len = name_w - 3;
		} else {
			strbuf_addch(out, ' ');
		}
		strbuf_addf(out, "%-*s | ", (int)len + (int)(name_w - MIN(len, name_w)), name);
		if (v[i].binary) {
			strbuf_addstr(out, "Bin\n");
			continue;
		}
		if (total > graph_w) {
			/* as git: each side scaled, a change never shown as nothing */
			pa = pa ? 1 + pa * (graph_w - 1) / max : 0;
			pd = pd ? 1 + pd * (graph_w - 1) / max : 0;
		}
		strbuf_addf(out, "%*zu%s", (int)num_w, total, total ? " " : "");
		strbuf_addchars(out, '+', pa);
		strbuf_addchars(out, '-', pd);
		strbuf_addch(out, '\n');
	}
	strbuf_addf(out, " %zu file%s changed", nr, nr == 1 ? "" : "s");
	if (adds)
		strbuf_addf(out, ", %zu insertion%s(+)", adds, adds == 1 ? "" : "s");
	if (dels)
		strbuf_addf(out, ", %zu deletion%s(-)", dels, dels == 1 ? "" : "s");
	strbuf_addch(out, '\n');
}

/* The diff of a commit as text, its diffstat and summary: one xdiff pass */
static int diff_text(git_diff *diff, struct strbuf *stat, struct strbuf *text)
{
	size_t i, nr = git_diff_num_deltas(diff);
	struct stat_line *v = xcalloc(nr + 1, sizeof(*v));
	struct strbuf summary = STRBUF_INIT;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_buf buf = GIT_BUF_INIT;
		git_patch *p;
		size_t adds = 0, dels = 0;

		if (git_patch_from_diff(&p, diff, i)) {
			ret = -1;
			break;
		}
		git_patch_line_stats(NULL, &adds, &dels, p);
		if (git_patch_to_buf(&buf, p))
			ret = -1;
		else
			strbuf_add(text, buf.ptr, buf.size);
		git_buf_dispose(&buf);
		git_patch_free(p);
		v[i].adds = adds;
		v[i].dels = dels;
		v[i].binary = d->flags & GIT_DIFF_FLAG_BINARY;
		if (d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED) {
			v[i].name = xasprintf("%s => %s", d->old_file.path, d->new_file.path);
			strbuf_addf(&summary, " %s %s (%d%%)\n",
				    d->status == GIT_DELTA_RENAMED ? "rename" : "copy",
				    v[i].name, d->similarity);
		} else {
			v[i].name = xstrdup(d->new_file.path);
		}
		if (d->status == GIT_DELTA_ADDED)
			strbuf_addf(&summary, " create mode %06o %s\n",
				    d->new_file.mode, d->new_file.path);
		else if (d->status == GIT_DELTA_DELETED)
			strbuf_addf(&summary, " delete mode %06o %s\n",
				    d->old_file.mode, d->old_file.path);
	}
	if (!ret) {
		diffstat(v, nr, stat);
		strbuf_addbuf(stat, &summary);
	}
	for (i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
	strbuf_release(&summary);
	return ret;
}

int gitdev_format_patch(struct gitdev_repo *r, const char *id, const char *tags,
			struct strbuf *mail, struct strbuf *err)
{
	struct strbuf patch = STRBUF_INIT, stat = STRBUF_INIT;
	git_diff *diff = NULL;
	git_commit *c;
	const git_signature *a;
	const char *summary, *body;
	int ret = -EIO;

	if (lookup_commit(r->repo, id, &c)) {
		strbuf_addf(err, "'%s' is not a commit", id);
		return -ENOENT;
	}
	if (commit_diff(r->repo, c, &diff) || diff_text(diff, &stat, &patch)) {
		git_error_to(err, id);
		goto out;
	}
	a = git_commit_author(c);
	summary = git_commit_summary(c);
	body = git_commit_body(c);
	strbuf_addf(mail, "From %s Mon Sep 17 00:00:00 2001\n", git_oid_tostr_s(git_commit_id(c)));
	strbuf_addf(mail, "From: %s <%s>\nDate: ", a->name, a->email);
	mail_format_date(a->when.time, a->when.offset, mail);
	strbuf_addf(mail, "\nSubject: [%s] %s\n", tags, summary ? summary : "");
	if (!is_ascii(a->name) || (summary && !is_ascii(summary)) ||
	    (body && !is_ascii(body)))
		strbuf_addstr(mail, "MIME-Version: 1.0\n"
			      "Content-Type: text/plain; charset=UTF-8\n"
			      "Content-Transfer-Encoding: 8bit\n");
	strbuf_addch(mail, '\n');
	if (body && *body) {
		strbuf_addstr(mail, body);
		strbuf_complete_line(mail);
	}
	strbuf_addstr(mail, "---\n");
	strbuf_addbuf(mail, &stat);
	strbuf_addch(mail, '\n');
	strbuf_addbuf(mail, &patch);
	strbuf_addstr(mail, "-- \nlorebot\n\n");
	ret = 0;
out:
	strbuf_release(&patch);
	strbuf_release(&stat);
	git_diff_free(diff);
	git_commit_free(c);
	return ret;
}

int gitdev_diff_text(const char *path, const char *old, size_t old_len,
		     const char *new, size_t new_len, struct strbuf *out)
{
	git_patch *patch = NULL;
	git_buf buf = GIT_BUF_INIT;
	int ret = -EIO;

	git_lib_init();
	if (git_patch_from_buffers(&patch, old, old_len, path, new, new_len, path,
				   NULL))
		return ret;
	if (!git_patch_to_buf(&buf, patch)) {
		strbuf_add(out, buf.ptr, buf.size);
		ret = 0;
	}
	git_buf_dispose(&buf);
	git_patch_free(patch);
	return ret;
}

int gitdev_changed(struct gitdev_repo *r, const char *const *paths, size_t nr,
		   struct strbuf *which, struct strbuf *err)
{
	size_t i;
	int n = 0;

	if (!r->workdir) {
		strbuf_addf(err, "'%s' is a bare repository", r->gitdir);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		unsigned int flags = 0;

		if (git_status_file(&flags, r->repo, paths[i])) {
			git_error_to(err, paths[i]);
			return -EIO;
		}
		if (flags != GIT_STATUS_CURRENT) {
			strbuf_addf(which, "%s\n", paths[i]);
			n++;
		}
	}
	return n;
}

int gitdev_commit_files(struct gitdev_repo *r, const struct gitdev_file *files,
			size_t nr, const char *message, char out[41],
			struct strbuf *err)
{
	git_checkout_options co;
	git_tree_update *up = xcalloc(nr, sizeof(*up));
	git_reference *head = NULL;
	git_commit *parent = NULL;
	git_tree *base = NULL, *tree = NULL;
	git_signature *me = NULL;
	git_oid tree_id, commit_id;
	char **paths = xcalloc(nr, sizeof(*paths));
	size_t i;
	int ret = -EBUSY;

	if (git_repository_head(&head, r->repo) || !git_reference_is_branch(head)) {
		strbuf_addstr(err, "HEAD is not on a branch");
		goto out;
	}
	if (strcmp(git_oid_tostr_s(git_reference_target(head)), r->head)) {
		strbuf_addstr(err, "HEAD moved while lorebot was checking");
		goto out;
	}
	ret = -EIO;
	if (lookup_commit(r->repo, r->head, &parent) || git_commit_tree(&base, parent)) {
		git_error_to(err, "cannot read HEAD");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		git_tree_entry *e;

		if (git_tree_entry_bypath(&e, base, files[i].path)) {
			strbuf_addf(err, "'%s' is not in HEAD", files[i].path);
			goto out;
		}
		up[i].action = GIT_TREE_UPDATE_UPSERT;
		up[i].filemode = git_tree_entry_filemode(e);
		up[i].path = files[i].path;
		paths[i] = (char *)files[i].path;
		git_tree_entry_free(e);
		if (git_blob_create_from_buffer(&up[i].id, r->repo, files[i].data,
						files[i].len)) {
			git_error_to(err, files[i].path);
			goto out;
		}
	}
	if (git_signature_default(&me, r->repo)) {
		strbuf_addstr(err, "no identity to commit as (set user.name and user.email)");
		ret = -ENOENT;
		goto out;
	}
	if (git_tree_create_updated(&tree_id, r->repo, base, nr, up) ||
	    git_tree_lookup(&tree, r->repo, &tree_id) ||
	    git_commit_create(&commit_id, r->repo, "HEAD", me, me, NULL, message,
			      tree, 1, (const git_commit **)&parent)) {
		git_error_to(err, "cannot commit");
		goto out;
	}
	git_oid_tostr(out, 41, &commit_id);
	git_oid_tostr(r->head, sizeof(r->head), &commit_id);
	/* the files concerned follow the new commit in the index and work tree */
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	co.paths.strings = paths;
	co.paths.count = nr;
	co.baseline = base;
	if (git_checkout_tree(r->repo, (git_object *)tree, &co)) {
		git_error_to(err, "committed, but the work tree was not updated");
		goto out;
	}
	ret = 0;
out:
	git_signature_free(me);
	git_tree_free(tree);
	git_tree_free(base);
	git_commit_free(parent);
	git_reference_free(head);
	free(up);
	free(paths);
	return ret;
}
