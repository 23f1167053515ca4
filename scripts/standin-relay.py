#!/usr/bin/env python3
"""standin-relay.py SOCKET: a stand-in relay for training and timing the entry, not a relay.

Takes every hand-over on the unix socket SOCKET, answers "accepted", and closes the sockets it got:
it checks nothing (no key either), so it serves only the AOT training run of ./portcullis and
bench/entry-footprint.sh.
"""
import os
import socket
import sys

server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1])
server.listen(64)
print("listening", flush=True)
while True:
    connection, _ = server.accept()
    with connection:
        _, fds, _, _ = socket.recv_fds(connection, 8192, 253)
        connection.sendall(b"accepted\n")
        for fd in fds:
            os.close(fd)
