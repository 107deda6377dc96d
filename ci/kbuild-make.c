// SPDX-License-Identifier: GPL-2.0
/*
 * One make step in a build directory: the command line, the sandbox, the
 * limits, the log, the diagnostics and the verdict (ok, failed, or an
 * infrastructure failure that is not the tree's fault).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/run.h"
#include "ci/kbuild.h"
#include "ci/kbuild-priv.h"
#include "ci/kbuild-cmd.h"

#define FSIZE_LIMIT (4ULL << 30)

uint64_t kbuild_timeout_ms(const struct kbuild_env *env, const struct arch *arch)
{
	uint64_t ms = config_sub_ms(env->cfg, CFG_SUB_arch_timeout, arch->name);

	return ms ? ms : env->timeout_ms;
}

void kbuild_step_release(struct kbuild_step *s)
{
	free(s->infra);
	free(s->log_path);
	diag_parse_release(&s->parse);
	memset(s, 0, sizeof(*s));
}

struct vec {
	const char **v;
	char **owned;
	size_t nr, alloc, onr, oalloc;
};

static void vec_push(struct vec *a, const char *s)
{
	ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = s;
	a->v[a->nr] = NULL;
}

/* push an allocated string, freed by vec_release() */
static void vec_pushf(struct vec *a, char *s)
{
	ALLOC_GROW(a->owned, a->onr + 1, a->oalloc);
	a->owned[a->onr++] = s;
	vec_push(a, s);
}

