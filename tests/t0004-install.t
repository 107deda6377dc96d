#!/bin/sh
# make install DESTDIR=... PREFIX=/usr: the binary, its data (templates,
# config fragments), every man page in its section, the unit naming the
# installed binary, the example configuration (a configuration in use is
# never replaced); the installed binary finds its installed templates.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

[ -x "$LOREBOT_SRC/build/lorebot" ] || skip_all "build/lorebot not built (make)"
D=$TMP/root
inst() {
	# -q first: the suite's build/ is up to date and must stay untouched
	make -s -C "$LOREBOT_SRC" -q build/lorebot ||
		diag "build/lorebot is older than its sources: make install rebuilds it"
	make -s -C "$LOREBOT_SRC" install DESTDIR="$D" PREFIX=/usr "$@" >"$TMP/install.out" 2>&1
}
inst
is "$?" 0 "make install DESTDIR PREFIX=/usr exits 0"
[ -s "$TMP/install.out" ] && sed 's/^/# /' "$TMP/install.out"
ok "the binary" test -x "$D/usr/bin/lorebot"
like "$("$D/usr/bin/lorebot" version)" "lorebot" "it runs"

want=$(cd "$LOREBOT_SRC/templates" && ls | sort | tr '\n' ' ')
is "$(cd "$D/usr/share/lorebot/templates" && ls | sort | tr '\n' ' ')" "$want" "every template"
want=$(cd "$LOREBOT_SRC/config/fragments" && ls | sort | tr '\n' ' ')
is "$(cd "$D/usr/share/lorebot/fragments" && ls | sort | tr '\n' ' ')" "$want" "every config fragment"

pages=0 missing=
for p in "$LOREBOT_SRC"/doc/*.[1-8]; do
	n=$(basename "$p")
	pages=$((pages + 1))
	[ -f "$D/usr/share/man/man${n##*.}/$n" ] || missing="$missing $n"
done
is "$missing" "" "all $pages man pages, each in its section"
warn=$(for p in "$D"/usr/share/man/man*/*; do
	MANWIDTH=80 man -l --warnings -E UTF-8 "$p" 2>&1 >/dev/null
done)
is "$warn" "" "man renders every installed page without a warning"
ok "lorebot(1) and lorebot.conf(5) are where man looks" \
	test -f "$D/usr/share/man/man1/lorebot.1" -a -f "$D/usr/share/man/man5/lorebot.conf.5"

U=$D/usr/lib/systemd/system/lorebot.service
ok "the unit" test -f "$U"
is "$(sed -n 's/^ExecStart=//p' "$U")" "/usr/bin/lorebot --config /etc/lorebot/lorebot.conf daemon" \
	"the unit runs the installed binary"
is "$(sed -n 's/^User=//p' "$U")" lorebot "as the user lorebot"
cmp -s "$LOREBOT_SRC/config/lorebot.conf" "$D/etc/lorebot/lorebot.conf"
is "$?" 0 "the example configuration, as /etc/lorebot/lorebot.conf"
ok "and as the example in the documentation" \
	cmp -s "$LOREBOT_SRC/config/lorebot.conf" "$D/usr/share/doc/lorebot/lorebot.conf.example"
lorebot config --check "$D/etc/lorebot/lorebot.conf" >"$TMP/check.out" 2>&1
is "$?" 0 "which lorebot config --check accepts"

# a second install keeps the administrator's configuration
printf '[core]\n\tstatedir = /srv/lorebot\n' >"$D/etc/lorebot/lorebot.conf"
inst
is "$?" 0 "make install again exits 0"
is "$(cat "$D/etc/lorebot/lorebot.conf")" "$(printf '[core]\n\tstatedir = /srv/lorebot')" \
	"the configuration in use is not replaced"

# the installed binary composes with the installed templates
fill_db
record_all
report_conf
printf '\n-- \ninstalled template marker\n' >>"$D/usr/share/lorebot/templates/reply-check.txt"
LOREBOT=$D/usr/bin/lorebot lorebot --config "$CONF" --db "$DB" reply --dry-run \
	>"$TMP/dry.mbox" 2>"$TMP/dry.err"
is "$?" 0 "the installed binary: reply --dry-run exits 0"
is "$(grep -c '^From .* Thu Jan  1 00:00:00 1970$' "$TMP/dry.mbox")" 3 "three mails"
is "$(grep -c '^installed template marker$' "$TMP/dry.mbox")" 1 \
	"the check mail from the installed reply-check.txt, not the source tree's"
done_testing
