// SPDX-License-Identifier: GPL-2.0
/* The table of the job pool's engines (daemon.executor) */
#include "bot/exec.h"

static const struct exec_engine exec_engines[] = {
	{ "local", NULL, NULL },	/* run_pool's own: lib/run.c */
	{ "slurm", exec_slurm_create, exec_slurm_destroy },
};

const struct exec_engine *exec_engine_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(exec_engines); i++)
		if (!strcmp(exec_engines[i].name, name))
			return &exec_engines[i];
	return NULL;
}

void exec_free(struct run_executor *x)
{
	const struct exec_engine *e = x ? exec_engine_find(x->name) : NULL;

	if (e && e->destroy)
		e->destroy(x);
}