static void vec_release(struct vec *a)
{
	size_t i;

	for (i = 0; i < a->onr; i++)
		free(a->owned[i]);
	free(a->owned);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static void make_argv(struct kbuild_tree *t, const struct kbuild_make_opts *o,
		      struct vec *a)
{
	const struct arch *arch = &t->arch;
	const char *const *p;

	vec_push(a, "make");
	vec_pushf(a, xasprintf("-j%d", t->env->jobs));
	if (o->keep_going)
		vec_push(a, "-k");
	vec_push(a, "--output-sync=target");
	vec_pushf(a, xasprintf("O=%s", o->obj ? o->obj : t->obj));
	vec_pushf(a, xasprintf("ARCH=%s", arch->kernel_arch));
	if (*arch->cross_compile)
		vec_pushf(a, xasprintf("CROSS_COMPILE=%s", arch->cross_compile));
	if (t->env->ccache && !o->no_ccache)
		vec_pushf(a, xasprintf("CC=ccache %sgcc", arch->cross_compile));
	/* HOSTCC as in every step: the tools it built are not built again */
	if (t->env->ccache)
		vec_push(a, "HOSTCC=ccache gcc");
	for (p = o->vars; p && *p; p++)
		vec_push(a, *p);
	if (o->targets) {
		for (p = o->targets; *p; p++)
			vec_push(a, *p);
	} else {
		vec_push(a, arch->image);
		if (kbuild_config_has(t, "CONFIG_MODULES=y"))
			vec_push(a, "modules");
	}
}

void kbuild_recipe_head(const struct kbuild_tree *t, const char *obj, struct strbuf *sb)
{
	const struct arch *arch = &t->arch;

	strbuf_addf(sb, "make ARCH=%s", arch->kernel_arch);
	if (*arch->cross_compile)
		strbuf_addf(sb, " CROSS_COMPILE=%s", arch->cross_compile);
	strbuf_addf(sb, " O=%s", obj);
}

void kbuild_recipe(const struct kbuild_tree *t, const char *obj, struct strbuf *sb)
{
	const struct arch *arch = &t->arch;
	struct strbuf head = STRBUF_INIT;

	kbuild_recipe_head(t, obj, &head);
	strbuf_addf(sb, "%s olddefconfig\n%s -j$(nproc) %s%s\n", head.buf, head.buf,
		    arch->image, kbuild_config_has(t, "CONFIG_MODULES=y") ? " modules" : "");
	strbuf_release(&head);
}

static void make_env(struct kbuild_tree *t, struct vec *e, const char *statslog,
		     bool cc_write)
{
	vec_push(e, "HOME=/tmp");
	vec_push(e, "TMPDIR=/tmp");
	/* the same kernel for the same tree: no dates, users or hosts */
	vec_push(e, "KBUILD_BUILD_TIMESTAMP=2026-01-01 00:00:00 UTC");
	vec_push(e, "KBUILD_BUILD_USER=lorebot");
	vec_push(e, "KBUILD_BUILD_HOST=lorebot");
	vec_push(e, "KCONFIG_NOTIMESTAMP=1");
	if (!t->env->ccache)
		return;
	vec_pushf(e, xasprintf("CCACHE_DIR=%s/ccache", t->env->cache));
	/* hits across build directories: paths relative to the cache */
	vec_pushf(e, xasprintf("CCACHE_BASEDIR=%s", t->env->cache));
	vec_push(e, "CCACHE_NOHASHDIR=1");
	vec_push(e, "CCACHE_UMASK=022");
	if (!cc_write) {
		/* hits from the cache, nothing added: it is bound read-only */
		vec_push(e, "CCACHE_READONLY=1");
		vec_push(e, "CCACHE_TEMPDIR=/tmp");
	}
	/*
	 * Depend mode: a miss compiles once and takes the headers from
	 * kbuild's -Wp,-MMD file, where the default mode runs the
	 * preprocessor first to hash its output.  A cold base build costs
	 * about a quarter less CPU (bench/README.md); hits are direct hits.
	 */
	vec_push(e, "CCACHE_DEPEND=1");
	vec_pushf(e, xasprintf("CCACHE_STATSLOG=%s", statslog));
}

/* Count ccache's per-compilation results of this step */
static void ccache_stats(const struct kbuild_tree *t, const char *path,
			 struct kbuild_step *s)
{
	char *buf = NULL, *p, *nl;
	size_t len;

	/* in obj/, the build user's: no link planted there is followed */
	if (util_read_file_beneath(t->obj, path, &buf, &len, 64 << 20))
		return;
	for (p = buf; *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		if (!strncmp(p, "direct_cache_hit", nl - p) ||
		    !strncmp(p, "preprocessed_cache_hit", nl - p))
			s->cc_hits++;
		else if (!strncmp(p, "cache_miss", nl - p))
			s->cc_misses++;
		else if (!strncmp(p, "local_storage_write", nl - p))
			s->cc_writes++;
		if (!*nl)
			break;
	}
	free(buf);
}

static void classify(struct kbuild_tree *t, const struct run_cmd *cmd,
		     struct kbuild_step *s)
{
	static const char *const infra_kind[] = {
		[DIAG_INFRA_DISK] = "disk full",
		[DIAG_INFRA_MEMORY] = "out of memory",
		[DIAG_INFRA_TOOL] = "a build tool is missing",
		[DIAG_INFRA_PROCS] = "cannot start processes",
	};
	struct strbuf sb = STRBUF_INIT;

	s->timed_out = cmd->timed_out;
	if (cmd->timed_out) {
		strbuf_addf(&sb, "timeout: make %s was stopped after %llu s",
			    t->arch.name,
			    (unsigned long long)cmd->limits.timeout_ms / 1000);
	} else if (s->parse.infra) {
		strbuf_addf(&sb, "%s: %s", infra_kind[s->parse.infra],
			    s->parse.infra_line);
	} else if (cmd->status > 128) {
		strbuf_addstr(&sb, "make ");
		run_describe(cmd, &sb);
	} else if (cmd->status == 127 ||
		   (cmd->status && util_starts_with(cmd->out.buf, "bwrap:"))) {
		strbuf_addstr(&sb, "cannot run make: ");
		strbuf_add(&sb, cmd->out.buf, MIN(cmd->out.len, 200));
		strbuf_trim(&sb);
	}
	if (sb.len) {
		s->status = KBUILD_INFRA;
		s->infra = strbuf_detach(&sb, NULL);
	} else {
		s->status = cmd->status ? KBUILD_FAILED : KBUILD_OK;
	}
	strbuf_release(&sb);
}

int kbuild_run(struct kbuild_tree *t, const char *const *argv,
	       const char *cwd, const struct kbuild_make_opts *o,
	       struct kbuild_step *s, struct strbuf *err)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	struct vec env = { 0 }, rw = { 0 }, ro = { 0 }, hide = { 0 };
	char *statslog = xasprintf("%s/.lorebot-ccache.log", t->obj);
	const char *statedir = config_v(t->env->cfg)->core_statedir;
	const char *const *p;
	struct stat st;
	bool trusted = t->env->trust_all || kbuild_trusted(t);
	bool cc_write = t->env->ccache && (t->env->ccache_all || trusted);
	int fd, ret = 0;

	memset(s, 0, sizeof(*s));
	/* an untrusted step on obj/ as the open found it: the base first */
	if (t->refresh_due && !trusted && !o->obj && kbuild_refresh(t, err)) {
		free(statslog);
		return -1;
	}
	/* the compiler names files relative to its O= */
	diag_parse_init(&s->parse, t->src, o->obj ? o->obj : t->obj);
	make_env(t, &env, statslog, cc_write);
	/* the build user appends to it */
	kbuild_obj_file_reset(statslog);
	fd = util_open_beneath(t->obj, statslog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (t->env->uid && fchown(fd, t->env->uid, t->env->gid))
			log_debug("cannot chown '%s': %s", statslog, strerror(errno));
		close(fd);
	}
	vec_push(&rw, t->obj);
	if (t->env->ccache)
		vec_pushf(cc_write ? &rw : &ro, xasprintf("%s/ccache", t->env->cache));
	for (p = o->rw; p && *p; p++)
		vec_push(&rw, *p);
	vec_push(&ro, t->src);
	vec_push(&ro, t->dir);
	if (statedir && !stat(statedir, &st) && S_ISDIR(st.st_mode))
		vec_push(&hide, statedir);
	if (t->log_dir) {
		s->log_path = xasprintf("%s/%02u-%s.log", t->log_dir, ++t->steps,
					o->name ? o->name : "make");
	}

	cmd.argv = argv;
	cmd.env = env.v;
	cmd.clean_env = true;
	cmd.cwd = cwd;
	cmd.merge_stderr = true;
	cmd.log_path = s->log_path;
	cmd.limits.timeout_ms = o->timeout_ms ? o->timeout_ms :
		kbuild_timeout_ms(t->env, &t->arch);
	cmd.limits.cpu_s = cmd.limits.timeout_ms / 1000 + 1;
	cmd.limits.mem_bytes = t->env->mem_bytes;
	/* a fork bomb in a Makefile stops there (the build user is never root) */
	cmd.limits.nproc = t->env->nproc;
	cmd.limits.fsize_bytes = FSIZE_LIMIT;
	cmd.limits.max_output = t->env->log_max;
	cmd.sandbox.enabled = t->env->sandbox;
	cmd.sandbox.rw = rw.v;
	cmd.sandbox.ro = ro.v;
	cmd.sandbox.hide = hide.v;
	cmd.sandbox.uid = t->env->uid;
	cmd.sandbox.gid = t->env->gid;

	kbuild_guard_before(t, trusted);
	kbuild_mark_busy(t, true);
	if (run_cmd(&cmd) < 0) {
		strbuf_addf(err, "cannot run '%s': %s", argv[0], strerror(errno));
		ret = -1;
		goto out;
	}
	/* a step that was cut short leaves its mark for the next open */
	if (!cmd.timed_out && cmd.status <= 128) {
		kbuild_mark_busy(t, false);
		kbuild_guard_after(t, trusted);
	}
	s->elapsed_ms = cmd.elapsed_ms;
	diag_parse_buf(&s->parse, cmd.out.buf, cmd.out.len);
	if (cmd.truncated)
		log_warn("build output of '%s' beyond %zu bytes was dropped",
			 o->name ? o->name : "make", t->env->log_max);
	classify(t, &cmd, s);
	ccache_stats(t, statslog, s);
out:
	run_cmd_release(&cmd);
	vec_release(&env);
	vec_release(&rw);
	vec_release(&ro);
	vec_release(&hide);
	free(statslog);
	return ret;
}

