#!/bin/sh
# The bot's voice on the list (issue 19): one reply per version, composed
# once every stage ended, to the cover letter, sections worst first, a
# later outcome amends nothing; the noise policy (reply.style): style
# findings only counted, location-less findings never mailed,
# Reported-by only for builds and boots; a base the bot lacks is not the
# author's fault (base-unknown, reply.baseunknown)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

fill_db
record_all
db_keep
# the body of the dry-run mail replying to $1
body_of() {
	$PY - "$TMP/dry.mbox" "$1" <<'EOF'
import mailbox, sys
for m in mailbox.mbox(sys.argv[1]):
    if m["In-Reply-To"] == "<%s>" % sys.argv[2]:
        print(m.get_payload(decode=True).decode())
EOF
}
# the line number of the first line of file $2 matching $1, else 0
line_of() {
	grep -n -m1 -- "$1" "$2" | cut -d: -f1 | grep . || echo 0
}

report_conf
dry
is "$(grep -c '^From .* Thu Jan  1 00:00:00 1970$' "$TMP/dry.mbox")" 3 \
	"three versions tested, three mails: one per version"
is "$(grep '^X-Lorebot-Outcome:' "$TMP/dry.mbox" | sort | tr '\n' ' ')" \
	"X-Lorebot-Outcome: apply X-Lorebot-Outcome: build X-Lorebot-Outcome: check " \
	"004 apply, 000 build (its worst), 003 check"
is "$(grep '^In-Reply-To:' "$TMP/dry.mbox" | sort | tr '\n' ' ')" \
	"In-Reply-To: <$V004> In-Reply-To: <$V003> In-Reply-To: <$V000> " \
	"each to its cover letter, even 004's failure of patch 2/4"

# 000: build errors, then boot regressions, then new warnings, in one mail
body_of "$V000" >"$TMP/000.txt"
ok "000: the headline is the build error" \
	grep -qx '\[lorebot build ERROR on mm-new 065ab801c937ee62d3105e05a491b7721d8ed990\]' \
	"$TMP/000.txt"
e=$(line_of 'error: passing argument 3' "$TMP/000.txt")
b=$(line_of '^Boot regressions on arm64' "$TMP/000.txt")
w=$(line_of '^New build warnings on arm64' "$TMP/000.txt")
ok "000: build errors ($e) < boot regressions ($b) < new warnings ($w)" \
	test "$e" -gt 0 -a "$b" -gt "$e" -a "$w" -gt "$b"
is "$(grep -c 'MGLRU_EMPTY_SKIP_GENS" is not used' "$TMP/000.txt")" 1 \
	"000: the new warning is given once"
is "$(grep -c '^| Reported-by: ' "$TMP/000.txt")" 1 "000: a build reply asks for Reported-by"
is "$(grep -c '^>> ' "$TMP/000.txt" | tr -d ' ')" 5 \
	"000: five new things: the error, three from the boot, the warning"

# the noise policy's defaults: no style finding mailed, each counted
is "$(grep -c '\[checkpatch:\|\[codespell\]' "$TMP/dry.mbox")" 0 \
	"no checkpatch or codespell finding is mailed"
is "$(grep -c 'COMMIT_LOG_LONG_LINE\|Prefer a maximum 75 chars' "$TMP/dry.mbox")" 0 \
	"no finding without a location is mailed"
ok "000: one line says how many style findings there are and where" grep -qx \
	'8 style findings (checkpatch, codespell, series hygiene) are not mailed:' "$TMP/000.txt"
body_of "$V003" >"$TMP/003.txt"
ok "003: the headline is a warning (checkpatch's EM( error is style)" \
	grep -q '^\[lorebot review WARNING on ' "$TMP/003.txt"
is "$(grep -c '^>> mm/khugepaged.c:[0-9]*: warning: .*\[\(lazyfree-droppable\|progress-accounting\)\] \[id [0-9a-f]\{8\}\]$' \
	"$TMP/003.txt")" 3 "003: the three mm-rule findings are mailed"
ok "003: quoted with the suggestion" grep -q '^suggested \[lazyfree-droppable\]:$' "$TMP/003.txt"
is "$(grep -c 'Reported-by:' "$TMP/003.txt")" 0 "003: no Reported-by for review findings"
# each excerpt is at its finding's line: vim +N, and line N marked first
is "$($PY - "$TMP/003.txt" <<'EOF'
import re, sys
body = open(sys.argv[1]).read()
found = re.findall(r"^>> ([^:\s]+):(\d+): ", body, re.M)
bad = []
for f, n in found:
    m = re.search(r"^vim \+%s %s\n\n(.*?)\n\n" % (n, re.escape(f)), body, re.M | re.S)
    marked = m and re.findall(r"^>\s*(\d+)\t", m.group(1), re.M)
    if not marked or marked[0] != n:
        bad.append("%s:%s" % (f, n))
