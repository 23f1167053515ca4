# A test listener: family address port v6only device reuseport [ignored argv...].
# family is 4 or 6, with "u" for a bound UDP socket instead of a TCP listener, and "r" to record:
# then it accepts (TCP) and reads, printing "conn" for each connection and "recv N" for each read.
# Prints the bound port once listening, then holds the socket until stdin closes.
import socket, sys, threading
fam, addr, port, v6only, dev, reuse = sys.argv[1:7]
udp = "u" in fam
record = "r" in fam
six = fam.startswith("6")
s = socket.socket(socket.AF_INET6 if six else socket.AF_INET, socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
if reuse == "1":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
if six:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, int(v6only))
if dev != "-":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, dev.encode())
s.bind((addr, int(port)))
if not udp:
    s.listen(8)
print(s.getsockname()[1], flush=True)
lock = threading.Lock()
def say(line):
    with lock:
        print(line, flush=True)
def datagrams():
    while True:
        data, _ = s.recvfrom(65536)
        say("recv %d" % len(data))
def reads(c):
    while True:
        data = c.recv(65536)
        if not data:
            return
        say("recv %d" % len(data))
def connections():
    while True:
        c, _ = s.accept()
        say("conn")
        threading.Thread(target=reads, args=(c,), daemon=True).start()
if record:
    threading.Thread(target=datagrams if udp else connections, daemon=True).start()
sys.stdin.read()
