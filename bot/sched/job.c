// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <json-c/json.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/apply/apply.h"
#include "bot/results/contract.h"
#include "bot/base/db.h"
#include "bot/git/gitdirs.h"
#include "bot/git/gitrepo.h"
#include "bot/sched/job.h"
#include "bot/sched/pipeline.h"
#include "bot/base/arch.h"
#include "bot/mail/mbox.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "bot/apply/remotes.h"
#include "bot/export/kcidb.h"
#include "bot/export/patchwork.h"
#include "bot/report/reply.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "bot/stage/stage.h"
#include "lib/run.h"
#include "lib/template.h"

#define STAGE_OUTPUT_MAX (64 << 20)
/* the repository's directories outside it a stage's sandbox shows (alternates) */
#define RUN_STAGE_REPO_DIRS 8
/* replies to a version's mail given to its stages, at most */
#define THREAD_MAX 2000

/*
 * jobs/ can be searched, not listed, by the build user, and a job's
 * directory is its owner's alone (the daemon's, or build.user's while a
 * stage runs as it): no job reads another's mail or logs
 */
char *job_dir(const struct job_env *env, int64_t id)
{
	char *jobs = xasprintf("%s/jobs", env->statedir);
	char *d = xasprintf("%s/%lld", jobs, (long long)id);
	struct stat st;

	util_mkdir_p(jobs, 0711);
	if (mkdir(d, 0700) && errno == EEXIST && !lstat(d, &st) && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 077) && st.st_uid == geteuid())
		chmod(d, 0700);
	free(jobs);
	return d;
}

/*
 * What a stage's sandbox may write: work/ of its job's directory, its
 * working directory, with its input (series.mbox) and apply's
 * quarantine.  The rest of the job's directory is the daemon's and the
 * executor's (the logs, job.json, result.json, Slurm's batch script and
 * exit status), out of the sandbox's reach (issue 38: the sandbox wrote
 * links there that the daemon, as root, then wrote through).
 */
#define WORK_DIR "work"

static char *work_path(const char *dir)
{
	return xasprintf("%s/" WORK_DIR, dir);
}

/* work/ made afresh for an attempt: nothing an earlier one left; 0 or -errno */
static int work_fresh(const char *work)
{
	int r = util_remove_tree(work);

	if (!r && mkdir(work, 0700))
		r = -errno;
	return r;
}

/*
 * A file of a job's directory, which its sandbox could write: written
 * and read without following a link it planted there
 */
static int job_file_write(const char *path, const void *buf, size_t len)
{
	char *dir = util_path_dirname(path);
	int r = util_write_file_beneath(dir, path, buf, len);

	free(dir);
	return r;
}

static int job_file_read(const char *path, char **buf, size_t *len, size_t max)
{
	char *dir = util_path_dirname(path);
	int r = util_read_file_beneath(dir, path, buf, len, max);

	free(dir);
	return r;
}

/*
 * The version's messages as an mbox file: its cover letter and patches;
 * with thread, also the replies to them (the trailers they give go into
 * the commits) and what they reply to (a partial resend is completed
 * from it).  In the order assembly reads the database in.
 */
#define THREAD_DEPTH 64

