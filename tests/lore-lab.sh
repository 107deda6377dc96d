#!/bin/sh
# A local lore.kernel.org look-alike: the real public-inbox-httpd (1.9)
# serving a linux-mm inbox on 127.0.0.1, in a directory of its own.
#
#   lore-lab.sh setup DIR PORT [MBOX...]  build DIR, import the mboxes (default:
#                                         tests/fixtures/lore/*.mbox), start the
#                                         httpd; prints http://127.0.0.1:PORT
#   lore-lab.sh deliver [--lag] DIR < MSG deliver one message with public-inbox-mda;
#                                         searches see it at once, or with --lag
#                                         only after "reopen" (as the real httpd,
#                                         which keeps its index open 30 s and more)
#   lore-lab.sh reopen DIR                the server reopens its search index
#   lore-lab.sh import DIR MBOX           bulk-import an mbox (mboxrd) while serving
#   lore-lab.sh stop DIR                  stop the httpd (by its PID file)
#   lore-lab.sh start DIR                 start it again (same port and inbox)
#   lore-lab.sh env DIR                   print the environment (also DIR/env.sh)
#
# Nothing outside DIR is touched: HOME, PI_CONFIG, PI_DIR, PI_EMERGENCY and
# GIT_CONFIG_GLOBAL all point into DIR.  DIR/logs/access.log has one line per
# request ('%h %t "%r" %>s %b').  The facts this relies on are in
# ../shared/docs/lore-lab.md (kept in the project as README "lore").
set -eu

die() {
	echo "lore-lab: $*" >&2
	exit 1
}

abspath() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$PWD/$1" ;;
	esac
}

lab_env() {
	D=$1
	export HOME="$D/home" XDG_CACHE_HOME="$D/home/.cache"
	export PI_CONFIG="$D/pi-config" PI_DIR="$D/pi-dir" PI_EMERGENCY="$D/emergency"
	export GIT_CONFIG_GLOBAL="$D/gitconfig" GIT_CONFIG_NOSYSTEM=1
}

# the httpd's PID, if the process with that PID is really ours
lab_pid() {
	D=$1
	[ -f "$D/run/httpd.pid" ] || return 1
	pid=$(cat "$D/run/httpd.pid")
	[ -n "$pid" ] || return 1
	# the daemon rewrites its argv and environ: identify it by its stderr
	[ "$(readlink "/proc/$pid/fd/2" 2>/dev/null)" = "$D/logs/httpd.err" ] || return 1
	echo "$pid"
}

cmd_stop() {
	D=$(abspath "$1")
	pid=$(lab_pid "$D") || { rm -f "$D/run/httpd.pid"; return 0; }
	kill -QUIT "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			kill -KILL "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.05
	done
	rm -f "$D/run/httpd.pid"
}

cmd_env() {
	D=$(abspath "$1")
	cat "$D/env.sh"
}

import_mbox() {
	perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
		my $ibx = PublicInbox::InboxWritable->new(
			PublicInbox::Config->new->lookup_name($ARGV[0]));
		open my $fh, "<", $ARGV[1] or die "$ARGV[1]: $!";
		$ibx->import_mbox($fh, "mboxrd");' linux-mm "$1"
}

# The inbox of the mboxes, copied from a per-machine cache (building one
# takes seconds: git, SQLite and Xapian); keyed by the mboxes, this script
# and the public-inbox version.
build_inbox() {
	D=$1
	shift
	key=$( (cat "$@" "$0"; dpkg-query -W public-inbox 2>/dev/null) | sha1sum | cut -c1-16)
	cache=${LOREBOT_CACHE:-/var/cache/lorebot}/lore-lab/$key
	if [ ! -d "$cache/linux-mm" ]; then
		tmp=$cache.tmp.$$
		if ! mkdir -p "$tmp" 2>/dev/null; then
			tmp=$D/build	# no cache here: build in place
			mkdir -p "$tmp"
		fi
		(
			export PI_CONFIG="$tmp/pi-config"
			public-inbox-init -V2 -L full linux-mm "$tmp/linux-mm" \
				http://127.0.0.1/linux-mm linux-mm@kvack.org &&
			for m in "$@"; do
				import_mbox "$m" || exit 1
			done
		) >"$D/logs/import.log" 2>&1 ||
			die "cannot build the inbox: $(tail -3 "$D/logs/import.log")"
		if [ "$tmp" = "$D/build" ]; then
			mv "$tmp/linux-mm" "$D/inboxes/linux-mm"
			rm -rf "$tmp"
			return
		fi
		mv "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"	# lost a race: fine
	fi
	cp -a "$cache/linux-mm" "$D/inboxes/linux-mm"
}