print(len(found), bad)
EOF
)" "3 []" "003: each excerpt starts at its finding's line, and marks it"
body_of "$V004" >"$TMP/004.txt"
a=$(line_of '^Patch 2/4 (.*) does not' "$TMP/004.txt")
r=$(line_of '^Review findings' "$TMP/004.txt")
ok "004: the apply failure ($a), then the review findings ($r)" test "$a" -gt 0 -a "$r" -gt "$a"
is "$(grep -c '^>> .*\[one-line-args\] \[id [0-9a-f]\{8\}\]$' "$TMP/004.txt")" 6 \
	"004: the one-line-args findings, each with its id"
is "$(grep -o '\[id [0-9a-f]\{8\}\]$' "$TMP/004.txt" | sort -u | wc -l)" 5 \
	"004: five ids: the two of mm/rmap.c quote the same code (and the fixture names no function)"
ok "004: UNKNOWN_COMMIT_ID is counted, not mailed" grep -qx \
	'1 style finding (checkpatch, codespell, series hygiene) is not mailed:' "$TMP/004.txt"
ok "004: the patches not applied after it, in one sentence" grep -qx \
	'Patches 3/4 and 4/4 were not applied after it; none would apply on its' "$TMP/004.txt"
is "$(grep -c 'was not applied after it' "$TMP/004.txt")" 0 "not a sentence per patch"
is "$(grep -c '^mm-new has (> lines' "$TMP/004.txt")" 6 "004: the tree at each of the six hunks"

# a closest match of less than half the hunk's lines is not shown
fresh
$PY - "$RESULTS/apply-004.json" >"$TMP/weak.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["patches"][1]["failures"][0]["tree"]["matched"] = 6
d["patches"][1]["failures"][1]["tree"]["matched"] = 4
json.dump(d, sys.stdout)
EOF
record "$V004" apply "$TMP/weak.json"
dry
body_of "$V004" >"$TMP/004w.txt"
is "$(grep -c '^mm-new has (> lines' "$TMP/004w.txt")" 5 \
	"6 of 13 lines: no excerpt; 4 of 7 (half or more): still one"
unlike "$(cat "$TMP/004w.txt")" "^   333	" "the weak match's tree lines are left out"

# reply.style = mail: style findings with a location are mailed; none without
report_conf reply.style=mail
dry
body_of "$V003" >"$TMP/003m.txt"
ok "reply.style=mail: checkpatch's error is mailed" \
	grep -q '^>> include/trace/events/huge_memory.h:28: error: .*\[checkpatch:SPACING\] \[id [0-9a-f]\{8\}\]$' \
	"$TMP/003m.txt"
ok "and makes the headline" grep -q '^\[lorebot review ERROR on ' "$TMP/003m.txt"
is "$(grep -c 'COMMIT_LOG_LONG_LINE' "$TMP/dry.mbox")" 0 "still nothing without a location"
report_conf reply.style=off
dry
is "$(grep -c 'style finding' "$TMP/dry.mbox")" 0 "reply.style=off: not even the line"

# once a version has its reply, a later outcome amends nothing
report_conf
lorebot --config "$CONF" --db "$DB" reply --outbox "$TMP/out" --json >"$TMP/r1.json" 2>/dev/null
is "$(json "$TMP/r1.json" "d['composed']")" 3 "three replies filed"
$PY - "$RESULTS/build-000.json" >"$TMP/fixed.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["archs"][2]["status"] = "ok"
d["archs"][2]["findings"] = []
json.dump(d, sys.stdout)
EOF
record "$V000" build "$TMP/fixed.json"
lorebot --config "$CONF" --db "$DB" reply --outbox "$TMP/out" --json >"$TMP/r2.json" 2>/dev/null
is "$(json "$TMP/r2.json" "d['composed']")" 0 "a retried build recorded later: no second reply"
is "$(sql "SELECT count(*) FROM replies WHERE version = '$V000'")" 1 "000 has one reply"

# a recipe that works without lorebot: the .config the dashboard serves,
# the make lines, the qemu command line of a boot
fresh
$PY - "$RESULTS/build-000.json" "$RESULTS/boot-000.json" "$TMP" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
for a in b["archs"]:
    cc = {"x86_64": "", "arm64": "aarch64-linux-gnu-", "riscv": "riscv64-linux-gnu-"}[a["arch"]]
    head = "make ARCH=%s%s O=build" % (a["arch"], " CROSS_COMPILE=" + cc if cc else "")
    a["make"] = [head + " olddefconfig", head + " -j$(nproc) Image"]
    a["config_file"] = "%s/state/jobs/5/build/%s/config" % (sys.argv[3], a["arch"])