static int write_version_mbox(struct store *st, const char *version,
			      bool thread, const char *path, struct strbuf *err)
{
	struct db_stmt *q = db_prepare(st->db,
		"WITH RECURSIVE"
		" own(msgid) AS (SELECT cover FROM versions WHERE id = ?1 AND cover IS NOT NULL"
		"  UNION SELECT msgid FROM patches WHERE version = ?1),"
		" up(msgid, depth) AS (SELECT m.parent, 1 FROM messages m JOIN own o"
		"   ON m.msgid = o.msgid WHERE m.parent IS NOT NULL AND ?2 > 0"
		"  UNION SELECT m.parent, up.depth + 1 FROM messages m JOIN up"
		"   ON m.msgid = up.msgid WHERE m.parent IS NOT NULL AND up.depth < ?2),"
		" down(msgid, depth) AS (SELECT m.msgid, 1 FROM messages m JOIN own o"
		"   ON m.parent = o.msgid WHERE ?2 > 0"
		"  UNION SELECT m.msgid, down.depth + 1 FROM messages m JOIN down"
		"   ON m.parent = down.msgid WHERE down.depth < ?2),"
		" replies(msgid) AS (SELECT d.msgid FROM down d JOIN messages m ON m.msgid = d.msgid"
		"   WHERE json_extract(m.meta, '$.has_diff') = 0 OR m.subject LIKE 're:%'"
		"   GROUP BY d.msgid ORDER BY min(m.id) LIMIT ?3),"
		" wanted(msgid) AS (SELECT msgid FROM own UNION SELECT msgid FROM up"
		"  UNION SELECT msgid FROM replies)"
		" SELECT w.msgid FROM wanted w JOIN messages m ON m.msgid = w.msgid"
		" GROUP BY w.msgid ORDER BY min(m.date), min(m.id)");
	struct strbuf mbox = STRBUF_INIT, raw = STRBUF_INIT;
	int r, found = 0, ret = -1;

	if (!q) {
		strbuf_addf(err, "%s", db_error(st->db));
		return -1;
	}
	db_bind_text(q, 1, version);
	db_bind_int(q, 2, thread ? THREAD_DEPTH : 0);
	/* the first replies lorebot received, THREAD_MAX of them (issue 38) */
	db_bind_int(q, 3, THREAD_MAX);
	while ((r = db_step(q)) > 0) {
		char *msgid = xstrdup(db_column_text(q, 0));

		strbuf_reset(&raw);
		if (store_get_raw(st, msgid, &raw, err) != 1) {
			if (!err->len)
				strbuf_addf(err, "message <%s> is not stored", msgid);
			free(msgid);
			db_reset(q);
			goto out;
		}
		free(msgid);
		mbox_write_rd(&mbox, "mboxrd@z", raw.buf, raw.len);
		found++;
	}
	if (r < 0) {
		strbuf_addf(err, "%s", db_error(st->db));
		goto out;
	}
	if (!found) {
		strbuf_addf(err, "version <%s> has no messages", version);
		goto out;
	}
	r = job_file_write(path, mbox.buf, mbox.len);
	if (r) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(-r));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&mbox);
	strbuf_release(&raw);
	return ret;
}

struct stage_run {
	struct store *st;
	const struct config *cfg;
	const struct job_env *env;
	struct job *j;
	char *dir;
	char *work;		/* dir/work: the sandbox's (work_path()) */
	char *mbox;		/* the version as an mbox, in dir */
	json_object *apply;	/* the apply result, when there is one */
	char *quarantine;	/* apply's objects, in dir */
};

/*
 * argv with "--config FILE" after the program when there is one, and
 * the daemon's state directory (the database, the jobs, the fetch
 * pass's files) and outbox for it to hide from every sandbox it makes:
 * it knows only what its configuration names, and with "--db FILE" and
 * no core.statedir the state is elsewhere
 */
struct args {
	const char *v[32];
	int n;
};

