// SPDX-License-Identifier: GPL-2.0
/* git's reading of a mail: git mailinfo, then git var for the date */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/mail/mailinfo.h"
#include "bot/mail/patch.h"
#include "lib/run.h"

#define GIT_TIMEOUT_MS 30000

/* git's own configuration stays out of it (mailinfo.scissors...) */
static const char *const git_env[] = {
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_AUTHOR_NAME=mailinfo", "GIT_AUTHOR_EMAIL=mailinfo@lorebot.invalid",
	"LC_ALL=C", "TZ=UTC", NULL,
};

/* As git mailsplit hands a message to mailinfo: "\r\n" ends lines as "\n" */
static void mailsplit_crlf(const char *raw, size_t len, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (raw[i] == '\r' && i + 1 < len && raw[i + 1] == '\n')
			continue;
		strbuf_addch(out, raw[i]);
	}
}

/* "Name: value" lines of git mailinfo's output */
static char *info_value(const char *info, const char *name, bool *found)
{
	size_t n = strlen(name);
	const char *p = info;

	while (p && *p && *p != '\n') {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len >= n + 2 && !memcmp(p, name, n) && p[n] == ':' && p[n + 1] == ' ') {
			*found = true;
			return xstrndup(p + n + 2, len - n - 2);
		}
		p = nl ? nl + 1 : NULL;
	}
	*found = false;
	return xstrdup("");
}

/*
 * Dates recur (a series is sent at once, generated mail reuses a few):
 * git's answers are kept, one process less per mail.
 */
#define DATE_CACHE 256

static struct {
	char *text;
	bool refused;
	int64_t date;
	int tz;
} date_cache[DATE_CACHE];
static size_t date_next;

static bool cached_date(struct mailinfo *mi)
{
	size_t i;

	for (i = 0; i < DATE_CACHE && date_cache[i].text; i++) {
		if (strcmp(date_cache[i].text, mi->date_text))
			continue;
		mi->date_refused = date_cache[i].refused;
		mi->has_date = !mi->date_refused;
		mi->date = date_cache[i].date;
		mi->tz = date_cache[i].tz;
		return true;
	}
	return false;
}

static void cache_date(const struct mailinfo *mi)
{
	size_t i = date_next++ % DATE_CACHE;

	free(date_cache[i].text);
	date_cache[i].text = xstrdup(mi->date_text);
	date_cache[i].refused = mi->date_refused;
	date_cache[i].date = mi->date;
	date_cache[i].tz = mi->tz;
}

/* The date as git am would take it (git var parses it the same way) */
static int git_date(struct mailinfo *mi)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	const char *argv[] = { "git", "var", "GIT_AUTHOR_IDENT", NULL };
	const char *env[ARRAY_SIZE(git_env) + 1];
	char *date_env = xasprintf("GIT_AUTHOR_DATE=%s", mi->date_text);
	const char *gt;
	long long t;
	int tz, ret;
	size_t i;

	if (cached_date(mi)) {
		free(date_env);
		return 0;
	}
	for (i = 0; git_env[i]; i++)
		env[i] = git_env[i];
	env[i++] = date_env;
	env[i] = NULL;
	cmd.argv = argv;
	cmd.env = env;
	cmd.limits.timeout_ms = GIT_TIMEOUT_MS;
	ret = run_cmd(&cmd);
	free(date_env);
	if (ret < 0)
		goto out;
	gt = strrchr(cmd.out.buf, '>');
	if (cmd.status || !gt || sscanf(gt + 1, " %lld %d", &t, &tz) != 2) {
		mi->date_refused = true;
	} else {
		mi->has_date = true;
		mi->date = t;
		mi->tz = (tz < 0 ? -1 : 1) * ((tz < 0 ? -tz : tz) / 100 * 60 +
					      (tz < 0 ? -tz : tz) % 100);
	}
	cache_date(mi);
out:
	run_cmd_release(&cmd);
	return ret < 0 ? -1 : 0;
}

int mailinfo_git(const char *raw, size_t len, unsigned int flags,
		 struct mailinfo *mi, struct strbuf *err)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	struct strbuf in = STRBUF_INIT;
	const char *dir_env = getenv("TMPDIR");
	char *dir = xasprintf("%s/lorebot-mailinfo.XXXXXX",
			      dir_env && *dir_env ? dir_env : "/tmp");
	char *msg = NULL, *patch = NULL, *buf = NULL;
	const char *argv[6];
	size_t n = 0, blen;
	bool found;
	int ret = -1;

	if (!mkdtemp(dir)) {
		strbuf_addf(err, "cannot make a directory for git mailinfo: %s",
			    strerror(errno));
		free(dir);
		return -1;
	}
	msg = xasprintf("%s/msg", dir);
	patch = xasprintf("%s/patch", dir);
	argv[n++] = "git";
	argv[n++] = "mailinfo";
	if (flags & PATCH_KEEP_NON_PATCH)
		argv[n++] = "-b";
	if (flags & PATCH_SCISSORS)
		argv[n++] = "--scissors";
	argv[n++] = msg;
	argv[n++] = patch;
	argv[n] = NULL;
	mailsplit_crlf(raw, len, &in);
	cmd.argv = argv;
	cmd.env = git_env;
	cmd.in = in.buf;
	cmd.in_len = in.len;
	cmd.limits.timeout_ms = GIT_TIMEOUT_MS;
	cmd.limits.max_output = 1 << 20;
	if (run_cmd(&cmd) < 0) {
		strbuf_addstr(err, "cannot run git mailinfo");
		goto out;
	}
	if (cmd.status || cmd.timed_out) {
		strbuf_addf(err, "git mailinfo: %.*s", (int)strcspn(cmd.err.buf, "\n"),
			    cmd.err.len ? cmd.err.buf : "failed");
		ret = 1;
		goto out;
	}
	mi->author = info_value(cmd.out.buf, "Author", &found);
	mi->email = info_value(cmd.out.buf, "Email", &found);
	mi->subject = info_value(cmd.out.buf, "Subject", &found);
	mi->date_text = info_value(cmd.out.buf, "Date", &found);
	if (!util_read_file(msg, &buf, &blen, SIZE_MAX)) {
		strbuf_add(&mi->message, buf, blen);
		strbuf_stripspace(&mi->message);
		free(buf);
	}
	if (!util_read_file(patch, &buf, &blen, SIZE_MAX)) {
		strbuf_add(&mi->patch, buf, blen);
		free(buf);
	}
	ret = found && git_date(mi) ? -1 : 0;
	if (ret)
		strbuf_addstr(err, "cannot run git var");
out:
	unlink(msg);
	unlink(patch);
	rmdir(dir);
	free(msg);
	free(patch);
	free(dir);
	strbuf_release(&in);
	run_cmd_release(&cmd);
	return ret;
}
