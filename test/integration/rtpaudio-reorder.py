#!/usr/bin/env python3
"""rtpaudio-reorder.py MODE LISTEN_PORT TO_PORT: a UDP relay on 127.0.0.1 that reorders or
duplicates what comes to LISTEN_PORT on its way to TO_PORT, and passes what comes to
LISTEN_PORT + 1 (RTCP) to TO_PORT + 1 once the media held before it are out. Modes:
  reorder  the datagrams in blocks of 3, 4, ... 10, 3, ... (in turn), each block sent in
           reverse order: nothing lost, reordered by up to 9 places
  dup5     every datagram sent 5 times
It ends after 2 s without a datagram (after the first), printing how many it took."""
import select
import socket
import sys


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("reorder", "dup5"):
        sys.exit(__doc__)
    mode, lport, tport = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    media = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    media.bind(("127.0.0.1", lport))
    rtcp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rtcp.bind(("127.0.0.1", lport + 1))
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dst, rdst = ("127.0.0.1", tport), ("127.0.0.1", tport + 1)
    held, block, took, started = [], 3, 0, False

    def flush():
        nonlocal held
        for pkt in reversed(held):
            out.sendto(pkt, dst)
        held = []

    while True:
        r, _, _ = select.select([media, rtcp], [], [], 2.0 if started else 60.0)
        if not r:
            break
        started = True
        if media in r:
            pkt = media.recv(65536)
            took += 1
            if mode == "dup5":
                for _ in range(5):
                    out.sendto(pkt, dst)
            else:
                held.append(pkt)
                if len(held) == block:
                    flush()
                    block = block + 1 if block < 10 else 3
        if rtcp in r:
            pkt = rtcp.recv(65536)
            flush()
            out.sendto(pkt, rdst)
    flush()
    print(took)


main()
