#!/bin/sh
# The command table, help, and configuration checking
. "${LOREBOT_SRC:-.}/tests/lib.sh"

out=$(lorebot help)
like "$out" "series +list the patch series" "help lists the commands"
for c in $(lorebot help | awk '/^commands:/{f=1;next} f && /^   [a-z]/{print $1}'); do
	out=$(lorebot "$c" --help)
	like "$out" "^NAME" "lorebot $c --help is a manual page"
	is "$(lorebot help "$c")" "$out" "lorebot help $c says the same"
done
lorebot nosuch >/dev/null 2>"$TMP/err"
is "$?" 2 "an unknown command exits 2"
like "$(cat $TMP/err)" "'nosuch' is not a lorebot command" "and says so"

# the example configuration passes its own check and documents every key
lorebot config --check "$LOREBOT_SRC/config/lorebot.conf" >"$TMP/out"
is "$?" 0 "config/lorebot.conf passes config --check"
is "$(cat $TMP/out)" "" "with nothing to report"
lorebot config --list-keys >"$TMP/keys"
missing=$(python3 - "$TMP/keys" "$LOREBOT_SRC/config/lorebot.conf" <<'PY'
import re, sys
keys = [l.split()[0] for l in open(sys.argv[1]) if l[0] not in " \t"]
sect, have = None, set()
for line in open(sys.argv[2]):
    m = re.match(r'\s*#?\s*\[(\w+)(?:\s+"[^"]*")?\]', line)
    if m:
        sect = m.group(1).lower()
        continue
    m = re.match(r'\s*#?\s*([A-Za-z][\w-]*)\s*=', line)
    if m and sect:
        have.add(sect + "." + m.group(1).lower())
for k in keys:
    parts = k.split(".")
    if parts[0] + "." + parts[-1] not in have:
        print(k)
PY
)
is "$missing" "" "every key in the table is documented in config/lorebot.conf"

cat >"$TMP/bad.conf" <<'CONF'
[core]
	loglevel = loud
[list "linux-mm"]
	url = http://127.0.0.1/linux-mm/
	pollinterval = often
	colour = blue
[build]
	jobs = two
	ccache = maybe
[nosection]
	key = 1
CONF
lorebot config --check "$TMP/bad.conf" >"$TMP/out"
is "$?" 1 "a file with problems exits 1"
is "$(cat $TMP/out)" "$TMP/bad.conf:2: bad value 'loud' for 'core.loglevel': not one of the choices (error|warning|info|debug)
$TMP/bad.conf:5: bad value 'often' for 'list.linux-mm.pollinterval': not a duration (like 30s, 10m, 2h)
$TMP/bad.conf:6: unknown key 'list.linux-mm.colour'
$TMP/bad.conf:8: bad value 'two' for 'build.jobs': not an integer
$TMP/bad.conf:9: bad value 'maybe' for 'build.ccache': not a boolean
$TMP/bad.conf:11: unknown key 'nosection.key'" "every problem reported as file:line: message"

printf '[core\n\tloglevel = info\n' >"$TMP/syntax.conf"
lorebot config --check "$TMP/syntax.conf" >/dev/null 2>"$TMP/err"
is "$?" 2 "a syntax error exits 2"
like "$(cat $TMP/err)" "syntax.conf" "and names the file"

printf '[list "linux-mm"]\n\turl = http://x/\n' >"$TMP/get.conf"
printf '[list "linux-mm"]\n\turl = http://x/\n[core]\n\tloglevel = loud\n' >"$TMP/loud.conf"
is "$(lorebot --config "$TMP/get.conf" config --get list.linux-mm.url)" "http://x/" "config --get a set value"
is "$(lorebot --config "$TMP/get.conf" config --get list.linux-mm.pollinterval)" "5m" \
	"config --get falls back to the default"
lorebot --config "$TMP/loud.conf" config --get core.loglevel >"$TMP/out" 2>"$TMP/err"
is "$?" 2 "a bad value is an error, never the default in its place: exit 2"
is "$(cat "$TMP/err")" \
	"lorebot: $TMP/loud.conf:4: bad value 'loud' for 'core.loglevel': not one of the choices (error|warning|info|debug)" \
	"naming file, line, key and why"
is "$(cat "$TMP/out")" "" "and nothing on stdout"
lorebot --config "$TMP/bad.conf" series --help >/dev/null 2>"$TMP/err"
is "$?" 2 "every command refuses such a file"
is "$(grep -c "^lorebot: $TMP/bad.conf:[0-9]*: bad value" "$TMP/err")" 4 "with each bad value on a line"
lorebot config --get no.such.key >/dev/null 2>&1
is "$?" 2 "config --get of an unknown key exits 2"
is "$(lorebot --config "$TMP/get.conf" config --get LIST.linux-mm.URL)" "http://x/" \
	"section and key names in any case"
lorebot --config "$TMP/get.conf" config --get list.LINUX-MM.url >/dev/null
is "$?" 1 "a subsection's name in another case: another subsection (unset)"

# lorebot check reads lorebot.* of git's configuration: a bad value there is
# an error too, not read as its default; an unknown key only a warning
git config --global lorebot.check.colums 90
(cd "$TMP" && lorebot check --mbox "$LOREBOT_SRC/tests/fixtures/series/partial.mbox") \
	>/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "unknown key 'check.colums'" "git config: an unknown key is named"
unlike "$(cat "$TMP/err")" "bad value" "... and no bad value"
git config --global lorebot.check.columns wide
(cd "$TMP" && lorebot check --mbox "$LOREBOT_SRC/tests/fixtures/series/partial.mbox") \
	>/dev/null 2>"$TMP/err"
is "$?" 2 "git config: a bad value stops lorebot check (exit 2)"
like "$(cat "$TMP/err")" "bad value 'wide' for 'check.columns': not an integer" \
	"naming it"
git config --global --unset lorebot.check.columns
git config --global --unset lorebot.check.colums
done_testing
