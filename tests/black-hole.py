#!/usr/bin/env python3
# A lore that never answers: accepts on 127.0.0.1:PORT, reads whatever
# comes, never writes; logs "accepted" per connection and "closed" when
# a peer goes away, to LOG.  Usage: black-hole.py PORT LOG
import socket
import sys
import threading

s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
log = open(sys.argv[2], "a", buffering=1)


def peer(c):
    log.write("accepted\n")
    while c.recv(4096):
        pass
    log.write("closed\n")


while True:
    c, _ = s.accept()
    threading.Thread(target=peer, args=(c,), daemon=True).start()
