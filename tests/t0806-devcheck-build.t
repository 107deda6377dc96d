#!/bin/sh
# lorebot check --build/--boot: the architectures asked for and the tools
# they need (a missing cross compiler or qemu is named with its Debian
# package) - before anything is checked, never a partial result.  The
# builds themselves: t0807.
# schedule: last 0.1 (its x86_64,arm64 check builds on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

L=$TMP/linux
dev_clone "$L" mm || skip_all "cannot clone $MM"
dev_branch "$L" work
dev_commit "$L" "mm: a comment" mm/page_io.c \
	"s.replace('#include <linux/mm.h>\n', '#include <linux/mm.h>\n/* swap I/O */\n', 1)"
cd "$L" || exit 1

# a PATH without the riscv cross compiler and without qemu for riscv
mkdir "$TMP/bin"
for f in /usr/bin/* /usr/local/bin/*; do
	case ${f##*/} in
	riscv64-linux-gnu-* | qemu-system-riscv64) ;;
	*) [ -e "$TMP/bin/${f##*/}" ] || ln -s "$f" "$TMP/bin/${f##*/}" ;;
	esac
done

lorebot check --build=sparc >/dev/null 2>"$TMP/err"
is "$?" 2 "--build=sparc: a usage error"
like "$(cat "$TMP/err")" "unknown architecture 'sparc' \(known: x86_64 arm64 riscv\)" \
	"--build=sparc: names the ones there are"
lorebot check --mbox "$FIXTURES/lore/004_476fa21b8430df59.mbox" --build=riscv >/dev/null 2>"$TMP/err"
is "$?" 2 "--build with --mbox: a usage error"
lorebot check --fix --mbox "$FIXTURES/lore/004_476fa21b8430df59.mbox" >/dev/null 2>&1
is "$?" 2 "--fix with --mbox: a usage error"

PATH=$TMP/bin lorebot check --build=riscv >"$TMP/out" 2>"$TMP/err"
is "$?" 3 "--build=riscv without its compiler: exit 3"
like "$(cat "$TMP/err")" "riscv: riscv64-linux-gnu-gcc not found \(Debian package gcc-riscv64-linux-gnu\)" \
	"the missing cross compiler, with its package"
like "$(cat "$TMP/err")" "install them with: apt-get install gcc-riscv64-linux-gnu$" "how to install it"
is "$(cat "$TMP/out")" "" "nothing checked, nothing printed on stdout"
PATH=$TMP/bin lorebot check --boot=riscv64 >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "riscv: qemu-system-riscv64 not found \(Debian package qemu-system-misc\)" \
	"--boot=riscv64 (an alias): qemu with its package"
like "$(cat "$TMP/err")" "apt-get install gcc-riscv64-linux-gnu qemu-system-misc$" \
	"--boot builds too: both packages"
PATH=$TMP/bin lorebot check --build=x86_64,arm64 >/dev/null 2>"$TMP/err"
unlike "$(cat "$TMP/err")" "not found" "--build=x86_64,arm64: their tools are there"

# with the tools there, --build runs the build engine: t0807 (riscv)

# build.arch is what --build builds when it names nothing
git config lorebot.build.arch riscv
PATH=$TMP/bin lorebot check --build >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "riscv64-linux-gnu-gcc not found" "--build: lorebot.build.arch"
unlike "$(cat "$TMP/err")" "aarch64" "--build: only the configured architecture"
done_testing
