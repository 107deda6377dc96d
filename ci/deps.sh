#!/bin/sh
# Install every Debian package lorebot needs (ci/packages.txt), once.
# Idempotent: when everything is installed it only checks and returns.
set -eu
cd "$(dirname "$0")/.."
pkgs=$(grep -v '^#' ci/packages.txt | grep -v '^$')
missing=
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing" >&2
	if [ "$(id -u)" != 0 ]; then
		echo "deps: run as root (or: sudo apt-get install$missing)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing >&2
fi

# The daemon's own unprivileged user (config/lorebot.service, make demo,
# tests/t1030): no login, no home of its own beyond its state directory.
if ! getent passwd lorebot >/dev/null; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps: no user lorebot: run as root to create it" >&2
		exit 1
	fi
	echo "deps: creating the system user lorebot" >&2
	useradd --system --user-group --home-dir /var/lib/lorebot \
		--no-create-home --shell /usr/sbin/nologin \
		--comment "lorebot daemon" lorebot
fi
