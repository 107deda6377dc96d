// SPDX-License-Identifier: GPL-2.0
/*
 * Quarantined writes (bot/git/gitrepo.h), as git's receive-pack keeps a
 * push's objects apart until they are accepted: the sandboxed apply
 * writes its objects into a directory of its own and reads the
 * repository read-only; the trusted side takes in what it made, checked.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include "bot/git/git-int.h"
#include "lib/strmap.h"

/* ahead of the alternates' loose (1) and pack (2) backends */
#define QUARANTINE_PRIORITY 10

/* An object database of the loose objects of dir alone (no alternates) */
static int loose_odb(const char *dir, git_odb **out)
{
	git_odb_backend *b = NULL;
	git_odb *odb = NULL;
	int ret;

	ret = git_odb_new(&odb);
	if (!ret)
		ret = git_odb_backend_loose(&b, dir, -1, 0, 0, 0);
	if (!ret && (ret = git_odb_add_backend(odb, b, QUARANTINE_PRIORITY)))
		b->free(b);
	if (ret) {
		git_odb_free(odb);
		return ret;
	}
	*out = odb;
	return 0;
}

/*
 * An object database of dir, the only one written, over the repository's
 * objects as an alternate, which libgit2 never writes to
 */
static int quarantine_odb(git_repository *repo, const char *dir, git_odb **out)
{
	char *objects = xasprintf("%sobjects", git_repository_path(repo));
	int ret = loose_odb(dir, out);

	if (!ret && (ret = git_odb_add_disk_alternate(*out, objects))) {
		git_odb_free(*out);
		*out = NULL;
	}
	free(objects);
	return ret;
}

int gitrepo_quarantine(struct gitrepo *r, const char *dir, struct strbuf *err)
{
	git_odb *odb = NULL;
	int ret;

	ret = quarantine_odb(r->repo, dir, &odb);
	if (!ret)
		ret = git_repository_set_odb(r->repo, odb);
	git_odb_free(odb);
	if (ret)
		return git_fail(ret, err, "cannot write objects to '%s'", dir);
	return 0;
}

/*
 * What the writer left must be loose objects and nothing else: <xx>/
 * directories of regular files (a link could lend it any object the
 * importer can read).  Their count and size are bounded.
 */
static int scan_quarantine(const char *dir, const struct gitrepo_import_limits *lim,
			   struct strbuf *err)
{
	uint64_t files = 0, bytes = 0;
	struct dirent *de, *fe;
	struct stat top;
	DIR *d, *sub;
	int ret = 0;

	/* the writer could have put a link where its quarantine was */
	if (lstat(dir, &top) || !S_ISDIR(top.st_mode)) {
		strbuf_addf(err, "'%s' is not a directory", dir);
		return -EPERM;
	}
	d = opendir(dir);
	if (!d) {
		strbuf_addf(err, "cannot read '%s': %s", dir, strerror(errno));
		return -errno;
	}
	while (!ret && (de = readdir(d))) {
		char *path;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode) || strlen(de->d_name) != 2 ||
		    !isxdigit((unsigned char)de->d_name[0]) ||
		    !isxdigit((unsigned char)de->d_name[1])) {
			strbuf_addf(err, "'%s' is not a directory of loose objects", path);
			ret = -EPERM;
		} else if (!(sub = opendir(path))) {
			strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
			ret = -EIO;
		} else {
			while (!ret && (fe = readdir(sub))) {
				char *f;

				if (!strcmp(fe->d_name, ".") || !strcmp(fe->d_name, ".."))
					continue;
				f = xasprintf("%s/%s", path, fe->d_name);
				if (lstat(f, &st) || !S_ISREG(st.st_mode)) {
					strbuf_addf(err, "'%s' is not a loose object", f);
					ret = -EPERM;
				} else if (++files > lim->max_objects ||
					   (bytes += st.st_size) > lim->max_bytes) {
					strbuf_addf(err, "more than %llu objects or %llu bytes in '%s'",
						    (unsigned long long)lim->max_objects,
						    (unsigned long long)lim->max_bytes, dir);
					ret = -E2BIG;
				}
				free(f);
			}
			closedir(sub);
		}
		free(path);
	}
	closedir(d);
	return ret;
}

/* A tree entry's name: one path component, and not one git refuses */
static bool entry_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
		strcasecmp(name, ".git");
}

