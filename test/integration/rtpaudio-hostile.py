#!/usr/bin/env python3
"""rtpaudio-hostile.py SCENARIO MP3 PORT [SEED]: a hostile RTP sender (RFC 2250, one MPEG
audio frame a packet, 4 ms apart, faster than real time, but for the timestamp jumps) to 127.0.0.1:PORT, its RTCP (an SR
with its packet count, and a BYE) to PORT+1. Prints the counts the player must report, as
KEY=VALUE lines. Scenarios:
  clean     the stream as it is
  jump      the sequence numbers jump by +30000 at packet 60 (the timestamps go on)
  stray     one packet numbered +20000 before the stream
  restart   the sender restarts at packet 40 with a new SSRC, sequence and timestamps
  tsjump    the timestamps jump 10 s ahead at packet 40 (more than the time that passed)
  tsback    the timestamps jump 5 s back at packet 40 (7 packets late until the jump is
            clear, then spliced)
  dup       every 10th packet is sent twice
  foreign   a packet of another SSRC (numbered in sequence) after every 5th
  wrongpt   a packet of payload type 26 after every 7th
  tail      the packets after the 60th are not sent; the SR counts them all
  mutated   every packet, then a copy of it with a few random bytes changed (SEED)
  rate      from packet 40 on, the frames of HOSTILE_MP3B (another sample rate): the
            player refuses the change (exit 1), the output holds the frames before it
  zerolen   after every 10th packet one the depacketizer must reject, in turn: an empty
            payload, the RFC 2250 header alone, its MBZ bytes not 0, a padding count of
            0 (not RTP): malformed, never played
  stall     the sender stops after packet 40 for longer than the player's --idle (3 s):
            the stream ends at the idle timeout, not satisfactory
  pause     the sender pauses 1.5 s at packet 40, the timestamps 1.5 s on, the sequence
            without a gap: a pause, not a loss
  srlie     the last SR claims 100000 packets (its timestamp the last packet's): the
            timestamps support none beyond what came
  intruder  at packet 40, from another socket, while the stream goes on: a burst of 6
            packets of another SSRC in sequence (not followed), then 3 of the stream's own
            SSRC and next sequence numbers (a collision, RFC 3550 8.2: not played)
  restart4  the sender restarts with a new SSRC for its last 4 packets: followed
  jumploss  packets 30-34 lost, then the sequence jumps at 60: 5 lost
  restartloss packets 20-22 lost, then the restart at 40: 3 lost"""
import os
import random
import socket
import struct
import sys
import time

BITRATES = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
RATES = [44100, 48000, 32000]


def frames(data):
    """MPEG-1 layer III frames of a CBR file (lame -t: no tag frame)."""
    out, at = [], 0
    if data[:3] == b"ID3":
        at = 10 + ((data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9])
    while at + 4 <= len(data):
        b1, b2 = data[at + 1], data[at + 2]
        if data[at] != 0xFF or (b1 & 0xFE) != 0xFA or (b2 >> 4) in (0, 15) or (b2 >> 2) & 3 == 3:
            at += 1
            continue
        n = 144000 * BITRATES[b2 >> 4] // RATES[(b2 >> 2) & 3] + ((b2 >> 1) & 1)
        if at + n > len(data):
            break
        out.append((data[at:at + n], RATES[(b2 >> 2) & 3]))
        at += n
    return out


def rtp(seq, ts, ssrc, payload, pt=14):
    return struct.pack("!BBHII", 0x80, pt, seq & 0xFFFF, ts & 0xFFFFFFFF, ssrc) + payload


