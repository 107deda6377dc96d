#!/bin/sh
# lorebot apply next to git am on the 6.12 tree (bench/apply.py; bench/README.md)
exec python3 "$(dirname "$0")/apply.py" "$@"
