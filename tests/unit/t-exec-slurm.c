// SPDX-License-Identifier: GPL-2.0
/*
 * The Slurm executor's parts: what sbatch, squeue and scontrol print (as
 * Slurm 22.05 prints it), the state table, the sbatch command line and
 * the batch script, and reattaching (a handle Slurm no longer knows
 * falls back on the job's exit file), and what the daemon asks of the engine
 * besides (bot/sched/exec.c: the stages it runs, their resources, the job of a
 * handle).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/sched/exec.h"
#include "bot/stage/stage.h"
#include "tests/unit/tap.h"

static const char squeue_out[] =
	"12|COMPLETED|lab1|None\n"
	"13|PENDING||JobHeldUser\n"
	"14|RUNNING|node-a7|None\n"
	"slurm_load_jobs error: Socket timed out on send/recv operation\n"
	"x|RUNNING|n|None\n"
	"15|CANCELLED|(null)|JobHeldUser";

static const char scontrol_out[] =
	"JobId=14 JobName=lorebot-build-arm64-7 UserId=root(0) GroupId=root(0) "
	"JobState=TIMEOUT Reason=TimeLimit Dependency=(null) Requeue=0 Restarts=0 "
	"BatchFlag=1 Reboot=0 ExitCode=0:15 RunTime=00:05:01 TimeLimit=00:05:00 "
	"Partition=lab ReqNodeList=(null) ExcNodeList=(null) NodeList=node-a7 "
	"BatchHost=node-a7 NumNodes=1\n";

static const char squeue_none[] = "#!/bin/sh\nexit 0\n";
static const char scontrol_none[] =
	"#!/bin/sh\necho 'slurm_load_jobs error: Invalid job id specified' >&2\nexit 1\n";

static bool has(char **argv, const char *s)
{
	for (; *argv; argv++)
		if (!strcmp(*argv, s))
			return true;
	return false;
}

int main(void)
{
	struct slurm_state *v, st;
	const struct slurm_state_def *def;
	const char *flags[] = { "--qos=high", NULL };
	const char *cfg_flags[] = { "--exclusive" };
	const char *argv[] = { "/usr/bin/lorebot", "job", "work", "/srv/it's here", NULL };
	struct slurm_cfg c = { .partition = "kernel", .account = "mm",
			       .flags = cfg_flags, .nr_flags = 1 };
	struct run_task t = { .name = "lorebot-build-x86_64-3", .workdir = "/srv/jobs/3",
			      .log_path = "/srv/jobs/3/job.log", .argv = argv,
			      .res = { .cpus = 4, .mem_bytes = 3 * (1ULL << 30) + 1,
				       .limit_ms = 93784000, .flags = flags } };
	struct strbuf sb = STRBUF_INIT;
	char **sv, dir[] = "/tmp/t-exec-slurm.XXXXXX", *path, *handle;
	struct run_executor *x;
	void *job;
	long id;
	size_t n;

	stage_register();
	is_int(exec_slurm_parse_sbatch("1234\n", &id), 0, "sbatch --parsable: an id");
	is_int(id, 1234, "its value");
	ok(!exec_slurm_parse_sbatch("77;cluster-b\n", &id) && id == 77, "an id with a cluster");
	ok(exec_slurm_parse_sbatch("sbatch: error: Batch job submission failed\n", &id) < 0,
	   "an error message is no id");

	n = exec_slurm_parse_squeue(squeue_out, &v);
	is_int(n, 4, "squeue: four jobs, messages and bad lines skipped");
	ok(v[0].id == 12 && !strcmp(v[0].state, "COMPLETED") && !strcmp(v[0].node, "lab1"),
	   "a completed job, its node");
	ok(v[1].id == 13 && !strcmp(v[1].state, "PENDING") && !*v[1].node &&
	   !strcmp(v[1].reason, "JobHeldUser"), "a pending one: no node, the reason");
	ok(v[3].id == 15 && !*v[3].node, "(null) is no node");
	free(v);

	ok(!exec_slurm_parse_scontrol(scontrol_out, &st), "scontrol -o: parsed");
	ok(st.id == 14 && !strcmp(st.state, "TIMEOUT") && !strcmp(st.node, "node-a7") &&
	   st.exit_code == 0 && st.exit_signal == 15, "state, node (not ReqNodeList), exit code");
	ok(exec_slurm_parse_scontrol("slurm_load_jobs error: Invalid job id specified\n", &st) < 0,
	   "a job Slurm forgot");

	def = exec_slurm_state_lookup("PENDING");
	ok(def && !def->ended, "PENDING is not final");
	def = exec_slurm_state_lookup("TIMEOUT");
	ok(def && def->ended && def->timed_out && !def->lost, "TIMEOUT: ended, timed out");
	def = exec_slurm_state_lookup("NODE_FAIL");
	ok(def && def->ended && def->lost, "NODE_FAIL: the node is lost");
	def = exec_slurm_state_lookup("CANCELLED by 0");
	ok(def && def->ended && !strcmp(def->name, "CANCELLED"), "sacct's 'CANCELLED by 0'");
	ok(!exec_slurm_state_lookup("WEIRD"), "an unknown state");

	exec_slurm_sbatch_argv(&c, &t, "/srv/jobs/3/job.sbatch", &sv);
	ok(!strcmp(sv[0], "sbatch") && has(sv, "--parsable"), "sbatch --parsable");
	ok(has(sv, "--job-name=lorebot-build-x86_64-3") && has(sv, "--chdir=/srv/jobs/3") &&
	   has(sv, "--output=/srv/jobs/3/job.log") && has(sv, "--open-mode=append"),
	   "name, directory, output appended to the runner's log");
	ok(has(sv, "--cpus-per-task=4") && has(sv, "--mem=3073M") &&
	   has(sv, "--time=1-02:03:04"), "cpus, memory rounded up to MiB, time limit");
	ok(has(sv, "--partition=kernel") && has(sv, "--account=mm") && has(sv, "--no-requeue"),
	   "partition, account; Slurm does not requeue (the daemon retries)");
	ok(has(sv, "--exclusive") && has(sv, "--qos=high"), "every job's and the stage's flags");
	for (n = 0; sv[n]; n++)
		;
	ok(!strcmp(sv[n - 1], "/srv/jobs/3/job.sbatch"), "the script last");
	exec_slurm_argv_free(sv);

	exec_slurm_script(&t, &sb);
	ok(util_starts_with(sb.buf, "#!/bin/sh\n"), "the script is a shell script");
	ok(strstr(sb.buf, "'/usr/bin/lorebot' 'job' 'work' '/srv/it'\\''s here' </dev/null\n") != NULL,
	   "each word quoted, a quote in one too");
	ok(strstr(sb.buf, "mv -f slurm-exit.tmp slurm-exit") != NULL,
	   "it leaves its exit status in the job's directory");
	ok(strstr(sb.buf, "rm -f slurm-exit.tmp && (set -C; echo \"$s\" >slurm-exit.tmp)") != NULL,
	   "... through a name it removed first, with noclobber (no link followed)");
	strbuf_release(&sb);

	/* reattach without a reachable Slurm: the exit file decides */
	if (!mkdtemp(dir))
		return 1;
	setenv("PATH", dir, 1);	/* no squeue: Slurm does not answer */
	c.poll_ms = 1;
	x = exec_slurm_new_cfg(&c);
	ok(x->persistent, "Slurm's jobs outlive the daemon");
	handle = xasprintf("slurm:42:%s", dir);
	is_int(x->reattach(x, handle, &job), -EAGAIN,
	       "reattach when squeue cannot run: try again later");
	ok(x->reattach(x, "local:12", &job) == -ENOENT, "not a Slurm handle");
	ok(x->reattach(x, "slurm:x:/tmp", &job) == -ENOENT, "a handle without an id");

	/* a Slurm that lists nothing and forgot every job (MinJobAge passed) */
	path = xasprintf("%s/squeue", dir);
	util_write_file(path, squeue_none, strlen(squeue_none));
	chmod(path, 0755);
	free(path);
	path = xasprintf("%s/scontrol", dir);
	util_write_file(path, scontrol_none, strlen(scontrol_none));
	chmod(path, 0755);
	free(path);
	is_int(x->reattach(x, handle, &job), -ENOENT,
	       "a job Slurm forgot that left no exit status cannot be taken over");
	path = xasprintf("%s/slurm-exit", dir);
	util_write_file(path, "1\n", 2);
	is_int(x->reattach(x, handle, &job), 0, "with its exit file, it is taken over");
	{
		struct run_done d = { .status = -1 };

		is_int(x->poll(x, job, &d), 0, "it has ended");
		is_int(d.status, 1, "with the status the batch script left");
		ok(strstr(d.detail, "slurm job 42 forgotten by Slurm") != NULL,
		   "and says Slurm forgot it");
		ok(x->node(x, job) == NULL, "no node is known");
	}
	x->release(x, job);

	/*
	 * Slurm still lists the job (RUNNING while it completes) when the
	 * batch script has left its status: that ends it, squeue not asked
	 */
	{
		static const char running[] =
			"#!/bin/sh\necho 'JobId=42 JobState=RUNNING ExitCode=0:0 NodeList=lab1'\n";
		struct run_done d = { .status = -1 };
		char *sq = xasprintf("%s/squeue", dir), *sc = xasprintf("%s/scontrol", dir);
		char *asked = xasprintf("%s/asked", dir);
		char *script = xasprintf("#!/bin/sh\ntouch '%s'\necho '42|RUNNING|lab1|None'\n", asked);

		util_write_file(sq, script, strlen(script));
		util_write_file(sc, running, strlen(running));
		chmod(sq, 0755);
		chmod(sc, 0755);
		is_int(x->reattach(x, handle, &job), 0, "a running job is taken over");
		unlink(asked);
		util_write_file(path, "3\n", 2);
		is_int(x->poll(x, job, &d), 0, "its exit file ends it though Slurm lists it");
		is_int(d.status, 3, "with the status the batch script left");
		ok(strstr(d.detail, "slurm job 42 ended (exit 3) on lab1") != NULL,
		   "the log says so, and where: %s", d.detail);
		ok(access(asked, F_OK), "squeue was not asked");
		x->release(x, job);
		unlink(asked);
		/*
		 * a FIFO at slurm-exit (issue 38: a sandbox in the job's
		 * directory planted one, and the daemon's loop blocked in
		 * open() for good): not an exit status, not waited on
		 */
		unlink(path);
		if (mkfifo(path, 0644))
			ok(0, "mkfifo: %s", strerror(errno));
		is_int(x->reattach(x, handle, &job), 0, "with a FIFO at slurm-exit: taken over");
		alarm(20);
		d.status = -1;
		is_int(x->poll(x, job, &d), 1, "... it runs still: the FIFO is no exit status");
		alarm(0);
		x->release(x, job);
		unlink(path);
		symlink("/etc/hostname", path);
		is_int(x->reattach(x, handle, &job), 0, "with a link at slurm-exit: taken over");
		is_int(x->poll(x, job, &d), 1, "... not followed");
		x->release(x, job);
		unlink(path);
		unlink(asked);
		free(script);
		free(asked);
		free(sq);
		free(sc);
	}
	/* a link planted at job.sbatch: the script replaces it, its target untouched */
	{
		char *victim = xasprintf("%s/victim", dir), *sbatch = xasprintf("%s/sbatch", dir);
		char *at = xasprintf("%s/job.sbatch", dir), *buf = NULL;
		static const char fake_sbatch[] = "#!/bin/sh\necho 77\n";
		const char *av[] = { "/usr/bin/lorebot", "job", "work", dir, NULL };
		struct run_task t2 = { .argv = av, .workdir = dir };
		char *h = NULL;
		size_t len;
		struct stat lst;

		util_write_file(victim, "victim\n", 7);
		util_write_file(sbatch, fake_sbatch, strlen(fake_sbatch));
		chmod(sbatch, 0755);
		if (symlink(victim, at))
			ok(0, "symlink: %s", strerror(errno));
		is_int(x->submit(x, &t2, &job, &h), 0, "submitted over a planted job.sbatch");
		ok(!util_read_file(victim, &buf, &len, 0) && !strcmp(buf, "victim\n"),
		   "... its target is untouched");
		ok(!lstat(at, &lst) && S_ISREG(lst.st_mode), "... job.sbatch is a file again");
		x->release(x, job);
		free(buf);
		free(h);
		unlink(at);
		unlink(victim);
		unlink(sbatch);
		free(victim);
		free(sbatch);
		free(at);
	}
	unlink(path);
	free(path);
	path = xasprintf("%s/squeue", dir);
	unlink(path);
	free(path);
	path = xasprintf("%s/scontrol", dir);
	unlink(path);
	free(path);
	exec_slurm_destroy(x);
	free(handle);
	rmdir(dir);

	/* what the daemon asks of the engine besides the executor (bot/sched/exec.c) */
	{
		struct config cfg = CONFIG_INIT;
		struct strbuf err = STRBUF_INIT;
		struct run_res res = { .klass = 1 };
		struct exec e;

		config_set(&cfg, "daemon.executor", "slurm");
		config_set(&cfg, "daemon.jobtimeout", "1h");
		config_set(&cfg, "build.jobs", "6");
		config_set(&cfg, "slurm.maxjobs", "5");
		config_set(&cfg, "slurm.boot.mem", "2g");
		config_set(&cfg, "slurm.boot.flags", "--qos=low");
		is_int(config_parse(&cfg, &err), 0, "the configuration parses");
		is_int(exec_open(&e, &cfg, &err), 0, "daemon.executor = slurm");
		exec_configure(&e, &cfg);
		ok(!strcmp(exec_name(&e), "slurm"), "its name");
		ok(exec_runs(&e, STAGE_BUILD) && exec_runs(&e, STAGE_BOOT) &&
		   !exec_runs(&e, STAGE_APPLY) && !exec_runs(&e, STAGE_REPLY),
		   "without slurm.stages: the heavy stages");
		is_int(e.max_jobs, 5, "slurm.maxjobs of them at once");
		ok(exec_owns(&e, "slurm:31:/srv/jobs/7") && !exec_owns(&e, "slurmx:31:/a") &&
		   !exec_owns(&e, NULL), "its handles, not another's");
		is_int(exec_task_id(&e, "slurm:31:/srv/jobs/7"), 31, "the Slurm job of a handle");
		exec_res(&e, &cfg, STAGE_BUILD, &res);
		ok(res.cpus == 6 && !res.mem_bytes && res.limit_ms == 65 * 60000ULL &&
		   res.flags && !res.flags[0] && res.klass == 1,
		   "a build: build.jobs cpus, no memory asked, daemon.jobtimeout + 5m");
		exec_res_release(&res);
		exec_res(&e, &cfg, STAGE_BOOT, &res);
		ok(res.mem_bytes == 2ULL << 30 && res.flags[0] && !strcmp(res.flags[0], "--qos=low"),
		   "a boot: slurm.boot.mem, slurm.boot.flags");
		exec_res_release(&res);
		config_set(&cfg, "slurm.stages", "check");
		config_parse(&cfg, &err);
		exec_configure(&e, &cfg);
		ok(exec_runs(&e, STAGE_CHECK) && !exec_runs(&e, STAGE_BUILD) && !e.max_jobs,
		   "slurm.stages = check: check alone, daemon.builds for the rest");
		exec_close(&e);

		config_set(&cfg, "daemon.executor", "local");
		config_parse(&cfg, &err);
		is_int(exec_open(&e, &cfg, &err), 0, "daemon.executor = local");
		exec_configure(&e, &cfg);
		ok(!e.x && !exec_runs(&e, STAGE_BUILD) && !strcmp(exec_name(&e), "local") &&
		   !exec_owns(&e, "slurm:31:/a"), "the pool's own: runs nothing itself");
		exec_close(&e);
		strbuf_release(&err);
		config_release(&cfg);
	}
	return done_testing();
}
