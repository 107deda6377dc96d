// SPDX-License-Identifier: GPL-2.0
/*
 * checkpatch.pl of the target tree, run on every patch the way b4 does
 * ("b4 prep --check": -q --terse --no-summary --mailback) plus what
 * parsing needs (--show-types, and the per-file summary line, so
 * --no-summary and --mailback are dropped: they change the output, not
 * the checks).  Findings are "checkpatch:<TYPE>".  checkpatch.pl says
 * where a finding is as a line of the mail it read (its "#N"); as that
 * mail is written here, the line is mapped back: to COMMIT_MSG:N for the
 * subject and message (counted as lorebot's own checkers count them),
 * to the file and post-image line for the diff (where --showfile would
 * give a stale line for a commit message finding).  Should a
 * group's output not split into one summary per file, its patches are
 * checked again one process each.
 *
 * The script and its data files (spelling.txt, const_structs.checkpatch)
 * are taken from a revision of the tree the bot trusts (the first
 * git.base branch it has; never the base-commit: a mail names, which
 * may be another series' tip), else from a fallback repository (the
 * cached mm tree's mm-new or HEAD), and extracted once into the cache
 * directory, keyed by their contents.  It runs with --no-tree and
 * GIT_DIR set to the tree's repository, so commit ids are checked
 * against it and nothing else is read.
 *
 * Perl's start-up dominates the time of one patch, so the patches are
 * split into one group per core, each group one checkpatch process that
 * checks several files; the groups run in parallel with the other
 * checkers (begin() starts them, end() collects).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/git/git.h"
#include "lib/run.h"
#include "checkers/pattern.h"
#include "checkers/rules.h"

#define CHECKPATCH_TIMEOUT_MS (300 * 1000)
#define MAX_SCRIPT (4 << 20)

static const char *const script_files[] = {
	"checkpatch.pl", "spelling.txt", "const_structs.checkpatch",
};

struct cp_group {
	struct run_bg bg;
	size_t first, end;	/* patches [first, end) */
	char *log;
	bool started;
};

/*
 * Where the parts of a patch are in the mail checkpatch.pl reads (line
 * numbers of that file, from 1; 0: the part is not there)
 */
struct cp_layout {
	int subject;		/* the Subject: line: COMMIT_MSG:1 */
	int msg_first;		/* the message's first line: COMMIT_MSG:3 */
	int msg_lines;
	int diff_first;		/* the diff's first line */
	/* each line of the diff: its file (an index of files) and post-image line */
	struct cp_where {
		int file;	/* -1: before the first file */
		int line;	/* 0: none (a file's header) */
	} *where;
	size_t nr_where;
	char **files;
	size_t nr_files;
};

struct cp_state {
	char *tmp;
	struct cp_layout *lay;	/* one per patch of the series */
	struct cp_group *g;
	size_t nr;
	char **argv;		/* perl, the script, the flags */
	size_t nr_argv;
	char *env;		/* GIT_DIR=... */
};

typedef int (*read_fn)(void *data, const char *path, struct strbuf *out);

struct fallback {
	const char *repo;
	const char *rev;
};

static int read_tree(void *data, const char *path, struct strbuf *out)
{
	struct check_series *s = data;

	return s->tree->read(s->tree, s->trusted_rev, path, out);
}

