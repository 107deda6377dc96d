#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for the lore tests.

    lore-proxy.py --listen PORT --upstream PORT --rules FILE --log FILE

Forwards every request to 127.0.0.1:UPSTREAM (the lab's public-inbox-httpd)
and logs one JSON line per request to the log: method, path, status, the
bytes sent to the client, the fault applied.  The rules file (JSON, read
again on every request, missing means none) is a list of faults:

    [{"match": "x=m", "action": "status:500", "times": 2}, ...]

match    a regular expression searched in "METHOD /path?query"
times    how many matching requests get the fault (default 1; -1: always)
action   status:N     answer HTTP N with a short body instead of forwarding
         slow:S       wait S seconds, then forward
         cut          send the headers and half of the body, then close
         truncate     a complete HTTP response whose body is cut in half
         drop         close the connection without a response
         exec:CMD     run CMD (sh -c), then forward (e.g. stop the server)

When the upstream cannot be reached, the client connection is closed
without a response, as a dead server would.
"""
import argparse
import http.client
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time

lock = threading.Lock()
used = {}


def load_rules(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def pick_fault(path, line):
    rules = load_rules(path)
    with lock:
        for i, r in enumerate(rules):
            if not re.search(r.get("match", ""), line):
                continue
            key = json.dumps(r, sort_keys=True) + str(i)
            times = r.get("times", 1)
            if times >= 0 and used.get(key, 0) >= times:
                continue
            used[key] = used.get(key, 0) + 1
            return r.get("action", "")
    return ""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def log_json(self, status, nbytes, fault):
        with lock, open(self.server.args.log, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "status": status, "bytes": nbytes,
                                "fault": fault, "time": time.time()}) + "\n")

    def drop(self, fault):
        self.log_json(0, 0, fault)
        self.close_connection = True
        try:
            self.connection.shutdown(2)
        except OSError:
            pass

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        fault = pick_fault(self.server.args.rules, f"{self.command} {self.path}")
        if fault.startswith("exec:"):
            subprocess.run(fault[5:], shell=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if fault.startswith("slow:"):
            time.sleep(float(fault[5:]))
        if fault == "drop":
            return self.drop(fault)
        if fault.startswith("status:"):
            code = int(fault[7:])
            msg = f"injected HTTP {code}\n".encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)
            return self.log_json(code, len(msg), fault)
        try:
            up = http.client.HTTPConnection("127.0.0.1", self.server.args.upstream,
                                            timeout=60)
            hdrs = {k: v for k, v in self.headers.items()
                    if k.lower() not in ("connection", "keep-alive", "proxy-connection")}
            up.request(self.command, self.path, body=body if body or
                       self.command == "POST" else None, headers=hdrs)
            res = up.getresponse()
            data = res.read()
            headers = res.getheaders()
            status = res.status
            up.close()
        except (OSError, http.client.HTTPException):
            return self.drop(fault or "upstream-down")
        if fault in ("cut", "truncate"):
            data_out = data[:len(data) // 2]
        else:
            data_out = data
        self.send_response(status)
        for k, v in headers:
            if k.lower() in ("transfer-encoding", "connection", "content-length",
                             "keep-alive"):
                continue
            self.send_header(k, v)
        length = len(data) if fault == "cut" else len(data_out)
        if self.command != "HEAD":
            self.send_header("Content-Length", str(length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data_out)
        self.wfile.flush()
        self.log_json(status, len(data_out), fault)
        if fault == "cut":
            self.close_connection = True
            self.connection.shutdown(2)

    do_GET = do_POST = do_HEAD = handle_any


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--listen", type=int, required=True)
    p.add_argument("--upstream", type=int, required=True)
    p.add_argument("--rules", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--pidfile")
    args = p.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", args.listen), Handler)
    srv.daemon_threads = True
    srv.args = args
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write(f"{os.getpid()}\n")
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
