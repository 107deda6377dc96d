// SPDX-License-Identifier: GPL-2.0
/*
 * The config repair step of a build job: ci/buildjob.h buildjob_repair().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/log.h"
#include "ci/buildjob.h"
#include "ci/cover-run.h"
#include "ci/kbuild-priv.h"
#include "ci/readers.h"

/* A change to any of these may change what is built: read at the tip */
static bool build_file(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return util_starts_with(base, "Kconfig") || !strcmp(base, "Makefile") ||
		!strcmp(base, "Kbuild");
}

struct at_base {
	struct kbuild_tree *t;
	struct readers_headers headers;	/* read by the base's units */
	/*
	 * The lines the profile is predicted to compile ("k:file:line"),
	 * and of the repaired configuration's, how many it is not
	 */
	struct strmap profile;
	char **keys;
	size_t nr, alloc;
	bool repaired;
	int gained;
};

static void on_line(void *data, size_t k, const char *file, int line, bool compiled)
{
	struct at_base *b = data;
	char *key;

	if (!compiled)
		return;
	key = xasprintf("%zu:%s:%d", k, file, line);
	if (b->repaired) {
		b->gained += !strmap_get(&b->profile, key);
		free(key);
		return;
	}
	ALLOC_GROW(b->keys, b->nr + 1, b->alloc);
	b->keys[b->nr++] = key;
	strmap_put(&b->profile, key, (void *)1);
}

static void at_base_release(struct at_base *b)
{
	size_t i;

	readers_headers_release(&b->headers);
	strmap_release(&b->profile);
	for (i = 0; i < b->nr; i++)
		free(b->keys[i]);
	free(b->keys);
}

static bool compiled_at_base(void *data, const char *path)
{
	struct at_base *b = data;

	return kbuild_compiled(b->t, path);
}

static bool included_at_base(void *data, const char *path)
{
	struct at_base *b = data;

	return readers_headers_has(&b->headers, path);
}

/* <cache>/repair/<hash>.config: the fragment, by its content */
static char *fragment_file(const struct kbuild_env *env, const struct strbuf *text,
			   struct strbuf *err)
{
	char hash[17], *dir = xasprintf("%s/repair", env->cache), *path;

	util_hash_hex(text->buf, text->len, hash);
	path = xasprintf("%s/%s.config", dir, hash);
	if (util_mkdir_p(dir, 0755) || util_write_file(path, text->buf, text->len)) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		free(path);
		path = NULL;
	}
	free(dir);
	return path;
}

/* What olddefconfig makes of the base's .config with the tip's Kconfig */
static int tip_config(struct kbuild_tree *s, const char *cfg, struct kconf *out,
		      struct strbuf *err)
{
	struct strbuf res = STRBUF_INIT;
	struct kbuild_step step;
	char *buf = NULL;
	size_t len;
	int ret = -1;

	if (util_read_file(cfg, &buf, &len, 64 << 20)) {
		strbuf_addf(err, "cannot read '%s'", cfg);
		return -1;
	}
	if (!kbuild_probe_config(s, buf, len, &res, &step, err)) {
		if (step.status == KBUILD_OK) {
			kconf_release(out);
			kconf_parse(out, res.buf, res.len);
		}
		/* a Kconfig the series broke: judged with the base's */
		ret = 0;
	}
	kbuild_step_release(&step);
	strbuf_release(&res);
	free(buf);
	return ret;
}

static void note(struct build_repair *out, const char *what, const char *why)
{
	free(out->note);
	out->note = xasprintf("%s%s%s", what, why ? ": " : "", why ? why : "");
}

/*
 * Of the symbols the prediction turned off for the other branch, those
 * Kconfig turned off, into out->branched; how many
 */
static size_t branched_stuck(struct build_repair *out, const struct cover_needs *asked)
{
	size_t i, j;

	cover_needs_release(&out->branched);
	for (i = 0; i < asked->off_nr; i++)
		for (j = 0; j < out->r.unset_nr; j++)
			if (!strcmp(kconf_bare(asked->off[i]), kconf_bare(out->r.unset[j])))
				cover_needs_off(&out->branched, asked->off[i]);
	return out->branched.off_nr;
}

/* "took the other branch of CONFIG_X, CONFIG_Y: their lines are left to x86_64" */
static void branch_note(struct build_repair *out, const char *first)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addstr(&sb, "took the other branch of ");
	for (i = 0; i < out->branched.off_nr; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", out->branched.off[i]);
	strbuf_addf(&sb, " (off here): %s lines are left to %s",
		    out->branched.off_nr == 1 ? "its" : "their", first);
	free(out->note);
	out->note = strbuf_detach(&sb, NULL);
}