static int read_fallback(void *data, const char *path, struct strbuf *out)
{
	struct fallback *fb = data;

	return git_read_file_at(fb->repo, fb->rev, path, out);
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* The scripts of a tree in dir (cache or scratch); the script's path */
static char *extract(read_fn rd, void *data, const char *cachedir,
		     const char *tmp, struct strbuf *why)
{
	struct strbuf buf[ARRAY_SIZE(script_files)];
	struct strbuf all = STRBUF_INIT, dir = STRBUF_INIT;
	char hash[17], *script = NULL;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(script_files); i++)
		strbuf_init(&buf[i], 0);
	for (i = 0; i < ARRAY_SIZE(script_files); i++) {
		char *path = xasprintf("scripts/%s", script_files[i]);

		r = rd(data, path, &buf[i]);
		free(path);
		if (r && !i) {
			strbuf_addstr(why, "the tree has no scripts/checkpatch.pl");
			goto out;
		}
		strbuf_addbuf(&all, &buf[i]);
		strbuf_addch(&all, 0);
	}
	util_hash_hex(all.buf, all.len, hash);
	if (cachedir && !util_mkdir_p(cachedir, 0755))
		strbuf_addf(&dir, "%s/checkpatch-%s", cachedir, hash);
	else
		strbuf_addf(&dir, "%s/scripts", tmp);
	script = xasprintf("%s/checkpatch.pl", dir.buf);
	if (exists(script))
		goto out;
	if (util_mkdir_p(dir.buf, 0755)) {
		/* the cache is not ours to write: use the scratch directory */
		free(script);
		strbuf_reset(&dir);
		strbuf_addf(&dir, "%s/scripts", tmp);
		util_mkdir_p(dir.buf, 0755);
		script = xasprintf("%s/checkpatch.pl", dir.buf);
	}
	/* data files first, the script last and renamed: the marker */
	for (i = ARRAY_SIZE(script_files); i-- > 0; ) {
		char *p = xasprintf("%s/%s", dir.buf, script_files[i]);
		char *t = xasprintf("%s.%d", p, (int)getpid());

		if (util_write_file(t, buf[i].buf, buf[i].len) || rename(t, p)) {
			strbuf_addf(why, "cannot write '%s'", p);
			unlink(t);
			free(script);
			script = NULL;
		}
		free(t);
		free(p);
		if (!script)
			break;
	}
out:
	for (i = 0; i < ARRAY_SIZE(script_files); i++)
		strbuf_release(&buf[i]);
	strbuf_release(&all);
	strbuf_release(&dir);
	return script;
}

static char *find_script(struct check_ctx *c, const char *tmp, struct strbuf *why)
{
	const struct check_opts *o = c->o;
	char *script;

	if (o->checkpatch)
		return exists(o->checkpatch) ? xstrdup(o->checkpatch) : NULL;
	if (c->s->tree && c->s->trusted_rev) {
		script = extract(read_tree, c->s, o->cachedir, tmp, why);
		if (script)
			return script;
	}
	if (o->fallback_repo) {
		static const char *const revs[] = { "mm-new", "HEAD" };
		size_t i;

		for (i = 0; i < ARRAY_SIZE(revs); i++) {
			struct fallback fb = { o->fallback_repo, revs[i] };

			strbuf_reset(why);
			script = extract(read_fallback, &fb, o->cachedir, tmp, why);
			if (script)
				return script;
		}
	}
	if (!why->len)
		strbuf_addstr(why, "no tree and no fallback repository");
	return NULL;
}

