"""Holds many connections to a listener, sending one byte of a request head that never ends every
EVERY seconds, for at most DURATION seconds or until every connection was closed by the listener.
Prints "open" once all are connected, then one JSON line: how many were closed, and the longest time
one of them stayed open. Usage: trickle.py unix PATH|tcp HOST:PORT COUNT EVERY DURATION"""
import json
import socket
import sys
import time

kind, target, count, every, duration = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
PREFIX = b"GET /healthz HTTP/1.1\r\nX-Trickle: "


def connect():
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(target)
    else:
        host, port = target.rsplit(":", 1)
        s = socket.create_connection((host, int(port)))
    s.setblocking(False)
    return s


class Held:
    def __init__(self):
        self.socket = connect()
        self.opened = time.monotonic()
        self.closed = None
        self.sent = 0

    def step(self):
        try:
            if self.socket.recv(1) == b"":
                self.closed = time.monotonic()
                return
        except BlockingIOError:
            pass
        except OSError:
            self.closed = time.monotonic()
            return
        byte = PREFIX[self.sent:self.sent + 1] if self.sent < len(PREFIX) else b"a"
        try:
            self.socket.send(byte)
            self.sent += 1
        except OSError:
            self.closed = time.monotonic()


held = [Held() for _ in range(count)]
print("open", flush=True)
end = time.monotonic() + duration
while time.monotonic() < end and any(h.closed is None for h in held):
    for h in held:
        if h.closed is None:
            h.step()
    time.sleep(every)
lifetimes = [h.closed - h.opened for h in held if h.closed is not None]
print(json.dumps({"connections": count, "closed": len(lifetimes), "longest": max(lifetimes, default=0.0)}), flush=True)
