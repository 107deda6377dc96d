# The security tests' (t10xx) shared set-up, after tests/lib.sh:
#	sec_repo                 a small tree, as $R (bare, mm-new), in $TMP
#	mkpatch NAME [N/M] <diff one patch mail of a series NAME
#	newfile PATH [MODE] [TEXT] a "new file" diff
#	statuses FILE.json        the patches' apply statuses, as a list
#	fake_checkpatch WHO [MARKER] a checkpatch.pl that reports WHO ran
#	                          (and creates MARKER when it runs)
#	sec_trusted_checkpatch    mm-new of $R gets fake_checkpatch TRUSTED, which
#	                          also reports the first line of its spelling.txt
#	                          (TRUSTEDDATA), whether it can read $SEC_SECRET
#	                          and what it got of $SEC_ROOTFILE (a file outside
#	                          what a sandbox shows: ROOTFILE_ABSENT, _DENIED,
#	                          or READ_ROOTFILE and its first line), and
#	                          whether it could write the daemon's repository
#	                          ($TMP/*/repo.git: REPO_WRITTEN, REPO_READONLY),
#	                          its uid (UID_<n>) and whether it can read the
#	                          repository's root-only file ($TMP/*/repo.git/
#	                          rootonly: READ_REPO_ROOTONLY, _DENIED)
#	sec_lab WHO               a pass's own place, $st = $TMP/WHO: a clone of
#	                          $R ($st/repo.git) and a lore lab ($LAB, $URL)
#	                          started on $TMP/start.mbox, mail/* delivered
#	fake_kernel               a stand-in for a kernel tree that builds in a
#	                          second ($FK, bare, mm-new; its work tree $FKW):
#	                          every target lorebot's build engine makes, and
#	                          mm/Makefile, included by the top one, for a
#	                          series to change (POST: commands run after the
#	                          image is made; EXTRA: more at parse time)
#	fake_series NAME FILE TEXT [FILE TEXT]... a branch NAME of $FK on
#	                          mm-new that sets each FILE to its TEXT
#	fake_build_config FILE [KEY VALUE]... a configuration for builds of $FK
sec_repo() {
	S=$TMP/src
	git init -q -b main "$S"
	mkdir -p "$S/dir/a" && printf 'x\n' >"$S/x.txt" && printf 'in\n' >"$S/dir/a/f.txt"
	git -C "$S" add -A && git -C "$S" commit -qm base
	R=$TMP/repo.git
	git clone -q --bare "$S" "$R"
	git --git-dir="$R" update-ref refs/heads/mm-new main
}

mkpatch() {
	n=${2:-}
	{
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		printf 'From: Eve <eve@example.com>\nDate: Mon, 1 Jun 2026 10:00:0%s +0000\n' "${n%%/*}"
		printf 'Subject: [PATCH%s] mm: %s\nMessage-ID: <%s%s@example.com>\n' "${n:+ $n}" "$1" "$1" "${n%%/*}"
		case "${n%%/*}" in
		''|1) ;;
		*) printf 'In-Reply-To: <%s1@example.com>\nReferences: <%s1@example.com>\n' "$1" "$1" ;;
		esac
		printf '\n%s\n\nSigned-off-by: Eve <eve@example.com>\n---\n' "$1"
		cat
		printf -- '-- \n2.39.2\n\n'
	}
}

newfile() {
	printf 'diff --git a/%s b/%s\nnew file mode %s\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+%s\n' \
		"$1" "$1" "${2:-100644}" "$1" "${3:-fine}"
}

statuses() {
	json "$1" "[p['status'] for p in d['patches']]"
}

# binfile PATH TEXT [MODE]: a "new file" diff of TEXT as a GIT binary
# patch (literal), with MODE (100644; 120000 makes it a symbolic link)
binfile() {
	python3 - "$@" <<'PY'
import base64, hashlib, sys, zlib
path, text = sys.argv[1], sys.argv[2].encode()
mode = sys.argv[3] if len(sys.argv) > 3 else "100644"
oid = hashlib.sha1(b"blob %d\0" % len(text) + text).hexdigest()
z = zlib.compress(text)
out = ["diff --git a/%s b/%s" % (path, path), "new file mode %s" % mode,
       "index 0000000..%s" % oid[:7], "GIT binary patch", "literal %d" % len(text)]
for i in range(0, len(z), 52):
    chunk = z[i:i + 52]
    n = len(chunk)
    c = chr(ord("A") + n - 1) if n <= 26 else chr(ord("a") + n - 27)
    out.append(c + base64.b85encode(chunk, pad=True).decode())
out += ["", "literal 0", "HcmV?d00001", ""]
print("\n".join(out))
PY
}

