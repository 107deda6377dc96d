// SPDX-License-Identifier: GPL-2.0
/*
 * lorebot check --build/--boot: architectures, tools, and the entry
 * point into the build and boot engines (see devci.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/run.h"
#include "ci/boot-report.h"
#include "ci/bootkernel.h"
#include "bot/results/contract.h"
#include "ci/build-out.h"
#include "ci/buildjob.h"
#include "ci/devci.h"
#include "ci/kcheck.h"

static bool has_arch(const struct arch *const *v, size_t nr, const struct arch *a)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (v[i] == a)
			return true;
	return false;
}

static void add_arch(const struct arch **v, size_t *nr, const struct arch *a)
{
	if (!has_arch(v, *nr, a) && *nr < DEVCI_MAX_ARCHES)
		v[(*nr)++] = a;
}

static int add_one(struct devci_opts *o, const char *name, bool boot,
		   struct strbuf *err)
{
	const struct arch *a = arch_lookup(name);
	size_t i;

	if (!a) {
		strbuf_addf(err, "unknown architecture '%s' (known:", name);
		for (i = 0; i < arches_nr; i++)
			strbuf_addf(err, " %s", arches[i].name);
		strbuf_addch(err, ')');
		return -1;
	}
	add_arch(o->build, &o->nr_build, a);
	if (boot)
		add_arch(o->boot, &o->nr_boot, a);
	return 0;
}

int devci_add_arches(struct devci_opts *o, const char *list, bool boot,
		     const struct config *cfg, struct strbuf *err)
{
	const char *const *v;
	size_t n, i;
	int ret = 0;

	if (list && *list) {
		const char *p = list;

		while (*p && !ret) {
			size_t len = strcspn(p, ", ");
			char *name = xstrndup(p, len);

			if (len)
				ret = add_one(o, name, boot, err);
			free(name);
			p += len;
			p += strspn(p, ", ");
		}
		return ret;
	}
	v = config_v(cfg)->build_arch.v;
	n = config_v(cfg)->build_arch.nr;
	for (i = 0; i < n && !ret; i++)
		ret = devci_add_arches(o, v[i], boot, cfg, err);
	for (i = 0; !n && i < arches_nr; i++)
		add_one(o, arches[i].name, boot, err);
	return ret;
}

/* What kbuild needs besides the compiler, on every architecture */
static const struct tool {
	const char *program;	/* in PATH */
	const char *file;	/* or a file that must exist */
	const char *package;
} kbuild_tools[] = {
	{ "make", NULL, "make" },
	{ "flex", NULL, "flex" },
	{ "bison", NULL, "bison" },
	{ "bc", NULL, "bc" },
	{ "perl", NULL, "perl" },
	{ "cpio", NULL, "cpio" },
	{ NULL, "/usr/include/libelf.h", "libelf-dev" },
	{ NULL, "/usr/include/openssl/ssl.h", "libssl-dev" },
}, riscv_firmware = {
	NULL, "/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin",
	"qemu-system-data",
};

static bool tool_present(const struct tool *t)
{
	if (t->program)
		return run_have_program(t->program);
	return !access(t->file, R_OK);
}

static void missing_tool(const char *what, const struct tool *t,
			 struct strbuf *missing, struct strbuf *pkgs, int *n)
{
	strbuf_addf(missing, "%s%s%s not found (Debian package %s)\n",
		    what ? what : "", what ? ": " : "",
		    t->program ? t->program : t->file, t->package);
	if (!strstr(pkgs->buf, t->package))
		strbuf_addf(pkgs, " %s", t->package);
	(*n)++;
}

int devci_check_tools(const struct devci_opts *o, struct strbuf *missing)
{
	struct strbuf pkgs = STRBUF_INIT;
	size_t i;
	int n = 0;

	for (i = 0; o->nr_build && i < ARRAY_SIZE(kbuild_tools); i++)
		if (!tool_present(&kbuild_tools[i]))
			missing_tool(NULL, &kbuild_tools[i], missing, &pkgs, &n);
	if (o->nr_build && o->ccache && !run_have_program("ccache")) {
		const struct tool t = { "ccache", NULL, "ccache" };

		missing_tool("build.ccache", &t, missing, &pkgs, &n);
	}
	for (i = 0; i < o->nr_build; i++) {
		const struct arch *a = o->build[i];
		char *gcc = xasprintf("%sgcc", a->cross_compile);
		const struct tool t = { gcc, NULL, a->gcc_package };

		if (!tool_present(&t))
			missing_tool(a->name, &t, missing, &pkgs, &n);
		free(gcc);
	}
	for (i = 0; i < o->nr_boot; i++) {
		const struct arch *a = o->boot[i];
		const struct tool t = { a->qemu, NULL, a->qemu_package };

		if (!tool_present(&t))
			missing_tool(a->name, &t, missing, &pkgs, &n);
		if (!strcmp(a->name, "riscv") && !tool_present(&riscv_firmware))
			missing_tool(a->name, &riscv_firmware, missing, &pkgs, &n);
	}
	if (n)
		strbuf_addf(missing, "install them with: apt-get install%s\n", pkgs.buf);
	strbuf_release(&pkgs);
	return n;
}