static void arg(struct args *a, const char *s)
{
	if (a->n < (int)ARRAY_SIZE(a->v) - 1)
		a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void args_init(struct args *a, const struct stage_run *s)
{
	a->n = 0;
	arg(a, s->env->self);
	if (s->env->config) {
		arg(a, "--config");
		arg(a, s->env->config);
	}
	arg(a, "--hide");
	arg(a, s->env->statedir);
	if (s->env->outbox) {
		arg(a, "--hide");
		arg(a, s->env->outbox);
	}
	arg(a, stages[s->j->kind]->command);
}

static char *stage_log(const struct stage_run *s)
{
	return xasprintf("%s/%s%s%s.log", s->dir, plan_stage_name(s->j->kind),
			 *s->j->arch ? "-" : "", s->j->arch);
}

/* A document that says the infrastructure failed */
static bool is_infra_doc(json_object *doc, enum stage stage)
{
	json_object *a = doc;

	if (plan_per_arch(stage) && rd_doc_archs(doc))
		a = rd_at(rd_doc_archs(doc), 0);
	return plan_status_parse(rd_doc_status(a)) == STATUS_INFRA;
}

/*
 * Started as root, a sandboxed stage runs as build.user (nobody) when
 * that user can reach all it reads: then not even a root-only file among
 * what its sandbox shows is its to read.  Its job directory becomes that
 * user's.  Else (a private directory on the way, as a test's temporary
 * directory is) it keeps root's uid, without capabilities, and says so.
 */
static void stage_user(struct stage_run *s, struct run_cmd *cmd, const char *const *ro)
{
	const char *user = config_v(s->cfg)->build_user;
	struct passwd *pw = user ? getpwnam(user) : NULL;
	const char *const *p;
	const char *why = NULL;

	if (!pw || !pw->pw_uid)
		why = "build.user is not an unprivileged user";
	for (p = ro; !why && *p; p++)
		if (!util_path_readable_by(*p, pw->pw_uid))
			why = *p;
	if (!why && !util_path_readable_by(s->env->self, pw->pw_uid))
		why = s->env->self;
	/*
	 * work/ becomes its own, and the job's directory on the way can be
	 * searched (0711), not listed; jobs/ is so already
	 */
	if (!why && (util_chown_tree(s->work, pw->pw_uid, pw->pw_gid) ||
		     chmod(s->dir, 0711) || !util_path_readable_by(s->work, pw->pw_uid)))
		why = s->work;
	if (why) {
		/* all of it the daemon's again (an earlier attempt's maybe not) */
		util_chown_tree(s->work, geteuid(), getegid());
		chmod(s->dir, 0700);
		log_info("job %lld: %s runs as root's uid, without capabilities: "
			 "build.user '%s' cannot reach %s", (long long)s->j->id,
			 plan_stage_name(s->j->kind), user ? user : "", why);
	} else {
		cmd->sandbox.uid = pw->pw_uid;
		cmd->sandbox.gid = pw->pw_gid;
	}
}

/*
 * Run a stage command; its JSON on stdout becomes the result.  Exit
 * codes 0 and 1 mean it did its work (1: it found something); 3 with
 * a document of an infrastructure failure is handed back in *infra;
 * others are a failure to do the work.
 */
static int run_stage(struct stage_run *s, struct args *a, json_object **doc,
		     json_object **infra, struct strbuf *err)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	/* apply writes its objects into work/ (--quarantine) */
	const char *rw[] = { s->work, NULL };
	const char *hide[] = { s->env->statedir, NULL };
	/*
	 * The sandbox shows the host's programs and nothing else of it
	 * (lib/run.h), lorebot itself and its data included (never its
	 * checkout): what the stage reads is bound, read-only: its
	 * configuration, the repository and its directories outside it
	 * (alternates), check's cache.
	 */
	char *repo_dirs[RUN_STAGE_REPO_DIRS];
	const char *ro[RUN_STAGE_REPO_DIRS + 4] = { NULL };
	const char *cache = s->env->cache;
	char *log = stage_log(s);
	size_t nr_ro = 0, nr_repo = 0, i;
	struct strbuf how = STRBUF_INIT;
	int ret = -1;

	cmd.argv = a->v;
	cmd.cwd = s->work;
	cmd.log_path = log;
	cmd.limits.timeout_ms = s->env->timeout_ms;
	cmd.limits.max_output = STAGE_OUTPUT_MAX;
	if (stages[s->j->kind]->sandbox && s->env->sandbox) {
		/*
		 * work/ lives under the state directory: bound back after
		 * the rest is hidden (lib/run-sandbox.c: parents first)
		 */
		cmd.sandbox.enabled = true;
		cmd.sandbox.hide = hide;
		cmd.sandbox.rw = rw;
		ro[nr_ro++] = s->env->repo;
		if (s->env->config)
			ro[nr_ro++] = s->env->config;
		if (stages[s->j->kind]->reads_cache && cache && !access(cache, F_OK))
			ro[nr_ro++] = cache;
		/* the objects of a clone made with --shared, a worktree's git directories */
		nr_repo = gitdirs_outside(s->env->repo, repo_dirs, ARRAY_SIZE(repo_dirs));
		for (i = 0; i < nr_repo; i++)
			ro[nr_ro++] = repo_dirs[i];
		cmd.sandbox.ro = ro;
		if (geteuid() == 0 && s->cfg)
			stage_user(s, &cmd, ro);
	}
	if (run_cmd(&cmd) < 0) {
		strbuf_addf(err, "cannot run '%s %s'", a->v[0], stages[s->j->kind]->command);
		goto out;
	}
	if (cmd.err.len)
		job_file_write(log, cmd.err.buf, cmd.err.len);
	if (cmd.timed_out || (cmd.status != 0 && cmd.status != 1)) {
		run_describe(&cmd, &how);
		strbuf_addf(err, "%s: %s", plan_stage_name(s->j->kind), how.buf);
		if (cmd.err.len) {
			const char *last = cmd.err.buf + cmd.err.len - 1;

			while (last > cmd.err.buf && last[-1] != '\n')
				last--;
			strbuf_addf(err, ": %.*s", (int)strcspn(last, "\n"), last);
		}
		if (!cmd.timed_out && cmd.status == 3 && cmd.out.len) {
			json_object *d = json_tokener_parse(cmd.out.buf);

			if (d && is_infra_doc(d, s->j->kind))
				*infra = d;
			else
				json_object_put(d);
		}
		goto out;
	}
	*doc = json_tokener_parse(cmd.out.buf);
	if (!*doc) {
		strbuf_addf(err, "%s printed no JSON (see %s)", plan_stage_name(s->j->kind), log);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&how);
	run_cmd_release(&cmd);
	for (i = 0; i < nr_repo; i++)
		free(repo_dirs[i]);
	free(log);
	return ret;
}

