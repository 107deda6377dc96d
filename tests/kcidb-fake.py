#!/usr/bin/env python3
# KCIDB's REST submission endpoint for the tests (kernelci/kcidb-rest's
# kcidb-restd-rs at 0b6e729: POST /submit, "Authorization: Bearer
# <token>", 401 without a good one, 400 for a body that is not JSON, 200
# "Submission received"), on 127.0.0.1.  The real receiver spools what it
# gets and its ingester checks the schema later; this one checks every
# submission against the KCIDB v5.3 schema at once and keeps the verdict:
# GET /_fake/submissions lists {"valid": bool, "errors": [...], "doc": ...}.
#
#	kcidb-fake.py --port N --schema JSON --token TOKEN [--pidfile FILE]
#
# Prints "ready PORT" once it listens.
import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, text, ctype="text/plain; charset=utf-8"):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_fake/submissions":
            with LOCK:
                return self.reply(200, json.dumps(SUBMISSIONS), "application/json")
        self.reply(404, "Not Found")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path != "/submit":
            return self.reply(404, "Not Found")
        if self.headers.get("Authorization") != "Bearer " + ARGS.token:
            return self.reply(401, "JWT is required")
        try:
            doc = json.loads(body)
        except ValueError:
            return self.reply(400, "Invalid submission format")
        errors = ["%s at %s" % (e.message, list(e.path)) for e in VALIDATOR.iter_errors(doc)]
        with LOCK:
            SUBMISSIONS.append({"valid": not errors, "errors": errors, "doc": doc})
        self.reply(200, "Submission received")


ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--schema", required=True)
ap.add_argument("--token", required=True)
ap.add_argument("--pidfile")
ARGS = ap.parse_args()
VALIDATOR = jsonschema.Draft7Validator(json.load(open(ARGS.schema)),
                                      format_checker=jsonschema.FormatChecker())
SUBMISSIONS = []
LOCK = threading.Lock()
srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
if ARGS.pidfile:
    open(ARGS.pidfile, "w").write("%d\n" % os.getpid())
print("ready %d" % ARGS.port, flush=True)
srv.serve_forever()