json.dump(b, open(sys.argv[3] + "/b.json", "w"))
t = json.load(open(sys.argv[2]))
for a in t["archs"]:
    a["qemu"] = ("qemu-system-aarch64 -M virt -cpu cortex-a57 -accel tcg -m 1024 -smp 2"
                 " -kernel build/arch/arm64/boot/Image -initrd initramfs.cpio"
                 " -append 'console=ttyAMA0 panic=-1'")
json.dump(t, open(sys.argv[3] + "/t.json", "w"))
EOF
record "$V000" build "$TMP/b.json"
record "$V000" boot "$TMP/t.json"
dry
body_of "$V000" >"$TMP/000r.txt"
REPORT=$(sed -n 's|^this report: http://127.0.0.1:8080/r/||p' "$TMP/000r.txt")
ok "000: the recipe without lorebot, from the base with the series applied" grep -qx \
	"Or without lorebot, in linux/ at 065ab801c937 with the series applied" \
	"$TMP/000r.txt"
is "$(sed -n '/^riscv:$/,/^$/p' "$TMP/000r.txt")" "riscv:
        mkdir -p build && curl -o build/.config http://127.0.0.1:8080/r/$REPORT/config/riscv
        make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build olddefconfig
        make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build -j\$(nproc) Image" "riscv (build error): the .config from the report's page, olddefconfig, the build"
ok "arm64 (a boot regression): the qemu command line" grep -qx \
	"        qemu-system-aarch64 -M virt -cpu cortex-a57 -accel tcg -m 1024 -smp 2 -kernel build/arch/arm64/boot/Image -initrd initramfs.cpio -append 'console=ttyAMA0 panic=-1'" \
	"$TMP/000r.txt"
ok "arm64 (its warning): its make lines too" grep -qx \
	"        make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O=build olddefconfig" "$TMP/000r.txt"
is "$(grep -c '^x86_64:$' "$TMP/000r.txt")" 0 "no recipe for an arch the reply is not about"
r=$(line_of '^To reproduce locally' "$TMP/000r.txt")
w=$(line_of '^Or without lorebot' "$TMP/000r.txt")
ok "after the lorebot one-liner ($r < $w)" test "$r" -gt 0 -a "$w" -gt "$r"

# nothing is composed before every stage of the version ended
fresh
sql "DELETE FROM results WHERE version = '$V000' AND stage = 'boot'"
dry
is "$(grep -c "^In-Reply-To: <$V000>" "$TMP/dry.mbox")" 0 \
	"000's boots not recorded: no reply for it yet"

# base-unknown: 000's base-commit is not in the tree and it does not apply to mm-new
fresh
record "$V000" apply "$RESULTS/apply-000-base-unknown.json"
sql "DELETE FROM results WHERE version = '$V000' AND stage IN ('build', 'boot')"
is "$(lorebot --db "$DB" status --json | json - "[v['state'] for v in d['recent'] if v['id'] == '$V000'][0]")" \
	base-unknown "000: its state is base-unknown, not apply-failed"
dry
is "$(grep -c "^In-Reply-To: <$V000>" "$TMP/dry.mbox")" 0 "no mail about it by default"
is "$(grep -c '^lorebot tried to apply this series and could not:$' "$TMP/dry.mbox")" 1 \
	"only 004, which has no base-commit, gets a 'could not apply' mail"
report_conf reply.baseunknown=line
dry
body_of "$V000" >"$TMP/000b.txt"
ok "reply.baseunknown=line: one short mail naming the base" grep -q \
	'^lorebot could not test this series: its base-commit$' "$TMP/000b.txt"
ok "the base it lacks" grep -q 'efecab401cb15fd3bb9bc05990609acb6b267ff2' "$TMP/000b.txt"
is "$(grep -c '^>> \|does not apply\|Reported-by' "$TMP/000b.txt")" 0 \
	"no hunks, no findings, no tags"