/* The version the document is about is the job's (the mail readers say) */
static int check_version(struct stage_run *s, json_object *doc, struct strbuf *err)
{
	const char *said;

	if (!stages[s->j->kind]->doc_version)
		return 0;
	said = stages[s->j->kind]->doc_version(doc);
	if (said && !strcmp(said, s->j->version))
		return 0;
	strbuf_addf(err, "%s answered about <%s>, not <%s>", plan_stage_name(s->j->kind),
		    said ? said : "(none)", s->j->version);
	return -1;
}

/* Where apply writes its objects in work/ (--quarantine) */
static char *quarantine_path(const char *work)
{
	return xasprintf("%s/objects", work);
}

/*
 * What a quarantined apply made, taken in and its branch made, here on
 * the trusted side: only the objects reachable from the tip it names, each
 * checked (gitrepo_import()), and only the branch this version's is
 * (refs/heads/lorebot/<series>/v<N>, from the database, never from the
 * document): a sandboxed apply writes no ref, neither the base branches
 * nor another series'.
 */
#define IMPORT_MAX_OBJECTS 1000000
#define IMPORT_MAX_BYTES (1ULL << 30)

static int import_applied(struct stage_run *s, json_object *doc, struct strbuf *err)
{
	const struct gitrepo_import_limits lim = {
		.max_objects = IMPORT_MAX_OBJECTS, .max_bytes = IMPORT_MAX_BYTES,
	};
	struct db_stmt *q;
	struct gitrepo *r = NULL;
	const char *tip = rd_doc_tip(doc), *said = rd_doc_branch(doc);
	char *branch = NULL;
	struct strbuf why = STRBUF_INIT;
	struct gitoid id;
	size_t nr = 0;
	int ret = -1;

	if (!rd_doc_applied(doc, false) || !said)
		goto done;
	q = db_prepare(s->st->db, "SELECT series, version FROM versions WHERE id = ?1");
	if (!q)
		goto out;
	db_bind_text(q, 1, s->j->version);
	if (db_step(q) > 0) {
		branch = apply_branch_name(db_column_text(q, 0), (int)db_column_int(q, 1));
		db_reset(q);
	}
	if (!branch || strcmp(branch, said)) {
		strbuf_addf(err, "apply named the branch '%s', not '%s'", said,
			    branch ? branch : "(no version)");
		goto out;
	}
	if (!tip || gitoid_parse(&id, tip)) {
		strbuf_addf(err, "apply named no commit for '%s'", branch);
		goto out;
	}
	if (gitrepo_open(&r, s->env->repo, false, err))
		goto out;
	if (gitrepo_import(r, s->quarantine, &id, &lim, &nr, &why)) {
		strbuf_addf(err, "cannot take in what apply made: %s", why.buf);
		goto out;
	}
	if (gitrepo_ref_set(r, branch, &id, "apply series", err))
		goto out;
	log_info("job %lld: %zu objects taken in, %s at %s", (long long)s->j->id, nr,
		 branch, tip);
done:
	ret = 0;
out:
	gitrepo_close(r);
	strbuf_release(&why);
	free(branch);
	return ret;
}

/* The branch the apply stage made, from its recorded result */
static const char *applied_branch(struct stage_run *s, struct strbuf *err)
{
	struct results rs = { 0 };
	const struct result *r;

	if (!s->apply) {
		if (store_results_load(s->st, s->j->version, 0, &rs, err) < 0)
			return NULL;
		r = store_results_find(&rs, STAGE_APPLY, NULL);
		if (r && r->doc)
			s->apply = json_object_get(r->doc);
		store_results_release(&rs);
	}
	if (!rd_doc_branch(s->apply)) {
		strbuf_addf(err, "version <%s> has no applied branch", s->j->version);
		return NULL;
	}
	return rd_doc_branch(s->apply);
}