/* b4's flags, minus what hides the per-file summary, plus what we parse */
static void build_argv(const char *flags, const char *script, char ***argv,
		       size_t *nr)
{
	static const char *const drop[] = {
		"--no-summary", "--mailback", "--summary-file", "--showfile",
	};
	/*
	 * -q with --terse (which is quiet too) makes checkpatch print its
	 * "total:" line for clean files as well: that is how the output of
	 * one process checking several files is split.
	 */
	static const char *const need[] = {
		"-q", "--terse", "--show-types", "--no-tree",
		"--color=never",
	};
	const char *p = flags ? flags : "-q --terse --no-summary --mailback";
	size_t k;

	*nr = 0;
	*argv = xcalloc(strlen(p) + ARRAY_SIZE(need) + 4, sizeof(**argv));
	(*argv)[(*nr)++] = xstrdup("perl");
	(*argv)[(*nr)++] = xstrdup(script);
	while (*p) {
		size_t n = strcspn(p, " \t");
		bool skip = false;

		for (k = 0; k < ARRAY_SIZE(drop); k++)
			if (n == strlen(drop[k]) && !strncmp(p, drop[k], n))
				skip = true;
		if (n && !skip)
			(*argv)[(*nr)++] = xstrndup(p, n);
		p += n;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	for (k = 0; k < ARRAY_SIZE(need); k++) {
		size_t j;
		bool have = false;

		for (j = 2; j < *nr; j++)
			if (!strcmp((*argv)[j], need[k]))
				have = true;
		if (!have)
			(*argv)[(*nr)++] = xstrdup(need[k]);
	}
}

/* The line sb's next byte is on; *counted: the bytes counted so far */
static int next_line(const struct strbuf *sb, size_t *counted, int *lines)
{
	const char *p = sb->buf + *counted, *end = sb->buf + sb->len;

	while (p < end && (p = memchr(p, '\n', end - p))) {
		(*lines)++;
		p++;
	}
	*counted = sb->len;
	return *lines + 1;
}

static void diff_map(const struct patch *p, struct cp_layout *lay);

/*
 * The patch as checkpatch.pl should read it: decoded.  A quoted-printable
 * or base64 mail read raw gives "=3D" spacing errors, "=0A=" corrupt
 * patches and lost findings; so the mail is written again from what was
 * parsed out of it, in UTF-8 and 8 bits, the way git format-patch writes
 * it: From, Subject, Date, the message with its trailers, "---", the
 * notes and the diff byte for byte.
 */
static void checkpatch_mail(const struct check_patch *cp, struct strbuf *sb,
			    struct cp_layout *lay)
{
	const struct patch *p = &cp->p;
	size_t counted = 0;
	int lines = 0;

	memset(lay, 0, sizeof(*lay));
	if (!p->diff) {
		strbuf_add(sb, cp->raw, cp->raw_len);
		return;
	}
	strbuf_addstr(sb, "From: ");
	if (p->author_name && *p->author_name)
		strbuf_addf(sb, "%s ", p->author_name);
	strbuf_addf(sb, "<%s>\n", p->author_email ? p->author_email : "");
	lay->subject = next_line(sb, &counted, &lines);
	strbuf_addf(sb, "Subject: %s\n", cp->subject);
	strbuf_addstr(sb, "MIME-Version: 1.0\n"
		      "Content-Type: text/plain; charset=UTF-8\n"
		      "Content-Transfer-Encoding: 8bit\n\n");
	if (p->message && *p->message) {
		lay->msg_first = next_line(sb, &counted, &lines);
		strbuf_addstr(sb, p->message);
		strbuf_complete_line(sb);
		lay->msg_lines = next_line(sb, &counted, &lines) - lay->msg_first;
	}
	strbuf_addstr(sb, "---\n");
	if (p->notes && *p->notes) {
		strbuf_addstr(sb, p->notes);
		strbuf_complete_line(sb);
	}
	lay->diff_first = next_line(sb, &counted, &lines);
	diff_map(p, lay);
	strbuf_add(sb, p->diff, p->diff_len);
	strbuf_complete_line(sb);
	if (p->signature)
		strbuf_addf(sb, "-- \n%s", p->signature);
}

/* The new path of a "diff --git a/X b/Y" or "+++ b/Y" line, or NULL */
static char *diff_path(const char *l, size_t n)
{
	const char *b;

	if (n > 6 && !memcmp(l, "+++ b/", 6))
		return xstrndup(l + 6, n - 6);
	if (n > 11 && !memcmp(l, "diff --git ", 11)) {
		b = memmem(l + 11, n - 11, " b/", 3);
		if (b)
			return xstrndup(b + 3, l + n - b - 3);
	}
	return NULL;
}

/* "@@ -a[,b] +c[,d] @@" within the n bytes of l: c */
static bool hunk_start(const char *l, size_t n, int *c)
{
	size_t i = 4;

	if (n < 4 || memcmp(l, "@@ -", 4))
		return false;
	while (i < n && (isdigit((unsigned char)l[i]) || l[i] == ','))
		i++;
	if (i + 2 > n || l[i] != ' ' || l[i + 1] != '+')
		return false;
	*c = 0;
	for (i += 2; i < n && isdigit((unsigned char)l[i]); i++) {
		if (*c > (INT_MAX - 9) / 10)
			return false;
		*c = *c * 10 + (l[i] - '0');
	}
	return isdigit((unsigned char)l[i - 1]);
}

/*
 * Where each line of the diff is, in one pass: the file and the
 * post-image line checkpatch.pl counts there (context and added lines
 * count; a removed line is at the line before it; a file's header lines
 * have no line)
 */
static void diff_map(const struct patch *p, struct cp_layout *lay)
{
	const char *l = p->diff, *end = p->diff + p->diff_len;
	size_t alloc = 0;
	int file = -1, line = 0;
	bool hunk = false;

	while (l < end) {
		const char *nl = memchr(l, '\n', end - l);
		size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);
		char *path = diff_path(l, n);
		int start;

		if (path) {
			/* "diff --git" then "+++" name one file, mostly the same */
			if (file < 0 || strcmp(lay->files[file], path)) {
				lay->files = xrealloc(lay->files, (lay->nr_files + 1) *
						      sizeof(*lay->files));
				lay->files[lay->nr_files] = path;
				file = (int)lay->nr_files++;
			} else {
				free(path);
			}
			hunk = false;
		} else if (hunk_start(l, n, &start)) {
			line = start > 0 ? start - 1 : 0;
			hunk = true;
		} else if (hunk && (!n || *l == ' ' || *l == '+')) {
			line++;
		} else if (hunk && *l != '-' && *l != '\\') {
			hunk = false;
		}
		ALLOC_GROW(lay->where, lay->nr_where + 1, alloc);
		lay->where[lay->nr_where].file = file;
		lay->where[lay->nr_where].line = hunk ? line : 0;
		lay->nr_where++;
		l += n + 1;
	}
}

