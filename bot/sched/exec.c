// SPDX-License-Identifier: GPL-2.0
/* The table of the job pool's engines (daemon.executor) */
#include <errno.h>
#include <stdlib.h>

#include "bot/sched/exec.h"

static const struct exec_engine exec_engines[] = {
	{ .name = "local" },	/* run_pool's own: lib/run.c */
	{ .name = "slurm", .create = exec_slurm_create, .destroy = exec_slurm_destroy,
	  .configure = exec_slurm_configure, .res = exec_slurm_res,
	  .task_id = exec_slurm_task_id },
};

int exec_open(struct exec *e, const struct config *cfg, struct strbuf *err)
{
	const char *name = config_v(cfg)->daemon_executor;
	size_t i;

	memset(e, 0, sizeof(*e));
	for (i = 0; name && i < ARRAY_SIZE(exec_engines); i++)
		if (!strcmp(exec_engines[i].name, name))
			e->engine = &exec_engines[i];
	if (!e->engine) {
		strbuf_addf(err, "daemon.executor: unknown executor '%s'", name ? name : "");
		return -EINVAL;
	}
	e->x = e->engine->create ? e->engine->create(cfg) : NULL;
	return 0;
}

void exec_configure(struct exec *e, const struct config *cfg)
{
	memset(e->stage, 0, sizeof(e->stage));
	e->max_jobs = 0;
	if (e->x && e->engine->configure)
		e->engine->configure(e, cfg);
}

void exec_close(struct exec *e)
{
	if (e->x && e->engine->destroy)
		e->engine->destroy(e->x);
	e->x = NULL;
}

bool exec_runs(const struct exec *e, enum stage kind)
{
	return e->x && kind < STAGE_NR && e->stage[kind];
}

const char *exec_name(const struct exec *e)
{
	return e->x ? e->x->name : "local";
}

bool exec_owns(const struct exec *e, const char *handle)
{
	const char *p;

	return e->x && handle && util_skip_prefix(handle, e->x->name, &p) && *p == ':';
}

long exec_task_id(const struct exec *e, const char *handle)
{
	return e->x && e->engine->task_id && handle ? e->engine->task_id(handle) : 0;
}

void exec_res(const struct exec *e, const struct config *cfg, enum stage kind,
	      struct run_res *res)
{
	if (e->engine && e->engine->res)
		e->engine->res(cfg, kind, res);
}

void exec_res_release(struct run_res *res)
{
	free((void *)res->flags);
	res->flags = NULL;
}