/* apply and check read the version's mail, sandboxed like any mail reader */
static int input_mbox(struct stage_run *s, struct args *a, struct strbuf *err)
{
	s->mbox = xasprintf("%s/series.mbox", s->work);
	if (write_version_mbox(s->st, s->j->version, stages[s->j->kind]->mbox_thread,
			       s->mbox, err))
		return -1;
	arg(a, "--mbox");
	arg(a, s->mbox);
	arg(a, "--series");
	arg(a, s->j->version);
	arg(a, "--repo");
	arg(a, s->env->repo);
	if (stages[s->j->kind]->quarantine) {
		int ret;

		/* a quarantine of its own each time: nothing of an earlier attempt */
		s->quarantine = quarantine_path(s->work);
		ret = util_remove_tree(s->quarantine);
		if (ret || (ret = util_mkdir_p(s->quarantine, 0755))) {
			strbuf_addf(err, "cannot make '%s': %s", s->quarantine,
				    strerror(-ret));
			return -1;
		}
		arg(a, "--quarantine");
		arg(a, s->quarantine);
	}
	return 0;
}

/*
 * The first of the arches the daemon tests (its --arch, else build.arch,
 * else the default), or NULL
 */
static const char *first_arch(const struct stage_run *s)
{
	struct pipeline_cfg pc;
	const struct arch *a;

	if (!s->cfg)
		return NULL;
	pipeline_cfg_init(&pc, s->cfg, s->env->archs);
	a = pc.nr_archs ? arch_lookup(pc.archs[0]) : NULL;
	pipeline_cfg_release(&pc);
	return a ? a->name : NULL;
}

/* build and boot get the branch and base apply made; they sandbox their own make */
static int input_branch(struct stage_run *s, struct args *a, char **logs,
			struct strbuf *err)
{
	const char *branch = applied_branch(s, err), *base;

	if (!branch)
		return -1;
	arg(a, "--repo");
	arg(a, s->env->repo);
	arg(a, "--series");
	arg(a, branch);
	/* the base the apply stage chose (base-commit: or mm-new's tip) */
	base = rd_base_sha(rd_doc_base(s->apply));
	if (base) {
		arg(a, "--base");
		arg(a, base);
	}
	arg(a, "--arch");
	arg(a, s->j->arch);
	/* the archs are jobs of their own: each is told which is first */
	if (stages[s->j->kind]->first_arch && first_arch(s)) {
		arg(a, "--first-arch");
		arg(a, first_arch(s));
	}
	if (stages[s->j->kind]->log_dir) {
		/* the make output of every step, in the job's directory */
		*logs = xasprintf("%s/build-%s", s->dir, s->j->arch);
		arg(a, "--log-dir");
		arg(a, *logs);
	}
	return 0;
}

/* The job's result recorded; what a quarantined apply made taken in first */
static int record_done(struct stage_run *s, json_object *doc, struct strbuf *err)
{
	int r;

	if (s->quarantine && import_applied(s, doc, err))
		return -1;
	if (store_begin(s->st, err))
		return -1;
	r = stage_record(s->st, s->j->version, s->j->kind,
			 *s->j->arch ? s->j->arch : NULL, doc, err);
	if (r < 0 || queue_finish(s->st->db, s->j->id, JOB_DONE, NULL, err)) {
		store_rollback(s->st);
		return -1;
	}
	return store_commit(s->st, err);
}

/* The stage's command line into a (its strings live as long as s and *logs) */
static int stage_args(struct stage_run *s, struct args *a, char **logs, struct strbuf *err)
{
	int ret;

	args_init(a, s);
	ret = work_fresh(s->work);
	if (ret) {
		strbuf_addf(err, "cannot make '%s': %s", s->work, strerror(-ret));
		return -1;
	}
	ret = stages[s->j->kind]->input == STAGE_IN_MBOX ? input_mbox(s, a, err) :
		input_branch(s, a, logs, err);
	arg(a, "--json");
	return ret;
}

/* The base-commit: the version names, or NULL; caller frees */
static char *version_base_commit(struct stage_run *s)
{
	struct db_stmt *q = db_prepare(s->st->db,
		"SELECT base_commit FROM versions WHERE id = ?1");
	char *base = NULL;

	if (!q)
		return NULL;
	db_bind_text(q, 1, s->j->version);
	if (db_step(q) > 0) {
		base = xstrdup_or_null(db_column_text(q, 0));
		db_reset(q);
	}
	return base;
}

/*
 * The tree made fresh before apply reads it (git.fetch, remotes.h):
 * here, in the job's own process, since apply runs without network.  A
 * fetch that failed while the version's base-commit is still missing
 * fails the job (it is tried again): whether the series applies on its
 * base cannot be told, and a failure on another base is not its author's.
 */
