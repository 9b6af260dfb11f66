#!/usr/bin/env python3
"""test/fuzz/seed-rtcp.py DIR: the seed inputs of fuzz_rtcp (records as fuzz.h reads them:
a 2-byte length, one byte of arrival step, a datagram): a clean stream, a stream with a jump
and a restart, a stray packet before it, RTCP SR/RR/BYE, and the regression input of the
jitter's abs(INT32_MIN) (timestamps 2^31 apart in one clock tick)."""
import os
import struct
import sys


def rtp(seq, ts, ssrc=0x1234, pt=14, payload=b"\0\0\0\0\xff\xfb\x90\x00"):
    return struct.pack("!BBHII", 0x80, pt, seq & 0xFFFF, ts & 0xFFFFFFFF, ssrc) + payload


def sr(ssrc=0x1234, packets=10, bye=False):
    p = struct.pack("!BBHIIIIII", 0x80, 200, 6, ssrc, 3900000000, 0, 1800, packets, 4000)
    if bye:
        p += struct.pack("!BBHI", 0x81, 203, 1, ssrc)
    return p


def recs(items):
    out = b""
    for step, dgram in items:
        body = bytes([step]) + dgram
        out += struct.pack("!H", len(body)) + body
    return out


def main():
    d = os.path.join(sys.argv[1], "rtcp")
    os.makedirs(d, exist_ok=True)
    seeds = {
        "plain": [(14, rtp(i, i * 2351)) for i in range(20)] + [(1, sr(packets=20, bye=True))],
        "jump": [(14, rtp(i, i * 2351)) for i in range(8)] +
                [(14, rtp(30000 + i, i * 2351)) for i in range(8, 16)],
        "stray": [(14, rtp(20000, 0))] + [(14, rtp(i, i * 2351)) for i in range(10)],
        "reorder": [(14, rtp(i ^ 1, (i ^ 1) * 2351)) for i in range(20)] + [(3, sr())],
        "crash-jitter-int32min": [(14, rtp(1, 0)), (14, rtp(2, 0)), (0, rtp(3, 0x80000000))],
    }
    for name, items in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(recs(items))


main()
