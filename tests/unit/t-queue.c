// SPDX-License-Identifier: GPL-2.0
/* The daemon's job queue: order, classes, uniqueness, crash recovery */
#include <unistd.h>

#include "bot/sched/queue.h"
#include "bot/stage/stage.h"
#include "tests/unit/tap.h"

int main(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = xasprintf("%s/t-queue-%d.db", dir, (int)getpid());
	struct strbuf err = STRBUF_INIT;
	struct db *db;
	struct job j;
	int64_t counts[JOB_STATE_NR];
	bool added;
	int i;

	stage_register();
	if (db_open(&db, path, 0, &err)) {
		ok(0, "open: %s", err.buf);
		return done_testing();
	}
	ok(queue_add(db, STAGE_APPLY, "v-old", "", 10, &added, &err) == 0 && added,
	   "queue an apply");
	queue_add(db, STAGE_APPLY, "v-new", "", 20, &added, &err);
	queue_add(db, STAGE_BUILD, "v-old", "arm64", 10, &added, &err);
	queue_add(db, STAGE_BUILD, "v-old", "riscv", 10, &added, &err);
	ok(queue_add(db, STAGE_APPLY, "v-old", "", 10, &added, &err) == 0 && !added,
	   "the same stage twice is one job");

	is_int(queue_claim(db, false, &j, &err), 1, "a light job is claimed");
	is_str(j.version, "v-new", "the newest version first");
	is_int(j.state, JOB_RUNNING, "it is running");
	is_int(j.attempts, 1, "first attempt");
	queue_finish(db, j.id, JOB_DONE, NULL, &err);
	queue_job_release(&j);
	is_int(queue_claim(db, false, &j, &err), 1, "the next light job");
	is_str(j.version, "v-old", "the older version");
	queue_job_release(&j);
	is_int(queue_claim(db, false, &j, &err), 0, "no more light jobs");

	is_int(queue_claim(db, true, &j, &err), 1, "a heavy job is claimed");
	is_int(j.kind, STAGE_BUILD, "a build");
	is_str(j.arch, "arm64", "oldest first at equal priority");
	queue_set_pid(db, j.id, 4242, "/tmp/log", &err);
	queue_job_release(&j);

	/* the process dies: both running jobs go back, attempts kept */
	is_int(queue_recover(db, 3, &err), 2, "recover: two running jobs requeued");
	queue_counts(db, counts, &err);
	is_int(counts[JOB_QUEUED], 3, "three queued after recovery");
	is_int(counts[JOB_DONE], 1, "the done job stays done");
	for (i = 0; i < 2; i++) {
		/* crash twice more while the arm64 build runs */
		is_int(queue_claim(db, true, &j, &err), 1, "the build runs again");
		is_str(j.arch, "arm64", "the same build");
		queue_job_release(&j);
		queue_recover(db, 3, &err);
	}
	queue_counts(db, counts, &err);
	is_int(counts[JOB_FAILED], 1, "a job interrupted 3 times is failed");
	queue_get(db, 3, &j, &err);
	ok(j.error && strstr(j.error, "interrupted 3 times"), "with the reason: %s",
	   j.error ? j.error : "(none)");
	queue_job_release(&j);

	is_int(queue_cancel_version(db, "v-old", &err), 2,
	       "a superseded version's queued jobs are cancelled");
	queue_counts(db, counts, &err);
	is_int(counts[JOB_CANCELLED], 2, "two cancelled");

	{
		struct job *jobs;
		size_t nr;

		queue_version_jobs(db, "v-old", &jobs, &nr, &err);
		is_int(nr, 3, "three jobs for v-old");
		queue_free_jobs(jobs, nr);
	}
	db_close(db);
	unlink(path);
	{
		char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);

		unlink(wal);
		unlink(shm);
		free(wal);
		free(shm);
	}
	free(path);
	strbuf_release(&err);
	return done_testing();
}