# binbomb PATH DECLARED INFLATED: a "new file" GIT binary patch that says
# DECLARED bytes and whose zlib data inflates to INFLATED zero bytes
binbomb() {
	python3 - "$@" <<'PY'
import base64, sys, zlib
path, declared, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = zlib.compressobj(9)
z = []
chunk = bytes(1 << 20)
for _ in range(size >> 20):
    z.append(c.compress(chunk))
z.append(c.compress(bytes(size & ((1 << 20) - 1))))
z.append(c.flush())
z = b"".join(z)
out = ["diff --git a/%s b/%s" % (path, path), "new file mode 100644",
       "index 0000000..1111111", "GIT binary patch", "literal %d" % declared]
for i in range(0, len(z), 52):
    chunk = z[i:i + 52]
    n = len(chunk)
    out.append((chr(ord("A") + n - 1) if n <= 26 else chr(ord("a") + n - 27)) +
               base64.b85encode(chunk, pad=True).decode())
out += ["", "literal 0", "HcmV?d00001", ""]
print("\n".join(out))
PY
}

fake_checkpatch() {
	echo '#!/usr/bin/perl'
	[ -n "${2:-}" ] && printf 'open(my $f, ">", "%s"); close($f);\n' "$2"
	cat <<-EOF
	for my \$file (grep { !/^-/ } @ARGV) {
		print "\$file:1: WARNING:RAN_$1: checkpatch of $1\n";
		print "total: 0 errors, 1 warnings, 1 lines checked\n";
	}
	EOF
}

sec_trusted_checkpatch() {
	mkdir -p "$S/scripts"
	# what it reads: its data file (DATA_<first line>) and $SEC_SECRET,
	# which no sandbox may read (LEAKED_SECRET)
	cat >"$S/scripts/checkpatch.pl" <<-EOF
	#!/usr/bin/perl
	(my \$dir = \$0) =~ s{/[^/]*\$}{};
	for my \$file (grep { !/^-/ } @ARGV) {
		print "\$file:1: WARNING:RAN_TRUSTED: checkpatch of TRUSTED\n";
		if (open(my \$d, "<", "\$dir/spelling.txt")) {
			my \$l = <\$d> // ""; chomp \$l;
			print "\$file:1: WARNING:DATA_\$l: the data it read\n";
		}
		if ("${SEC_SECRET:-}" ne "" && open(my \$s, "<", "${SEC_SECRET:-}")) {
			my \$l = <\$s> // ""; chomp \$l;
			print "\$file:1: WARNING:LEAKED_SECRET: \$l\n";
		}
		if ("${SEC_ROOTFILE:-}" ne "") {
			if (open(my \$r, "<", "${SEC_ROOTFILE:-}")) {
				my \$l = <\$r> // ""; chomp \$l;
				print "\$file:1: WARNING:READ_ROOTFILE: \$l\n";
			} else {
				my \$why = \$!{ENOENT} ? "ABSENT" : \$!{EACCES} ? "DENIED" : "ERROR";
				print "\$file:1: WARNING:ROOTFILE_\$why: \$!\n";
			}
		}
		# who it runs as, and whether it can read a root-only file in
		# the repository it sees (\$TMP/root/repo.git/rootonly)
		print "\$file:1: WARNING:UID_\$>: its uid\n";
		for my \$f (glob("$TMP/*/repo.git/rootonly")) {
			if (open(my \$o, "<", \$f)) {
				print "\$file:1: WARNING:READ_REPO_ROOTONLY: \$f\n";
			} else {
				print "\$file:1: WARNING:REPO_ROOTONLY_DENIED: \$!\n";
			}
		}
		# the daemon's repository (sec_lab's): read-only to a check
		for my \$r (glob("$TMP/*/repo.git")) {
			if (open(my \$w, ">", "\$r/refs/heads/sandbox-wrote")) {
				print "\$file:1: WARNING:REPO_WRITTEN: \$r\n";
			} else {
				my \$why = \$!{EROFS} ? "READONLY" : \$!{EACCES} ? "DENIED" : "ERROR";
				print "\$file:1: WARNING:REPO_\$why: \$!\n";
			}
		}
		print "total: 0 errors, 1 warnings, 1 lines checked\n";
	}
	EOF
	echo TRUSTEDDATA >"$S/scripts/spelling.txt"
	: >"$S/scripts/const_structs.checkpatch"
	git -C "$S" add -A && git -C "$S" commit -qm "checkpatch"
	git -C "$S" push -q "$R" main:mm-new
}