static const enum check_severity diag_to_check[] = {
	[DIAG_NOTE] = CHECK_NOTE,
	[DIAG_WARNING] = CHECK_WARNING,
	[DIAG_ERROR] = CHECK_ERROR,
};

static struct finding *add_finding(struct findings *out, const char *stage,
				   const char *arch, int patch)
{
	struct finding *f;

	if (out->nr == out->alloc) {
		out->alloc = out->alloc ? 2 * out->alloc : 16;
		out->v = xrealloc(out->v, out->alloc * sizeof(*out->v));
	}
	f = &out->v[out->nr++];
	memset(f, 0, sizeof(*f));
	f->rule = xasprintf("%s:%s", stage, arch);
	f->patch = patch;
	return f;
}

/* The new diagnostics of one arch's build, as findings of their patches */
static void build_findings(const struct build_arch_result *a, size_t nr,
			   struct findings *out)
{
	size_t i;

	for (i = 0; i < a->nr; i++) {
		const struct build_finding *b = &a->findings[i];
		struct finding *f;

		if (!b->is_new)
			continue;
		f = add_finding(out, "build", a->arch, (int)b->patch);
		f->severity = diag_to_check[b->d.sev];
		f->file = *b->d.file ? xstrdup(b->d.file) : NULL;
		f->line = f->file ? b->d.line : 0;
		f->message = xasprintf("%s on %s%s%s%s%s", b->d.message, a->arch,
				       *b->d.option ? " [" : "", b->d.option,
				       *b->d.option ? "]" : "", b->w1 ? " (W=1)" :
				       !strcmp(b->d.tool, "sparse") ? " (sparse)" :
				       kcheck_style(&b->d) ? " (Coccinelle, style)" :
				       !strcmp(b->d.tool, "coccinelle") ? " (Coccinelle)" :
				       !strcmp(b->d.tool, "clang") ? " (clang)" : "");
		if (b->fixed_by)
			f->suggestion = xasprintf("patch %u/%zu fixes it: patch %u/%zu "
						  "breaks bisection", b->fixed_by, nr,
						  b->patch, nr);
	}
}

/*
 * What no arch compiled of the change: a finding per range, of its
 * patch, with each arch's reason; and the figure, a finding of the
 * series.  Warnings when the series is below build.mincoverage (the
 * check's exit status says so), notes otherwise: a series with new
 * warnings that compiled too little is both.
 */
static void cover_findings(const struct build_job *job, struct findings *out)
{
	json_object *j = build_job_to_json(job), *c = rd_doc_coverage(j);
	json_object *u = rd_cover_uncompiled(c);
	bool partial = build_job_compiled_too_little(job);
	enum check_severity sev = partial ? CHECK_WARNING : CHECK_NOTE;
	struct finding *f;
	size_t i;

	if (!c || !rd_cover_changed(c, 0)) {
		json_object_put(j);
		return;
	}
	f = add_finding(out, "build", "coverage", 0);
	f->severity = sev;
	f->message = xasprintf("%s", jx_strz(c, "text"));
	for (i = 0; u && i < json_object_array_length(u); i++) {
		json_object *r = rd_at(u, i);
		struct strbuf sb = STRBUF_INIT;
		bool first = true;

		f = add_finding(out, "build", "coverage", (int)rd_range_patch(r, 0));
		/* code of an arch not asked for (--build=riscv): a note */
		f->severity = jx_bool(r, "excused", false) ? CHECK_NOTE : sev;
		f->file = xstrdup(rd_range_file_z(r));
		f->line = (int)rd_range_from(r, 0);
		strbuf_addf(&sb, "lines %s not compiled on any arch built:", rd_range_spans_z(r));
		json_object_object_foreach(jx_object(r, "reasons"), arch, why) {
			strbuf_addf(&sb, "%s %s: %s", first ? "" : ";", arch,
				    json_object_get_string(why));
			first = false;
		}
		f->message = strbuf_detach(&sb, NULL);
	}
	json_object_put(j);
}

static int build_stage(const struct devci_range *r, const struct devci_opts *o,
		       const struct kbuild_env *env, const char *log_dir,
		       struct findings *out, struct strbuf *err)
{
	struct build_job job = { 0 };
	size_t i;
	int ret = 0;