static void layout_release(struct cp_layout *lay)
{
	size_t i;

	for (i = 0; i < lay->nr_files; i++)
		free(lay->files[i]);
	free(lay->files);
	free(lay->where);
}

static void checkpatch_begin(struct check_ctx *c)
{
	struct check_series *s = c->s;
	struct cp_state *st;
	struct strbuf why = STRBUF_INIT, env = STRBUF_INIT;
	char tmpl[] = "/tmp/lorebot-checkpatch.XXXXXX";
	char **argv, *script;
	size_t nr_argv, i, g;
	long cores;
	int jobs;

	if (!s->nr)
		return;
	if (!mkdtemp(tmpl)) {
		check_report(c, NULL, CHECK_NOTE, NULL, 0,
			     "checkpatch.pl not run: no scratch directory: %s",
			     strerror(errno));
		return;
	}
	script = find_script(c, tmpl, &why);
	if (!script) {
		check_report(c, NULL, CHECK_NOTE, NULL, 0,
			     "checkpatch.pl not run: %s", why.buf);
		util_remove_tree(tmpl);
		strbuf_release(&why);
		return;
	}
	st = xcalloc(1, sizeof(*st));
	st->tmp = xstrdup(tmpl);
	st->lay = xcalloc(s->nr, sizeof(*st->lay));
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	jobs = c->o->jobs > 0 ? c->o->jobs : cores > 0 ? (int)cores : 1;
	st->nr = MIN((size_t)jobs, s->nr);
	st->g = xcalloc(st->nr, sizeof(*st->g));
	build_argv(c->o->checkpatch_flags, script, &st->argv, &st->nr_argv);
	nr_argv = st->nr_argv;
	argv = xcalloc(nr_argv + s->nr + 1, sizeof(*argv));
	memcpy(argv, st->argv, nr_argv * sizeof(*argv));
	strbuf_addf(&env, "GIT_DIR=%s", s->tree && s->tree->checkpatch_gitdir ?
		    s->tree->checkpatch_gitdir : "/nonexistent/lorebot");
	st->env = xstrdup(env.buf);
	for (i = 0; i < s->nr; i++) {
		char *path = xasprintf("%s/%04zu.patch", st->tmp, i + 1);
		struct strbuf mail = STRBUF_INIT;

		checkpatch_mail(s->patches[i], &mail, &st->lay[i]);
		util_write_file(path, mail.buf, mail.len);
		strbuf_release(&mail);
		free(path);
	}
	for (g = 0; g < st->nr; g++) {
		struct cp_group *gr = &st->g[g];
		const char *envv[] = { env.buf, NULL };
		size_t n = nr_argv;

		gr->first = g * s->nr / st->nr;
		gr->end = (g + 1) * s->nr / st->nr;
		for (i = gr->first; i < gr->end; i++)
			argv[n++] = xasprintf("%s/%04zu.patch", st->tmp, i + 1);
		argv[n] = NULL;
		gr->log = xasprintf("%s/group-%zu.log", st->tmp, g);
		gr->started = !run_bg_start(&gr->bg, (const char *const *)argv, envv,
					    gr->log, CHECKPATCH_TIMEOUT_MS);
		while (n > nr_argv)
			free(argv[--n]);
	}
	free(argv);
	free(script);
	strbuf_release(&env);
	strbuf_release(&why);
	c->state = st;
}

