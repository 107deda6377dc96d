#!/bin/sh
# Check every pre-image under bench/bugs/trees/: its git blob id must be
# the one the intro mail's "index" line names for that path, and the
# intro must apply to it.  Run from the repository's top directory.
#
# usage: bench/bugs/trees/verify.sh
set -eu
top=bench/bugs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for gz in $(cd "$top/trees" && find . -name '*.gz' | sort); do
	gz=${gz#./}
	id=${gz%%/*}
	path=${gz#*/}
	path=${path%.gz}
	intro=$(awk -F'\t' -v id="$id" '$1 == id { print $5; exit }' "$top"/*.tsv)
	intro=${intro%%#*}
	want=$(grep -A1 "^diff --git a/$path b/$path" "$intro" | sed -n 's/^index \([0-9a-f]*\)\.\..*/\1/p' | head -1)
	rm -rf "$tmp/w" && mkdir -p "$tmp/w/$(dirname "$path")"
	gzip -dc "$top/trees/$gz" > "$tmp/w/$path"
	got=$(git hash-object "$tmp/w/$path")
	case $got in
	"$want"*) blob=same ;;
	*) blob="differs (want $want)"; bad=1 ;;
	esac
	if (cd "$tmp/w" && git apply --check --include="$path" "$OLDPWD/$intro") 2>/dev/null; then
		applies=yes
	else
		applies=no; bad=1
	fi
	echo "$id $path blob ${got%"${got#????????????}"} $blob, intro applies: $applies"
done
exit $bad
