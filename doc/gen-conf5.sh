#!/bin/sh
# Write lorebot.conf(5) from the key table (bot/conf/config-keys.h), as
# "lorebot config --list-keys" prints it, so that each key is documented
# once.  Usage: doc/gen-conf5.sh [LOREBOT] > doc/lorebot.conf.5
# tests/t0003-man-pages.t checks that the committed page is this output
# (doc/gen-man.sh writes it with the other generated pages).
set -eu
bin=${1:-build/lorebot}
here=$(dirname "$0")

cat "$here/lorebot.conf.5.in"
"$bin" config --list-keys | awk '
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.'\'']/)
		s = "\\&" s
	return s
}
/^[^\t]/ {
	key = $1
	rest = substr($0, length(key) + 3)
	sub(/\)$/, "", rest)
	n = split(key, p, ".")
	sect = p[1]
	if (!(sect in seen)) {
		seen[sect] = ++nsect
		order[nsect] = sect
	}
	nk[sect]++
	keys[sect, nk[sect]] = key
	type[key] = rest
	next
}
/^\t/ {
	d = $0
	sub(/^\t/, "", d)
	help[key] = help[key] (help[key] == "" ? "" : " ") d
}
END {
	print ".SH KEYS"
	print "Each key with its type and default, in the order of the key table;"
	print ".B *"
	print "stands for a subsection name, as in"
	print ".BR \"[list \\(dqlinux\\-mm\\(dq]\" ."
	for (i = 1; i <= nsect; i++) {
		s = order[i]
		print ".SS \"[" s "]\""
		for (j = 1; j <= nk[s]; j++) {
			k = keys[s, j]
			print ".TP"
			print ".BR " esc(k) " \" (" esc(type[k]) ")\""
			print esc(help[k])
		}
	}
}'
cat "$here/lorebot.conf.5.tail"