static struct pattern total_re = PATTERN("^total: \\d+ errors", 0);
static struct pattern line_re =
	PATTERN("^(.*?):(\\d+): (ERROR|WARNING|CHECK):([A-Za-z0-9_]+): (.*)$", 0);

static size_t count_totals(const char *log, size_t len)
{
	size_t pos = 0, n = 0;

	while (pos < len) {
		const char *l = log + pos, *nl = memchr(l, '\n', len - pos);
		size_t k = nl ? (size_t)(nl - l) : len - pos;

		if (pattern_match(&total_re, l, k, NULL))
			n++;
		pos += k + 1;
	}
	return n;
}

/*
 * Where line no of the mail of patch idx is: a file and its line, or
 * the commit message (file NULL) and its line (subject 1, message from
 * 3); line 0 when checkpatch.pl points at none of these (the notes, a
 * file's header, a mail it read raw).
 */
static int mail_where(const struct cp_layout *lay, const struct check_patch *cp,
		      int no, char **file)
{
	const struct cp_where *w;
	int line;

	*file = NULL;
	if (no <= 0)
		return 0;
	if (no == lay->subject)
		return 1;
	if (lay->msg_first && no >= lay->msg_first &&
	    no < lay->msg_first + lay->msg_lines)
		return no - lay->msg_first + 3;
	if (!lay->diff_first || no < lay->diff_first)
		return 0;
	if ((size_t)(no - lay->diff_first) >= lay->nr_where)
		return 0;
	w = &lay->where[no - lay->diff_first];
	if (w->file < 0)
		return 0;
	*file = xstrdup(lay->files[w->file]);
	line = w->line;
	if (line > 0)
		line = check_patch_line(cp, *file, line);
	return MAX(line, 0);
}