cmd_setup() {
	[ $# -ge 2 ] || die "usage: setup DIR PORT [MBOX...]"
	D=$(abspath "$1")
	PORT=$2
	shift 2
	src=$(cd "$(dirname "$0")/.." && pwd)
	[ $# -gt 0 ] || set -- "$src"/tests/fixtures/lore/*.mbox
	if [ -e "$D" ] && [ -n "$(ls -A "$D")" ]; then
		[ -f "$D/.lore-lab" ] || die "'$D' is not empty and not a lab"
		cmd_stop "$D"
		rm -rf "$D"
	fi
	python3 -c 'import socket,sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.close()' "$PORT" 2>/dev/null ||
		die "port $PORT is in use"
	mkdir -p "$D/home" "$D/run" "$D/logs" "$D/inboxes"
	touch "$D/.lore-lab"
	lab_env "$D"
	B=http://127.0.0.1:$PORT
	cat >"$D/env.sh" <<EOF
export HOME='$D/home' XDG_CACHE_HOME='$D/home/.cache'
export PI_CONFIG='$D/pi-config' PI_DIR='$D/pi-dir' PI_EMERGENCY='$D/emergency'
export GIT_CONFIG_GLOBAL='$D/gitconfig' GIT_CONFIG_NOSYSTEM=1
export LORE_BASE='$B' LORE_URL='$B/linux-mm/'
EOF
	cat >"$GIT_CONFIG_GLOBAL" <<EOF
[user]
	name = Lab Maintainer
	email = maint@example.org
[b4]
	midmask = $B/linux-mm/%s
	linkmask = $B/linux-mm/%s
	searchmask = $B/linux-mm/?x=m&t=1&q=%s
	attestation-policy = off
EOF
	build_inbox "$D" "$@"
	git config -f "$PI_CONFIG" publicinbox.linux-mm.address linux-mm@kvack.org
	git config -f "$PI_CONFIG" publicinbox.linux-mm.url "$B/linux-mm"
	git config -f "$PI_CONFIG" publicinbox.linux-mm.inboxdir "$D/inboxes/linux-mm"
	git config -f "$PI_CONFIG" publicinbox.linux-mm.indexlevel full
	git config -f "$PI_CONFIG" publicinbox.linux-mm.listid linux-mm.kvack.org
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
	git config -f "$PI_CONFIG" publicinbox.wwwlisting all
	# public-inbox-httpd keeps its Xapian handle open for 30 s and more, so
	# mail delivered meanwhile is in new.atom and raw but not in searches;
	# "deliver" (and "reopen") make the server drop the handle at once.
	# Its own 30 s timer is disabled: on a loaded machine it would end a
	# "deliver --lag" at a moment no test can know.
	cat >"$D/lab.psgi" <<EOF
use strict; use IO::Handle; use PublicInbox::WWW; use PublicInbox::Inbox; use Plack::Builder;
open(my \$log, '>>', '$D/logs/access.log') or die; \$log->autoflush(1);
my \$cleanup = \\&PublicInbox::Inbox::do_cleanup;
{ no warnings 'redefine'; *PublicInbox::Inbox::do_cleanup = sub {}; }
my \$www = PublicInbox::WWW->new; \$www->preload;
my \$seen = -1;
sub reopen { my \$n = -s '$D/run/reopen' // 0; return if \$n == \$seen; \$seen = \$n;
	\$www->{pi_cfg}->each_inbox(sub { \$cleanup->(\$_[0]) }); }
builder { enable 'AccessLog', format => '%h %t "%r" %>s %b', logger => sub { print \$log @_ };
	enable 'Head'; sub { reopen(); \$www->call(@_) } };
EOF
	echo "$PORT" >"$D/port"
	start_httpd "$D"
}

start_httpd() {
	D=$1
	PORT=$(cat "$D/port")
	B=http://127.0.0.1:$PORT
	public-inbox-httpd -D -W0 -P "$D/run/httpd.pid" -1 "$D/logs/httpd.out" \
		-2 "$D/logs/httpd.err" -l "127.0.0.1:$PORT" "$D/lab.psgi" 2>>"$D/logs/httpd.err" ||
		die "public-inbox-httpd did not start: $(cat "$D/logs/httpd.err")"
	i=0
	until curl -sf -o /dev/null "$B/linux-mm/new.atom"; do
		i=$((i + 1))
		[ $i -lt 200 ] || die "public-inbox-httpd is not answering on $B"
		sleep 0.05
	done
	echo "$B"
}

cmd_start() {
	[ $# -eq 1 ] || die "usage: start DIR"
	D=$(abspath "$1")
	[ -f "$D/.lore-lab" ] || die "'$D' is not a lab"
	lab_env "$D"
	lab_pid "$D" >/dev/null && die "the lab in '$D' is running"
	start_httpd "$D"
}

cmd_reopen() {
	D=$(abspath "$1")
	printf x >>"$D/run/reopen"
}

cmd_deliver() {
	lag=
	if [ "${1:-}" = "--lag" ]; then
		lag=1
		shift
	fi
	[ $# -eq 1 ] || die "usage: deliver [--lag] DIR < MSG"
	D=$(abspath "$1")
	lab_env "$D"
	ORIGINAL_RECIPIENT=linux-mm@kvack.org public-inbox-mda --no-precheck ||
		die "public-inbox-mda failed"
	if [ -d "$PI_EMERGENCY/new" ] && [ -n "$(ls -A "$PI_EMERGENCY/new")" ]; then
		die "public-inbox-mda did not import: see $PI_EMERGENCY/new"
	fi
	[ -n "$lag" ] || cmd_reopen "$D"
}

cmd_import() {
	[ $# -eq 2 ] || die "usage: import DIR MBOX"
	D=$(abspath "$1")
	lab_env "$D"
	import_mbox "$2" >>"$D/logs/import.log" 2>&1 ||
		die "cannot import '$2': $(tail -3 "$D/logs/import.log")"
	cmd_reopen "$D"
}

[ $# -ge 2 ] || die "usage: lore-lab.sh setup|deliver|import|stop|start|env DIR ..."
cmd=$1
shift
case $cmd in
setup) cmd_setup "$@" ;;
deliver) cmd_deliver "$@" ;;
import) cmd_import "$@" ;;
stop) cmd_stop "$@" ;;
reopen) cmd_reopen "$@" ;;
start) cmd_start "$@" ;;
env) cmd_env "$@" ;;
*) die "unknown command '$cmd'" ;;
esac
