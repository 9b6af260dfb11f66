#!/usr/bin/python3
# patches-streams.py PORT LOG: a one-association HTTP/SCTP server for patches-httperf.sh: it
# writes each request's stream and PPID to LOG and answers with 100 bytes on that stream,
# PPID 63, so the test sees the stream each call was given.
import socket, struct, sys

IPPROTO_SCTP = 132
SCTP_INITMSG, SCTP_RECVRCVINFO = 2, 32          # socket options (linux/sctp.h)
SCTP_SNDINFO, SCTP_RCVINFO = 2, 3               # cmsg types

port, out = int(sys.argv[1]), sys.argv[2]
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SCTP)
ls.setsockopt(IPPROTO_SCTP, SCTP_INITMSG, struct.pack("HHHH", 16, 16, 0, 0))
ls.setsockopt(IPPROTO_SCTP, SCTP_RECVRCVINFO, 1)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(1)
print("listening", flush=True)
c, _ = ls.accept()
log = open(out, "w")
resp = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b"x" * 100
while True:
    data, anc, flags, _ = c.recvmsg(65536, 256)
    if not data:
        break
    sid = ppid = -1
    for lvl, typ, d in anc:
        if lvl == IPPROTO_SCTP and typ == SCTP_RCVINFO:
            # rcv_sid, rcv_ssn, rcv_flags, (pad), rcv_ppid, ...
            sid, _ssn, _fl, _pad, ppid = struct.unpack("=HHHHI", d[:12])
            ppid = socket.ntohl(ppid)
    log.write("%d %d\n" % (sid, ppid))
    log.flush()
    if sid < 0:
        break
    c.sendmsg([resp], [(IPPROTO_SCTP, SCTP_SNDINFO,
                        struct.pack("=HHIII", sid, 0, socket.htonl(63), 0, 0))])
