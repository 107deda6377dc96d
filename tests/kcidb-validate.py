#!/usr/bin/env python3
# Validate KCIDB documents against the v5.3 schema (Debian's
# python3-jsonschema, Draft 7, formats checked): one line per error,
# "ok N" when all N documents are valid; exit 1 when one is not.
#
#	kcidb-validate.py SCHEMA FILE...
import json
import sys

import jsonschema

v = jsonschema.Draft7Validator(json.load(open(sys.argv[1])),
                               format_checker=jsonschema.FormatChecker())
bad = 0
for f in sys.argv[2:]:
    for e in v.iter_errors(json.load(open(f))):
        print("%s: %s at %s" % (f, e.message, "/".join(str(p) for p in e.path)))
        bad += 1
if bad:
    sys.exit(1)
print("ok %d" % (len(sys.argv) - 2))
