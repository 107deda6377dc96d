// SPDX-License-Identifier: GPL-2.0
/*
 * What a build directory keeps between steps and processes: who owns
 * it, its state file (the commit checked out, the last one built, the
 * base build's figures, the mark of a step running), the record of obj/
 * as the last trusted build left it (ci/objguard.h) and what obj/ holds,
 * and whether the commit being built is trusted.  The make steps
 * (kbuild-make.c), W=1 (w1.c) and the directory's life (kbuild.c) call
 * it; it calls none of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "ci/kbuild-priv.h"
#include "ci/kbuild-cmd.h"
#include "ci/objguard.h"

/* The build user owns what builds write: obj/ and the ccache */
int kbuild_give_tree(const struct kbuild_env *env, const char *path)
{
	if (!env->uid)
		return 0;
	return util_chown_tree(path, env->uid, env->gid);
}

/* ---- the state file ---- */

/* The next line of a buffer, terminated in place; NULL at the end */
char *kbuild_next_line(char **pos)
{
	char *line = *pos, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchrnul(line, '\n');
	*pos = *nl ? nl + 1 : NULL;
	*nl = '\0';
	return line;
}

void kbuild_state_read(const struct kbuild_tree *t, struct kbuild_state *s)
{
	char *path = xasprintf("%s/state", t->dir), *buf = NULL, *p, *nl;

	memset(s, 0, sizeof(*s));
	if (util_read_file(path, &buf, NULL, 1 << 16)) {
		free(path);
		return;
	}
	for (nl = buf; (p = kbuild_next_line(&nl));) {
		char *v = strchr(p, ' ');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(p, "cur") && strlen(v) == OID_HEX - 1)
			memcpy(s->cur, v, OID_HEX);
		else if (!strcmp(p, "built") && strlen(v) == OID_HEX - 1)
			memcpy(s->built, v, OID_HEX);
		else if (!strcmp(p, "base_built"))
			s->base_built = atoi(v);
		else if (!strcmp(p, "base_ok"))
			s->base_ok = atoi(v);
		else if (!strcmp(p, "busy"))
			s->busy_ms = strtoull(v, NULL, 10);
		else if (!strcmp(p, "base_ms"))
			s->base_ms = strtoull(v, NULL, 10);
		else if (!strcmp(p, "base_hits"))
			s->base_hits = atoi(v);
		else if (!strcmp(p, "base_misses"))
			s->base_misses = atoi(v);
	}
	free(buf);
	free(path);
}

int kbuild_state_write(const struct kbuild_tree *t, const struct kbuild_state *s)
{
	char *path = xasprintf("%s/state", t->dir);
	char *tmp = xasprintf("%s/state.tmp", t->dir);
	char *buf = xasprintf("cur %s\nbuilt %s\nbase_built %d\nbase_ok %d\n"
			      "busy %llu\nbase_ms %llu\nbase_hits %u\nbase_misses %u\n",
			      s->cur, s->built, s->base_built, s->base_ok,
			      (unsigned long long)s->busy_ms,
			      (unsigned long long)s->base_ms, s->base_hits,
			      s->base_misses);
	int ret = util_write_file(tmp, buf, strlen(buf));

	if (!ret && rename(tmp, path))
		ret = -errno;
	free(buf);
	free(tmp);
	free(path);
	return ret;
}

static void save_state(struct kbuild_tree *t, int busy)
{
	struct kbuild_state s;

	kbuild_state_read(t, &s);
	if (busy >= 0)
		s.busy_ms = busy ? util_wall_ms() : 0;
	memcpy(s.cur, t->cur, OID_HEX);
	memcpy(s.built, t->built, OID_HEX);
	if (kbuild_state_write(t, &s))
		log_warn("cannot write the state of '%s'", t->dir);
}

void kbuild_mark_busy(struct kbuild_tree *t, bool busy)
{
	save_state(t, busy);
}

void kbuild_save_state(struct kbuild_tree *t)
{
	save_state(t, -1);
}

bool kbuild_config_has(const struct kbuild_tree *t, const char *line)
{
	char *path = xasprintf("%s/.config", t->obj), *buf = NULL;
	bool found = false;
	size_t n = strlen(line);

	/* obj/ is the build user's: no link there followed, no FIFO opened */
	if (!util_read_file_beneath(t->obj, path, &buf, NULL, 16 << 20)) {
		const char *p = buf;

		while ((p = strstr(p, line))) {
			if ((p == buf || p[-1] == '\n') &&
			    (p[n] == '\n' || !p[n])) {
				found = true;
				break;
			}
			p += n;
		}
	}
	free(buf);
	free(path);
	return found;
}

/* ---- obj/ between series (ci/objguard.h) ---- */

/*
 * lorebot's own files in obj/: .config is restored by content, the log
 * and the checkers' wrapper (ci/kcheck.c) are written for each step
 */
static const char *const guard_skip[] = {
	".config", ".lorebot-ccache.log", ".lorebot-check", NULL
};

int kbuild_obj_file_reset(const char *path)
{
	struct stat st;

	if (lstat(path, &st) || S_ISREG(st.st_mode))
		return 0;
	log_warn("removing '%s': a build left it as %s, not a file", path,
		 S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISFIFO(st.st_mode) ? "a FIFO" :
		 S_ISDIR(st.st_mode) ? "a directory" : "a special file");
	return util_remove_tree(path);
}

