#!/bin/sh
# The Slurm job directory (issue 38, item 5): code in the check stage's
# sandbox (here mm-new's own checkpatch.pl, standing in for anything a
# sandboxed stage runs) plants, in its working directory and in the one
# above it, job.sbatch -> a victim file, slurm-exit.tmp -> another, a
# FIFO at slurm-exit, and, when it runs beside the batch script, kills
# its check once so that the job is submitted again.  Before, the sandbox's only writable directory was
# the job's directory itself: the daemon (root) wrote the next attempt's
# batch script through the link, the batch script wrote its exit status
# through the other, and the FIFO blocked the daemon's loop for good; and
# on Slurm, apply and check kept root's uid.  Now the sandbox writes into
# work/, the executor's files are out of its reach and written without
# following anything, and the stages drop to build.user on the node as
# they do locally.  A one-node Slurm (tests/slurm-lab.sh), as root.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"
. "$LOREBOT_SRC/tests/slurm-lib.sh"
slurm_setup 2

cd "$TMP" || exit 1
chmod 0755 "$TMP"
VSB=/var/tmp/lorebot-t1042-sbatch.$$
VEXIT=/var/tmp/lorebot-t1042-exit.$$
cleanup_add "rm -f '$VSB' '$VEXIT'"
echo victim-sbatch >"$VSB"
echo victim-exit >"$VEXIT"
sec_repo
# mm-new's checkpatch.pl: it plants, reports where it runs and as whom,
# and the first time kills the check that runs it (the job is retried)
mkdir -p "$S/scripts"
cat >"$S/scripts/checkpatch.pl" <<EOF
#!/usr/bin/perl
use Cwd;
my \$cwd = getcwd();
# where it runs beside the executor's batch script, the first time there
my \$first = -f "\$cwd/job.sbatch" && !-e "\$cwd/.lorebot-t1042-once";
for my \$d (\$cwd, "\$cwd/..") {
	unlink "\$d/job.sbatch", "\$d/slurm-exit.tmp", "\$d/slurm-exit", "\$d/result.json";
	symlink("$VSB", "\$d/job.sbatch") and print STDERR "planted \$d/job.sbatch\n";
	symlink("$VEXIT", "\$d/slurm-exit.tmp") and print STDERR "planted \$d/slurm-exit.tmp\n";
	system("mkfifo", "\$d/slurm-exit") == 0 and print STDERR "planted \$d/slurm-exit\n";
	open(my \$m, ">", "\$d/.lorebot-t1042-once");
}
for my \$file (grep { !/^-/ } @ARGV) {
	print "\$file:1: WARNING:UID_\$>: where: \$cwd\n";
	print "total: 0 errors, 1 warnings, 1 lines checked\n";
}
kill "KILL", getppid() if \$first;	# once: the job is submitted again
EOF
echo data >"$S/scripts/spelling.txt"
: >"$S/scripts/const_structs.checkpatch"
git -C "$S" add -A && git -C "$S" commit -qm "checkpatch" && git -C "$S" push -q "$R" main:mm-new
newfile mm/good.c | mkpatch good >"$TMP/series.mbox"

CONF=$TMP/slurm.conf
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox lore.retries=0 \
	daemon.executor=slurm slurm.pollinterval=200ms daemon.attempts=3
git config -f "$CONF" --add slurm.stages apply
git config -f "$CONF" --add slurm.stages check
mbox_state slurm
git clone -q --bare "$R" "$TMP/slurm/repo.git"
DEAD=http://127.0.0.1:$(free_port)/linux-mm/
timeout -k 30 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$DEAD" \
	--repo "$TMP/slurm/repo.git" --outbox "$OUT" --arch '' --once \
	>"$TMP/d.out" 2>"$TMP/d.err"
rc=$?
is "$rc" 0 "daemon --once exits 0 (a FIFO left in a job's directory blocks nothing)"
is "$(cat "$VSB")" victim-sbatch "no batch script was written through a planted job.sbatch"
is "$(cat "$VEXIT")" victim-exit "no exit status was written through a planted slurm-exit.tmp"
check=$(sql "SELECT r.json FROM results r WHERE r.stage = 'check'")
like "$check" "UID_" "the check ran on Slurm, its checkpatch.pl too"
if runuser -u nobody -- test -x "$LOREBOT" 2>/dev/null; then
	like "$check" "UID_$(id -u nobody)\"" "... as build.user (nobody), not root's uid"
else
	skip "nobody cannot run $LOREBOT"
fi
J=$(sql "SELECT id FROM jobs WHERE kind = 'check'")
JD=$TMP/slurm/jobs/$J
like "$check" "where: $JD/work\"" "... in work/ of its job's directory"
is "$(find "$JD" -maxdepth 1 \( -type l -o -type p \) | head -3)" "" \
	"nothing planted among the executor's files"
ok "job.sbatch is the daemon's script" grep -q "lorebot" "$JD/job.sbatch"
is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "every job done"
is "$(sql "SELECT status FROM results WHERE stage = 'apply'")" applied "the series applied"
unlike "$(cat "$TMP/d.err" "$TMP"/slurm/jobs/*/job.log)" "AddressSanitizer|runtime error" \
	"no sanitizer report"
done_testing
