// SPDX-License-Identifier: GPL-2.0
/* The boot stage's options from configuration (boot.*, build.*) */
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "ci/boot.h"

static const struct {
	const char *name;
	enum boot_kvm mode;
} kvm_modes[] = {
	{ "auto", BOOT_KVM_AUTO },
	{ "on", BOOT_KVM_ON },
	{ "off", BOOT_KVM_OFF },
};

int boot_opts_config(struct boot_opts *o, const struct config *cfg,
		     const char *kvm, struct strbuf *err)
{
	const char *user = config_v(cfg)->build_user;
	const char *mode = kvm ? kvm : config_v(cfg)->boot_kvm;
	int64_t mem = atoll(config_v(cfg)->boot_memory);
	size_t i;

	if (mem > 0)
		o->mem_mb = (unsigned int)mem;
	o->smp = (unsigned int)config_v(cfg)->boot_smp;
	o->confirm = (unsigned int)MAX(config_v(cfg)->boot_confirm, 1);
	o->retries = o->confirm - 1;
	o->keep_kernels = (unsigned int)MAX(config_v(cfg)->boot_keepkernels, 0);
	o->hugepages = (unsigned int)config_v(cfg)->boot_hugepages;
	o->jobs = (unsigned int)config_v(cfg)->build_jobs;
	o->sandbox = config_v(cfg)->build_sandbox;
	o->nproc = (uint64_t)MAX(0, config_v(cfg)->build_processes);
	if (!o->timeout_ms)
		o->timeout_ms = config_v(cfg)->boot_timeout;
	if (!o->test_timeout_ms)
		o->test_timeout_ms = config_v(cfg)->boot_testtimeout;
	if (!o->cmdline)
		o->cmdline = config_v(cfg)->boot_cmdline;
	for (i = 0; i < ARRAY_SIZE(kvm_modes); i++)
		if (!strcmp(mode, kvm_modes[i].name))
			break;
	if (i == ARRAY_SIZE(kvm_modes)) {
		strbuf_addf(err, "bad --kvm '%s' (auto, on, off)", mode);
		return -1;
	}
	o->kvm = kvm_modes[i].mode;
	if (geteuid() == 0 && o->sandbox && user && *user) {
		struct passwd *pw = getpwnam(user);

		if (!pw) {
			strbuf_addf(err, "no user '%s' (build.user)", user);
			return -1;
		}
		o->uid = pw->pw_uid;
		o->gid = pw->pw_gid;
	}
	return 0;
}
