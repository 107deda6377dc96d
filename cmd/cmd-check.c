// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ci/devcheck.h"
#include "ci/mboxcheck.h"
#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "lib/log.h"
#include "checkers/check.h"

static int opts_from_config(struct check_opts *o, const struct config *cfg,
			    struct strbuf *err)
{
	const struct cfg_list *v;
	size_t i;
	int ret = 0;

	o->columns = (int)config_v(cfg)->check_columns;
	if (o->columns < 20 || o->columns > 1000) {
		strbuf_addf(err, "check.columns: %d is not a column limit", o->columns);
		return -1;
	}
	o->checkpatch_flags = xstrdup_or_null(config_v(cfg)->check_checkpatchflags);
	o->cachedir = config_cachedir(cfg);
	if (o->cachedir)
		o->fallback_repo = xasprintf("%s/mm.git", o->cachedir);
	v = &config_v(cfg)->check_enable;
	for (i = 0; i < v->nr && !ret; i++)
		ret = check_select(o, v->v[i], err);
	v = &config_v(cfg)->check_disable;
	for (i = 0; i < v->nr && !ret; i++) {
		char *neg = xasprintf("-%s", v->v[i]);

		ret = check_select(o, neg, err);
		free(neg);
	}
	if (!ret && !config_v(cfg)->check_checkpatch)
		ret = check_select(o, "-checkpatch", err);
	if (!ret && !config_v(cfg)->check_codespell)
		ret = check_select(o, "-codespell", err);
	return ret;
}

static void list_checkers(const struct check_opts *o)
{
	size_t i;

	for (i = 0; i < checkers_nr; i++)
		printf("%-20s %-3s %-7s %s\n", checkers[i]->name,
		       check_enabled(o, checkers[i]) ? "on" : "off",
		       check_severity_name(checkers[i]->severity), checkers[i]->summary);
}

/*
 * The configuration: lorebot.* of the git configuration (the user's,
 * and the repository's holding dir), then --config, then the command
 * line.  Nothing is read from the files of a tree.  A bad value, of the
 * git configuration too, is an error (EXIT_USAGE): each is named, and
 * none is read as its default; an unknown key of the git configuration
 * is a warning.
 */
static int load_config(struct config *all, const struct config *file,
		       const char *dir)
{
	struct strbuf err = STRBUF_INIT, report = STRBUF_INIT;
	int ret = EXIT_OK;
	size_t i;

	if (config_load_git(all, dir, "lorebot.", &err)) {
		/* not in a repository: the user's configuration alone */
		strbuf_reset(&err);
		config_release(all);
		if (config_load_git(all, NULL, "lorebot.", &err))
			fprintf(stderr, "lorebot: git config: %s\n", err.buf);
	}
	strbuf_reset(&err);
	config_check(all, &report);
	for (i = 0; i < file->nr; i++) {
		const struct config_entry *e = &file->e[i];

		config_set_at(all, e->name, e->value, e->file, e->line);
	}
	if (config_parse(all, &err)) {
		ret = cmd_config_error(&err);
	} else {
		/* no bad values: what it reports is unknown keys */
		fputs(report.buf, stderr);
	}
	strbuf_release(&err);
	strbuf_release(&report);
	return ret;
}

/* --color=auto|always|never (check.color), NO_COLOR, a terminal */
static int want_color(const char *when, bool *color)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (!when || !strcmp(when, "auto")) {
		*color = isatty(1) && !(no && *no) && !(term && !strcmp(term, "dumb"));
		return 0;
	}
	if (!strcmp(when, "always")) {
		*color = true;
		return 0;
	}
	if (!strcmp(when, "never")) {
		*color = false;
		return 0;
	}
	return -1;
}

/* --build[=LIST], --boot[=LIST]: wanted, on these architectures (NULL: configured) */
struct arch_opt {
	bool want;
	const char *list;
};

static int arch_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	struct arch_opt *a = opt->value;

	(void)err;
	a->want = true;
	a->list = arg;
	return 0;
}

/* --color[=WHEN]: bare, always */
static int color_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	(void)err;
	*(const char **)opt->value = arg ? arg : "always";
	return 0;
}

static int columns_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	int *columns = opt->value;

	*columns = atoi(arg);
	if (*columns < 20 || *columns > 1000) {
		strbuf_addf(err, "bad column limit '%s'", arg);
		return -1;
	}
	return 0;
}

static int fail_on_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	if (check_severity_parse(arg, opt->value)) {
		strbuf_addf(err, "bad --fail-on '%s' (error, warning or note)", arg);
		return -1;
	}
	return 0;
}

