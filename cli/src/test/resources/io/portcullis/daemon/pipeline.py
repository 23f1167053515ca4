"""Sends COUNT requests for /metrics on one connection, back to back in batches of BATCH every PAUSE
seconds, and never reads a byte of the answers (a receive buffer of 4 KiB); stops when every request
is sent or the listener closed the connection, then waits for the close, all within LIMIT seconds.
Prints "open" once connected, then one JSON line: how many requests were sent whole, and the seconds from the connect to the
close (null when the connection was still open at LIMIT).
Usage: pipeline.py unix PATH|tcp HOST:PORT COUNT BATCH PAUSE LIMIT"""
import json
import select
import socket
import sys
import time

kind, target = sys.argv[1], sys.argv[2]
count, batch, pause, limit = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
REQUEST = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
ENDED = select.POLLHUP | select.POLLERR | select.POLLRDHUP


def connect():
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = target
    else:
        host, port = target.rsplit(":", 1)
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        address = (host.strip("[]"), int(port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(address)
    s.setblocking(False)
    return s


s = connect()
opened = time.monotonic()
print("open", flush=True)
end = opened + limit
poll = select.poll()
closed = None
written = 0


def wait(events):
    """Polls for events or the end of the connection; False once the connection ended or time is up."""
    global closed
    poll.register(s, events | select.POLLRDHUP)
    ready = poll.poll(max(0, int((end - time.monotonic()) * 1000)))
    poll.unregister(s)
    if any(happened & ENDED for _, happened in ready):
        closed = time.monotonic() - opened
        return False
    return time.monotonic() < end


while written < count * len(REQUEST) and closed is None and time.monotonic() < end:
    pending = REQUEST * min(batch, count - written // len(REQUEST))
    while pending and wait(select.POLLOUT):
        try:
            sent = s.send(pending)
        except BlockingIOError:
            continue
        except OSError:
            closed = time.monotonic() - opened
            break
        written += sent
        pending = pending[sent:]
    time.sleep(pause)
while closed is None and wait(0):
    pass
print(json.dumps({"sent": written // len(REQUEST), "closed": closed}), flush=True)