sec_lab() {
	st=$TMP/$1
	rm -rf "$st"
	mkdir -p "$st"
	git clone -q --bare "$R" "$st/repo.git"
	LAB=$st/lab
	_port=$(free_port)
	URL=$("$LORE_LAB" setup "$LAB" "$_port" "$TMP/start.mbox" 2>"$st/lab.err")/linux-mm/ || {
		cat "$st/lab.err" >&2
		echo "Bail out! cannot start the lore lab"
		exit 1
	}
	cleanup_add "'$LORE_LAB' stop '$LAB'"
	for f in mail/*; do
		"$LORE_LAB" deliver "$LAB" <"$f" || return 1
	done
}

fake_kernel() {
	FKW=$TMP/fake-src
	FK=$TMP/fake.git
	rm -rf "$FKW" "$FK"
	mkdir -p "$FKW/scripts/kconfig" "$FKW/mm"
	git init -q -b main "$FKW"
	cat >"$FKW/Makefile" <<-'EOF'
	# a stand-in for a kernel tree (tests/sec-lib.sh): the targets
	# lorebot's build engine makes, in a second
	.RECIPEPREFIX = >
	O ?= .
	POST :=
	-include mm/Makefile
	%config: FORCE
	> @mkdir -p $(O)
	> @if [ $@ != olddefconfig ] || [ ! -f $(O)/.config ]; then printf 'CONFIG_MMU=y\n' >$(O)/.config; fi
	> @echo "  GEN     $(O)/.config"
	bzImage Image modules: FORCE
	> @mkdir -p $(O)/arch/x86/boot $(O)/mm
	> @for f in mm/*.c; do echo "  CC      $${f%.c}.o"; cat $$f >$(O)/$${f%.c}.o; done
	> @cat $(O)/mm/*.o >$(O)/image.tmp
	> @mv -f $(O)/image.tmp $(O)/arch/x86/boot/bzImage
	> @$(POST)
	FORCE:
	EOF
	printf '#!/bin/sh\n# merge_config.sh -m -O DIR BASE FRAGMENT...\nshift 3; b=$1; shift; cat "$@" >>"$b"\n' \
		>"$FKW/scripts/kconfig/merge_config.sh"
	chmod +x "$FKW/scripts/kconfig/merge_config.sh"
	echo 'int fake;' >"$FKW/mm/fake.c"
	: >"$FKW/mm/Makefile"
	git -C "$FKW" add -A
	git -C "$FKW" -c user.name=t -c user.email=t@example.com commit -qm base
	git clone -q --bare "$FKW" "$FK"
	git --git-dir="$FK" update-ref refs/heads/mm-new main
}

fake_series() {
	_name=$1
	shift
	git -C "$FKW" checkout -q -B "$_name" main
	while [ $# -ge 2 ]; do
		mkdir -p "$(dirname "$FKW/$1")"
		printf '%s\n' "$2" >"$FKW/$1"
		shift 2
	done
	git -C "$FKW" add -A
	git -C "$FKW" -c user.name=Eve -c user.email=eve@example.com commit -qm "mm: $_name"
	git -C "$FKW" push -q -f "$FK" "$_name"
	git -C "$FKW" checkout -q main
}

fake_build_config() {
	_f=$1
	shift
	{
		# the fake tree's Makefile builds no file a series adds: what it
		# compiles of a change is not what these tests are about
		printf '[build]\n\tprofile = small\n\tjobs = 2\n\ttimeout = 2m\n\tccache = false\n'
		printf '\tmincoverage = 0\n\trepair = false\n\tclang =\n'
		printf '[core]\n\tcachedir = %s\n' "$TMP/fake-cache"
		while [ $# -ge 2 ]; do
			printf '[%s]\n\t%s = %s\n' "${1%%.*}" "${1#*.}" "$2"
			shift 2
		done
	} >"$_f"
}
