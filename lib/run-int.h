/* SPDX-License-Identifier: GPL-2.0 */
/* Inside lib/run: what run.c and run-sandbox.c share */
#ifndef LOREBOT_RUN_INT_H
#define LOREBOT_RUN_INT_H

#include "lib/run.h"

/* A NULL-terminated vector of strings (argv, environ); the strings are not owned */
struct argv_vec {
	const char **v;
	size_t nr, alloc;
};

void run_argv_push(struct argv_vec *a, const char *s);

/*
 * bubblewrap and its options in front of cmd->argv, into a; called in
 * the child, between fork() and exec (nothing is freed)
 */
void run_sandbox_argv(const struct run_cmd *cmd, struct argv_vec *a);

#endif