static int refresh_tree(struct stage_run *s, struct strbuf *err)
{
	struct remotes_refresh rr = REMOTES_REFRESH_INIT;
	struct strbuf why = STRBUF_INIT;
	struct gitrepo *r = NULL;
	const char *p;
	char *base;
	int ret;

	if (!config_v(s->cfg)->git_fetch || !remotes_count(s->cfg))
		return 0;
	base = version_base_commit(s);
	ret = gitrepo_open(&r, s->env->repo, false, &why);
	if (!ret) {
		rr.base_commit = base;
		ret = remotes_refresh(r, s->cfg, &rr, &why);
	}
	for (p = rr.log.buf; *p; p = *p ? p + 1 : p) {
		int n = strcspn(p, "\n");

		log_info("job %lld: %.*s", (long long)s->j->id, n, p);
		p += n;
	}
	if (ret && r && (!base || rr.base_known)) {
		log_warn("job %lld: %s; applying on the tree as it is",
			 (long long)s->j->id, why.buf);
		ret = 0;
	} else if (ret) {
		strbuf_addf(err, "fetch: %s", why.buf);
	}
	gitrepo_close(r);
	remotes_refresh_release(&rr);
	strbuf_release(&why);
	free(base);
	return ret ? -1 : 0;
}

/* check --stale-tree's reason, when the tree may lack ids a series names */
static char *stale_tree(struct stage_run *s)
{
	struct strbuf why = STRBUF_INIT;
	struct gitrepo *r = NULL;
	char *stale;

	if (gitrepo_open(&r, s->env->repo, false, &why)) {
		stale = strbuf_detach(&why, NULL);
	} else {
		stale = remotes_stale(r, s->cfg);
		strbuf_release(&why);
	}
	gitrepo_close(r);
	return stale;
}

static int stage_command(struct stage_run *s, json_object **infra, struct strbuf *err)
{
	json_object *doc = NULL;
	char *logs = NULL, *log = stage_log(s), *stale = NULL;
	struct args a;
	int ret;

	ret = stage_args(s, &a, &logs, err);
	if (!ret && stages[s->j->kind]->fetches) {
		/* the daemon's side fetches; the sandbox has no network */
		arg(&a, "--no-fetch");
		ret = refresh_tree(s, err);
	}
	if (!ret && stages[s->j->kind]->stale_tree && (stale = stale_tree(s))) {
		arg(&a, "--stale-tree");
		arg(&a, stale);
	}
	if (!ret)
		ret = queue_set_pid(s->st->db, s->j->id, getpid(), log, err);
	if (!ret)
		ret = run_stage(s, &a, &doc, infra, err);
	if (!ret)
		ret = check_version(s, doc, err);
	if (!ret)
		ret = record_done(s, doc, err);
	if (s->quarantine)
		util_remove_tree(s->quarantine);
	json_object_put(doc);
	free(stale);
	free(logs);
	free(log);
	return ret;
}

/*
 * The version's pipeline ends with its reply job: its patchwork checks
 * are all planned before the job is done, whatever the daemon missed
 * (`lorebot patchwork`, which the daemon runs while some are due, posts
 * them), and its KCIDB document is written and submitted (best effort:
 * a document not submitted is in kcidb.dir).
 */
static int stage_integrations(struct stage_run *s, const struct report_opts *ro,
			      struct strbuf *err)
{
	struct strbuf log = STRBUF_INIT, why = STRBUF_INIT;

	if (patchwork_enabled(s->cfg)) {
		if (store_begin(s->st, err))
			return -1;
		if (patchwork_plan(s->st, ro, s->j->version, err) < 0) {
			store_rollback(s->st);
			return -1;
		}
		if (store_commit(s->st, err))
			return -1;
	}
	if (kcidb_publish(s->st, ro, s->j->version, &log, &why))
		log_warn("job %lld: KCIDB: %s", (long long)s->j->id, why.buf);
	if (log.len) {
		strbuf_rtrim(&log);
		log_info("job %lld: %s", (long long)s->j->id, log.buf);
	}
	strbuf_release(&log);
	strbuf_release(&why);
	return 0;
}

static int reply_job(struct stage_run *s, struct strbuf *err)
{
	struct reply_run_opts o = { .series = s->j->version,
				    .outbox = s->env->outbox };
	struct reply_summary sum;
	char *templates = template_dir(config_v(s->cfg)->reply_templates);
	int ret;

	report_opts_init(&o.report, s->cfg);
	if (s->env->archs)
		report_opts_set_archs(&o.report, s->env->archs);
	o.report.templates = templates;
	o.report.repo = s->env->repo;
	reply_summary_init(&sum);
	ret = reply_run(s->st, &o, &sum, err);
	if (!ret)
		log_info("job %lld: %d replies composed, %d sent, %d skipped",
			 (long long)s->j->id, sum.composed, sum.sent, sum.skipped);
	reply_summary_release(&sum);
	if (!ret)
		ret = stage_integrations(s, &o.report, err);
	report_opts_release(&o.report);
	free(templates);
	if (!ret)
		ret = queue_finish(s->st->db, s->j->id, JOB_DONE, NULL, err);
	return ret ? -1 : 0;
}

