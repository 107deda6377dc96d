// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "lib/log.h"
#include "bot/git/git.h"
#include "bot/series/series-out.h"
#include "lib/jsonx.h"
#include "ci/boot-report.h"
#include "ci/bootkernel.h"

struct boot_args {
	const char *repo, *series, *base, *arches, *tests, *workdir;
	const char *image, *src, *objdir;
	const char *base_image, *base_src, *base_objdir;
	const char *cmdline, *kvm, *timeout, *test_timeout;
	int runs;
	bool json, no_base, list;
};


static int split_list(const char *s, char ***out)
{
	char *dup = xstrdup(s), *p, *save = NULL;
	int n = 0;

	*out = NULL;
	for (p = strtok_r(dup, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
		*out = xrealloc(*out, (n + 2) * sizeof(**out));
		(*out)[n++] = xstrdup(p);
		(*out)[n] = NULL;
	}
	free(dup);
	return n;
}

static void free_list(char **l)
{
	char **p;

	for (p = l; p && *p; p++)
		free(*p);
	free(l);
}

static void list_tests(void)
{
	size_t i;

	for (i = 0; i < kst_catalog_nr; i++) {
		const struct kst_def *d = &kst_catalog[i];

		printf("mm/%-26s %-8s %s%s%s%s", d->name,
		       d->dflt ? "default" : "-", d->archs ? "[" : "",
		       d->archs ? d->archs : "", d->archs ? "] " : "",
		       d->note ? d->note : "");
		if (d->skip_on)
			printf("not on %s: %s", d->skip_on, d->skip_why);
		putchar('\n');
	}
}

static int opts_from_config(struct ctx *ctx, struct boot_opts *o,
			    const char *kvm)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (boot_opts_config(o, ctx->cfg, kvm, &err))
		ret = cmd_usage_error("boot", "%s", err.buf);
	strbuf_release(&err);
	return ret;
}

/* The branch the base is found from: the first git.base that exists */
static int find_base(const char *git_dir, const char *tip, struct ctx *ctx,
		     char out[OID_HEX], struct strbuf *err)
{
	const struct cfg_list *bases = &config_v(ctx->cfg)->git_base;
	size_t i;
	char id[OID_HEX];
	int ret = -ENOENT;

	for (i = 0; i < bases->nr && ret; i++) {
		struct strbuf e = STRBUF_INIT;

		if (!git_rev_resolve(git_dir, bases->v[i], id, &e))
			ret = srctree_merge_base(git_dir, tip, id, out, err);
		strbuf_release(&e);
	}
	if (ret == -ENOENT)
		strbuf_addstr(err, "no git.base branch (mm-new) in the repository; "
			      "give --base");
	return ret;
}

static int run_series(struct ctx *ctx, const struct boot_args *args,
		      struct boot_opts *o, char **archs, json_object *report)
{
	struct strbuf err = STRBUF_INIT, git_dir = STRBUF_INIT;
	json_object *list = json_object_new_array();
	char tip[OID_HEX], base[OID_HEX] = "";
	const char *repo = args->repo ? args->repo : config_v(ctx->cfg)->git_repo;
	struct kbuild_env env;
	char *workdir = NULL;
	int ret = EXIT_OK;
	size_t i;

	json_object_object_add(report, "archs", list);
	if (!repo)
		return cmd_usage_error("boot", "no --repo (or git.repo)");
	if (srctree_git_dir(repo, &git_dir, &err) ||
	    git_rev_resolve(git_dir.buf, args->series, tip, &err) ||
	    (!args->no_base && (args->base ?
				git_rev_resolve(git_dir.buf, args->base, base, &err) :
				find_base(git_dir.buf, tip, ctx, base, &err)))) {
		fprintf(stderr, "lorebot boot: %s\n", err.buf);
		ret = EXIT_USAGE;
		goto out;
	}
	json_object_object_add(report, "series", json_object_new_string(args->series));
	json_object_object_add(report, "tip", json_object_new_string(tip));
	if (*base)
		json_object_object_add(report, "base", json_object_new_string(base));
	if (kbuild_env_init(&env, ctx->cfg, &err)) {
		fprintf(stderr, "lorebot boot: %s\n", err.buf);
		ret = EXIT_INFRA;
		goto out;
	}
	if (!args->workdir)
		workdir = xasprintf("%s/boot/runs/%.12s", o->cachedir, tip);
	o->workdir = args->workdir ? args->workdir : workdir;
	for (i = 0; archs[i]; i++)
		json_object_array_add(list, bootkernel_series_arch(ctx->cfg, o, &env, archs[i],
								   git_dir.buf, tip, base));
	kbuild_env_release(&env);
out:
	strbuf_release(&err);
	strbuf_release(&git_dir);
	free(workdir);
	return ret;
}