/*
 * make failed and no message says why (a link script, a tool that only
 * exits non-zero): the failure itself is the error, so that it is
 * attributed and followed like the others.
 */
static void failure_without_error(struct kbuild_step *s)
{
	struct diag d = { 0 };
	size_t i;

	if (s->status != KBUILD_FAILED)
		return;
	for (i = 0; i < s->parse.diags.nr; i++)
		if (s->parse.diags.v[i].sev == DIAG_ERROR)
			return;
	d.unit = d.file = d.option = d.function = (char *)"";
	d.sev = DIAG_ERROR;
	d.tool = (char *)"make";
	d.message = xasprintf("the build failed: %s", s->parse.make_error ?
			      s->parse.make_error : "make exited with an error");
	diag_list_add(&s->parse.diags, &d);
	free(d.message);
}

void kbuild_units_update(struct kbuild_tree *t, const struct diag_parse *p,
			 const char *top)
{
	char *path = xasprintf("%s/units.diags", t->dir);

	units_replace(&t->units, p, top);
	if (units_save(&t->units, path))
		log_warn("cannot write '%s'", path);
	free(path);
}

int kbuild_make(struct kbuild_tree *t, const struct kbuild_make_opts *o,
		struct kbuild_step *step, struct strbuf *err)
{
	struct vec argv = { 0 };
	int ret;

