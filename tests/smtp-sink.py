#!/usr/bin/python3
"""A real SMTP server for the reply tests (Debian's python3-aiosmtpd).

Every message accepted is written to DIR as NNNN.eml (the DATA exactly as
received, CRLF line ends) with NNNN.json next to it (envelope sender and
recipients, whether TLS and AUTH were used).  Prints "ready PORT" when it
listens.

  smtp-sink.py --port P --dir DIR [--pidfile F]
               [--starttls CERT KEY]   offer STARTTLS (and require it for AUTH)
               [--smtps CERT KEY]      TLS from the first byte
               [--auth USER:PASS]      require AUTH (PLAIN/LOGIN) with these
               [--reject RCPT]         answer 550 to RCPT TO:<RCPT>
               [--tempfail N]          answer 451 to the first N DATA commands
"""
import argparse
import asyncio
import json
import os
import signal
import ssl
import sys

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword, SMTP


class Sink:
    def __init__(self, args):
        self.dir = args.dir
        self.reject = set(a.lower() for a in args.reject)
        self.tempfail = args.tempfail
        self.n = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.reject:
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.tempfail > 0:
            self.tempfail -= 1
            return "451 4.3.0 try again later"
        self.n = len([f for f in os.listdir(self.dir) if f.endswith(".eml")]) + 1
        base = os.path.join(self.dir, "%04d" % self.n)
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content)
        with open(base + ".json", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                       "tls": session.ssl is not None or
                       server.transport.get_extra_info("ssl_object") is not None,
                       "auth": session.authenticated}, f)
        os.rename(base + ".eml.tmp", base + ".eml")
        return "250 2.0.0 queued as %04d" % self.n


def authenticator(user, password):
    def check(server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        ok = auth_data.login.decode() == user and auth_data.password.decode() == password
        return AuthResult(success=ok, handled=False)
    return check


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--pidfile")
    p.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    p.add_argument("--smtps", nargs=2, metavar=("CERT", "KEY"))
    p.add_argument("--auth")
    p.add_argument("--reject", action="append", default=[])
    p.add_argument("--tempfail", type=int, default=0)
    args = p.parse_args()
    os.makedirs(args.dir, exist_ok=True)

    kw = {}
    ctx = None
    pair = args.starttls or args.smtps
    if pair:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(pair[0], pair[1])
    if args.starttls:
        kw["tls_context"] = ctx
        kw["require_starttls"] = bool(args.auth)
    if args.auth:
        user, password = args.auth.split(":", 1)
        kw["authenticator"] = authenticator(user, password)
        kw["auth_required"] = True
        kw["auth_require_tls"] = bool(pair)
    else:
        kw["auth_require_tls"] = False
    controller = Controller(Sink(args), hostname="127.0.0.1", port=args.port,
                            ssl_context=ctx if args.smtps else None,
                            server_hostname="localhost", **kw)
    controller.start()
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write("%d\n" % os.getpid())
    print("ready %d" % args.port, flush=True)
    # every mail is on disk before it is acknowledged: stopping can be abrupt
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    signal.signal(signal.SIGINT, lambda *a: os._exit(0))
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main())
