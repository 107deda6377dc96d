// SPDX-License-Identifier: GPL-2.0
/* lorebot reproduce: a report's build diagnostic made again (reproduce.h) */
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/base/net.h"
#include "bot/report/report.h"
#include "ci/diag.h"
#include "ci/reproduce.h"
#include "lib/jsonx.h"
#include "lib/run.h"

#define ARGV_MAX 64

struct repro {
	const struct reproduce_opts *o;
	struct net net;
	struct strbuf base;	/* the dashboard, with its '/' */
	char *id;
	int pick;		/* #N: the Nth finding of the record; 0: all of the arch */
	char pick_id[REPORT_ID_LEN + 1];	/* #<id>: the finding of that id */
	json_object *rec;
	const char *arch;
	int patch;		/* apply the patches up to this one */
	char *dir, *src, *obj;	/* absolute */
	char *repo;
	bool worktree;
	bool keep;		/* leave the work directory (its build.log) to look at */
	json_object *out, *commands;
	uid_t uid;
	gid_t gid;
};

static void say(const char *fmt, ...) PRINTF(1, 2);
static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("lorebot reproduce: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* GET base + path: 0 with the body, -1 with why (-2: it answered, not 200) */
static int get(struct repro *r, const char *path, struct strbuf *body, struct strbuf *err)
{
	struct net_request req = { .url = NULL, .timeout_ms = 120000, .max_size = 256 << 20 };
	struct net_response res = NET_RESPONSE_INIT;
	struct strbuf url = STRBUF_INIT;
	int ret = 0;

	strbuf_addf(&url, "%s%s", r->base.buf, path);
	req.url = url.buf;
	if (net_request(&r->net, &req, &res)) {
		strbuf_addf(err, "%s: %s", url.buf, res.error.buf);
		ret = -1;
	} else if (res.status != 200) {
		strbuf_addf(err, "%s: HTTP %ld", url.buf, res.status);
		ret = -2;
	} else {
		strbuf_addbuf(body, &res.body);
	}
	net_response_release(&res);
	strbuf_release(&url);
	return ret;
}

/*
 * The fragment: a finding's id as the reply prints it ("id 1a2b3c4d": 8
 * hex digits), or its number in the record (1, 2, ...).  0, or -1.
 */
static int parse_pick(struct repro *r, const char *frag)
{
	size_t n = strlen(frag);

	if (n == REPORT_ID_LEN && strspn(frag, "0123456789abcdef") == n) {
		memcpy(r->pick_id, frag, n + 1);
		return 0;
	}
	if (!n || n > 6 || strspn(frag, "0123456789") != n)
		return -1;
	r->pick = atoi(frag);
	return r->pick > 0 ? 0 : -1;
}

/* target: <dashboard>/r/<id>[/...][#N|#<finding id>], or <id>[#...] with --url */
static int parse_target(struct repro *r, struct strbuf *err)
{
	const char *t = r->o->target, *p, *hash;
	const char *dash = r->o->url ? r->o->url : config_v(r->o->cfg)->core_dashboardurl;
	size_t n;

	hash = strchr(t, '#');
	if (!strncmp(t, "http://", 7) || !strncmp(t, "https://", 8)) {
		p = strstr(t, "/r/");
		if (!p) {
			strbuf_addf(err, "'%s' is not the URL of a report (<dashboard>/r/<id>)", t);
			return -1;
		}
		strbuf_add(&r->base, t, p + 1 - t);
		p += 3;
	} else {
		if (!dash || !*dash) {
			strbuf_addstr(err, "a report id needs --url (the dashboard)");
			return -1;
		}
		strbuf_addstr(&r->base, dash);
		if (!util_ends_with(dash, "/"))
			strbuf_addch(&r->base, '/');
		p = t;
	}
	n = strcspn(p, "/#?");
	r->id = xstrndup(p, n);
	if (!report_id_valid(r->id) || (hash && parse_pick(r, hash + 1))) {
		strbuf_addf(err, "'%s' does not name a report (or #N, #<finding id> a "
			    "finding of it)", t);
		return -1;
	}
	return 0;
}

static json_object *arch_of(struct repro *r, const char *arch)
{
	json_object *archs = jx_array(r->rec, "archs");
	size_t i;

	for (i = 0; archs && i < json_object_array_length(archs); i++)
		if (!strcmp(jx_strz(json_object_array_get_idx(archs, i), "arch"), arch))
			return json_object_array_get_idx(archs, i);
	return NULL;
}

/* The findings to make again: the one picked, or the build's of one arch */
static int choose(struct repro *r, json_object **wanted, struct strbuf *err)
{
	json_object *fs = jx_array(r->rec, "findings");
	size_t i, nr = fs ? json_object_array_length(fs) : 0;

	*wanted = json_object_new_array();
	for (i = 0; i < nr; i++) {
		json_object *f = json_object_array_get_idx(fs, i);
		const char *stage = jx_strz(f, "stage");

		if (r->pick && (int)i + 1 != r->pick)
			continue;
		if (*r->pick_id && strcmp(jx_strz(f, "id"), r->pick_id))
			continue;
		if (strcmp(stage, "build")) {
			if (r->pick || *r->pick_id || (!strcmp(stage, "boot") && !r->arch)) {
				strbuf_addf(err, "finding %zu of report %s is of the %s stage: lorebot "
					    "reproduce makes build diagnostics again (a boot: the "
					    "recipe in the report)", i + 1, r->id, stage);
				return -1;
			}
			continue;
		}
		if (!r->arch)
			r->arch = jx_str(f, "arch");
		if (!r->arch || strcmp(r->arch, jx_strz(f, "arch")))
			continue;
		json_object_array_add(*wanted, json_object_get(f));
		if (jx_int(f, "patch", 0) > r->patch)
			r->patch = (int)jx_int(f, "patch", 0);
	}
	if (!json_object_array_length(*wanted) && *r->pick_id) {
		strbuf_addf(err, "report %s has no finding of id %s", r->id, r->pick_id);
		return -1;
	}
	if (!json_object_array_length(*wanted)) {
		strbuf_addf(err, "report %s has no build diagnostic%s%s to make again", r->id,
			    r->o->arch ? " on " : "", r->o->arch ? r->o->arch : "");
		return -1;
	}
	if (!r->patch)
		r->patch = (int)json_object_array_length(jx_array(r->rec, "patches"));
	return 0;
}

static void command_line(struct repro *r, const char *cwd, const char *const *argv)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (cwd)
		strbuf_addf(&sb, "(cd %s && ", cwd);
	for (i = 0; argv[i]; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", argv[i]);
	if (cwd)
		strbuf_addch(&sb, ')');
	say("%s", sb.buf);
	json_object_array_add(r->commands, json_object_new_string(sb.buf));
	strbuf_release(&sb);
}

/* git with its output; 0, -1 could not run or failed (why in err) */
static int git(struct repro *r, const char *cwd, const char *const *args, bool quiet,
	       struct strbuf *out, struct strbuf *err)
{
	const char *argv[ARGV_MAX] = { "git" };
	struct run_cmd cmd = RUN_CMD_INIT;
	size_t n = 1, i;
	int ret = 0;

	for (i = 0; args[i] && n < ARGV_MAX - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (!quiet)
		command_line(r, cwd, argv);
	cmd.argv = argv;
	cmd.cwd = cwd;
	cmd.limits.timeout_ms = 30 * 60000;
	cmd.limits.max_output = 16 << 20;
	if (run_cmd(&cmd) < 0 || cmd.status) {
		strbuf_addstr(err, "git");
		for (i = 0; args[i]; i++)
			strbuf_addf(err, " %s", args[i]);
		strbuf_addstr(err, ": ");
		run_describe(&cmd, err);
		strbuf_rtrim(&cmd.err);
		if (cmd.err.len)
			strbuf_addf(err, ": %s", cmd.err.buf);
		ret = -1;
	} else if (out) {
		strbuf_addbuf(out, &cmd.out);
	}
	run_cmd_release(&cmd);
	return ret;
}

/* The base in the user's tree, fetched from the record's tree when missing */
static enum reproduce_outcome base(struct repro *r, const char *sha, struct strbuf *err)
{
	const char *url = jx_str(r->rec, "tree_url");
	char *obj = xasprintf("%s^{commit}", sha);
	const char *has[] = { "-C", r->repo, "cat-file", "-e", obj, NULL };
	const char *fetch[] = { "-C", r->repo, "fetch", "--no-tags", url, sha, NULL };
	struct strbuf why = STRBUF_INIT;
	enum reproduce_outcome ret = REPRODUCE_ALL;

	if (!git(r, NULL, has, true, NULL, &why))
		goto out;
	if (!url) {
		strbuf_addf(err, "the base %s is not in '%s', and the report names no tree to "
			    "fetch it from: fetch it, then run this again", sha, r->repo);
		ret = REPRODUCE_INPUT;
		goto out;
	}
	strbuf_reset(&why);
	if (git(r, NULL, fetch, false, NULL, &why) || git(r, NULL, has, true, NULL, &why)) {
		strbuf_addf(err, "the base %s is not in '%s' and fetching it from %s failed: %s",
			    sha, r->repo, url, why.buf);
		ret = REPRODUCE_INFRA;
	}
out:
	free(obj);
	strbuf_release(&why);
	return ret;
}

/* The tree at the base, and the series' patches up to r->patch with git am */
static enum reproduce_outcome tree(struct repro *r, const char *sha, struct strbuf *err)
{
	struct strbuf mbox = STRBUF_INIT, path = STRBUF_INIT, list = STRBUF_INIT;
	const char *add[] = { "-C", r->repo, "worktree", "add", "--detach", r->src, sha, NULL };
	const char *argv[ARGV_MAX];
	char *split;
	int n, k = 0, ret;

	if (git(r, NULL, add, false, NULL, err))
		return REPRODUCE_INFRA;
	r->worktree = true;
	strbuf_addf(&path, "r/%s/mbox", r->id);
	if (get(r, path.buf, &mbox, err)) {
		strbuf_release(&mbox);
		strbuf_release(&path);
		return REPRODUCE_INFRA;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/series.mbox", r->dir);
	split = xasprintf("-o%s/patches", r->dir);
	util_mkdir_p(split + 2, 0755);
	if (util_write_file(path.buf, mbox.buf, mbox.len)) {
		strbuf_addf(err, "cannot write '%s'", path.buf);
		ret = REPRODUCE_INFRA;
		goto out;
	}
	{
		const char *ms[] = { "mailsplit", "--mboxrd", split, path.buf, NULL };

		if (git(r, NULL, ms, true, &list, err)) {
			ret = REPRODUCE_INFRA;
			goto out;
		}
	}
	n = atoi(list.buf);
	if (n < r->patch) {
		strbuf_addf(err, "the report's mbox has %d patches, not %d", n, r->patch);
		ret = REPRODUCE_INPUT;
		goto out;
	}
	argv[k++] = "-c";
	argv[k++] = "user.name=lorebot reproduce";
	argv[k++] = "-c";
	argv[k++] = "user.email=lorebot@localhost";
	argv[k++] = "am";
	argv[k++] = "--3way";
	for (n = 1; n <= r->patch && k < ARGV_MAX - 2; n++)
		argv[k++] = xasprintf("%s/patches/%04d", r->dir, n);
	argv[k] = NULL;
	ret = git(r, r->src, argv, false, NULL, err) ? REPRODUCE_INPUT : REPRODUCE_ALL;
	if (ret)
		strbuf_addstr(err, " (the series does not apply with git am where lorebot "
			      "applied it: see the report's recipe)");
	for (n = 6; argv[n]; n++)
		free((char *)argv[n]);
out:
	free(split);
	strbuf_release(&mbox);
	strbuf_release(&path);
	strbuf_release(&list);
	return ret;
}

/* A make line of the record as argv: -j, O= of this machine; the target for one file */
static int make_argv(struct repro *r, const char *line, const char *object, const char **argv,
		     char **owned, size_t *nr_owned)
{
	char *copy = xstrdup(line), *tok, *save = NULL;
	int n = 0, jobs = r->o->jobs ? r->o->jobs : (int)config_v(r->o->cfg)->build_jobs;
	bool target_done = false;

	owned[(*nr_owned)++] = copy;
	for (tok = strtok_r(copy, " \t", &save); tok && n < ARGV_MAX - 2;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "-j", 2)) {
			owned[*nr_owned] = xasprintf("-j%d", jobs > 0 ? jobs : 1);
			argv[n++] = owned[(*nr_owned)++];
		} else if (!strncmp(tok, "O=", 2)) {
			owned[*nr_owned] = xasprintf("O=%s", r->obj);
			argv[n++] = owned[(*nr_owned)++];
		} else if (object && n && tok[0] != '-' && !strchr(tok, '=')) {
			/* the image and modules: the object of the file instead */
			if (!target_done)
				argv[n++] = object;
			target_done = true;
		} else {
			argv[n++] = tok;
		}
	}
	argv[n] = NULL;
	return n && !strcmp(argv[0], "make") ? 0 : -1;
}

/* make as the build stage runs it: sandboxed, the source read-only */
static int make(struct repro *r, const char *const *argv, struct strbuf *out,
		struct strbuf *err)
{
	const char *env[] = { "KBUILD_BUILD_TIMESTAMP=2026-01-01 00:00:00 UTC",
			      "KBUILD_BUILD_USER=lorebot", "KBUILD_BUILD_HOST=lorebot",
			      "KCONFIG_NOTIMESTAMP=1", "HOME=/tmp", NULL };
	const char *rw[] = { r->obj, NULL }, *ro[] = { r->src, r->repo, NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	int ret = 0;

	command_line(r, r->src, argv);
	cmd.argv = argv;
	cmd.env = env;
	cmd.clean_env = true;
	cmd.cwd = r->src;
	cmd.merge_stderr = true;
	cmd.limits.timeout_ms = config_v(r->o->cfg)->build_timeout;
	cmd.limits.max_output = 64 << 20;
	cmd.sandbox.enabled = config_v(r->o->cfg)->build_sandbox;
	cmd.sandbox.rw = rw;
	cmd.sandbox.ro = ro;
	cmd.sandbox.uid = r->uid;
	cmd.sandbox.gid = r->gid;
	if (run_cmd(&cmd) < 0 || cmd.timed_out) {
		strbuf_addstr(err, "make: ");
		run_describe(&cmd, err);
		ret = -1;
	}
	strbuf_addbuf(out, &cmd.out);
	run_cmd_release(&cmd);
	return ret;
}

/* The object that compiling a file makes: mm/rmap.c -> mm/rmap.o */
static char *object_of(const char *file)
{
	size_t n = file ? strlen(file) : 0;

	if (n < 3 || strcmp(file + n - 2, ".c") || file[0] == '/' || strstr(file, ".."))
		return NULL;
	return xasprintf("%.*s.o", (int)(n - 2), file);
}

/* The diagnostics of the build looked for, each as the reply gave it */
static int compare(struct repro *r, json_object *wanted, const struct strbuf *log)
{
	struct diag_parse p;
	json_object *fs = json_object_new_array();
	int missing = 0;
	size_t i, j;

	diag_parse_init(&p, r->src, r->obj);
	diag_parse_buf(&p, log->buf, log->len);
	for (i = 0; i < json_object_array_length(wanted); i++) {
		json_object *w = json_object_array_get_idx(wanted, i), *o, *got = NULL;
		const struct diag *best = NULL;

		for (j = 0; j < p.diags.nr; j++) {
			const struct diag *d = &p.diags.v[j];

			if (strcmp(d->file, jx_strz(w, "file")) ||
			    strcmp(diag_severity_name(d->sev), jx_strz(w, "severity")) ||
			    strcmp(d->message, jx_strz(w, "message")))
				continue;
			if (!best || d->line == jx_int(w, "line", 0))
				best = d;
		}
		o = json_object_new_object();
		json_object_object_add(o, "text", json_object_new_string(jx_strz(w, "text")));
		if (best) {
			struct strbuf line = STRBUF_INIT;

			got = json_object_new_object();
			json_object_object_add(got, "file", json_object_new_string(best->file));
			json_object_object_add(got, "line", json_object_new_int(best->line));
			if (best->col)
				json_object_object_add(got, "column", json_object_new_int(best->col));
			json_object_object_add(got, "severity",
					       json_object_new_string(diag_severity_name(best->sev)));
			json_object_object_add(got, "message",
					       json_object_new_string(best->message));
			if (*best->option)
				json_object_object_add(got, "option",
						       json_object_new_string(best->option));
			report_finding_line(&line, "", STAGE_BUILD, got);
			strbuf_rtrim(&line);
			if (!r->o->quiet)
				printf("%s\n", line.buf);
			json_object_object_add(o, "got", json_object_new_string(line.buf));
			strbuf_release(&line);
			json_object_put(got);
		} else {
			missing++;
			say("not made again: %s", jx_strz(w, "text"));
		}
		json_object_object_add(o, "reproduced", json_object_new_boolean(best != NULL));
		json_object_array_add(fs, o);
	}
	json_object_object_add(r->out, "findings", fs);
	diag_parse_release(&p);
	return missing;
}

static enum reproduce_outcome build(struct repro *r, json_object *wanted, struct strbuf *err)
{
	json_object *a = arch_of(r, r->arch), *make_lines = jx_array(a, "make");
	const char *argv[ARGV_MAX];
	char *owned[3 * ARGV_MAX], *object = NULL;
	struct strbuf config = STRBUF_INIT, path = STRBUF_INIT, log = STRBUF_INIT;
	size_t nr_owned = 0, i, nl = make_lines ? json_object_array_length(make_lines) : 0;
	enum reproduce_outcome ret = REPRODUCE_INFRA;
	int missing;

	if (nl < 2 || !jx_bool(a, "config_file", false)) {
		strbuf_addf(err, "report %s keeps no .config and make lines for %s", r->id,
			    r->arch);
		return REPRODUCE_INPUT;
	}
	/* one file: the object of the first diagnostic's, when they are all in it */
	for (i = 0; !r->o->full && i < json_object_array_length(wanted); i++) {
		const char *f = jx_str(json_object_array_get_idx(wanted, i), "file");

		if (!i)
			object = object_of(f);
		else if (object && (!f || strncmp(object, f, strlen(object) - 2))) {
			free(object);
			object = NULL;
		}
	}
	strbuf_addf(&path, "r/%s/config/%s", r->id, r->arch);
	if (get(r, path.buf, &config, err))
		goto out;
	util_mkdir_p(r->obj, 0755);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/.config", r->obj);
	if (util_write_file(path.buf, config.buf, config.len)) {
		strbuf_addf(err, "cannot write '%s'", path.buf);
		goto out;
	}
	if (r->uid && (chown(r->obj, r->uid, r->gid) || chown(path.buf, r->uid, r->gid))) {
		strbuf_addf(err, "cannot give '%s' to the build user: %s", r->obj, strerror(errno));
		goto out;
	}
	for (i = 0; i < nl; i++) {
		const char *line = json_object_get_string(json_object_array_get_idx(make_lines, i));
		bool last = i == nl - 1;

		if (make_argv(r, line, last ? object : NULL, argv, owned, &nr_owned)) {
			strbuf_addf(err, "report %s: '%s' is not a make line", r->id, line);
			ret = REPRODUCE_INPUT;
			goto out;
		}
		if (make(r, argv, &log, err))
			goto out;
	}
	missing = compare(r, wanted, &log);
	if (missing) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/build.log", r->dir);
		util_write_file(path.buf, log.buf, log.len);
		say("%d of %zu diagnostics not made again; the build's output: %s (the work "
		    "directory is kept: git worktree remove --force %s)", missing,
		    json_object_array_length(wanted), path.buf, r->src);
		r->keep = true;
	}
	ret = missing ? REPRODUCE_NOT_ALL : REPRODUCE_ALL;
out:
	while (nr_owned--)
		free(owned[nr_owned]);
	free(object);
	strbuf_release(&config);
	strbuf_release(&path);
	strbuf_release(&log);
	return ret;
}

/* May anyone walk down to path (every directory on the way searchable by others)? */
static bool reachable(const char *path)
{
	char *p = xstrdup(path), *slash;
	struct stat st;
	bool ok = true;

	for (;;) {
		if (stat(p, &st) || (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)))
			ok = false;
		slash = strrchr(p, '/');
		if (!ok || !slash || slash == p)
			break;
		*slash = 0;
	}
	free(p);
	return ok;
}

