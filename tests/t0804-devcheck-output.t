#!/bin/sh
# lorebot check's output for people: colours on a terminal (NO_COLOR,
# --color, lorebot.check.color), progress on stderr only for work longer
# than a second, and the summary line.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

L=$TMP/linux
dev_clone "$L" mm arch/arm64 arch/riscv arch/x86 || skip_all "cannot clone $MM"
dev_branch "$L" tlbbatch
dev_am "$L" "$DEVFIX/004-2-port-6.12.patch"
ONE="--checkers=-all,one-line-args"
ESC=$(printf '\033')
# no progress unless a test asks for it (a slow machine takes a second)
export LOREBOT_PROGRESS_DELAY_MS=3600000

# on_tty CMD...: run CMD with stdout and stderr on a terminal (script(1))
on_tty() {
	script -qec "$*" /dev/null </dev/null | tr -d '\r'
}

has_color() {
	case $1 in
	*"$ESC["*) echo yes ;;
	*) echo no ;;
	esac
}

cd "$L" || exit 1
is "$(has_color "$(lorebot check $ONE)")" no "not a terminal: no colour"
T=$(on_tty env -u NO_COLOR TERM=xterm "$LOREBOT" check $ONE)
is "$(has_color "$T")" yes "a terminal: colour"
like "$T" "${ESC}\[1;35mwarning:${ESC}\[m parameters of" "warnings in gcc's magenta"
like "$T" "\[${ESC}\[1;35mone-line-args${ESC}\[m\]" "the rule in the severity's colour"
like "$T" "${ESC}\[1mmm/rmap.c:683:[0-9]+:${ESC}\[m" "locations (line and column) in bold"
like "$T" "    \| ${ESC}\[32m		unsigned long start, unsigned long end\)${ESC}\[m" "suggestions in green"
is "$(printf '%s\n' "$T" | sed "s/${ESC}\[[0-9;]*m//g")" "$(lorebot check $ONE)" \
	"the same text without the colours"
is "$(has_color "$(on_tty NO_COLOR=1 TERM=xterm "$LOREBOT" check $ONE)")" no "NO_COLOR: no colour on a terminal"
is "$(has_color "$(on_tty TERM=dumb "$LOREBOT" check $ONE)")" no "TERM=dumb: no colour"
is "$(has_color "$(on_tty env -u NO_COLOR TERM=xterm "$LOREBOT" check --color=never $ONE)")" no \
	"--color=never on a terminal"
is "$(has_color "$(NO_COLOR=1 lorebot check --color=always $ONE)")" yes "--color=always wins over NO_COLOR"
is "$(has_color "$(lorebot check --color $ONE)")" yes "--color means always"
git config lorebot.check.color always
is "$(has_color "$(lorebot check $ONE)")" yes "lorebot.check.color = always"
is "$(has_color "$(lorebot check --color=auto $ONE)")" no "--color=auto wins over the configuration"
git config --unset lorebot.check.color
lorebot check --color=sometimes $ONE >/dev/null 2>"$TMP/err"
is "$?" 2 "--color=sometimes: a usage error"
like "$(cat "$TMP/err")" "--color takes auto, always or never, not 'sometimes'" "--color: says what it takes"
is "$(has_color "$(lorebot check --json --color=always $ONE)")" no "--json is never coloured"

# progress: on stderr, only after a second (the delay is set for the test)
LOREBOT_PROGRESS_DELAY_MS=0 "$LOREBOT" check $ONE >/dev/null 2>"$TMP/err"
is "$(cat "$TMP/err")" "" "not a terminal: no progress"
LOREBOT_PROGRESS_DELAY_MS=0 "$LOREBOT" check --progress $ONE >"$TMP/out" 2>"$TMP/err"
is "$(sed 's/([0-9.]* s)$/(T)/' "$TMP/err")" "lorebot: reading 1 commit of origin/mm-new..tlbbatch (T)
lorebot: checking 1 patch of origin/mm-new..tlbbatch (T)
lorebot: checked 1 patch (T)" "--progress, past the delay: what it is doing, on stderr"
unlike "$(cat "$TMP/out")" "lorebot: checking" "progress is not on stdout"
"$LOREBOT" check --progress $ONE >/dev/null 2>"$TMP/err"
is "$(cat "$TMP/err")" "" "work shorter than the delay: no progress"
E=$(on_tty LOREBOT_PROGRESS_DELAY_MS=0 "$LOREBOT" check $ONE 2>&1)
like "$E" "lorebot: checked 1 patch" "a terminal: progress by default"
on_tty LOREBOT_PROGRESS_DELAY_MS=0 "$LOREBOT" check --no-progress $ONE >"$TMP/out" 2>&1
unlike "$(cat "$TMP/out")" "lorebot: check" "--no-progress"

# the summary counts each severity
like "$(lorebot check --checkers=-all,one-line-args,signed-off-by)" '^0 errors, 6 warnings, 0 notes$' \
	"summary: errors, warnings, notes"

# paths as gcc run from the current directory prints them (vim -q)
top=$(lorebot check $ONE | grep -c '^mm/rmap.c:[0-9]*:')
ok "from the top: repository paths ($top findings)" test "$top" -gt 0
is "$(cd mm && lorebot check $ONE | grep -c '^rmap.c:[0-9]*:')" "$top" \
	"from mm/: the same findings as rmap.c:N"
is "$(cd arch/x86 && lorebot check $ONE | grep -c '^\.\./\.\./mm/rmap.c:[0-9]*:')" "$top" \
	"from arch/x86: ../../mm/rmap.c:N"
is "$(cd mm && lorebot check $ONE --json | $PY -c 'import json, sys
files = {f["file"] for f in json.load(sys.stdin)["findings"] if f["file"]}
print("mm/rmap.c" in files and not any(f.startswith("..") for f in files))')" True \
	"--json keeps the repository's paths"
missing=$(cd mm && lorebot check $ONE | sed -n 's/^\([^ :]*\):[0-9]*:.*/\1/p' | sort -u |
	while read -r p; do test -f "$p" || echo "$p"; done)
is "$missing" "" "from mm/: every path printed names a file from there (../arch/... too)"

# columns as gcc's -fdiagnostics-column-unit=byte: the byte of the token
# the finding names, from 1; the text says file:line:column, as the JSON
lorebot check $ONE --json >"$TMP/col.json"
is "$($PY - "$TMP/col.json" <<'EOF'
import json, re, subprocess, sys
bad, n = [], 0
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["column"] is None:
        continue
    n += 1
    text = subprocess.run(["git", "show", "HEAD:" + f["file"]], capture_output=True,
                          text=True, errors="replace").stdout.split("\n")
    line, c = text[f["line"] - 1], f["column"] - 1
    if not (0 <= c < len(line)) or line[c].isspace() or \
       (c and re.match(r"\w", line[c - 1]) and re.match(r"\w", line[c])):
        bad.append("%s:%d:%d" % (f["file"], f["line"], f["column"]))
print(n > 0, bad)
EOF
)" "True []" "every column is the first byte of a token on the finding's line"
is "$(lorebot check $ONE | sed -n 's/^\(mm\/rmap.c:[0-9]*:[0-9]*\):.*/\1/p' | head -1)" \
	"$(json "$TMP/col.json" "[('%s:%d:%d' % (f['file'], f['line'], f['column'])) for f in d['findings'] if f['file'] == 'mm/rmap.c'][0]")" \
	"the text prints the JSON's line and column"
done_testing
