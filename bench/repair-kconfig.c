// SPDX-License-Identifier: GPL-2.0
/*
 * The config repair (repair_resolve()) against a kernel tree's real
 * Kconfig, without a build directory: each olddefconfig is "make O=TMP
 * ARCH=... olddefconfig" in SRC, the tree left as it is (its objects go
 * to a temporary directory).  bench/README.md, "Options turned off".
 *
 * usage: repair-kconfig SRC CONFIG ARCH [!]CONFIG_X...
 * CONFIG: the .config to start from (a build directory's config.base);
 * "!CONFIG_X" asks X off.  Prints the fragment, what could not be set
 * and why, and the value of each symbol asked.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/run.h"
#include "lib/util.h"
#include "ci/repair.h"

struct probe {
	const char *src, *arch;
	char *obj;
};

static int olddefconfig(void *data, const char *config, size_t len,
			struct kconf *result, struct strbuf *err)
{
	struct probe *p = data;
	char *dot = xasprintf("%s/.config", p->obj), *o = xasprintf("O=%s", p->obj);
	char *a = xasprintf("ARCH=%s", p->arch), *buf = NULL;
	const char *argv[] = { "make", "-s", o, a, "olddefconfig", NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	size_t n;
	int ret = -1;

	cmd.argv = argv;
	cmd.cwd = p->src;
	cmd.merge_stderr = true;
	if (util_write_file(dot, config, len)) {
		strbuf_addf(err, "cannot write '%s'", dot);
	} else if (run_cmd(&cmd) < 0 || cmd.status) {
		strbuf_addf(err, "make olddefconfig: %s", cmd.out.buf);
	} else if (!util_read_file(dot, &buf, &n, 64 << 20)) {
		kconf_release(result);
		kconf_parse(result, buf, n);
		ret = 0;
	}
	run_cmd_release(&cmd);
	free(buf);
	free(dot);
	free(o);
	free(a);
	return ret;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/repair-kconfig.XXXXXX";
	struct probe p;
	struct repair_kconfig k = { .olddefconfig = olddefconfig, .data = &p };
	struct cover_needs want = { 0 };
	struct strbuf err = STRBUF_INIT, frag = STRBUF_INIT;
	struct repair r;
	char *base = NULL;
	size_t len, i;
	int ret = 0, j;

	if (argc < 5) {
		fprintf(stderr, "usage: repair-kconfig SRC CONFIG ARCH [!]CONFIG_X...\n");
		return 2;
	}
	p.src = k.srcdir = argv[1];
	p.arch = argv[3];
	k.srcarch = kconf_srcarch(argv[3]);
	if (util_read_file(argv[2], &base, &len, 64 << 20) || !(p.obj = mkdtemp(tmpl))) {
		fprintf(stderr, "repair-kconfig: cannot read '%s' or make a directory\n", argv[2]);
		return 3;
	}
	k.base = base;
	k.len = len;
	for (j = 4; j < argc; j++) {
		if (argv[j][0] == '!')
			cover_needs_off(&want, argv[j] + 1);
		else
			cover_needs_on(&want, argv[j]);
	}
	if (repair_resolve(&k, &want, &r, &err)) {
		fprintf(stderr, "repair-kconfig: %s\n", err.buf);
		ret = 3;
		goto out;
	}
	repair_fragment(&r, &frag);
	printf("olddefconfig runs: %u, %.1f s\n%s", r.rounds, r.ms / 1000.0, frag.buf);
	for (i = 0; i < r.fail_nr; i++)
		printf("not %s %s: %s%s\n", r.fail[i].off ? "off" : "on", r.fail[i].sym,
		       r.fail[i].why, r.fail[i].arch ? " (the arch's)" : "");
	for (j = 4; j < argc; j++) {
		const char *v = kconf_get(&r.result, argv[j] + (argv[j][0] == '!'));

		printf("%s: %s\n", argv[j] + (argv[j][0] == '!'), v ? v : "n");
	}
	repair_release(&r);
out:
	{
		const char *rm[] = { "rm", "-rf", p.obj, NULL };
		struct run_cmd cmd = RUN_CMD_INIT;

		cmd.argv = rm;
		run_cmd(&cmd);
		run_cmd_release(&cmd);
	}
	cover_needs_release(&want);
	strbuf_release(&err);
	strbuf_release(&frag);
	free(base);
	return ret;
}