static char *absolute(const char *p)
{
	char cwd[4096];

	if (p[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(p);
	return xasprintf("%s/%s", cwd, p);
}

static void cleanup(struct repro *r)
{
	const char *rm[] = { "-C", r->repo, "worktree", "remove", "--force", r->src, NULL };
	struct strbuf err = STRBUF_INIT;

	if (r->o->keep || r->keep || !r->dir)
		return;
	if (r->worktree && git(r, NULL, rm, true, NULL, &err))
		say("%s", err.buf);
	util_remove_tree(r->dir);
	strbuf_release(&err);
}

enum reproduce_outcome reproduce_run(const struct reproduce_opts *o, json_object **out,
				     struct strbuf *err)
{
	struct repro r = { .o = o, .base = STRBUF_INIT, .arch = o->arch };
	struct strbuf body = STRBUF_INIT, path = STRBUF_INIT;
	json_object *wanted = NULL;
	enum reproduce_outcome ret = REPRODUCE_INPUT;
	const char *sha;
	struct stat st;

	r.out = json_object_new_object();
	r.commands = json_object_new_array();
	*out = r.out;
	json_object_object_add(r.out, "commands", r.commands);
	if (parse_target(&r, err))
		goto out;
	if (net_init(&r.net, NULL)) {
		strbuf_addstr(err, "cannot start libcurl");
		ret = REPRODUCE_INFRA;
		goto out;
	}
	strbuf_addf(&path, "r/%s/json", r.id);
	say("the report's record: %s%s", r.base.buf, path.buf);
	if (get(&r, path.buf, &body, err) == -1) {
		ret = REPRODUCE_INFRA;
		goto out_net;
	}
	r.rec = body.len ? json_tokener_parse(body.buf) : NULL;
	if (!r.rec || strcmp(jx_strz(r.rec, "report"), r.id)) {
		if (!err->len)
			strbuf_addf(err, "%s%s is not a lorebot report's record", r.base.buf,
				    path.buf);
		goto out_net;
	}
	json_object_object_add(r.out, "report", json_object_new_string(r.id));
	if (choose(&r, &wanted, err))
		goto out_net;
	sha = jx_str(jx_object(r.rec, "base"), "sha");
	if (!sha) {
		strbuf_addf(err, "report %s names no base commit", r.id);
		goto out_net;
	}
	json_object_object_add(r.out, "arch", json_object_new_string(r.arch));
	json_object_object_add(r.out, "patch", json_object_new_int(r.patch));
	json_object_object_add(r.out, "base", json_object_new_string(sha));
	r.repo = absolute(o->repo ? o->repo : ".");
	strbuf_reset(&path);
	if (o->dir)
		strbuf_addstr(&path, o->dir);
	else
		strbuf_addf(&path, "lorebot-reproduce-%s", r.id);
	if (!stat(path.buf, &st)) {
		strbuf_addf(err, "'%s' exists: remove it, or name another with --dir", path.buf);
		goto out_net;
	}
	if (util_mkdir_p(path.buf, 0755)) {
		strbuf_addf(err, "cannot create '%s': %s", path.buf, strerror(errno));
		ret = REPRODUCE_INFRA;
		goto out_net;
	}
	r.dir = absolute(path.buf);
	r.src = xasprintf("%s/linux", r.dir);
	r.obj = xasprintf("%s/build", r.dir);
	if (geteuid() == 0) {
		const char *user = config_v(o->cfg)->build_user;
		struct passwd *pw = user ? getpwnam(user) : NULL;

		if (!pw || !pw->pw_uid) {
			strbuf_addf(err, "build.user '%s' is not an unprivileged user", user);
			goto out_net;
		}
		/*
		 * As the build stage's sandboxes do: build.user when it can
		 * reach the tree and the work directory, else root's uid
		 * without a capability in its user namespace
		 */
		if (reachable(r.dir) && reachable(r.repo)) {
			r.uid = pw->pw_uid;
			r.gid = pw->pw_gid;
		} else {
			say("build.user '%s' cannot reach '%s' or '%s': the build runs as root, "
			    "without capabilities", user, r.dir, r.repo);
		}
	}
	say("%s: patches 1-%d of %s onto %.12s, %s", r.id, r.patch,
	    jx_strz(r.rec, "version"), sha, r.arch);
	ret = base(&r, sha, err);
	if (!ret)
		ret = tree(&r, sha, err);
	if (!ret)
		ret = build(&r, wanted, err);
out_net:
	cleanup(&r);
	net_release(&r.net);
out:
	json_object_put(wanted);
	json_object_put(r.rec);
	strbuf_release(&r.base);
	strbuf_release(&body);
	strbuf_release(&path);
	free(r.id);
	free(r.dir);
	free(r.src);
	free(r.obj);
	free(r.repo);
	return ret;
}