static int run_images(const struct boot_args *args, struct boot_opts *o,
		      char **archs, json_object *report)
{
	/* trees named on the command line are the user's own: trusted */
	struct boot_kernel tip = {
		.label = "tip", .image = args->image, .srcdir = args->src,
		.objdir = args->objdir, .trusted = true,
	};
	struct boot_kernel base = {
		.label = "base", .image = args->base_image,
		.srcdir = args->base_src, .objdir = args->base_objdir,
		.trusted = true,
	};
	json_object *list = json_object_new_array(), *aj = NULL;
	const struct arch *a = arch_lookup(archs[0]);
	struct strbuf err = STRBUF_INIT;
	char *tid, *bid = NULL, *workdir = NULL;
	char *src = realpath(args->src, NULL), *bsrc = NULL;

	json_object_object_add(report, "archs", list);
	if (!src || archs[1])
		return cmd_usage_error("boot", !src ? "no source tree '%s'" :
				       "--image boots one --arch%s", !src ? args->src : "");
	tip.srcdir = src;
	/* without commits, the images and trees identify the kernels */
	tid = xasprintf("%s %s", args->image, src);
	tip.id = tid;
	if (args->base_image) {
		bsrc = realpath(args->base_src, NULL);
		if (!bsrc || !args->base_objdir) {
			free(src);
			free(tid);
			return cmd_usage_error("boot", "--base-image needs "
					       "--base-src and --base-objdir");
		}
		base.srcdir = bsrc;
		bid = xasprintf("%s %s", args->base_image, bsrc);
		base.id = bid;
	}
	if (!args->workdir)
		workdir = xasprintf("%s/boot/runs/images", o->cachedir);
	o->workdir = args->workdir ? args->workdir : workdir;
	baseline_boot_arch(o, a, &tip, args->base_image ? &base : NULL, NULL, &aj, &err);
	json_object_array_add(list, aj);
	strbuf_release(&err);
	free(src);
	free(bsrc);
	free(tid);
	free(bid);
	free(workdir);
	return EXIT_OK;
}

static int exit_status(json_object *report)
{
	json_object *archs = json_object_object_get(report, "archs");
	size_t i, n = archs ? json_object_array_length(archs) : 0;
	int ret = EXIT_OK;

	for (i = 0; i < n; i++) {
		const char *s = boot_report_status(json_object_array_get_idx(archs, i));

		if (!strcmp(s, "infra"))
			return EXIT_INFRA;
		if (strcmp(s, "ok"))
			ret = EXIT_FINDINGS;
	}
	return ret;
}

const char cmd_boot_help[] =
	"NAME\n"
	"    lorebot-boot - boot a series' kernels in qemu and run the mm kselftests\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot boot --repo DIR --series BRANCH [--base REV] [--arch LIST]\n"
	"                 [--tests LIST] [--json] [options]\n"
	"    lorebot boot --arch ARCH --image FILE --src DIR --objdir DIR\n"
	"                 [--base-image FILE --base-src DIR --base-objdir DIR]\n"
	"                 [--tests LIST] [--json] [options]\n"
	"\n"
	"DESCRIPTION\n"
	"    Builds the kernel at the tip of BRANCH and at its base for each\n"
	"    architecture, cross-compiles the mm kselftests of each tree\n"
	"    statically, boots both kernels under qemu (KVM only where a probe\n"
	"    shows it works, else TCG; no network; -no-reboot; a time limit)\n"
	"    with an initramfs holding a small static init and the tests, and\n"
	"    compares: only new kselftest failures and new kernel reports\n"
	"    (WARNING, BUG, Oops, panic, hung task, KASAN, ...) are findings,\n"
	"    each with its output or call trace and the test that was running.\n"
	"    A failing test, or one during which the kernel reported, runs again\n"
	"    until boot.confirm runs (5).  What is new counts only when it showed\n"
	"    in every run on the tip and never in twice as many runs of the base\n"
	"    (the base's runs are cached per machine); else it is 'flaky', listed\n"
	"    and counted but no finding.  What counts is then bisected over the\n"
	"    series' own kernels (the images lorebot build kept of every patch,\n"
	"    else built now), each probe running the tests boot.confirm times:\n"
	"    the finding names the first bad patch, in at most ceil(log2 n) + 1\n"
	"    boots of the series per arch; a first bad patch that only changes\n"
	"    comments or documentation is marked suspect, not blamed.\n"
	"    A guest stopped at the time limit before the kernel printed\n"
	"    anything (a firmware or qemu hang) boots once more before it\n"
	"    counts.\n"
	"    The base's results are cached per machine (per base, arch, tests).\n"
	"\n"
	"    The base is the merge base of BRANCH and the first git.base branch\n"
	"    that exists (mm-new), unless --base names it.\n"
	"\n"
	"    The kernels come from the build engine (lorebot build): the build\n"
	"    directory of the arch, build.profile and the base, so a series that\n"
	"    was just built is not built again; the second form boots kernels\n"
	"    built elsewhere.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 every arch ok, 1 regressions or a boot failure, 2 usage error,\n"
	"    3 infrastructure problem (toolchain, qemu, build failure).\n";

