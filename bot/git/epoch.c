// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/git/epoch.h"
#include "bot/git/git.h"
#include "lib/log.h"
#include "lib/run.h"

#define MAX_READ (1024u << 20)

static const char *const git_env[] = {
	"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=/bin/true", "LC_ALL=C", NULL,
};

static int git(const char *dir, const char *const *args, const char *in,
	       size_t in_len, uint64_t timeout_ms, size_t max_out,
	       struct run_cmd *cmd, struct strbuf *err)
{
	const char *argv[32];
	size_t n = 0, i;

	argv[n++] = "git";
	if (dir) {
		argv[n++] = "-C";
		argv[n++] = dir;
	}
	for (i = 0; args[i] && n < ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	cmd->argv = argv;
	cmd->env = git_env;
	cmd->in = in;
	cmd->in_len = in_len;
	cmd->limits.timeout_ms = timeout_ms;
	cmd->limits.max_output = max_out;
	if (run_cmd(cmd) < 0) {
		strbuf_addstr(err, "cannot run git");
		return -1;
	}
	if (cmd->status || cmd->timed_out || cmd->truncated) {
		/* name the subcommand, not the "-c key=value" before it */
		for (i = 0; args[i] && args[i + 1] && !strcmp(args[i], "-c"); i += 2)
			;
		strbuf_addf(err, "git %s in '%s': ", args[i] ? args[i] : "", dir ? dir : ".");
		if (cmd->truncated)
			strbuf_addstr(err, "too much output");
		else
			run_describe(cmd, err);
		strbuf_rtrim(&cmd->err);
		if (cmd->err.len) {
			const char *last = strrchr(cmd->err.buf, '\n');

			strbuf_addf(err, ": %s", last ? last + 1 : cmd->err.buf);
		}
		return -1;
	}
	return 0;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int epoch_head(const char *dir, struct strbuf *head, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	char id[41];
	int ret = git_rev_resolve(dir, "refs/heads/master", id, &e);

	strbuf_reset(head);
	if (!ret)
		strbuf_addstr(head, id);
	else if (ret != -ENOENT)	/* no master yet is not an error */
		strbuf_addbuf(err, &e);
	strbuf_release(&e);
	return ret && ret != -ENOENT ? -1 : 0;
}

/* A bare repository as git init leaves it: its HEAD, objects and refs */
static bool epoch_is_repo(const char *dir)
{
	static const char *const need[] = { "HEAD", "objects", "refs" };
	struct stat st;
	size_t i;
	bool ok = true;

	for (i = 0; ok && i < ARRAY_SIZE(need); i++) {
		char *p = xasprintf("%s/%s", dir, need[i]);

		ok = !stat(p, &st);
		free(p);
	}
	return ok;
}

int epoch_sync(const char *dir, const char *url, int64_t since,
	       const struct epoch_opts *o, struct strbuf *err)
{
	struct strbuf head = STRBUF_INIT, ua = STRBUF_INIT, shallow = STRBUF_INIT;
	int attempt, ret = -1;
	unsigned int seed = (unsigned int)(util_now_ms() ^ (uint64_t)getpid());

	/* absent, or not whole */
	if (!epoch_is_repo(dir)) {
		/*
		 * Made aside and renamed into place: a kill during git init
		 * left a directory that was no repository, and every pass
		 * after it failed on it.  Such a leftover is made again.
		 */
		char *tmp = xasprintf("%s.new", dir), *parent = xstrdup(dir);
		const char *init[] = { "init", "-q", "--bare", tmp, NULL };
		struct run_cmd cmd = RUN_CMD_INIT;

		if (strrchr(parent, '/'))
			*strrchr(parent, '/') = 0;
		util_mkdir_p(parent, 0755);
		free(parent);
		util_remove_tree(tmp);
		ret = git(NULL, init, NULL, 0, 60000, 0, &cmd, err);
		run_cmd_release(&cmd);
		if (!ret) {
			util_remove_tree(dir);
			if (rename(tmp, dir)) {
				strbuf_addf(err, "cannot rename '%s': %s", tmp, strerror(errno));
				ret = -1;
			}
		}
		free(tmp);
		if (ret)
			return -1;
	}
	if (epoch_head(dir, &head, err))
		goto out;
	strbuf_addf(&ua, "http.userAgent=%s", o->user_agent ? o->user_agent : "lorebot");
	if (!head.len && since > 0)
		strbuf_addf(&shallow, "--shallow-since=@%lld", (long long)since);
	for (attempt = 1; ; attempt++) {
		const char *args[] = {
			"-c", ua.buf, "-c", "http.lowSpeedLimit=1000",
			"-c", "http.lowSpeedTime=60", "fetch", "-q", "--no-tags",
			url, "+refs/heads/master:refs/heads/master", NULL, NULL,
		};
		struct run_cmd cmd = RUN_CMD_INIT;
		struct strbuf e = STRBUF_INIT;
		uint64_t d;
		int i;

		if (shallow.len) {
			args[11] = args[10];
			args[10] = args[9];
			args[9] = shallow.buf;
		}
		ret = git(dir, args, NULL, 0, o->timeout_ms ? o->timeout_ms : 600000,
			  0, &cmd, &e);
		run_cmd_release(&cmd);
		if (!ret) {
			strbuf_release(&e);
			break;
		}
		if (attempt >= (o->attempts > 0 ? o->attempts : 1)) {
			strbuf_addbuf(err, &e);
			strbuf_addf(err, " (gave up after %d attempts)", attempt);
			strbuf_release(&e);
			break;
		}
		d = o->retry_delay_ms ? o->retry_delay_ms : 1000;
		for (i = 1; i < attempt; i++)
			d *= 2;
		if (o->backoff_max_ms && d > o->backoff_max_ms)
			d = o->backoff_max_ms;
		d = d / 2 + (uint64_t)rand_r(&seed) % (d / 2 + 1);
		log_warn("lore: %s; retry %d/%d in %.1f s", e.buf, attempt,
			 o->attempts - 1, d / 1000.0);
		strbuf_release(&e);
		(o->sleep_ms ? o->sleep_ms : sleep_ms)(d);
	}
out:
	strbuf_release(&head);
	strbuf_release(&ua);
	strbuf_release(&shallow);
	return ret;
}

static int is_ancestor(const char *dir, const char *a, const char *b)
{
	const char *args[] = { "merge-base", "--is-ancestor", a, b, NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	struct strbuf e = STRBUF_INIT;
	int r = git(dir, args, NULL, 0, 60000, 0, &cmd, &e);

	r = r ? 0 : 1;
	strbuf_release(&e);
	run_cmd_release(&cmd);
	return r;
}

int epoch_commits(const char *dir, const char *from, const char *to,
		  char ***commits, size_t *nr, struct strbuf *err)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	struct strbuf range = STRBUF_INIT;
	const char *args[] = { "rev-list", "--reverse", "--first-parent", NULL, NULL };
	size_t alloc = 0;
	const char *p;
	int ret = -1;

	*commits = NULL;
	*nr = 0;
	if (from && *from && is_ancestor(dir, from, to))
		strbuf_addf(&range, "%s..%s", from, to);
	else
		strbuf_addstr(&range, to);
	args[3] = range.buf;
	if (git(dir, args, NULL, 0, 600000, MAX_READ, &cmd, err))
		goto out;
	for (p = cmd.out.buf; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len) {
			ALLOC_GROW(*commits, *nr + 1, alloc);
			(*commits)[(*nr)++] = xstrndup(p, len);
		}
		p += len + (nl ? 1 : 0);
	}
	ret = 0;
out:
	strbuf_release(&range);
	run_cmd_release(&cmd);
	return ret;
}

int64_t epoch_read(const char *dir, char *const *commits, size_t nr,
		   epoch_msg_fn fn, void *data, struct strbuf *err)
{
	static const char *const args[] = { "cat-file", "--batch", NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	struct strbuf in = STRBUF_INIT;
	const char *p, *end;
	int64_t n = -1, count = 0;
	size_t i;

	for (i = 0; i < nr; i++)
		strbuf_addf(&in, "%s:m\n", commits[i]);
	if (git(dir, args, in.buf, in.len, 600000, MAX_READ, &cmd, err))
		goto out;
	p = cmd.out.buf;
	end = p + cmd.out.len;
	for (i = 0; i < nr; i++) {
		const char *nl = memchr(p, '\n', end - p);
		unsigned long long size;
		char oid[65], type[16], line[128];

		if (!nl) {
			strbuf_addf(err, "git cat-file: output ends early at %s", commits[i]);
			goto out;
		}
		if (nl - p > 8 && !memcmp(nl - 8, " missing", 8)) {
			p = nl + 1;	/* a removal ("d"), not a message */
			continue;
		}
		/*
		 * The header line alone: sscanf() of the output measures the
		 * string first, all the blobs after this one, for each blob
		 * (a third of a catch-up's instructions by git, issue 46)
		 */
		if ((size_t)(nl - p) >= sizeof(line)) {
			strbuf_addf(err, "git cat-file: unexpected output at %s", commits[i]);
			goto out;
		}
		memcpy(line, p, nl - p);
		line[nl - p] = 0;
		if (sscanf(line, "%64s %15s %llu", oid, type, &size) != 3 ||
		    strcmp(type, "blob") || size > (unsigned long long)(end - nl - 1)) {
			strbuf_addf(err, "git cat-file: unexpected output at %s", commits[i]);
			goto out;
		}
		if (fn(data, commits[i], nl + 1, size))
			goto out;
		count++;
		p = nl + 1 + size + 1;
	}
	n = count;
out:
	strbuf_release(&in);
	run_cmd_release(&cmd);
	return n;
}
