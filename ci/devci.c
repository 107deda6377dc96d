// SPDX-License-Identifier: GPL-2.0
/*
 * lorebot check --build/--boot: architectures, tools, and the entry
 * point into the build and boot engines (see devci.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/run.h"
#include "ci/devci.h"

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
	const char **v;
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
	n = config_get_all(cfg, "build.arch", &v);
	for (i = 0; i < n && !ret; i++)
		ret = devci_add_arches(o, v[i], boot, cfg, err);
	free(v);
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

int devci_run(const struct devci_range *r, const struct devci_opts *o,
	      const struct config *cfg, struct findings *out,
	      struct strbuf *err)
{
	/*
	 * INTEGRATION POINT: connect the build engine (issue 6) and the
	 * boot engine (issue 7) here.  As of this writing they expose:
	 *
	 *   ci/kbuild.h	kbuild_env_init(&env, cfg, &err)
	 *   ci/buildjob.h	struct build_job job = { .env = &env,
	 *			  .git_dir = r->git_dir, .profile = o->profile,
	 *			  .base = r->base, .commits = r->commits (ids and
	 *			  subjects, oldest first), .w1 = true };
	 *			build_job_arch(&job, arch) for each o->build[i]:
	 *			every commit is checked out into the engine's own
	 *			source tree under the cache and built, so each
	 *			patch is built on its own (bisectability).
	 *   ci/boot.h		boot_arch() with the tip kernel of each
	 *			o->boot[i] (kbuild_build_commit(), kbuild_image())
	 *			against the base.
	 *
	 * Each build_finding that is new becomes a struct finding of its
	 * patch: rule "build:<arch>", severity from the diagnostic, file,
	 * line, message ("does not build on riscv: ..."); a bisection
	 * break is an error on the patch that breaks it; a boot
	 * regression is "boot:<arch>" on the last patch.  BUILD_INFRA is
	 * an -EIO with its reason in err.
	 */
	(void)r;
	(void)o;
	(void)cfg;
	(void)out;
	strbuf_addstr(err, "not available in this build: the build and boot "
		      "engines are not connected to lorebot check yet");
	return -ENOSYS;
}
