#!/usr/bin/env python3
"""rtpaudio-byerelay.py IN_PORT OUT_PORT PLAYER_PID: relays a UDP RTP stream on 127.0.0.1
(RTP IN_PORT -> OUT_PORT, RTCP IN_PORT+1 -> OUT_PORT+1), one RTP packet behind. At the first
RTCP BYE it stops the player (SIGSTOP), sends it the BYE and then the RTP packet held back,
and lets it go on (SIGCONT): the player wakes with the BYE queued before the stream's last
packet, as after a stall. Prints the RTP packets relayed; exits after the second BYE or 5 s
without traffic."""
import os
import select
import signal
import socket
import sys
import time


def has_bye(buf):
    """True if the compound RTCP packet holds a BYE (packet type 203)."""
    at = 0
    while at + 4 <= len(buf):
        if buf[at + 1] == 203:
            return True
        at += 4 * (int.from_bytes(buf[at + 2:at + 4], "big") + 1)
    return False


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    inp, outp, pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rtp.bind(("127.0.0.1", inp))
    rtcp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rtcp.bind(("127.0.0.1", inp + 1))
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    print("listening", flush=True)
    held, relayed, byes = None, 0, 0
    while byes < 2:
        ready, _, _ = select.select([rtp, rtcp], [], [], 5.0)
        if not ready:
            break
        if rtp in ready:
            pkt = rtp.recv(65536)
            if held is not None:
                out.sendto(held, ("127.0.0.1", outp))
                relayed += 1
            held = pkt
        if rtcp in ready:
            pkt = rtcp.recv(65536)
            if has_bye(pkt):
                byes += 1
            if has_bye(pkt) and held is not None:
                os.kill(pid, signal.SIGSTOP)
                time.sleep(0.05)
                out.sendto(pkt, ("127.0.0.1", outp + 1))
                out.sendto(held, ("127.0.0.1", outp))
                relayed += 1
                held = None
                time.sleep(0.05)
                os.kill(pid, signal.SIGCONT)
            else:
                out.sendto(pkt, ("127.0.0.1", outp + 1))
    print(relayed)


main()