const char cmd_check_help[] =
	"NAME\n"
	"    lorebot-check - review patches the way linux-mm reviewers do, before\n"
	"    sending them or as they come\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot check [RANGE] [--fix [--apply]] [--build[=ARCHS]] [--boot[=ARCHS]]\n"
	"                  [--repo DIR] [options]\n"
	"    lorebot check --mbox FILE [--series ID] [--repo DIR] [options]\n"
	"    lorebot check --msgid ID [--url URL] [--repo DIR] [options]\n"
	"    lorebot check --list\n"
	"\n"
	"DESCRIPTION\n"
	"    In a kernel tree, without --mbox, checks the commits of the current\n"
	"    branch that are not in its upstream (@{upstream}..HEAD); on a branch\n"
	"    prepared with 'b4 prep', the series b4 would send, with its cover\n"
	"    letter; or RANGE: A..B (either side may be left out: HEAD), or one\n"
	"    commit.  Each commit is checked as the mail 'git format-patch' would\n"
	"    make of it, against the whole files of the commit.  Nothing in the\n"
	"    repository is changed: no checkout, no index, no refs (only --apply\n"
	"    writes, when asked).\n"
	"\n"
	"    With --mbox, checks every current series in FILE (a thread saved from\n"
	"    lore; versions superseded by a later one are skipped), with --msgid\n"
	"    the thread of message ID, fetched from lore; with --repo\n"
	"    the series is applied (without writing) to its base-commit, else\n"
	"    git.base, else HEAD, so the rules read whole files, Fixes: tags are\n"
	"    looked up and checkpatch.pl is that of the first git.base branch of\n"
	"    the tree (never of a commit only a mail names); a patch that does not\n"
	"    apply is checked from its hunks.  Without --repo the rules see the\n"
	"    hunks only and say so when that was not enough: one note per patch,\n"
	"    'hunks-only', names the rules that could not decide and where.\n"
	"\n"
	"    A diff posted in a reply (a fold-in fix-up, a \"-fix\" patch, an\n"
	"    inline \"[PATCH] tmp\" in a \"Re:\" mail) is checked too, as a patch\n"
	"    of its own headed \"(a diff in a reply to vN n/M <id>)\" with the\n"
	"    version it fixes; --series with the reply's Message-ID checks only it.\n"
	"\n"
	"    Findings are printed in compiler format, grouped by patch, with a\n"
	"    summary line:\n"
	"\n"
	"        mm/rmap.c:683: warning: parameters of ... [one-line-args]\n"
	"\n"
	"    Findings are only on lines the series adds or changes, or on its\n"
	"    mails (COMMIT_MSG, COVER_LETTER, SERIES), or where a line the series\n"
	"    adds makes the problem (a lock taken before an unchanged return).\n"
	"    With a tree the rules read the whole functions the series touches,\n"
	"    along their paths (the exit rules), and one level of callees and\n"
	"    callers.  The checkers: the mm review rules (lazyfree-droppable,\n"
	"    progress-accounting, pte-map-null, pte-unmap-exit, rcu-unlock-exit,\n"
	"    unlock-exit, atomic-sleep, lock-assert, one-line-args);\n"
	"    checkpatch (scripts/checkpatch.pl of the tree, as 'b4 prep --check'\n"
	"    runs it; findings 'checkpatch:<TYPE>'); signed-off-by, fixes-tag,\n"
	"    subject, numbering, cover-letter, base-commit; codespell (typos in\n"
	"    commit messages and the cover letter).  'lorebot check --list' lists\n"
	"    them.\n"
	"\n"
	"OPTIONS\n"
	"    RANGE\n"
	"        A..B, A.. or ..B (HEAD), or one commit; default: the branch's own\n"
	"        series (see DESCRIPTION)\n"
	"\n"
	"CONFIGURATION\n"
	"    lorebot.* keys of git's configuration (the user's and the repository's,\n"
	"    never files of the tree), then --config FILE: check.enable,\n"
	"    check.disable, check.columns, check.checkpatch, check.checkpatchflags,\n"
	"    check.codespell, check.color, build.arch, build.profile, git.base,\n"
	"    core.cachedir.  Example: git config --global lorebot.check.columns 100\n"
	"\n"
	"EXIT STATUS\n"
	"    0 no errors (warnings and notes are fine), 1 errors (with --fail-on:\n"
	"    findings of that level or worse), 2 bad input or usage (also:\n"
	"    nothing to check, --apply refused), 3 the repository, lore (--msgid)\n"
	"    or the tools for --build/--boot could not be used.\n"
	"\n"
	"EXAMPLES\n"
	"    lorebot check\n"
	"    lorebot check origin/mm-new..HEAD --checkers=-checkpatch\n"
	"    lorebot check --fix --apply && git rebase -i --autosquash origin/mm-new\n"
	"    lorebot check --msgid 20260207081613.588598-1-vernon2gm@gmail.com\n"
	"    b4 mbox 20260207081613.588598-1-vernon2gm@gmail.com\n"
	"    lorebot check --mbox 20260207081613.588598-1-vernon2gm@gmail.com.mbx\n"
	"\n"
	"    See lorebot-check(1) for more (man -l doc/lorebot-check.1).\n";