char *kbuild_tree_file(const struct kbuild_tree *t, const char *name)
{
	return xasprintf("%s/%s", t->dir, name);
}

/* Record obj/ as a trusted build (or the base's) left it */
void kbuild_guard_save(struct kbuild_tree *t)
{
	struct strbuf err = STRBUF_INIT;
	char *m = kbuild_tree_file(t, OBJ_MANIFEST), *u = kbuild_tree_file(t, OBJ_UNTRUSTED);

	if (objguard_save(t->obj, m, guard_skip, &err))
		log_warn("%s: %s", t->dir, err.buf);
	else
		unlink(u);
	strbuf_release(&err);
	free(m);
	free(u);
}

/*
 * After an untrusted build: remove from obj/ whatever it left that the
 * record does not have, so that make builds it again from the sources.
 * True when obj/ was not as recorded (something removed, or missing).
 */
bool kbuild_guard_clean(struct kbuild_tree *t)
{
	struct strbuf err = STRBUF_INIT;
	char *m = kbuild_tree_file(t, OBJ_MANIFEST), *u = kbuild_tree_file(t, OBJ_UNTRUSTED);
	unsigned long removed = 0, missing = 0;
	bool dirty = false;
	int ret;

	if (access(u, F_OK))
		goto out;
	dirty = true;
	ret = objguard_restore(t->obj, m, guard_skip, &removed, &missing, &err);
	if (ret == -ENOENT) {
		/* no record to go back to: nothing of it can be trusted */
		log_warn("%s: no record of obj/ after an untrusted build: "
			 "emptied", t->dir);
		if (util_remove_tree(t->obj) || util_mkdir_p(t->obj, 0755) ||
		    kbuild_give_tree(t->env, t->obj))
			log_warn("%s: cannot empty obj/: %s", t->dir, strerror(errno));
	} else if (ret) {
		log_warn("%s: %s", t->dir, err.buf);
	} else {
		log_info("%s: removed %lu entries of obj/ an untrusted build "
			 "left; %lu of the base's to make again", t->arch.name,
			 removed, missing);
		dirty = removed || missing;
	}
	memset(t->built, 0, sizeof(t->built));	/* make decides again */
	kbuild_save_state(t);
	if (!ret || ret == -ENOENT)
		unlink(u);
out:
	strbuf_release(&err);
	free(m);
	free(u);
	return dirty;
}

void kbuild_refresh_later(struct kbuild_tree *t)
{
	char *r = kbuild_tree_file(t, OBJ_REFRESH);
	int fd = open(r, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		log_warn("cannot create '%s': %s", r, strerror(errno));
	else
		close(fd);
	t->refresh_due = true;
	free(r);
}

bool kbuild_refresh_marked(const struct kbuild_tree *t)
{
	char *r = kbuild_tree_file(t, OBJ_REFRESH);
	bool marked = !access(r, F_OK);

	free(r);
	return marked;
}

void kbuild_refresh_done(struct kbuild_tree *t)
{
	char *r = kbuild_tree_file(t, OBJ_REFRESH);

	if (unlink(r) && errno != ENOENT)
		log_warn("cannot remove '%s': %s", r, strerror(errno));
	t->refresh_due = false;
	free(r);
}

void kbuild_guard_before(struct kbuild_tree *t, bool trusted)
{
	char *u;
	int fd;

	if (trusted) {
		kbuild_guard_clean(t);
		return;
	}
	u = kbuild_tree_file(t, OBJ_UNTRUSTED);
	fd = open(u, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		log_warn("cannot create '%s': %s", u, strerror(errno));
	else
		close(fd);
	free(u);
}

void kbuild_guard_after(struct kbuild_tree *t, bool trusted)
{
	if (trusted)
		kbuild_guard_save(t);
}

/* ---- what obj/ holds ---- */

bool kbuild_compiled(const struct kbuild_tree *t, const char *c_path)
{
	char *unit = kbuild_c_unit(c_path);
	struct stat st;
	char *cmd;
	bool ret;

	if (!unit)
		return false;
	cmd = kbuild_cmd_file(t->obj, unit);
	free(unit);
	ret = !stat(cmd, &st);
	/*
	 * Not there: the guard or a recovery may have removed it (in this
	 * process or an earlier one, with no make since), so the last
	 * trusted build's record of obj/ answers
	 */
	if (!ret) {
		char *m = kbuild_tree_file(t, OBJ_MANIFEST);

		ret = objguard_recorded(m, cmd + strlen(t->obj) + 1);
		free(m);
	}
	free(cmd);
	return ret;
}

/* ---- trust ---- */

/* Is oid on a git.base branch (or is every commit trusted)? */
bool kbuild_commit_trusted(const struct kbuild_tree *t, const char *oid)
{
	const struct cfg_list *bases = &config_v(t->env->cfg)->git_base;
	bool trust = t->env->trust_all;
	size_t i;

	for (i = 0; i < bases->nr && !trust; i++)
		trust = srctree_is_ancestor(t->git_dir, oid, bases->v[i]);
	return trust;
}

bool kbuild_trusted(struct kbuild_tree *t)
{
	if (!memcmp(t->trust_oid, t->cur, OID_HEX))
		return t->trust;
	memcpy(t->trust_oid, t->cur, OID_HEX);
	t->trust = kbuild_commit_trusted(t, t->cur);
	return t->trust;
}