def sr(ssrc, packets, octets, bye, ts=0):
    p = struct.pack("!BBHIIIIII", 0x80, 200, 6, ssrc, 3900000000, 0, ts & 0xFFFFFFFF,
                    packets, octets)
    if bye:
        p += struct.pack("!BBHI", 0x81, 203, 1, ssrc)
    return p


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    sc, path, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rnd = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    with open(path, "rb") as f:
        fr = frames(f.read())
    n = len(fr)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dst, rdst = ("127.0.0.1", port), ("127.0.0.1", port + 1)
    ssrc, seq0, ts0 = 0x5EED0001, 1000, 777
    sent = {}   # SSRC: packets counted by its SRs
    want = {"played": n, "late": 0, "duplicate": 0, "malformed": 0, "wrong_pt": 0,
            "other": 0, "unvalidated": 0, "sources": 1, "restarts": 0, "frames_played": n,
            "frames_concealed": 0}

    # real time around a timestamp jump: a schedule jump shows as a constant offset
    pace = 1152 / fr[0][1] if sc in ("tsjump", "tsback") else 0.004
    s2 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # an intruder's own address
    frb = []
    if sc == "rate":
        with open(os.environ["HOSTILE_MP3B"], "rb") as f:
            frb = frames(f.read())
        want = {"frames_played": 40, "frames_written": 40, "frames_concealed": 0,
                "frames_refused": len(frb), "satisfactory": "false", "exit": 1}
    last_ts, extra = ts0, 0

    def out(pkt):
        s.sendto(pkt, dst)
        time.sleep(pace)

    tsjump = 0
    fseq, fts = 0, 0
    for i, (frame, rate) in enumerate(fr):
        seq, ts = seq0 + i + extra, ts0 + i * 1152 * 90000 // rate
        if sc == "rate" and i >= 40:
            if i - 40 >= len(frb):
                break
            frame = frb[i - 40][0]
        if sc == "stall" and i == 40:
            time.sleep(3.6)
            want = {"packets_played": 40, "frames_played": 40, "frames_concealed": 0,
                    "stream_end": "idle", "satisfactory": "false"}
            break
        if sc == "pause" and i == 40:
            time.sleep(1.5)
            tsjump = 135000
            want["pauses"] = 1
        if sc in ("jumploss", "restartloss") and i in ((30, 31, 32, 33, 34) if
                                                      sc == "jumploss" else (20, 21, 22)):
            # the frame after the gap lacks its bit reservoir: undecodable, not counted here
            want["played"] -= 1
            want.pop("frames_played", None)
            want.pop("frames_concealed", None)
            want["frames_gap"] = want.get("frames_gap", 0) + 1
            want["packets_lost"] = want.get("packets_lost", 0) + 1
            want["satisfactory"] = "false"
            continue
        if sc == "intruder" and i == 40:
            for k in range(6):
                s2.sendto(rtp(30000 + k, ts + k * 2351, 0xBAD0BAD0, b"\0\0\0\0" +
                              fr[(i + 50 + k) % n][0]), dst)
                time.sleep(0.002)
            for k in range(3):  # and the source's own SSRC, its next numbers (8.2)
                s2.sendto(rtp(seq + 1 + k, ts, ssrc, b"\0\0\0\0" + fr[(i + 70) % n][0]),
                          dst)
            want["other"] += 9
        if sc == "stray" and i == 0:
            out(rtp(seq + 20000, ts + 450000, ssrc, b"\0\0\0\0" + frame))
            want["unvalidated"] = 1
        if sc in ("jump", "jumploss") and i >= 60:
            seq += 30000
            want["restarts"] = 1
        if sc in ("restart", "restartloss", "restart4") and i == (n - 4 if sc == "restart4"
                                                                  else 40):
            s.sendto(sr(ssrc, sent[ssrc], 0, False, last_ts), rdst)
            ssrc, want["sources"] = 0x5EED0002, 2
            fseq, fts = 5000 - seq, 123456789 - ts
        if sc in ("tsjump", "tsback") and i == 40:
            tsjump = 900000 if sc == "tsjump" else -450000
            want["timestamp_splices"] = want["schedule_jumps"] = 1
            if sc == "tsback":  # late until 8 in a row show the jump (JITTER_JUMP_RUN)
                want["late"], want["played"] = 7, n - 7
                want["frames_played"] = n - 7
        if sc == "tail" and i >= 60:
            want["played"] = want["frames_played"] = 60
            want["frames_missing"] = n - 60
            sent[ssrc] = sent.get(ssrc, 0) + 1
            last_ts = ts
            continue
        pkt = rtp(seq + fseq, ts + fts + tsjump, ssrc, b"\0\0\0\0" + frame)
        out(pkt)
        last_ts = ts + fts + tsjump
        sent[ssrc] = sent.get(ssrc, 0) + 1
        if sc == "zerolen" and i % 10 == 9:
            extra += 1
            kind = (i // 10) % 4
            bad = [rtp(seq + fseq + 1, last_ts, ssrc, b""),
                   rtp(seq + fseq + 1, last_ts, ssrc, b"\0\0\0\0"),
                   rtp(seq + fseq + 1, last_ts, ssrc, b"\1\0\0\0" + frame),
                   bytes([0xA0]) + rtp(seq + fseq + 1, last_ts, ssrc, b"\0\0\0\0" +
                                       frame)[1:-1] + bytes([0])][kind]
            out(bad)
            sent[ssrc] += 1
            want["malformed"] += 1
            want["packets_bad"] = want["malformed"]
        if sc == "dup" and i % 10 == 0:
            out(pkt)
            want["duplicate"] += 1
        if sc == "foreign" and i % 5 == 4:
            out(rtp(40000 + i // 5, ts * 3, 0xF0E1D2C3, b"\0\0\0\0" + frame))
            want["other"] += 1
        if sc == "wrongpt" and i % 7 == 6:
            out(rtp(seq + 7, ts, ssrc, b"\0\0\0\0JFIF" + frame[:50], pt=26))
            want["wrong_pt"] += 1
        if sc == "mutated":  # two mutants of each packet: header bytes half the time
            for _ in range(2):
                m = bytearray(pkt)
                for _ in range(rnd.randint(1, 4)):
                    at = rnd.randrange(16) if rnd.random() < 0.5 else rnd.randrange(len(m))
                    m[at] = rnd.randrange(256)
                if rnd.random() < 0.2:
                    m = m[:rnd.randrange(len(m))] if rnd.random() < 0.5 else m + m[:300]
                out(bytes(m))
    time.sleep(0.05)
    if sc == "srlie":
        sent[ssrc] = 100000
        want["sender_packets"] = 100000
        want["sender_packets_missing"] = want["frames_missing"] = 0
        want["satisfactory"] = "true"
    if sc == "rate":  # the player's last packets go before the BYE
        time.sleep(0.5)
    s.sendto(sr(ssrc, sent[ssrc], 0, True, last_ts), rdst)
    if sc in ("stall", "rate"):
        for k, v in sorted(want.items()):
            print("%s=%s" % (k, v))
        return
    want["received"] = sum(want[k] for k in ("played", "late", "duplicate", "malformed",
                                              "wrong_pt", "other", "unvalidated"))
    if sc == "stray":
        want["received"] = n + 1
    if sc == "mutated":  # only the sum is known
        want = {}
    names = {"received": "packets_received", "played": "packets_played",
             "late": "packets_late", "duplicate": "packets_duplicate",
             "malformed": "packets_malformed", "wrong_pt": "packets_wrong_pt",
             "other": "packets_other_source", "unvalidated": "packets_unvalidated",
             "restarts": "sequence_restarts"}
    for k, v in sorted(want.items()):
        print("%s=%s" % (names.get(k, k), v))


main()