/* A link's target from a directory depth deep: relative, and inside */
static bool link_target_ok(const char *t, size_t len, int depth)
{
	size_t i = 0;

	if (!len || *t == '/' || memchr(t, '\0', len))
		return false;
	while (i < len) {
		size_t n = 0;

		while (i + n < len && t[i + n] != '/')
			n++;
		if (n == 2 && !memcmp(t + i, "..", 2)) {
			if (--depth < 0)
				return false;
		} else if (n && !(n == 1 && t[i] == '.')) {
			depth++;
		}
		i += n + 1;
	}
	return true;
}

struct walk_item {
	git_oid id;
	git_object_t type;
	int depth;		/* a tree's, or a link's directory */
	bool link;
};

struct import_walk {
	git_repository *view;	/* the quarantine over the repository */
	git_odb *main;		/* the repository's own objects */
	git_odb *q;		/* the quarantine alone */
	struct walk_item *stack;
	size_t nr, alloc;
	git_oid *take;		/* the objects to take in, in walk order */
	size_t nr_take, alloc_take;
	char **hex;		/* take's ids in hex, the keys of seen */
	struct strmap seen;
	const struct gitrepo_import_limits *lim;
	struct strbuf *err;
};

static void push(struct import_walk *w, const git_oid *id, git_object_t type,
		 int depth, bool link)
{
	ALLOC_GROW(w->stack, w->nr + 1, w->alloc);
	w->stack[w->nr].id = *id;
	w->stack[w->nr].type = type;
	w->stack[w->nr].depth = depth;
	w->stack[w->nr].link = link;
	w->nr++;
}

static bool taken(const struct import_walk *w, const git_oid *id)
{
	return strmap_get(&w->seen, git_oid_tostr_s(id));
}

static int walk_commit(struct import_walk *w, const git_oid *id)
{
	git_commit *c;
	unsigned int i;
	int ret = git_commit_lookup(&c, w->view, id);

	if (ret)
		return git_fail(ret, w->err, "bad commit %s", git_oid_tostr_s(id));
	push(w, git_commit_tree_id(c), GIT_OBJECT_TREE, 0, false);
	for (i = 0; i < git_commit_parentcount(c); i++)
		push(w, git_commit_parent_id(c, i), GIT_OBJECT_COMMIT, 0, false);
	git_commit_free(c);
	return 0;
}

static int walk_tree(struct import_walk *w, const struct walk_item *it)
{
	git_tree *t;
	size_t i, n;
	int ret = git_tree_lookup(&t, w->view, &it->id);

	if (ret)
		return git_fail(ret, w->err, "bad tree %s", git_oid_tostr_s(&it->id));
	n = git_tree_entrycount(t);
	for (i = 0; !ret && i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const char *name = git_tree_entry_name(e);

		if (!entry_name_ok(name)) {
			strbuf_addf(w->err, "tree %s: bad name '%s'",
				    git_oid_tostr_s(&it->id), name);
			ret = -EPERM;
			break;
		}
		switch (git_tree_entry_filemode_raw(e)) {
		case GIT_FILEMODE_TREE:
			push(w, git_tree_entry_id(e), GIT_OBJECT_TREE, it->depth + 1, false);
			break;
		case GIT_FILEMODE_BLOB:
		case GIT_FILEMODE_BLOB_EXECUTABLE:
			push(w, git_tree_entry_id(e), GIT_OBJECT_BLOB, it->depth, false);
			break;
		case GIT_FILEMODE_LINK:
			push(w, git_tree_entry_id(e), GIT_OBJECT_BLOB, it->depth, true);
			break;
		case GIT_FILEMODE_COMMIT:
			/* a submodule's commit is not in this repository */
			break;
		default:
			strbuf_addf(w->err, "tree %s: bad mode of '%s'",
				    git_oid_tostr_s(&it->id), name);
			ret = -EPERM;
		}
	}
	git_tree_free(t);
	return ret;
}

static int walk_blob(struct import_walk *w, const struct walk_item *it)
{
	git_odb_object *o;
	int ret;

	if (!it->link)
		return 0;
	ret = git_odb_read(&o, w->q, &it->id);
	if (ret)
		return git_fail(ret, w->err, "bad link %s", git_oid_tostr_s(&it->id));
	if (!link_target_ok(git_odb_object_data(o), git_odb_object_size(o), it->depth)) {
		strbuf_addf(w->err, "link %s points outside the tree",
			    git_oid_tostr_s(&it->id));
		ret = -EPERM;
	}
	git_odb_object_free(o);
	return ret;
}

