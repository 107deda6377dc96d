#!/bin/sh
# lorebot boot: usage errors, the test catalog, infrastructure errors
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"

export LOREBOT_CACHE=$TMP/cache

lorebot boot >"$TMP/out" 2>&1
is "$?" 2 "no --series or --image: usage error"
lorebot boot --series x --image y >"$TMP/out" 2>&1
is "$?" 2 "both --series and --image: usage error"
lorebot boot --series x --arch x86_64,sparc >"$TMP/out" 2>&1
is "$?" 2 "unknown arch: usage error"
like "$(cat "$TMP/out")" "unknown arch 'sparc'" "names the arch"
lorebot boot --series x --tests cow,nosuch >"$TMP/out" 2>&1
is "$?" 2 "unknown test: usage error"
like "$(cat "$TMP/out")" "unknown mm kselftest 'nosuch'" "names the test"
lorebot boot --series x --kvm maybe >"$TMP/out" 2>&1
is "$?" 2 "bad --kvm: usage error"
lorebot boot --series x --timeout soon >"$TMP/out" 2>&1
is "$?" 2 "bad --timeout: usage error"
lorebot boot --series x --runs 1001 >"$TMP/out" 2>&1
is "$?" 2 "--runs over 1000: usage error"
like "$(cat "$TMP/out")" "--runs takes 1 to 1000" "saying what it takes"
lorebot boot --arch riscv --image x --src "$TMP" --objdir o --base-image y --base-src "$TMP" \
	--base-objdir o --runs 3 >"$TMP/out" 2>&1
is "$?" 2 "--runs with --base-image: usage error"
like "$(cat "$TMP/out")" "--runs boots the image alone" "saying why"

out=$(lorebot boot --list-tests)
like "$out" "mm/cow +default" "catalog: cow is in the default list"
like "$out" "mm/khugepaged .*KSFT_SKIP undeclared" "catalog: why khugepaged is not"
like "$out" "mm/migration .*libnuma" "catalog: libnuma users say so"
like "$out" "mm/protection_keys_64 +- +\[x86_64\] " "catalog: arch-specific tests"

mkdir "$TMP/notrepo"
lorebot boot --repo "$TMP/notrepo" --series main --arch x86_64 >"$TMP/out" 2>&1
is "$?" 2 "not a repository: usage error"
like "$(cat "$TMP/out")" "'$TMP/notrepo' is not a git repository" "names the directory"

# infrastructure: what is missing is named, with its Debian package
echo "not a kernel" >"$TMP/Image"
mkdir -p "$TMP/empty-path"
PATH=$TMP/empty-path "$LOREBOT" boot --arch riscv --image "$TMP/Image" --src "$TMP" \
	--objdir "$TMP/o" --json >"$TMP/infra.json" 2>"$TMP/err"
is "$?" 3 "no qemu: infrastructure error"
is "$(json "$TMP/infra.json" "d['archs'][0]['status']")" infra "status infra"
like "$(json "$TMP/infra.json" "d['archs'][0]['message']")" \
	"qemu-system-riscv64 not found \(Debian package qemu-system-misc\)" "names qemu and its package"

lorebot boot --arch arm64 --image "$TMP/nope" --src "$TMP" --objdir "$TMP/o" \
	--json >"$TMP/infra.json" 2>"$TMP/err"
is "$?" 3 "no image: infrastructure error"
like "$(json "$TMP/infra.json" "d['archs'][0]['message']")" "no kernel image '$TMP/nope'" \
	"names the image"
done_testing
