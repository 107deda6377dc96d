#!/bin/sh
# lorebot check in a developer's tree reads lorebot.* from git's
# configuration (the user's, then the repository's), the way b4 reads
# b4.*; --config and the command line come after it; nothing is read from
# the files of the tree, whatever a patch puts there.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

L=$TMP/linux
dev_clone "$L" mm arch/arm64 arch/riscv arch/x86 || skip_all "cannot clone $MM"
dev_branch "$L" tlbbatch
dev_am "$L" "$DEVFIX/004-2-port-6.12.patch"
ONE="--checkers=-all,one-line-args"

cols() {
	(cd "$L" && lorebot check "$@") 2>"$TMP/err" |
		sed -n 's/.* packed to \([0-9]*\) columns.*/\1/p' | sort -u | tr '\n' ' '
}

is "$(cols $ONE)" "80 " "default: 80 columns"
git config --global lorebot.check.columns 100
is "$(cols $ONE)" "100 " "the user's git config: lorebot.check.columns"
git -C "$L" config lorebot.check.columns 90
is "$(cols $ONE)" "90 " "the repository's git config wins over the user's"
printf '[check]\n\tcolumns = 95\n' >"$TMP/lorebot.conf"
is "$(cols $ONE)" "90 " "(still 90 before --config)"
is "$( (cd "$L" && lorebot --config "$TMP/lorebot.conf" check $ONE) 2>/dev/null |
	sed -n 's/.* packed to \([0-9]*\) columns.*/\1/p' | sort -u)" "95" "--config wins over git config"
is "$(cols $ONE --columns 85)" "85 " "--columns wins over everything"
git -C "$L" config --unset lorebot.check.columns
git config --global --unset lorebot.check.columns

# checkers turned off in git config
git -C "$L" config lorebot.check.disable one-line-args
(cd "$L" && lorebot check --json --checkers=-checkpatch) >"$TMP/off.json" 2>/dev/null
is "$(json "$TMP/off.json" "[f['rule'] for f in d['findings'] if f['rule'] == 'one-line-args']")" "[]" \
	"lorebot.check.disable"
(cd "$L" && lorebot check --json --checkers=-checkpatch,one-line-args) >"$TMP/on.json" 2>/dev/null
is "$(json "$TMP/on.json" "len([f for f in d['findings'] if f['rule'] == 'one-line-args'])")" 6 \
	"--checkers after lorebot.check.disable"
git -C "$L" config --unset lorebot.check.disable

# an unknown key is reported, and the check still runs
git -C "$L" config lorebot.check.colums 100
(cd "$L" && lorebot check $ONE) >/dev/null 2>"$TMP/err"
is "$?" 0 "an unknown key: the check runs"
like "$(cat "$TMP/err")" "unknown key 'check.colums'" "an unknown key: reported"
git -C "$L" config --unset lorebot.check.colums

# files in the tree configure nothing: a patch adding them changes nothing
printf '[lorebot "check"]\n\tcolumns = 100\n\tdisable = one-line-args\n' >"$L/.gitconfig"
printf '[check]\n\tcolumns = 100\n\tdisable = one-line-args\n' >"$L/lorebot.conf"
cp "$L/lorebot.conf" "$L/.lorebot.conf"
printf '[include]\n\tpath = ../.gitconfig\n' >"$L/.gitconfig-include"
git -C "$L" add -f .gitconfig lorebot.conf .lorebot.conf .gitconfig-include
git -C "$L" commit -q -s -m "lorebot: try to configure the bot from the tree"
is "$(cols $ONE)" "80 " "configuration files inside the tree are not read"
is "$( (cd "$L" && lorebot check --json $ONE) 2>/dev/null | json - "len([f for f in d['findings'] if f['rule'] == 'one-line-args'])")" \
	6 "the checkers a tree file disables still run"
done_testing
