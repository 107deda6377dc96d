// SPDX-License-Identifier: GPL-2.0
/* The embedded guest init and its per-arch static build; see guest-init.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/run.h"
#include "ci/guest-init.h"

/* make runs from the top of the tree; the Makefile lists the dependency */
__asm__(".section .rodata\n"
	".global lorebot_init_src\n"
	".type lorebot_init_src, @object\n"
	"lorebot_init_src:\n"
	".incbin \"ci/initramfs/init.c\"\n"
	".global lorebot_init_src_end\n"
	"lorebot_init_src_end:\n"
	".byte 0\n"
	".previous\n");

extern const char lorebot_init_src[];
extern const char lorebot_init_src_end[];

const char *guest_init_source(size_t *len)
{
	*len = lorebot_init_src_end - lorebot_init_src;
	return lorebot_init_src;
}

const char *guest_init_hash(void)
{
	static char hex[17];
	size_t len;
	const char *src;

	if (!hex[0]) {
		src = guest_init_source(&len);
		util_hash_hex(src, len, hex);
	}
	return hex;
}

char *guest_init_binary(const struct arch *a, const char *cachedir,
			struct strbuf *err)
{
	char *gcc = xasprintf("%sgcc", a->cross_compile);
	char *bin = xasprintf("%s/init-%s-%s", cachedir, a->name,
			      guest_init_hash());
	char *tmp = xasprintf("%s.%d.tmp", bin, (int)getpid());
	char *src = xasprintf("%s.%d.c", bin, (int)getpid());
	const char *argv[] = { gcc, "-static", "-Os", "-Wall", "-o", tmp,
			       src, NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	const char *text;
	size_t len;
	int r;

	if (!access(bin, X_OK))
		goto out;
	if (!run_have_program(gcc)) {
		strbuf_addf(err, "%s not found (Debian package %s)", gcc,
			    a->gcc_package);
		goto fail;
	}
	r = util_mkdir_p(cachedir, 0755);
	text = guest_init_source(&len);
	if (!r)
		r = util_write_file(src, text, len);
	if (r) {
		strbuf_addf(err, "cannot write '%s': %s", src, strerror(-r));
		goto fail;
	}
	cmd.argv = argv;
	cmd.merge_stderr = true;
	cmd.limits.timeout_ms = 120000;
	if (run_cmd(&cmd) || cmd.status) {
		strbuf_addf(err, "cannot build the %s guest init: ", a->name);
		run_describe(&cmd, err);
		strbuf_addf(err, "\n%s", cmd.out.buf);
		goto fail;
	}
	if (rename(tmp, bin)) {
		strbuf_addf(err, "cannot create '%s': %s", bin, strerror(errno));
		goto fail;
	}
	goto out;
fail:
	free(bin);
	bin = NULL;
out:
	unlink(src);
	unlink(tmp);
	run_cmd_release(&cmd);
	free(gcc);
	free(tmp);
	free(src);
	return bin;
}
