#!/usr/bin/env python3
"""httpload-badserver.py MODE: a misbehaving HTTP/1.1 server on 127.0.0.1 for error tests.

Prints its port on stdout, then serves until killed. MODE: reset (RST after the request),
silent (reads, never answers), midbody (Content-Length 1000, sends 100 bytes, closes),
malformed (garbage status line), chunked (a good chunked reply), badchunk (bad chunk size),
close (a body delimited by closing), corrupt (Content-Length right, bytes wrong),
trailer (a chunked reply in two chunks with a trailer section), slow (a good reply after 0.8 s).
"""
import socket, struct, sys, threading, time

mode = sys.argv[1]
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(128)
print(ls.getsockname()[1], flush=True)
BODY = bytes(range(256)) * 4  # 1024 bytes


def read_request(c):
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = c.recv(4096)
        if not d:
            return None
        buf += d
    return buf


def serve(c):
    try:
        while True:
            if read_request(c) is None:
                return
            if mode == "reset":
                c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            if mode == "silent":
                while c.recv(4096):
                    pass
                return
            if mode == "midbody":
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 100)
                return
            if mode == "malformed":
                c.sendall(b"HTTX/9.9 abc\r\nwhat\r\n\r\n")
                return
            if mode == "chunked":
                c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                          b"400\r\n" + BODY + b"\r\n0\r\n\r\n")
                continue
            if mode == "trailer":
                c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                          b"200;ext=1\r\n" + BODY[:512] + b"\r\n200\r\n" + BODY[512:] +
                          b"\r\n0\r\nX-Checksum: abc\r\nX-Other: de\r\n\r\n")
                continue
            if mode == "slow":
                time.sleep(0.8)
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1024\r\n\r\n" + BODY)
                continue
            if mode == "badchunk":
                c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                return
            if mode == "close":
                c.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + BODY)
                return
            if mode == "corrupt":
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1024\r\n\r\n" + b"z" * 1024)
                continue
            return
    except OSError:
        pass
    finally:
        c.close()


while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