	make_argv(t, o, &argv);
	ret = kbuild_run(t, argv.v, t->src, o, step, err);
	vec_release(&argv);
	if (!ret && step->status != KBUILD_INFRA) {
		failure_without_error(step);
		if (o->filter)
			o->filter(&step->parse, o->filter_data);
		kbuild_units_update(t, &step->parse, o->top ? o->top : "make");
	}
	if (!ret && !o->targets) {
		if (step->status == KBUILD_OK)
			memcpy(t->built, t->cur, OID_HEX);
		else
			t->built[0] = '\0';
		kbuild_save_state(t);
		/* a trusted make of the image remade what was removed, and recorded it */
		if (!o->obj && !step->timed_out && (t->env->trust_all || kbuild_trusted(t)))
			kbuild_refresh_done(t);
	}
	return ret;
}

int kbuild_probe_config(struct kbuild_tree *t, const char *config, size_t len,
			struct strbuf *out, struct kbuild_step *step,
			struct strbuf *err)
{
	static const char *const targets[] = { "olddefconfig", NULL };
	char *dir = xasprintf("%s/kconfig", t->dir);
	char *dot = xasprintf("%s/.config", dir);
	const char *rw[] = { dir, NULL };
	struct kbuild_make_opts o = {
		.name = "repair-olddefconfig", .targets = targets, .rw = rw,
		.top = "config", .obj = dir,
		/*
		 * Kconfig and the arch Makefile run about 100 compiler probes
		 * per olddefconfig (cc-option, as-instr: -c /dev/null), none
		 * of which ccache can keep: through it each costs ccache's
		 * start as well, a quarter of the step's CPU time
		 */
		.no_ccache = true,
	};
	struct vec argv = { 0 };
	char *buf = NULL;
	size_t blen;
	int ret = -1;

	memset(step, 0, sizeof(*step));
	/* the build user's directory: written beneath it, no link followed */
	if (util_mkdir_p(dir, 0755) || kbuild_give_tree(t->env, dir) ||
	    util_write_file_beneath(dir, dot, config, len)) {
		strbuf_addf(err, "cannot write '%s': %s", dot, strerror(errno));
		goto out;
	}
	if (t->env->uid) {
		int fd = util_open_beneath(dir, dot, O_RDONLY, 0);

		if (fd < 0 || fchown(fd, t->env->uid, t->env->gid))
			log_warn("cannot give '%s' to the build user", dot);
		if (fd >= 0)
			close(fd);
	}
	make_argv(t, &o, &argv);
	ret = kbuild_run(t, argv.v, t->src, &o, step, err);
	if (!ret && step->status == KBUILD_OK &&
	    !util_read_file_beneath(dir, dot, &buf, &blen, 64 << 20))
		strbuf_add(out, buf, blen);
	else if (!ret && step->status == KBUILD_OK)
		step->status = KBUILD_FAILED;
out:
	vec_release(&argv);
	free(buf);
	free(dot);
	free(dir);
	return ret;
}

/*
 * The C compile of a .cmd file ("savedcmd_mm/rmap.o := gcc ... -c -o
 * mm/rmap.o .../mm/rmap.c; objtool ...") turned into "gcc ... -E -dD -o
 * OUT .../mm/rmap.c": make's escapes undone ($$, $(pound)), what
 * follows the first ';' dropped, the dependency file option dropped
 */