int buildjob_repair(struct build_job *job, struct kbuild_tree **tp,
		    char *const *touched, size_t touched_nr,
		    struct build_repair *out, struct strbuf *err)
{
	struct kbuild_tree *s = *tp, *r = NULL;
	const char *tip = job->commits.v[job->commits.nr - 1].id;
	const char *srcarch = kconf_srcarch(s->arch.kernel_arch);
	char **ids = xcalloc(job->commits.nr + 1, sizeof(*ids));
	struct at_base at_base = {
		.t = s, .headers = READERS_HEADERS_INIT, .profile = STRMAP_INIT,
	};
	struct cover_memo readers = COVER_MEMO_INIT;
	struct cover_needs want = { 0 }, more = { 0 }, branched = { 0 };
	/* an arch after the first: the other branch of what the first keeps */
	bool other = job->first_arch && strcmp(job->first_arch, s->arch.name);
	struct cover_predict p = {
		.git_dir = job->git_dir, .base = job->base, .commits = ids,
		.nr = job->commits.nr, .srcdir = s->src, .srcarch = srcarch,
		.compiled = compiled_at_base, .included = included_at_base,
		.readers = &readers, .data = &at_base, .line = on_line,
		.other_branch = other, .branched = &branched,
	};
	struct kconf base = KCONF_INIT;
	struct strbuf frag = STRBUF_INIT, e = STRBUF_INIT;
	struct profile prof;
	char *cfg = kbuild_base_config(s), *path = NULL;
	const char *at = job->base;
	uint64_t start = util_now_ms();
	size_t i, stuck;
	int ret = -1;

	out->profile = xstrdup(s->profile.name);
	for (i = 0; i < job->commits.nr; i++)
		ids[i] = job->commits.v[i].id;
	for (i = 0; i < touched_nr; i++)
		if (build_file(touched[i]))
			at = tip;
	/* the Makefiles and Kconfig the lines are judged by: the base's, or the tip's */
	if (strcmp(s->cur, at)) {
		if (srctree_checkout(job->git_dir, s->src, s->index, at, err))
			goto out;
		memcpy(s->cur, at, OID_HEX);
		kbuild_save_state(s);
	}
	if (kconf_load(&base, cfg)) {
		strbuf_addf(err, "cannot read '%s'", cfg);
		goto out;
	}
	/* a series that changes Kconfig: the configuration as its tip makes it */
	if (at == tip && tip_config(s, cfg, &base, err))
		goto out;
	/* a header no unit of the base reads: the repair looks for its readers */
	readers_headers_scan(&at_base.headers, s->obj, s->src);
	if (cover_predict_run(&p, &base, &want, &out->changed, &out->small, err))
		goto out;
	out->repaired = out->small;
	ret = 0;
	if (!want.on_nr && !want.off_nr)
		goto out;
	out->ran = true;
	log_info("%s: %d of %d changed lines predicted compiled: repairing the "
		 "configuration (%zu option%s on, %zu off)", s->arch.name, out->small,
		 out->changed, want.on_nr, want.on_nr == 1 ? "" : "s", want.off_nr);
	if (repair_run(s, &want, &out->r, err)) {
		ret = -1;
		goto out;
	}
	if (!out->r.set_nr && !out->r.unset_nr) {
		note(out, "none of the options the changed lines need can be set", NULL);
		goto out;
	}
	at_base.repaired = true;
	p.branched = NULL;
	if (cover_predict_run(&p, &out->r.result, &more, &out->changed, &out->repaired, &e)) {
		note(out, "the repaired configuration could not be judged", e.buf);
		goto out;
	}
	/*
	 * Used when it compiles more of the change; or, having taken the
	 * other branch, lines the profile does not compile, even if fewer
	 * (the first arch compiles those this one gives up)
	 */
	stuck = branched_stuck(out, &branched);
	if (out->repaired <= out->small && !(stuck && at_base.gained)) {
		note(out, "the repaired configuration would not compile more of the change", NULL);
		goto out;
	}
	if (stuck)
		branch_note(out, job->first_arch);
	repair_fragment(&out->r, &frag);
	path = fragment_file(s->env, &frag, &e);
	if (!path || profile_load(s->env->cfg, job->profile, &s->arch, &prof, &e)) {
		note(out, "no repaired profile", e.buf);
		goto out;
	}
	if (profile_add_fragment(&prof, path, &s->arch, &e)) {
		profile_release(&prof);
		note(out, "no repaired profile", e.buf);
		goto out;
	}
	/* the repair's own cost; the repaired base's is the base's */
	out->ms = util_now_ms() - start;
	start = 0;
	if (kbuild_open_profile(&r, s->env, &s->arch, &prof, job->git_dir, job->base,
				s->log_dir, s, &e)) {
		/* a repaired configuration that does not build: the profile's it is */
		profile_release(&prof);
		note(out, "the repaired configuration's base does not build", e.buf);
		log_warn("%s: %s", s->arch.name, out->note);
		goto out;
	}
	free(out->profile);
	out->profile = xstrdup(r->profile.name);
	out->used = true;
	out->seeded = r->base_seeded;
	out->base_built = r->base_built_now;
	kbuild_close(s);
	*tp = r;
out:
	if (start)
		out->ms = util_now_ms() - start;
	kconf_release(&base);
	at_base_release(&at_base);
	cover_memo_release(&readers);
	cover_needs_release(&want);
	cover_needs_release(&more);
	cover_needs_release(&branched);
	/* not used: nothing was left to the first arch */
	if (!out->used)
		cover_needs_release(&out->branched);
	strbuf_release(&frag);
	strbuf_release(&e);
	free(path);
	free(cfg);
	free(ids);
	return ret;
}
