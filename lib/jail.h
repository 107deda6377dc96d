/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A helper in a jail: the process that parses what strangers send holds
 * nothing worth taking (OpenSMTPD's privilege separation).
 *
 * jail_call() hands a request to a helper process and waits for its
 * answer; the first call starts the helper.  The helper is a fork of
 * this process that, before it reads a byte of input, enters user, PID,
 * network, IPC, UTS and mount namespaces of its own, pivots into a root
 * of its own (an empty, read-only tmpfs with the host's /usr bound
 * read-only: iconv's modules and the like), drops every capability and
 * its bounding set, sets no-new-privs, closes every descriptor but the
 * socket to its parent and stderr, takes limits (address space, CPU
 * time, file size 0, open files) and a seccomp filter that refuses
 * fork, exec, ptrace, sockets, mounts and namespaces.  It sees no file
 * of the bot's, no network, no process but itself; its only way out is
 * its answers, which the caller treats as the untrusted data they are.
 * Then it answers requests one at a time with fn.
 *
 * A helper that dies, answers too late (timeout_ms) or answers beyond
 * max_response is killed, the call fails saying so, and the next call
 * starts a new helper: one poisonous request costs one answer.
 */
#ifndef LOREBOT_JAIL_H
#define LOREBOT_JAIL_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/strbuf.h"

/* In the helper: answer req in resp; 0 (an answer) or 1 (an error, resp says) */
typedef int jail_fn(void *ctx, const char *req, size_t len, struct strbuf *resp);

struct jail_opts {
	jail_fn *fn;
	void *ctx;
	uint64_t timeout_ms;	/* per request (0: 30 s) */
	size_t max_request;	/* 0: 64 MiB */
	size_t max_response;	/* 0: 16 MiB */
	uint64_t mem_bytes;	/* RLIMIT_AS of the helper (0: 1 GiB; none under ASan) */
	uint64_t cpu_s;		/* RLIMIT_CPU of a helper (0: 600 s) */
};

struct jail;

struct jail *jail_new(const struct jail_opts *o);
void jail_free(struct jail *j);

/* Start the helper now if none runs (jail_call() would): 0 or -1 with err */
int jail_start(struct jail *j, struct strbuf *err);

/*
 * One request: 0 with the answer in resp (*failed: fn said it was an
 * error), or -1 with err (the helper could not start, died, timed out
 * or broke the protocol; it is gone, the next call starts another).
 */
int jail_call(struct jail *j, const char *req, size_t len, struct strbuf *resp,
	      bool *failed, struct strbuf *err);
/* The same with a time limit of its own (0: the jail's timeout_ms) */
int jail_call_within(struct jail *j, const char *req, size_t len, uint64_t timeout_ms,
		     struct strbuf *resp, bool *failed, struct strbuf *err);

/* The helper's pid while one runs (tests), else 0 */
pid_t jail_pid(const struct jail *j);

/* Helpers started and helpers lost (died, timed out) so far */
void jail_counts(const struct jail *j, unsigned int *started, unsigned int *lost);

#endif