static int preprocess_cmd(const char *text, const char *unit, const char *out,
			  struct strbuf *cmd)
{
	const char *p = text, *nl;
	char quote = 0;
	bool compile = false, next_out = false;
	struct strbuf tok = STRBUF_INIT;

	/* "savedcmd_UNIT := " (or "cmd_UNIT := " of older trees) starts a line */
	for (;;) {
		const char *rest;

		if ((util_skip_prefix(p, "savedcmd_", &rest) ||
		     util_skip_prefix(p, "cmd_", &rest)) &&
		    util_skip_prefix(rest, unit, &rest) && util_skip_prefix(rest, " := ", &rest)) {
			p = rest;
			break;
		}
		p = strchr(p, '\n');
		if (!p)
			return -1;
		p++;
	}
	nl = strchrnul(p, '\n');
	for (; p <= nl; p++) {
		char c = p < nl ? *p : ' ';

		if (p + 1 < nl && c == '$' && p[1] == '$') {
			strbuf_addch(&tok, '$');
			p++;
			continue;
		}
		if (util_starts_with(p, "$(pound)") && p + 8 <= nl) {
			strbuf_addch(&tok, '#');
			p += 7;
			continue;
		}
		if (quote) {
			if (c == quote)
				quote = 0;
			strbuf_addch(&tok, c);
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			strbuf_addch(&tok, c);
			continue;
		}
		if (c == ';')
			break;
		if (c != ' ' && c != '\t') {
			strbuf_addch(&tok, c);
			continue;
		}
		if (!tok.len)
			continue;
		if (next_out) {
			strbuf_addf(cmd, " %s", out);
			next_out = false;
		} else if (!strcmp(tok.buf, "-c")) {
			strbuf_addstr(cmd, " -E -dD");
			compile = true;
		} else if (!strcmp(tok.buf, "-o")) {
			strbuf_addstr(cmd, " -o");
			next_out = true;
		} else if (!util_starts_with(tok.buf, "-Wp,-MMD,") &&
			   !util_starts_with(tok.buf, "-Wp,-MD,")) {
			strbuf_addf(cmd, "%s%s", cmd->len ? " " : "", tok.buf);
		}
		strbuf_reset(&tok);
	}
	strbuf_release(&tok);
	return compile && !quote ? 0 : -1;
}

int kbuild_preprocess(struct kbuild_tree *t, const char *unit, struct strbuf *out,
		      struct kbuild_step *step, struct strbuf *err)
{
	char *dir = xasprintf("%s/cover", t->dir), *cmdf = kbuild_cmd_file(t->obj, unit);
	char *ipath = xasprintf("%s/unit.i", dir), *text = NULL, *buf = NULL;
	const char *rw[] = { dir, NULL };
	struct kbuild_make_opts o = { .name = "preprocess", .rw = rw, .top = "cover" };
	struct strbuf cmd = STRBUF_INIT;
	const char *argv[] = { "sh", "-c", NULL, NULL };
	size_t len;
	int ret = -1;

	memset(step, 0, sizeof(*step));
	if (util_mkdir_p(dir, 0755) || kbuild_give_tree(t->env, dir)) {
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	unlink(ipath);
	/* obj/ is the build user's: read beneath it */
	if (util_read_file_beneath(t->obj, cmdf, &text, &len, 16 << 20) ||
	    preprocess_cmd(text, unit, ipath, &cmd)) {
		step->status = KBUILD_FAILED;
		ret = 0;
		goto out;
	}
	argv[2] = cmd.buf;
	ret = kbuild_run(t, argv, t->obj, &o, step, err);
	if (!ret && step->status == KBUILD_OK) {
		if (!util_read_file_beneath(dir, ipath, &buf, &len, 256 << 20))
			strbuf_add(out, buf, len);
		else
			step->status = KBUILD_FAILED;
	}
	unlink(ipath);
out:
	strbuf_release(&cmd);
	free(text);
	free(buf);
	free(ipath);
	free(cmdf);
	free(dir);
	return ret;
}
