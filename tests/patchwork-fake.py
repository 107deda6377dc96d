#!/usr/bin/env python3
# A patchwork for the tests: the REST API 1.3 as patchwork serves it, on
# 127.0.0.1, for the part lorebot uses (patches by msgid, checks), with
# every request checked against patchwork's published OpenAPI document
# (tests/fixtures/patchwork/patchwork.v1.3.yaml): the path and method,
# each query parameter (declared by the operation, of its schema), the
# body (the operation's request schema, e.g. CheckCreate: state's enum,
# target_url at most 200 characters, context a slug), the security
# (Authorization: Token <key>); and every answer it gives checked against
# the response schema of its status, so that what lorebot reads is what
# patchwork would send.  A request that breaks the schema is answered 400
# and logged as invalid: the tests count those.
#
#	patchwork-fake.py --port N --schema YAML --token KEY --project NAME
#	                  --patches FILE [--log FILE] [--pidfile FILE]
#	                  [--fail-posts N] [--lag N]
#
# --patches: a JSON object {msgid: id} of the patches patchwork has.
# --fail-posts N: the first N check creations answer 500 (after creating
# nothing).  --lag N: a msgid is found only from its (N+1)th lookup (the
# list's mail reaches patchwork late).  --log: one JSON line per request
# {method, path, query, body, status, invalid: [why...]}.  Outside the
# API, GET /_fake/checks lists every check created, with its patch's
# msgid.  Prints "ready PORT" once it listens.
import argparse
import json
import os
import re
import sys
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jsonschema
import yaml

API = "/api/1.3"


class Spec:
    def __init__(self, path):
        self.doc = yaml.safe_load(open(path))
        self.paths = []
        for p, item in self.doc["paths"].items():
            rx = "^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", re.escape(p).replace(r"\{", "{")
                              .replace(r"\}", "}")) + "$"
            self.paths.append((re.compile(rx), p, item))

    def resolve(self, o):
        while isinstance(o, dict) and "$ref" in o:
            node = self.doc
            for part in o["$ref"].lstrip("#/").split("/"):
                node = node[part]
            o = node
        return o

    def validator(self, schema):
        # the schema's own references resolve within the document
        root = {"components": self.doc["components"]}
        root.update(schema)
        return jsonschema.Draft202012Validator(root, format_checker=jsonschema.FormatChecker())

    def match(self, path):
        for rx, p, item in self.paths:
            m = rx.match(path)
            if m:
                return p, item, m.groupdict()
        return None, None, None

    def check_request(self, method, path, query, body, headers):
        """Every way the request departs from the document"""
        bad = []
        p, item, params = self.match(path)
        if not p:
            return ["%s is not a path of the API" % path], None
        op = item.get(method.lower())
        if not op:
            return ["%s %s is not an operation of the API" % (method, p)], None
        declared = {}
        for prm in item.get("parameters", []) + op.get("parameters", []):
            prm = self.resolve(prm)
            declared[(prm["in"], prm["name"])] = prm
        for name, value in params.items():
            prm = declared.get(("path", name))
            if not prm:
                bad.append("path parameter %s is not declared" % name)
                continue
            v = int(value) if prm["schema"].get("type") == "integer" and value.isdigit() else value
            for e in self.validator(prm["schema"]).iter_errors(v):
                bad.append("path parameter %s: %s" % (name, e.message))
        for name, values in query.items():
            prm = declared.get(("query", name))
            if not prm:
                bad.append("query parameter %s is not one of %s" % (name, p))
                continue
            for value in values:
                v = value
                if prm["schema"].get("type") == "integer":
                    v = int(value) if value.isdigit() else value
                for e in self.validator(prm["schema"]).iter_errors(v):
                    bad.append("query parameter %s=%r: %s" % (name, value, e.message))
        if op.get("security"):
            auth = headers.get("Authorization", "")
            if not auth.startswith("Token ") and not auth.startswith("Basic "):
                bad.append("no credentials of the operation's security schemes")
        if "requestBody" in op:
            rb = self.resolve(op["requestBody"])
            ctype = headers.get("Content-Type", "").split(";")[0].strip()
            content = rb.get("content", {})
            if ctype not in content:
                bad.append("Content-Type %r is not one of %s" % (ctype, list(content)))
            elif ctype == "application/json":
                try:
                    data = json.loads(body or b"null")
                except ValueError as ex:
                    bad.append("the body is not JSON: %s" % ex)
                else:
                    for e in self.validator(content[ctype]["schema"]).iter_errors(data):
                        bad.append("body: %s at %s" % (e.message, list(e.path)))
        elif body:
            bad.append("a body where the operation takes none")
        return bad, op

    def check_response(self, op, status, payload):
        resp = op.get("responses", {}).get(str(status))
        if resp is None:
            return ["the fake answered %d, not a documented status" % status]
        resp = self.resolve(resp)
        schema = resp.get("content", {}).get("application/json", {}).get("schema")
        if schema is None:
            return []
        return ["answer: %s at %s" % (e.message, list(e.path))
                for e in self.validator(schema).iter_errors(payload)]