# base-unknown with mm-rule findings: they are mailed anyway (reply.baseunknown =
# review, the default), once, with the line saying what was not done
fresh
$PY - "$RESULTS/apply-000-base-unknown.json" "$TMP/apply-003-bu.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
bc = 'a1a876489abcc1e75b03bd3b2f6739ceeaaec8c5'
d['base']['base_commit'] = bc
d['base']['reason'] = d['base']['reason'].replace('efecab401cb15fd3bb9bc05990609acb6b267ff2', bc)
d.pop('send', None); d.pop('series_id', None)
json.dump(d, open(sys.argv[2], 'w'))
EOF
record "$V003" apply "$TMP/apply-003-bu.json"
sql "DELETE FROM results WHERE version = '$V003' AND stage IN ('build', 'boot')"
is "$(lorebot --db "$DB" status --json | json - "[v['state'] for v in d['recent'] if v['id'] == '$V003'][0]")" \
	base-unknown "003: base-unknown"
report_conf
dry
is "$(grep -c "^In-Reply-To: <$V003>" "$TMP/dry.mbox")" 1 "003: one mail all the same"
body_of "$V003" >"$TMP/003bu.txt"
ok "003: a review headline, on the patches alone" grep -qx \
	'\[lorebot review WARNING on the patches alone (base-commit unknown)\]' "$TMP/003bu.txt"
ok "003: one line says it was not built or booted, and why" grep -qx \
	'\[not built or booted: base-commit' "$TMP/003bu.txt"
ok "003: naming the base it lacks" grep -q \
	'^a1a876489abcc1e75b03bd3b2f6739ceeaaec8c5 is not in the tree lorebot' "$TMP/003bu.txt"
is "$(grep -c '^>> mm/khugepaged.c:[0-9]*: warning: .*\[\(lazyfree-droppable\|progress-accounting\)\]' \
	"$TMP/003bu.txt")" 3 "003: its mm-rule findings, with their location"
is "$(grep -c '^Patch [0-9/]* (.*) does not\|Reported-by\|^Bases tried' "$TMP/003bu.txt")" 0 \
	"003: no apply failure blamed on the author, no tags"
report_conf reply.baseunknown=off
dry
is "$(grep -c "^In-Reply-To: <$V003>" "$TMP/dry.mbox")" 0 "reply.baseunknown=off: no mail"
report_conf

# a v2 reply says what v1's mailed findings became
fresh
patch_mail 'Vera Two <vera@example.org>' '[PATCH] mm: tidy the walk' tidy-1@example.org \
	'Mon, 2 Mar 2026 09:00:00 +0000' >"$TMP/v1.mbox"
patch_mail 'Vera Two <vera@example.org>' '[PATCH v2] mm: tidy the walk' tidy-2@example.org \
	'Tue, 3 Mar 2026 09:00:00 +0000' >"$TMP/v2.mbox"
fill_db "$TMP/v1.mbox" "$TMP/v2.mbox"
is "$(sql "SELECT version || ':' || coalesce(superseded_by, '') FROM versions
	WHERE id LIKE 'tidy-%' ORDER BY version" | tr '\n' ' ')" "1:tidy-2@example.org 2: " \
	"v1 and v2 of one series"
cat >"$TMP/c1.json" <<'EOF'
{"findings": [
 {"rule": "r1", "severity": "warning", "patch": 1, "file": "mm/a.c", "line": 2, "message": "a is racy"},
 {"rule": "r2", "severity": "warning", "patch": 1, "file": "mm/a.c", "line": 2, "message": "b leaks"},
 {"rule": "checkpatch:SPACING", "severity": "error", "patch": 1, "file": "mm/a.c", "line": 2,
  "message": "space prohibited"}]}
EOF
cat >"$TMP/c2.json" <<'EOF'
{"findings": [
 {"rule": "r2", "severity": "warning", "patch": 1, "file": "mm/a.c", "line": 3, "message": "b leaks"},
 {"rule": "r3", "severity": "warning", "patch": 1, "file": "mm/a.c", "line": 2, "message": "c is new"}]}
EOF
record_tested tidy-1@example.org tidy-2@example.org
record tidy-1@example.org check "$TMP/c1.json"
record tidy-2@example.org check "$TMP/c2.json"
report_conf
dry
body_of tidy-2@example.org >"$TMP/v2.txt"
ok "v2: r1 is fixed since v1" sh -c "grep -A2 -x 'Fixed since v1:' '$TMP/v2.txt' |
	grep -qx '    mm/a.c: a is racy \[r1\]'"
ok "v2: r2 is still present (its line moved)" sh -c "grep -A2 -x 'Still present since v1:' \
	'$TMP/v2.txt' | grep -qx '    mm/a.c: b leaks \[r2\]'"
is "$(grep -c 'c is new \[r3\]\|space prohibited' "$TMP/v2.txt")" 1 \
	"a new finding is only in the findings; v1's style finding is not counted as fixed"
is "$(grep -c 'since v' "$TMP/dry.mbox")" 2 "only the v2 reply has the since part"
done_testing