	job.env = env;
	job.git_dir = r->git_dir;
	job.profile = o->profile;
	job.log_dir = log_dir;
	job.w1 = true;
	/* booted: bisection boots the patches' images kept here */
	job.keep_images = o->nr_boot > 0;
	/* each arch asks the configuration (kcheck_wanted()) */
	for (i = 0; i < KCHECK_NR; i++)
		job.check[i] = true;
	job.repair = config_v(env->cfg)->build_repair;
	job.mincoverage = (int)config_v(env->cfg)->build_mincoverage;
	job.first_arch = o->nr_build ? o->build[0]->name : NULL;
	snprintf(job.base, sizeof(job.base), "%s", r->base);
	for (i = 0; i < r->nr; i++) {
		struct srctree_commit c = { .subject = xstrdup(r->subjects[i]) };

		snprintf(c.id, sizeof(c.id), "%s", r->commits[i]);
		if (job.commits.nr == job.commits.alloc) {
			job.commits.alloc = job.commits.alloc ? 2 * job.commits.alloc : 8;
			job.commits.v = xrealloc(job.commits.v, job.commits.alloc *
						 sizeof(*job.commits.v));
		}
		job.commits.v[job.commits.nr++] = c;
	}
	for (i = 0; i < o->nr_build && !ret; i++) {
		struct arch a;
		const struct build_arch_result *res;

		if (kbuild_arch(env->cfg, o->build[i]->name, &a, err)) {
			ret = -EINVAL;
			break;
		}
		log_progress("building %zu patch(es) of %s for %s", r->nr, r->desc, a.name);
		if (buildjob_arch(&job, &a) == BUILD_INFRA) {
			res = &job.archs[job.archs_nr - 1];
			strbuf_addf(err, "%s: infrastructure error: %s (logs in %s)",
				    a.name, res->infra ? res->infra : "unknown", log_dir);
			ret = -EIO;
			break;
		}
		build_findings(&job.archs[job.archs_nr - 1], r->nr, out);
	}
	if (!ret && job.archs_nr)
		cover_findings(&job, out);
	buildjob_release(&job);
	return ret;
}

/*
 * New kernel reports and test failures: findings of the patch bisection
 * found, else (not found, or it only changes comments or documentation)
 * of the last patch, saying so
 */
static int boot_stage(const struct devci_range *r, const struct devci_opts *o,
		      const struct config *cfg, const struct kbuild_env *env,
		      struct findings *out, struct strbuf *err)
{
	struct boot_opts bo = BOOT_OPTS_INIT;
	const char *tip = r->commits[r->nr - 1];
	size_t i, j;
	int ret;

	bo.timeout_ms = bo.test_timeout_ms = 0;
	ret = boot_opts_config(&bo, cfg, NULL, err);
	if (ret)
		return -EINVAL;
	bo.cachedir = env->cache;
	bo.workdir = xasprintf("%s/boot/runs/%.12s", env->cache, tip);
	for (i = 0; i < o->nr_boot && !ret; i++) {
		const char *name = o->boot[i]->name;
		json_object *a, *fs;

		log_progress("booting %s on %s", r->desc, name);
		a = bootkernel_series_arch(cfg, &bo, env, name, r->git_dir, tip, r->base);
		if (!strcmp(boot_report_status(a), "infra")) {
			strbuf_addf(err, "%s: infrastructure error: %s", name,
				    jx_strz(a, "message"));
			ret = -EIO;
		}
		fs = jx_array(a, "findings");
		for (j = 0; j < jx_len(a, "findings"); j++) {
			json_object *jf = json_object_array_get_idx(fs, j);
			struct finding *f;

			json_object *cu = jx_object(jf, "culprit");
			int patch = (int)jx_int(jf, "patch", 0);
			struct strbuf msg = STRBUF_INIT;

			if (!jx_bool(jf, "new", false))
				continue;
			strbuf_addf(&msg, "%s on %s", jx_strz(jf, "message"), name);
			if (patch > 0)
				strbuf_addf(&msg, " (first bad patch by bisection, %lld boots)",
					    (long long)jx_int(cu, "boots", 0));
			else if (jx_bool(cu, "suspect", false))
				strbuf_addf(&msg, " (bisection points at patch %lld, which only "
					    "changes comments or documentation: suspect)",
					    (long long)jx_int(cu, "patch", 0));
			else if (jx_str(cu, "why"))
				strbuf_addf(&msg, " (patch not found: %s)", jx_str(cu, "why"));
			f = add_finding(out, "boot", name, patch > 0 ? patch : (int)r->nr);
			f->severity = CHECK_ERROR;
			f->message = strbuf_detach(&msg, NULL);
			f->quote = xstrdup_or_null(jx_str(jf, "trace"));
		}
		json_object_put(a);
	}
	free((char *)bo.workdir);
	return ret;
}

int devci_run(const struct devci_range *r, const struct devci_opts *o,
	      const struct config *cfg, struct findings *out,
	      struct strbuf *err)
{
	struct kbuild_env env;
	char *log_dir;
	int ret;

	if (!r->nr)
		return 0;
	if (kbuild_env_init(&env, cfg, err))
		return -EIO;
	env.ccache = o->ccache;
	/* the developer's own commits: every build is trusted */
	env.trust_all = true;
	/* the make output of every step, kept like the daemon's */
	log_dir = xasprintf("%s/logs/check/%lld-%d", env.cache, (long long)time(NULL),
			    (int)getpid());
	ret = util_mkdir_p(log_dir, 0755);
	if (ret) {
		strbuf_addf(err, "cannot create '%s': %s", log_dir, strerror(-ret));
		free(log_dir);
		kbuild_env_release(&env);
		return -EIO;
	}
	log_progress("build logs in %s", log_dir);
	ret = build_stage(r, o, &env, log_dir, out, err);
	if (!ret && o->nr_boot)
		ret = boot_stage(r, o, cfg, &env, out, err);
	kbuild_env_release(&env);
	free(log_dir);
	return ret;
}
