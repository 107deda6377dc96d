#!/bin/sh
# lorebot reproduce on the demo series (make demo's, ci/demo-series.py):
# the daemon builds it on arm64 and replies about patch 2/2's new
# warning; from the URL of that report alone, reproduce fetches the
# series, the .config and the make lines from the dashboard, builds in a
# worktree of a fresh clone of mm-new and prints the same diagnostic line
# as the reply.  The demo's KCIDB document is valid v5.3.
# schedule: last 3 (an arm64 series build on the base build directory,
# then an arm64 object built from a .config; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
command -v aarch64-linux-gnu-gcc >/dev/null || skip_all "no aarch64-linux-gnu-gcc"

lab_setup
R=$TMP/mm.git
mm_clone "$R"
BASE=$(git --git-dir="$R" rev-parse mm-new)
mkdir -p "$TMP/mail"
$PY "$LOREBOT_SRC/ci/demo-series.py" "$TMP/mail" "$BASE" \
	"$FIXTURES/boot/warn-madvise-populate.patch" "$FIXTURES"/build/arm64-warning/0001-*.patch
for f in "$TMP"/mail/*.eml; do
	mv "$f" "${f%.eml}.patch"
done
deliver_dir "$TMP/mail"
COVER=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/p' "$TMP/mail/0000.patch")
SPORT=$(free_port)
WEB=http://127.0.0.1:$SPORT
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox reply.clean=true \
	core.dashboardurl="$WEB/" check.checkpatch=false
OUT=$TMP/outbox
timeout 3000 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
	--outbox "$OUT" --arch arm64 --once 2>"$TMP/daemon.err"
is "$?" 0 "the daemon builds the demo series on arm64 and exits 0"
is "$(sql "SELECT status FROM results WHERE version = '$COVER' AND stage = 'build'")" warnings \
	"arm64: a new warning"
M=$(grep -l "^In-Reply-To: <$COVER>" "$OUT"/new/* 2>/dev/null | head -1)
ok "one reply to the cover letter" test -n "$M"
sed -n '/^$/,$p' "$M" >"$TMP/body.txt"
LINE=$(sed -n "s/^>> \(kernel\/reboot.c:.*\)$/\1/p" "$TMP/body.txt")
like "$LINE" "^kernel/reboot.c:[0-9]+:[0-9]+: warning: unused variable 'psci_reset_type' \[-Wunused-variable\]\$" \
	"the reply's diagnostic: $LINE"
REPORT=$(sed -n "s#^| Closes: \($WEB/r/[0-9a-z.]*\)\$#\1#p" "$TMP/body.txt")
like "$REPORT" "^$WEB/r/" "its Closes: the report's page"
ok "its recipe names lorebot reproduce with it" \
	grep -qx "        lorebot reproduce --repo linux $REPORT" "$TMP/body.txt"
ok "and keeps the recipe without lorebot" grep -q "^        make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O=build olddefconfig\$" \
	"$TMP/body.txt"

# the KCIDB document of the demo
lorebot --config "$CONF" --db "$DB" export --kcidb --arch arm64 >"$TMP/kcidb.json"
is "$($PY "$LOREBOT_SRC/tests/kcidb-validate.py" "$FIXTURES/kcidb/kcidb.v5.3.json" "$TMP/kcidb.json")" \
	"ok 1" "the demo's KCIDB document is valid v5.3"
is "$(json "$TMP/kcidb.json" "[(b['architecture'], b['status'], b['misc']['new_warnings']) for b in d['builds'] if '$COVER' in b['id']]")" \
	"[('arm64', 'PASS', 1)]" "its arm64 build: PASS, one new warning"

# a fresh clone of mm-new, as a developer has; the dashboard of the bot
"$LOREBOT" --db "$DB" --config "$CONF" serve --listen "127.0.0.1:$SPORT" >"$TMP/serve.out" 2>&1 &
WEB_PID=$!
cleanup_add "kill $WEB_PID 2>/dev/null"
_i=0
until curl -sf -o /dev/null "$WEB/healthz" || [ $_i -gt 200 ]; do
	_i=$((_i + 1))
	sleep 0.05
done
ok "the dashboard serves at core.dashboardurl" curl -sf -o /dev/null "$REPORT"
git clone -q --bare --shared "$(mm_repo)" "$TMP/linux.git"
lorebot --config "$CONF" reproduce --repo "$TMP/linux.git" --dir "$TMP/repro" "$REPORT" \
	>"$TMP/repro.out" 2>"$TMP/repro.err"
is "$?" 0 "lorebot reproduce <report URL>: exit 0"
is "$(cat "$TMP/repro.out")" "$LINE" "it prints the same diagnostic line as the reply"
like "$(cat "$TMP/repro.err")" "git .*am --3way .*/patches/0001 .*/patches/0002" \
	"the series applied with git am (both patches: the warning is 2/2's)"
like "$(cat "$TMP/repro.err")" "make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O=.*/build olddefconfig" \
	"the bot's make lines, with the report's .config"
like "$(cat "$TMP/repro.err")" "make .* kernel/reboot.o" "then the object of the file"
ok "the worktree is gone after it" test ! -e "$TMP/repro"
is "$(git --git-dir="$TMP/linux.git" worktree list | wc -l | tr -d ' ')" 1 \
	"and the tree has no worktree left"
# by its id and a finding number: the record has one (no second build here)
lorebot --config "$CONF" reproduce --repo "$TMP/linux.git" --dir "$TMP/repro2" \
	--url "$WEB/" "${REPORT##*/}#2" >/dev/null 2>"$TMP/two.err"
is "$?" 2 "by its id with --url, #2: the report has one finding: exit 2"
like "$(cat "$TMP/two.err")" "has no build diagnostic" "saying so"
ok "before anything was made" test ! -e "$TMP/repro2"
# by the finding's id, as the reply prints it
FID=$(sed -n 's/^ *(first seen with patch [0-9]*\/[0-9]*; id \([0-9a-f]*\))$/\1/p' "$TMP/body.txt")
like "$FID" '^[0-9a-f]{8}$' "the reply gives the warning's id: $FID"
lorebot --config "$CONF" reproduce --repo "$TMP/linux.git" --dir "$TMP/repro3" \
	"$REPORT#$FID" >"$TMP/byid.out" 2>"$TMP/byid.err"
is "$?" 0 "lorebot reproduce <report URL>#<finding id>: exit 0"
is "$(cat "$TMP/byid.out")" "$LINE" "the same diagnostic line"
other=$(printf %08x $(((0x$FID + 1) % 4294967296)))
lorebot --config "$CONF" reproduce --repo "$TMP/linux.git" --dir "$TMP/repro4" \
	"$REPORT#$other" >/dev/null 2>"$TMP/other.err"
is "$?" 2 "an id the report does not have: exit 2"
like "$(cat "$TMP/other.err")" "has no finding of id $other" "saying so"
ok "before anything was made" test ! -e "$TMP/repro4"
lorebot --config "$CONF" reproduce --repo "$TMP/linux.git" "$REPORT#x1" >/dev/null 2>"$TMP/bad.err"
is "$?" 2 "a fragment neither a number nor an id: exit 2"
like "$(cat "$TMP/bad.err")" "does not name a report \(or #N, #<finding id>" "saying so"
lorebot --config "$CONF" reproduce --repo "$TMP/linux.git" "$WEB/r/20990101000000.nosuchreport1" \
	>/dev/null 2>"$TMP/nope.err"
is "$?" 2 "a report the dashboard does not have: exit 2"
kill "$WEB_PID"
done_testing
