#!/bin/sh
# The main job on local defaults (make demo).  For now: the series lorebot
# finds in the three real linux-mm threads of tests/fixtures/lore.
set -eu
cd "$(dirname "$0")/.."
LOREBOT=${LOREBOT:-$PWD/build/lorebot}

for f in tests/fixtures/lore/*.mbox; do
	echo "== lorebot series --mbox $f"
	"$LOREBOT" series --mbox "$f"
	echo
done
