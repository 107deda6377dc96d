#!/bin/sh
# The daemon without kernel builds: fetch, assemble, apply, check, reply,
# a v2 superseding v1, and nothing done twice.
# schedule: middle 2.3 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"

mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
lab_setup
R=$TMP/mm.git
mm_clone "$R"
OUT=$TMP/outbox
# series.memory=1: the sandboxed fetch child assembles in a scratch file
# (in its own TMPDIR) from the first message on; without room there it
# would fail, and nothing below would hold
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox series.memory=1
daemon() {
	timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" \
		--repo "$R" --outbox "$OUT" --arch '' --once "$@"
}
mails() {
	find "$OUT" -type f 2>/dev/null | wc -l | tr -d ' '
}

daemon >"$TMP/d1.out" 2>"$TMP/d1.err"
is "$?" 0 "daemon --once over the fixture threads exits 0"
is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "every job done"
is "$(sql "SELECT group_concat(kind, ',') FROM (SELECT kind FROM jobs
	WHERE version = '20250115033807.46664-1-21cnbao@gmail.com' ORDER BY id)")" \
	"apply,check,reply" "004: apply, check, reply (no builds: it does not apply)"
is "$(sql "SELECT count(*) FROM jobs WHERE version = '20260207081144.588545-1-vernon2gm@gmail.com'")" \
	0 "the superseded first send of 003 is not tested"
is "$(sql "SELECT status FROM results WHERE stage = 'apply'
	AND version = '20250115033807.46664-1-21cnbao@gmail.com'")" failed \
	"004's apply result is recorded: failed on 6.12"
n1=$(mails)
ok "replies were filed in the outbox" test "$n1" -gt 0
like "$(cat "$TMP/d1.err")" "job [0-9]+: apply of <20250115033807.46664-1-21cnbao@gmail.com> done" \
	"the log names each job"

# nothing new: no job runs again, no mail is filed again
daemon >/dev/null 2>"$TMP/d2.err"
is "$?" 0 "a second pass exits 0"
is "$(sql "SELECT count(*) FROM jobs")" "$(sql "SELECT count(*) FROM jobs WHERE state = 'done'")" \
	"still only done jobs"
unlike "$(cat "$TMP/d2.err")" "started" "no job started again"
is "$(mails)" "$n1" "no reply filed twice"

# a new series that applies to mm-new
make_series "$TMP/mail" frob 1
deliver_dir "$TMP/mail/frob-v1"
daemon >/dev/null 2>"$TMP/d3.err"
V1=$(sql "SELECT id FROM versions WHERE title = 'mm: the frob series' AND version = 1")
ok "the new series was assembled" test -n "$V1"
is "$(sql "SELECT status FROM results WHERE stage = 'apply' AND version = '$V1'")" applied \
	"it applied"
is "$(sql "SELECT group_concat(kind || ':' || state, ',') FROM (SELECT kind, state FROM jobs
	WHERE version = '$V1' ORDER BY id)")" "apply:done,check:done,reply:done" \
	"apply, check and reply done for it"
like "$(git --git-dir="$R" for-each-ref --format='%(refname)' refs/heads/lorebot/)" \
	"refs/heads/lorebot/[0-9a-f]+/v1" "its branch exists"

# v2 of it, reviewed at once: v1 is superseded; v2 is tested
make_series "$TMP/mail" frob 2
deliver_dir "$TMP/mail/frob-v2"
review() {	# file of the mail replied to, trailer
	_id=$(sed -n 's/^Message-I[dD]: <\(.*\)>$/\1/p' "$1" | head -n 1)
	cat <<EOF
From: Dave Reviewer <dave@example.org>
To: linux-mm@kvack.org
Subject: Re: $(sed -n 's/^Subject: //p' "$1" | head -n 1)
Date: $(date -R)
Message-ID: <review-$(basename "$1" .patch)@example.org>
In-Reply-To: <$_id>
References: <$_id>

Looks right.

$2: Dave Reviewer <dave@example.org>
EOF
}
review "$TMP/mail/frob-v2/"v2-0001-*.patch Reviewed-by | "$LORE_LAB" deliver "$LAB"
review "$TMP/mail/frob-v2/"v2-0000-*.patch Acked-by | "$LORE_LAB" deliver "$LAB"
daemon >/dev/null 2>"$TMP/d4.err"
V2=$(sql "SELECT id FROM versions WHERE title = 'mm: the frob series' AND version = 2")
is "$(sql "SELECT superseded_by FROM versions WHERE id = '$V1'")" "$V2" "v2 supersedes v1"
is "$(sql "SELECT status FROM results WHERE stage = 'apply' AND version = '$V2'")" applied \
	"v2 applied"
B2=$(git --git-dir="$R" for-each-ref --format='%(refname)' 'refs/heads/lorebot/*/v2')
P1=$(sed -n 's/^Message-I[dD]: <\(.*\)>$/\1/p' "$TMP/mail/frob-v2/"v2-0001-*.patch)
is "$(git --git-dir="$R" log -2 --reverse --format=%b "$B2" | sed -n '/^Signed-off-by/,/^Link/p' | head -4)" \
	"Signed-off-by: lorebot test <test@lorebot.invalid>
Reviewed-by: Dave Reviewer <dave@example.org>
Acked-by: Dave Reviewer <dave@example.org>
Link: https://lore.kernel.org/r/$P1" \
	"the CI branch's commits carry the trailers given in replies, and Link:"

# the job runners' logs (under the sanitizer build: no leak, no error)
is "$(cat "$TMP"/jobs/*/job.log 2>/dev/null | grep -c 'Sanitizer')" 0 \
	"no sanitizer report from any job runner"

# status reads the queue while nothing runs
lorebot --db "$DB" status --json >"$TMP/status.json"
is "$?" 0 "lorebot status exits 0"
is "$(json "$TMP/status.json" "(d['queue']['queued'], d['queue']['running'])")" "(0, 0)" \
	"status: nothing queued or running"
is "$(json "$TMP/status.json" "d['lists'][0]['name']")" linux-mm "status: the list"
done_testing