/* One object: already there, or the quarantine's, of its type, and parsed */
static int walk_one(struct import_walk *w, const struct walk_item *it)
{
	git_object_t type;
	size_t size;
	int ret;

	if (git_odb_exists(w->main, &it->id) || taken(w, &it->id))
		return 0;
	ret = git_odb_read_header(&size, &type, w->q, &it->id);
	if (ret)
		return git_fail(ret, w->err, "%s is in neither the repository nor the "
				"quarantine", git_oid_tostr_s(&it->id));
	if (type != it->type) {
		strbuf_addf(w->err, "%s is a %s, not a %s", git_oid_tostr_s(&it->id),
			    git_object_type2string(type), git_object_type2string(it->type));
		return -EPERM;
	}
	ALLOC_GROW(w->take, w->nr_take + 1, w->alloc_take);
	w->hex = xrealloc(w->hex, w->alloc_take * sizeof(*w->hex));
	w->hex[w->nr_take] = xstrdup(git_oid_tostr_s(&it->id));
	strmap_put(&w->seen, w->hex[w->nr_take], w->hex[w->nr_take]);
	w->take[w->nr_take++] = it->id;
	if (type == GIT_OBJECT_COMMIT)
		return walk_commit(w, &it->id);
	if (type == GIT_OBJECT_TREE)
		return walk_tree(w, it);
	return walk_blob(w, it);
}

/*
 * Read back (the hash is checked on reading), then written where it
 * belongs: last found first, so that whatever is in the repository,
 * should this stop halfway, has everything it refers to
 */
static int take_in(struct import_walk *w)
{
	size_t i;
	int ret = 0;

	for (i = w->nr_take; !ret && i-- > 0;) {
		git_odb_object *o;
		git_oid id;

		ret = git_odb_read(&o, w->q, &w->take[i]);
		if (ret)
			return git_fail(ret, w->err, "cannot read %s",
					git_oid_tostr_s(&w->take[i]));
		ret = git_odb_write(&id, w->main, git_odb_object_data(o),
				    git_odb_object_size(o), git_odb_object_type(o));
		git_odb_object_free(o);
		if (ret)
			return git_fail(ret, w->err, "cannot write %s",
					git_oid_tostr_s(&w->take[i]));
		if (!git_oid_equal(&id, &w->take[i])) {
			strbuf_addf(w->err, "%s was written as %s",
				    git_oid_tostr_s(&w->take[i]), git_oid_tostr_s(&id));
			ret = -EIO;
		}
	}
	return ret;
}

static int open_views(struct import_walk *w, struct gitrepo *r, const char *dir)
{
	git_odb *view = NULL;
	int ret;

	ret = git_repository_odb(&w->main, r->repo);
	if (!ret)
		ret = loose_odb(dir, &w->q);
	/* the view parses what the quarantine holds over what the repository does */
	if (!ret)
		ret = quarantine_odb(r->repo, dir, &view);
	if (!ret)
		ret = git_repository_wrap_odb(&w->view, view);
	git_odb_free(view);
	if (ret)
		return git_fail(ret, w->err, "cannot open the quarantine '%s'", dir);
	return 0;
}

int gitrepo_import(struct gitrepo *r, const char *dir, const struct gitoid *tip,
		   const struct gitrepo_import_limits *lim, size_t *nr_objects,
		   struct strbuf *err)
{
	struct import_walk w = { .lim = lim, .err = err, .seen = STRMAP_INIT };
	int ret;

	*nr_objects = 0;
	ret = scan_quarantine(dir, lim, err);
	if (!ret)
		ret = open_views(&w, r, dir);
	if (!ret) {
		push(&w, to_git(tip), GIT_OBJECT_COMMIT, 0, false);
		while (!ret && w.nr) {
			struct walk_item it = w.stack[--w.nr];

			ret = walk_one(&w, &it);
			if (!ret && w.nr_take > lim->max_objects) {
				strbuf_addf(err, "more than %llu new objects",
					    (unsigned long long)lim->max_objects);
				ret = -E2BIG;
			}
		}
	}
	if (!ret)
		ret = take_in(&w);
	if (!ret)
		*nr_objects = w.nr_take;
	git_repository_free(w.view);
	git_odb_free(w.q);
	git_odb_free(w.main);
	strmap_release(&w.seen);
	while (w.nr_take)
		free(w.hex[--w.nr_take]);
	free(w.hex);
	free(w.stack);
	free(w.take);
	return ret;
}