int job_execute(struct store *st, const struct config *cfg,
		const struct job_env *env, struct job *j, json_object **infra,
		struct strbuf *err)
{
	struct stage_run s = { .st = st, .cfg = cfg, .env = env, .j = j };
	int ret;

	*infra = NULL;
	s.dir = job_dir(env, j->id);
	s.work = work_path(s.dir);
	if (stages[j->kind]->command)
		ret = stage_command(&s, infra, err);
	else
		ret = reply_job(&s, err);
	json_object_put(s.apply);
	free(s.quarantine);
	free(s.mbox);
	free(s.work);
	free(s.dir);
	return ret;
}

int job_give_up(struct store *st, const struct job *j, json_object *doc,
		const char *why, struct strbuf *err)
{
	json_object *made = NULL;
	int r = 0;

	if (store_begin(st, err))
		return -1;
	if (j->kind < STAGE_RESULTS) {
		if (!doc)
			doc = made = results_infra_doc(j->kind, j->arch, why);
		r = stage_record(st, j->version, j->kind, *j->arch ? j->arch : NULL,
				 doc, err);
		if (r < 0 && doc != made) {
			/* the command's own document is not of the contract: say why */
			strbuf_reset(err);
			json_object_put(made);
			doc = made = results_infra_doc(j->kind, j->arch, why);
			r = stage_record(st, j->version, j->kind,
					 *j->arch ? j->arch : NULL, doc, err);
		}
	}
	json_object_put(made);
	if (r < 0 || queue_finish(st->db, j->id, JOB_FAILED, why, err)) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, err);
}

/* Workers without a database: the job's directory carries it all */

#define JOB_FILE "job.json"
#define RESULT_FILE "result.json"

static int write_json_atomic(const char *path, json_object *o, struct strbuf *err)
{
	const char *text = jx_text(o, false);
	char *tmp = xasprintf("%s.tmp", path);
	int r = job_file_write(tmp, text, strlen(text));

	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(-r));
		unlink(tmp);
	}
	free(tmp);
	return r ? -1 : 0;
}

int job_prepare(struct store *st, const struct config *cfg, const struct job_env *env,
		struct job *j, struct strbuf *err)
{
	struct stage_run s = { .st = st, .cfg = cfg, .env = env, .j = j };
	json_object *o = NULL, *argv;
	char *logs = NULL, *path = NULL, *result = NULL;
	struct args a;
	int i, ret = -1;

	s.dir = job_dir(env, j->id);
	s.work = work_path(s.dir);
	if (!stages[j->kind]->command) {
		strbuf_addf(err, "%s runs in the daemon's process", plan_stage_name(j->kind));
		goto out;
	}
	if (stage_args(&s, &a, &logs, err))
		goto out;
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(j->id));
	jx_add_str(o, "kind", plan_stage_name(j->kind));
	jx_add_str(o, "arch", j->arch);
	jx_add_str(o, "version", j->version);
	jx_add_str(o, "dir", s.dir);
	jx_add_str(o, "repo", env->repo);
	jx_add_str(o, "statedir", env->statedir);
	jx_add_str(o, "cache", env->cache);
	jx_add_str(o, "self", env->self);
	jx_add_str(o, "config", env->config);
	json_object_object_add(o, "sandbox", json_object_new_boolean(env->sandbox));
	json_object_object_add(o, "timeout_ms", json_object_new_int64(env->timeout_ms));
	argv = json_object_new_array();
	for (i = 0; i < a.n; i++)
		json_object_array_add(argv, json_object_new_string(a.v[i]));
	json_object_object_add(o, "argv", argv);
	/* what an earlier attempt left is not this attempt's result */
	result = xasprintf("%s/" RESULT_FILE, s.dir);
	unlink(result);
	path = xasprintf("%s/" JOB_FILE, s.dir);
	ret = write_json_atomic(path, o, err);
out:
	json_object_put(o);
	json_object_put(s.apply);
	free(s.quarantine);
	free(s.mbox);
	free(s.work);
	free(s.dir);
	free(logs);
	free(path);
	free(result);
	return ret;
}