int cmd_check(int argc, char **argv, struct ctx *ctx)
{
	struct devcheck_opts d = { .ci = DEVCI_OPTS_INIT };
	struct check_opts o = CHECK_OPTS_INIT;
	struct config cfg = CONFIG_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *mbox = NULL, *repo = NULL, *sel = NULL, *color = NULL;
	const char *msgid = NULL, *url = NULL, *series = NULL, *stale = NULL;
	struct arch_opt build = { 0 }, boot = { 0 };
	bool list = false, preexisting = false;
	enum check_severity fail_on = CHECK_ERROR;
	int ret = EXIT_OK, columns = 0, progress = -1;
	const struct parse_opt opts[] = {
		OPT_STRING('r', "repo", &repo, "DIR",
			   "without --mbox: the repository to check (default: the one holding "
			   "the current directory); with --mbox: the kernel tree the series is "
			   "for (a work tree or a bare repository)"),
		OPT_STRING('m', "mbox", &mbox, "FILE",
			   "check the patches of FILE (mboxo or mboxrd, or one message; - reads "
			   "stdin) instead of a branch"),
		OPT_STRING(0, "series", &series, "ID",
			   "with --mbox: only the version ID (its cover letter's or a patch's "
			   "Message-ID), also when a later version superseded it, or the current "
			   "version of series ID (as 'lorebot apply --series' picks it)"),
		OPT_STRING(0, "msgid", &msgid, "ID",
			   "check the thread of message ID (<> optional), fetched from lore"),
		OPT_STRING(0, "url", &url, "URL",
			   "the inbox to ask for --msgid (default: the first list.<name>.url of "
			   "the configuration, e.g. git config --global "
			   "lorebot.list.linux-mm.url https://lore.kernel.org/linux-mm/)"),
		OPT_BOOL('j', "json", &d.json,
			 "print {\"findings\": [...]} with rule, severity (error, warning or "
			 "note), patch (its number; 0 for the series), file (null for the commit "
			 "message or the series), line (post-image; null when none applies), "
			 "column (its byte from 1; null when unknown), message and optional "
			 "quote, suggestion and cause (the line that makes the problem, when it "
			 "is not line); plus series (patches, base, summary, reply_to for a diff "
			 "in a reply) and, for a branch, range (kind, desc, base, tip, commits)"),
		OPT_STRING('c', "checkers", &sel, "LIST",
			   "turn checkers on and off like gcc's -W: 'one-line-args,-checkpatch', "
			   "'all', '-all,codespell'; applied after check.enable and "
			   "check.disable"),
		OPT_CALLBACK('C', "columns", &columns, "N",
			     "the column limit of one-line-args (check.columns, default 80)",
			     columns_cb),
		OPT_BOOL(0, "preexisting", &preexisting,
			 "the mm rules also report what they find in code the series does not "
			 "change (whole functions with a tree), as notes marked \"pre-existing\""),
		OPT_CALLBACK(0, "fail-on", &fail_on, "LEVEL",
			     "exit 1 for findings of LEVEL or worse: error (the default), "
			     "warning, or note (any finding); for hooks and CI jobs that hold "
			     "warnings as failures", fail_on_cb),
		OPT_STRING(0, "stale-tree", &stale, "WHY",
			   "the tree may lack commits the series names, for the reason WHY (the "
			   "daemon passes it when its tree was not fetched from its remotes "
			   "within a day): a commit id the tree lacks is not reported "
			   "(fixes-tag, checkpatch's UNKNOWN_COMMIT_ID), and one note says so "
			   "and why.  An unknown id is the bot's gap then, not the author's"),
		OPT_BOOL(0, "fix", &d.fix,
			 "also print the packed prototypes one-line-args suggests, as a patch for "
			 "'git apply' on top of the range, under a comment naming each patch"),
		OPT_BOOL(0, "apply", &d.apply,
			 "commit them instead: one 'fixup! <subject>' commit per patch with "
			 "findings, on the current branch, as the user (user.name, user.email), "
			 "for 'git rebase -i --autosquash'.  The range must end at the tip of "
			 "the current branch.  Only the files concerned are committed and "
			 "updated in the index and the work tree; it is refused when the index "
			 "or the work tree has changes to them.  A prototype that a later patch "
			 "of the range changed again is left alone, and said so"),
		OPT_CALLBACK_OPTARG(0, "build", &build, "ARCHS",
				    "also build every patch for each of ARCHS (comma-separated: "
				    "x86_64, arm64, riscv; default build.arch, else all three), "
				    "with the profiles of the daemon (build.profile), each patch "
				    "on its own so that a patch breaking the build is found "
				    "(bisectability).  The builds read the commits from the "
				    "repository into source trees of their own under the lorebot "
				    "cache directory; the compiler cache and the build "
				    "directories of the base are kept there.  New diagnostics are "
				    "findings of the patch that brought them (build:<arch>).  A "
				    "missing cross compiler or tool is named with the Debian "
				    "package that provides it", arch_cb),
		OPT_CALLBACK_OPTARG(0, "boot", &boot, "ARCHS",
				    "also boot the tip for each of ARCHS in qemu and run the mm "
				    "kselftests, compared with the base (builds them too); new "
				    "failures are findings (boot:<arch>)", arch_cb),
		OPT_CALLBACK_OPTARG(0, "color", &color, "WHEN",
				    "auto (colours when stdout is a terminal and NO_COLOR is not "
				    "set), always (what a bare --color means) or never; default "
				    "check.color", color_cb),
		OPT_SET_INT(0, "progress", &progress,
			    "progress on stderr for work longer than a second (default: when "
			    "stderr is a terminal)", 1),
		OPT_SET_INT(0, "no-progress", &progress,
			    "no progress on stderr, even on a terminal", 0),
		OPT_BOOL('l', "list", &list,
			 "list the checkers and whether they are on"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "check", opts, 1);
	if (argc < 0)
		return EXIT_USAGE;
	d.range = argc ? argv[0] : NULL;
	if (d.apply)
		d.fix = true;
	if (progress >= 0)
		log_progress_force(progress);
	if (mbox && msgid)
		return cmd_usage_error("check", "--mbox or --msgid, not both");
	if ((mbox || msgid) && d.range)
		return cmd_usage_error("check", "--%s and a range '%s' exclude each other",
				       mbox ? "mbox" : "msgid", d.range);
	if ((mbox || msgid) && (d.fix || build.want || boot.want))
		return cmd_usage_error("check", "--fix, --build and --boot check a "
				       "branch, not --%s", mbox ? "mbox" : "msgid");
	if (series && !mbox)
		return cmd_usage_error("check", "--series picks a version of --mbox");
	if (url && !msgid)
		return cmd_usage_error("check", "--url is the inbox to ask for --msgid");
	d.dir = repo ? repo : ".";
	ret = load_config(&cfg, ctx->cfg, d.dir);
	if (ret)
		goto out;
	if (opts_from_config(&o, &cfg, &err) || (sel && check_select(&o, sel, &err))) {
		ret = cmd_usage_error("check", "%s", err.buf);
		goto out;
	}
	if (!color)
		color = config_v(&cfg)->check_color;
	if (want_color(color, &d.color)) {
		ret = cmd_usage_error("check", "--color takes auto, always or never, "
				      "not '%s'", color);
		goto out;
	}
	d.ci.profile = config_v(&cfg)->build_profile;
	d.ci.ccache = config_v(&cfg)->build_ccache;
	if ((build.want && devci_add_arches(&d.ci, build.list, false, &cfg, &err)) ||
	    (boot.want && devci_add_arches(&d.ci, boot.list, true, &cfg, &err))) {
		ret = cmd_usage_error("check", "%s", err.buf);
		goto out;
	}
	if (columns)
		o.columns = columns;
	o.preexisting = preexisting;
	o.fail_on = fail_on;
	o.stale_tree = xstrdup_or_null(stale);
	if (list) {
		list_checkers(&o);
	} else if (mbox || msgid) {
		static const int exit_of[] = {
			[MBOXCHECK_CLEAN] = EXIT_OK, [MBOXCHECK_FINDINGS] = EXIT_FINDINGS,
			[MBOXCHECK_REFUSED] = EXIT_USAGE, [MBOXCHECK_INFRA] = EXIT_INFRA,
		};
		struct mboxcheck_src src = { mbox, msgid, url, series };

		ret = exit_of[mboxcheck_run(&src, repo, d.json, d.color, &o, &cfg)];
	} else {
		static const int exit_of[] = {
			[DEVCHECK_CLEAN] = EXIT_OK, [DEVCHECK_FINDINGS] = EXIT_FINDINGS,
			[DEVCHECK_REFUSED] = EXIT_USAGE, [DEVCHECK_INFRA] = EXIT_INFRA,
		};

		ret = exit_of[devcheck_run(&d, &o, &cfg)];
	}
out:
	check_opts_release(&o);
	config_release(&cfg);
	strbuf_release(&err);
	return ret;
}
