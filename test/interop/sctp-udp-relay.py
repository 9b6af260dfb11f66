#!/usr/bin/env python3
"""sctp-udp-relay.py: a UDP relay between an SCTP-over-UDP client and its server (RFC 6951),
dropping the server's packets that carry a chunk of the given types.

Usage: sctp-udp-relay.py CLIENT_SIDE_PORT SERVER_SIDE_PORT SERVER_PORT DROP_TYPES COUNT_FILE

The client sends to 127.0.0.1:CLIENT_SIDE_PORT; the relay passes its packets on to
127.0.0.1:SERVER_PORT from SERVER_SIDE_PORT, and the server's answers back to the client,
except those with a chunk whose type is in DROP_TYPES (comma-separated numbers, e.g. 14 for
SHUTDOWN COMPLETE). COUNT_FILE holds "passed N dropped M", rewritten at each packet.
Ends on SIGTERM.
"""
import selectors
import signal
import socket
import sys


def chunk_types(pkt):
    """The chunk types of an SCTP packet (common header of 12 bytes, then chunks)."""
    types, off = [], 12
    while off + 4 <= len(pkt):
        ctype, clen = pkt[off], int.from_bytes(pkt[off + 2:off + 4], "big")
        types.append(ctype)
        if clen < 4:
            break
        off += (clen + 3) & ~3
    return types


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    cport, sport, server, drop, count_file = (int(sys.argv[1]), int(sys.argv[2]),
                                               int(sys.argv[3]),
                                               {int(t) for t in sys.argv[4].split(",")},
                                               sys.argv[5])
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    a.bind(("127.0.0.1", cport))
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    b.bind(("127.0.0.1", sport))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sel = selectors.DefaultSelector()
    sel.register(a, selectors.EVENT_READ)
    sel.register(b, selectors.EVENT_READ)
    client, passed, dropped = None, 0, 0
    while True:
        for key, _ in sel.select():
            pkt, src = key.fileobj.recvfrom(65536)
            if key.fileobj is a:
                client = src
                b.sendto(pkt, ("127.0.0.1", server))
                passed += 1
            elif client is not None and not drop.intersection(chunk_types(pkt)):
                a.sendto(pkt, client)
                passed += 1
            else:
                dropped += 1
            with open(count_file, "w") as f:
                f.write("passed %d dropped %d\n" % (passed, dropped))


if __name__ == "__main__":
    main()
