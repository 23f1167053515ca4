# A test listener: family address port v6only device reuseport [ignored argv...].
# Prints the bound port once listening, then holds the socket until stdin closes.
import socket, sys
fam, addr, port, v6only, dev, reuse = sys.argv[1:7]
s = socket.socket(socket.AF_INET6 if fam == "6" else socket.AF_INET, socket.SOCK_STREAM)
if reuse == "1":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
if fam == "6":
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, int(v6only))
if dev != "-":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, dev.encode())
s.bind((addr, int(port)))
s.listen(8)
print(s.getsockname()[1], flush=True)
sys.stdin.read()
