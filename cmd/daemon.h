/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon: one event loop driving fetch -> assemble (store) ->
 * apply -> check -> build/boot per arch -> reply through the job queue.
 *
 * Lists are polled on their own schedule (list.<name>.pollinterval);
 * every job runs as a child process ("lorebot job run ID") so a job
 * that crashes or hangs is killed and reported and the daemon carries
 * on; at most daemon.builds heavy jobs (builds, boots) and daemon.light
 * light ones run at once.  Restartable at any instant: jobs found
 * running at start were interrupted and are queued again (bounded
 * attempts), stages recorded done are not repeated, and the reply state
 * machine sends no reply twice.  SIGTERM/SIGINT stop the children and
 * give their jobs back to the queue; SIGHUP reloads the configuration.
 */
#ifndef LOREBOT_DAEMON_H
#define LOREBOT_DAEMON_H

#include "cmd/cmd.h"

struct daemon_opts {
	const char *url;	/* --url: one list, without a configuration */
	const char *repo;	/* --repo, else git.repo */
	const char *outbox;	/* --outbox: file replies there */
	const char *listen;	/* --listen: serve the dashboard too */
	const char *archs;	/* --arch LIST */
	bool once;		/* process what is pending, then exit */
};

/* 0 after a clean stop, else an exit code */
int daemon_run(struct ctx *ctx, const struct daemon_opts *o);

#endif