static int parse_args(int argc, char **argv, struct boot_args *args)
{
	const struct parse_opt opts[] = {
		OPT_STRING(0, "repo", &args->repo, "DIR",
			   "the kernel repository (default: git.repo)"),
		OPT_STRING(0, "series", &args->series, "BRANCH",
			   "the series' branch (or any revision)"),
		OPT_STRING(0, "base", &args->base, "REV",
			   "compare with this commit"),
		OPT_BOOL(0, "no-base", &args->no_base,
			 "do not boot a base; every report counts as new"),
		OPT_STRING(0, "arch", &args->arches, "LIST",
			   "x86_64,arm64,riscv (default: build.arch, or all)"),
		OPT_STRING(0, "tests", &args->tests, "LIST",
			   "mm kselftests, comma-separated; 'default' is the built-in list "
			   "(default: boot.tests, or 'default')"),
		OPT_BOOL(0, "list-tests", &args->list,
			 "print the test catalog and exit"),
		OPT_INT(0, "runs", &args->runs, "N",
			"run each test N times in the one boot, whatever each run gives, "
			"and count its failures (how often does it fail on this kernel?); "
			"the tip alone, built over its base (not with --base-image)"),
		OPT_STRING(0, "timeout", &args->timeout, "DUR",
			   "limit of one boot (boot.timeout, 5m)"),
		OPT_STRING(0, "test-timeout", &args->test_timeout, "DUR",
			   "limit of one test in the guest (boot.testtimeout)"),
		OPT_STRING(0, "cmdline", &args->cmdline, "TEXT",
			   "added to the kernel command line (boot.cmdline)"),
		OPT_STRING(0, "kvm", &args->kvm, "MODE",
			   "auto, on or off (boot.kvm)"),
		OPT_STRING(0, "workdir", &args->workdir, "DIR",
			   "initramfs and console logs (default: under the cache, "
			   "boot/runs/<tip>)"),
		OPT_BOOL(0, "json", &args->json,
			 "print {\"archs\": [...]} (see ci/boot-report.h)"),
		OPT_STRING(0, "image", &args->image, "FILE",
			   "the second form: a kernel image to boot, built elsewhere, for "
			   "the one --arch ARCH"),
		OPT_STRING(0, "src", &args->src, "DIR",
			   "the second form: the image's source tree (its kselftests are "
			   "built)"),
		OPT_STRING(0, "objdir", &args->objdir, "DIR",
			   "the second form: the image's build directory"),
		OPT_STRING(0, "base-image", &args->base_image, "FILE",
			   "the second form: the base's image, booted to compare with (without "
			   "it, no base: every report counts as new)"),
		OPT_STRING(0, "base-src", &args->base_src, "DIR",
			   "the second form: the base's source tree"),
		OPT_STRING(0, "base-objdir", &args->base_objdir, "DIR",
			   "the second form: the base's build directory"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "boot", opts, 0);
	if (argc < 0)
		return EXIT_USAGE;
	return 0;
}

static int parse_duration_arg(const char *s, uint64_t *ms)
{
	if (!s)
		return 0;
	if (util_parse_duration_ms(s, ms) || !*ms)
		return cmd_usage_error("boot", "bad duration '%s'", s);
	return 0;
}

int cmd_boot(int argc, char **argv, struct ctx *ctx)
{
	struct boot_args args = { 0 };
	struct boot_opts o = BOOT_OPTS_INIT;
	char **archs = NULL, **tests = NULL, *cachedir = NULL;
	json_object *report;
	int ret, n;

	o.timeout_ms = o.test_timeout_ms = 0;
	ret = parse_args(argc, argv, &args);
	if (!ret)
		ret = parse_duration_arg(args.timeout, &o.timeout_ms);
	if (!ret)
		ret = parse_duration_arg(args.test_timeout, &o.test_timeout_ms);
	if (ret)
		return ret;
	o.cmdline = args.cmdline;
	if (args.list) {
		list_tests();
		return EXIT_OK;
	}
	if (!args.series == !args.image)
		return cmd_usage_error("boot", "give --series or --image");
	if (args.image && (!args.src || !args.objdir || !args.arches))
		return cmd_usage_error("boot", "--image needs --arch, --src and --objdir");
	if (args.runs < 0 || args.runs > BOOT_RUNS_MAX)
		return cmd_usage_error("boot", "--runs takes 1 to %d", BOOT_RUNS_MAX);
	/* the base is compared with one run and the reruns of a failure */
	if (args.runs && args.base_image)
		return cmd_usage_error("boot", "--runs boots the image alone: no --base-image");
	o.runs = (unsigned int)args.runs;
	ret = opts_from_config(ctx, &o, args.kvm);
	if (ret)
		return ret;
	if (log_get_level() >= LOG_LVL_DEBUG)
		log_progress_force(true);

	if (args.arches) {
		split_list(args.arches, &archs);
	} else {
		const struct cfg_list *cfg = &config_v(ctx->cfg)->build_arch;
		size_t i, nc = cfg->nr;

		archs = xcalloc((nc ? nc : arches_nr) + 1, sizeof(*archs));
		for (i = 0; i < (nc ? nc : arches_nr); i++)
			archs[i] = xstrdup(nc ? cfg->v[i] : arches[i].name);
	}
	for (n = 0; archs && archs[n]; n++) {
		if (!arch_lookup(archs[n])) {
			ret = cmd_usage_error("boot", "unknown arch '%s' "
					      "(x86_64, arm64, riscv)", archs[n]);
			goto out;
		}
	}
	if (!n) {
		ret = cmd_usage_error("boot", "no architecture");
		goto out;
	}
	if (args.tests) {
		o.tests_nr = split_list(args.tests, &tests);
	} else {
		const struct cfg_list *cfg = &config_v(ctx->cfg)->boot_tests;

		/* each value may itself be a list */
		for (size_t i = 0; i < cfg->nr; i++) {
			char **more;
			int m = split_list(cfg->v[i], &more);

			tests = xrealloc(tests, (o.tests_nr + m + 1) * sizeof(*tests));
			memcpy(tests + o.tests_nr, more, m * sizeof(*more));
			o.tests_nr += m;
			tests[o.tests_nr] = NULL;
			free(more);
		}
	}
	o.tests = (const char *const *)tests;
	{
		struct strbuf err = STRBUF_INIT;
		struct kst_plan plan = KST_PLAN_INIT;

		/* catch unknown test names before anything is built */
		if (kselftest_select(arch_lookup(archs[0]), o.tests, o.tests_nr, &plan, &err)) {
			ret = cmd_usage_error("boot", "%s (see --list-tests)", err.buf);
			strbuf_release(&err);
			kselftest_plan_release(&plan);
			goto out;
		}
		kselftest_plan_release(&plan);
		strbuf_release(&err);
	}
	o.cachedir = cachedir = config_cachedir(ctx->cfg);
	report = json_object_new_object();
	ret = args.series ? run_series(ctx, &args, &o, archs, report) :
		run_images(&args, &o, archs, report);
	if (ret == EXIT_OK || ret == EXIT_INFRA) {
		int st = exit_status(report);

		if (args.json) {
			jx_print(report, stdout);
		} else {
			struct strbuf sb = STRBUF_INIT;

			boot_report_text(report, &sb);
			fputs(sb.buf, stdout);
			strbuf_release(&sb);
		}
		if (ret == EXIT_OK)
			ret = st;
	}
	json_object_put(report);
out:
	free(cachedir);
	free_list(archs);
	free_list(tests);
	return ret;
}
