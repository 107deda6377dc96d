#!/bin/sh
# The thread a version's apply gets (issue 38, item 9): THREAD_MAX (2,000)
# was defined and never used, so 2,500 replies to a patch went into every
# apply attempt of the victim's series.  Now apply gets the version's own
# messages and the first 2,000 replies lorebot received.  The daemon
# once over a database the mbox was imported into (no lore needed).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo
{
	echo 'From mboxrd@z Thu Jan  1 00:00:00 1970'
	newfile mm/victim.c | mkpatch victim
	$PY - <<'EOF'
for i in range(2500):
    print("From mboxrd@z Thu Jan  1 00:00:00 1970")
    print("From: Flood %d <flood%d@example.net>" % (i, i))
    print("To: linux-mm@kvack.org")
    print("Subject: Re: [PATCH] mm: victim")
    print("Date: Mon, 1 Jun 2026 11:%02d:%02d +0000" % (i // 60 % 60, i % 60))
    print("Message-ID: <flood%d@example.net>" % i)
    print("In-Reply-To: <victim@example.com>")
    print("References: <victim@example.com>")
    print()
    print("Reply %d." % i)
    print()
EOF
} >flood.mbox
mkdir -p state
DB=$TMP/state/lorebot.db
lorebot --db "$DB" fetch --mbox flood.mbox >/dev/null 2>fetch.err
is "$(sql "SELECT count(*) FROM messages")" 2501 "the patch and 2,500 replies are stored"
lore_conf daemon.window=0 reply.mode=outbox boot.enable=false core.statedir="$TMP/state"
DEAD=http://127.0.0.1:$(free_port)/linux-mm/
timeout -k 30 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$DEAD" --repo "$R" \
	--outbox "$TMP/state/outbox" --arch '' --once >d.out 2>d.err
is "$?" 0 "daemon --once exits 0"
J=$(sql "SELECT id FROM jobs WHERE kind = 'apply'")
MBOX=$(find "$TMP/state/jobs/$J" -name series.mbox | head -1)
ok "the apply job kept its mbox" test -n "$MBOX"
is "$(grep -c '^From mboxrd@z' "${MBOX:-/dev/null}")" 2001 \
	"apply got the patch and the first 2,000 replies, not 2,500"
ok "... the first ones received" grep -q '^Message-ID: <flood0@example.net>' "${MBOX:-/dev/null}"
ok "... not the last" test "$(grep -c '^Message-ID: <flood2499@example.net>' "${MBOX:-/dev/null}")" = 0
is "$(sql "SELECT r.status FROM results r WHERE r.stage = 'apply'")" applied "the patch applied"
done_testing