static json_object *read_json(const char *path, struct strbuf *err)
{
	char *buf = NULL;
	size_t len;
	json_object *o = NULL;
	int r = job_file_read(path, &buf, &len, STAGE_OUTPUT_MAX + (1 << 20));

	if (r)
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
	else if (!(o = json_tokener_parse(buf)))
		strbuf_addf(err, "'%s' is not JSON", path);
	free(buf);
	return o;
}

int job_work(const char *dir, const struct config *cfg, struct strbuf *err)
{
	char *path = xasprintf("%s/" JOB_FILE, dir), *rpath = NULL;
	json_object *o = read_json(path, err), *argv, *doc = NULL, *infra = NULL, *res;
	struct job j = { 0 };
	struct job_env env = { 0 };
	/* as the local runner: as build.user when root (stage_user()) */
	struct stage_run s = { .cfg = cfg, .env = &env, .j = &j };
	struct args a = { .n = 0 };
	size_t i;
	int ret = -1;

	if (!o)
		goto out_free;
	argv = jx_array(o, "argv");
	if (plan_stage_parse(jx_str(o, "kind"), &j.kind) || !argv || !jx_str(o, "dir") ||
	    !jx_str(o, "repo") || !jx_str(o, "statedir") || !jx_str(o, "self")) {
		strbuf_addf(err, "'%s' is not a job's description", path);
		goto out_free;
	}
	j.id = jx_int(o, "id", 0);
	j.version = (char *)jx_strz(o, "version");
	j.arch = (char *)jx_strz(o, "arch");
	env.self = jx_str(o, "self");
	env.config = jx_str(o, "config");
	env.repo = jx_str(o, "repo");
	env.statedir = jx_str(o, "statedir");
	env.cache = jx_str(o, "cache");
	env.timeout_ms = jx_int(o, "timeout_ms", 0);
	env.sandbox = jx_bool(o, "sandbox", true);
	s.dir = (char *)jx_str(o, "dir");
	s.work = work_path(s.dir);
	for (i = 0; i < json_object_array_length(argv); i++)
		arg(&a, json_object_get_string(json_object_array_get_idx(argv, i)));
	ret = run_stage(&s, &a, &doc, &infra, err);
	res = json_object_new_object();
	json_object_object_add(res, "id", json_object_new_int64(j.id));
	json_object_object_add(res, "ok", json_object_new_boolean(!ret));
	if (ret)
		jx_add_str(res, "error", err->buf);
	if (doc)
		json_object_object_add(res, "doc", json_object_get(doc));
	if (infra)
		json_object_object_add(res, "infra", json_object_get(infra));
	rpath = xasprintf("%s/" RESULT_FILE, dir);
	if (write_json_atomic(rpath, res, err))
		ret = -1;
	json_object_put(res);
out_free:
	json_object_put(doc);
	json_object_put(infra);
	json_object_put(o);
	free(s.work);
	free(path);
	free(rpath);
	return ret;
}

int job_collect(struct store *st, const struct config *cfg, const struct job_env *env,
		struct job *j, json_object **infra, struct strbuf *err)
{
	struct stage_run s = { .st = st, .cfg = cfg, .env = env, .j = j };
	char *path;
	json_object *o, *doc;
	int ret = -1;

	*infra = NULL;
	s.dir = job_dir(env, j->id);
	s.work = work_path(s.dir);
	path = xasprintf("%s/" RESULT_FILE, s.dir);
	o = read_json(path, err);
	if (!o)
		goto out;
	if (jx_int(o, "id", 0) != j->id) {
		strbuf_addf(err, "'%s' is about job %lld", path, (long long)jx_int(o, "id", 0));
		goto out;
	}
	doc = jx_object(o, "doc");
	if (!jx_bool(o, "ok", false) || !doc) {
		strbuf_addstr(err, jx_str(o, "error") ? jx_str(o, "error") : "the job failed");
		if (jx_object(o, "infra"))
			*infra = json_object_get(jx_object(o, "infra"));
		goto out;
	}
	/* a worker's apply wrote into the job's directory: taken in here */
	if (stages[j->kind]->quarantine)
		s.quarantine = quarantine_path(s.work);
	if (!check_version(&s, doc, err))
		ret = record_done(&s, doc, err);
out:
	if (s.quarantine)
		util_remove_tree(s.quarantine);
	json_object_put(o);
	json_object_put(s.apply);
	free(s.quarantine);
	free(path);
	free(s.work);
	free(s.dir);
	return ret;
}