static void parse_log(struct check_ctx *c, const struct cp_state *st,
		      const struct cp_group *gr, const char *log, size_t len,
		      int status)
{
	static const enum check_severity sev[] = { CHECK_ERROR, CHECK_WARNING, CHECK_NOTE };
	size_t idx = gr->first, pos = 0, seen = 0;

	while (pos < len && idx < gr->end) {
		const char *l = log + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		struct pattern_match m;

		pos += n + 1;
		if (pattern_match(&total_re, l, n, NULL)) {
			idx++;
			seen++;
			continue;
		}
		if (pattern_match(&line_re, l, n, &m)) {
			char *rule = xasprintf("checkpatch:%.*s", (int)(m.end[4] - m.start[4]),
					       l + m.start[4]);
			char t = l[m.start[3]], *file;
			int line;

			if (c->o->stale_tree && !strcmp(rule, "checkpatch:UNKNOWN_COMMIT_ID")) {
				c->ids_unchecked++;
				free(rule);
				continue;
			}
			c->patch = c->s->patches[idx];
			line = mail_where(&st->lay[idx], c->patch,
					  atoi(l + m.start[2]), &file);
			check_report(c, rule, sev[t == 'E' ? 0 : t == 'W' ? 1 : 2],
				     file, line, "%.*s",
				     (int)(m.end[5] - m.start[5]), l + m.start[5]);
			c->patch = NULL;
			free(file);
			free(rule);
		}
	}
	if (!seen && (status < 0 || status > 1)) {
		const char *tail = len > 300 ? log + len - 300 : log;

		check_report(c, NULL, CHECK_NOTE, NULL, 0,
			     "checkpatch.pl failed (exit %d): %s", status, tail);
	}
}

/* The output of a group did not split by file: one process per patch */
static void rerun_one_by_one(struct check_ctx *c, struct cp_state *st,
			     const struct cp_group *gr)
{
	const char **argv = xcalloc(st->nr_argv + 2, sizeof(*argv));
	const char *env[] = { st->env, NULL };
	size_t i;

	memcpy(argv, st->argv, st->nr_argv * sizeof(*argv));
	for (i = gr->first; i < gr->end; i++) {
		struct run_cmd cmd = RUN_CMD_INIT;
		struct cp_group one = { .first = i, .end = i + 1 };
		char *path = xasprintf("%s/%04zu.patch", st->tmp, i + 1);

		argv[st->nr_argv] = path;
		cmd.argv = argv;
		cmd.env = env;
		cmd.merge_stderr = true;
		cmd.limits.timeout_ms = CHECKPATCH_TIMEOUT_MS;
		if (!run_cmd(&cmd) && !cmd.timed_out)
			parse_log(c, st, &one, cmd.out.buf, cmd.out.len, cmd.status);
		run_cmd_release(&cmd);
		free(path);
	}
	free(argv);
}

static void checkpatch_end(struct check_ctx *c)
{
	struct cp_state *st = c->state;
	size_t g;
	bool running;

	if (!st)
		return;
	do {
		running = false;
		for (g = 0; g < st->nr; g++)
			if (st->g[g].started && run_bg_poll(&st->g[g].bg))
				running = true;
		if (running)
			usleep(2000);
	} while (running);
	for (g = 0; g < st->nr; g++) {
		struct cp_group *gr = &st->g[g];
		char *log = NULL;
		size_t len = 0;

		if (!gr->started || util_read_file(gr->log, &log, &len, 64 << 20)) {
			check_report(c, NULL, CHECK_NOTE, NULL, 0,
				     "checkpatch.pl could not be run");
		} else if (gr->bg.timed_out) {
			check_report(c, NULL, CHECK_NOTE, NULL, 0,
				     "checkpatch.pl timed out");
		} else if (gr->end - gr->first > 1 &&
			   count_totals(log, len) != gr->end - gr->first) {
			rerun_one_by_one(c, st, gr);
		} else {
			parse_log(c, st, gr, log, len, gr->bg.status);
		}
		free(log);
		free(gr->log);
	}
	for (g = 0; g < st->nr_argv; g++)
		free(st->argv[g]);
	free(st->argv);
	free(st->env);
	for (g = 0; st->lay && g < c->s->nr; g++)
		layout_release(&st->lay[g]);
	free(st->lay);
	util_remove_tree(st->tmp);
	free(st->tmp);
	free(st->g);
	free(st);
	c->state = NULL;
}

const struct checker checkpatch_checker = {
	.name = "checkpatch",
	.summary = "scripts/checkpatch.pl of the target tree, as b4 runs it",
	.scope = CHECK_SCOPE_SERIES,
	.severity = CHECK_WARNING,
	.on = true,
	.begin = checkpatch_begin,
	.end = checkpatch_end,
};