class State:
    def __init__(self, a):
        self.a = a
        self.lock = threading.Lock()
        self.patches = json.load(open(a.patches))
        self.lookups = {}
        self.checks = []
        self.posts = 0
        self.log = open(a.log, "a") if a.log else None

    def record(self, entry):
        if self.log:
            with self.lock:
                self.log.write(json.dumps(entry) + "\n")
                self.log.flush()


def user():
    return {"id": 1, "url": "http://127.0.0.1/api/1.3/users/1/", "username": "lorebot",
            "first_name": "", "last_name": "", "email": "lorebot@example.org"}


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, payload, op=None, headers=None):
        body = json.dumps(payload).encode()
        if op is not None:
            self.problems += SPEC.check_response(op, status, payload)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept")
        self.send_header("Allow", "GET, POST, HEAD, OPTIONS")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.status = status

    def handle_any(self, method):
        u = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        query = parse_qs(u.query, keep_blank_values=True)
        self.problems, self.status = [], 0
        try:
            self.route(method, u, query, body)
        finally:
            STATE.record({"method": method, "path": u.path, "query": query,
                          "body": body.decode(errors="replace"), "status": self.status,
                          "invalid": self.problems})

    def route(self, method, u, query, body):
        path = u.path
        if path == "/_fake/checks" and method == "GET":
            with STATE.lock:
                return self.answer(200, STATE.checks)
        if not path.startswith(API + "/"):
            return self.answer(404, {"detail": "Not found."})
        if not path.endswith("/"):
            # Django's APPEND_SLASH: every API URL ends in a slash
            self.problems.append("%s without the trailing slash patchwork's URLs have" % path)
            return self.answer(301, {"detail": "see %s/" % path},
                               headers={"Location": path + "/"})
        bad, op = SPEC.check_request(method, path.rstrip("/"), query,
                                     body, self.headers)
        if bad:
            self.problems += bad
            return self.answer(400, {"detail": bad})
        m = re.match(r"^%s/patches/(\d+)/checks/$" % API, path)
        if path == API + "/patches/" and method == "GET":
            return self.patches(query, op)
        if m and method == "POST":
            return self.create(int(m.group(1)), body, op)
        if m and method == "GET":
            return self.list_checks(int(m.group(1)), query, op)
        return self.answer(404, {"detail": "Not found."})

    def patch_object(self, msgid, pid):
        a = STATE.a
        return {"id": pid, "url": "http://127.0.0.1/api/1.3/patches/%d/" % pid,
                "web_url": "http://127.0.0.1/project/%s/patch/%s/" % (a.project, msgid),
                "project": {"id": 1, "url": "http://127.0.0.1/api/1.3/projects/1/",
                            "name": a.project, "link_name": a.project,
                            "list_id": "%s.kvack.org" % a.project,
                            "list_email": "%s@kvack.org" % a.project,
                            "web_url": "https://www.kernel.org/",
                            "scm_url": "https://git.kernel.org/",
                            "webscm_url": "https://git.kernel.org/",
                            "list_archive_url": "https://lore.kernel.org/%s/" % a.project,
                            "list_archive_url_format": None,
                            "commit_url_format": ""},
                "msgid": "<%s>" % msgid, "list_archive_url": None, "date": now(),
                "name": "patch", "commit_ref": None, "pull_url": None, "state": "new",
                "archived": False, "hash": "0" * 40,
                "submitter": {"id": 1, "url": "http://127.0.0.1/api/1.3/people/1/",
                              "name": "A U Thor", "email": "author@example.org"},
                "delegate": None,
                "mbox": "http://127.0.0.1/project/%s/patch/%s/mbox/" % (a.project, msgid),
                "series": [], "comments": "http://127.0.0.1/api/1.3/patches/%d/comments/" % pid,
                "check": "pending",
                "checks": "http://127.0.0.1/api/1.3/patches/%d/checks/" % pid,
                "tags": {}, "related": []}

    def patches(self, query, op):
        msgid = query.get("msgid", [None])[0]
        project = query.get("project", [None])[0]
        out = []
        with STATE.lock:
            n = STATE.lookups[msgid] = STATE.lookups.get(msgid, 0) + 1
            pid = STATE.patches.get(msgid)
        if pid and project == STATE.a.project and n > STATE.a.lag:
            out.append(self.patch_object(msgid, pid))
        return self.answer(200, out, op)

    def check_object(self, c):
        return {"id": c["id"], "url": "http://127.0.0.1/api/1.3/patches/%d/checks/%d/"
                % (c["patch"], c["id"]), "user": user(), "date": c["date"],
                "state": c["state"], "target_url": c["target_url"],
                "context": c["context"], "description": c["description"]}

    def create(self, pid, body, op):
        if self.headers.get("Authorization") != "Token " + STATE.a.token:
            return self.answer(403, {"detail": "You do not have permission to perform "
                                               "this action."}, op)
        with STATE.lock:
            if pid not in STATE.patches.values():
                return self.answer(404, {"detail": "Not found."}, op)
            STATE.posts += 1
            if STATE.posts <= STATE.a.fail_posts:
                self.send_response(500)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", "21")
                self.end_headers()
                self.wfile.write(b"<h1>Server Error</h1>")
                self.status = 500
                return None
            data = json.loads(body)
            msgid = [m for m, i in STATE.patches.items() if i == pid][0]
            c = {"id": len(STATE.checks) + 1, "patch": pid, "msgid": msgid, "date": now(),
                 "state": data["state"], "target_url": data.get("target_url"),
                 "context": data.get("context", "default"),
                 "description": data.get("description")}
            STATE.checks.append(c)
        return self.answer(201, self.check_object(c), op)

    def list_checks(self, pid, query, op):
        with STATE.lock:
            if pid not in STATE.patches.values():
                return self.answer(404, {"detail": "Not found."}, op)
            cs = [self.check_object(c) for c in STATE.checks if c["patch"] == pid
                  and ("context" not in query or c["context"] == query["context"][0])
                  and ("state" not in query or c["state"] == query["state"][0])]
        return self.answer(200, cs, op)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_DELETE(self):
        self.handle_any("DELETE")


def main():
    global SPEC, STATE
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--patches", required=True)
    ap.add_argument("--log")
    ap.add_argument("--pidfile")
    ap.add_argument("--fail-posts", type=int, default=0)
    ap.add_argument("--lag", type=int, default=0)
    a = ap.parse_args()
    SPEC = Spec(a.schema)
    STATE = State(a)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    if a.pidfile:
        open(a.pidfile, "w").write("%d\n" % os.getpid())
    print("ready %d" % a.port, flush=True)
    srv.serve_forever()


main()
