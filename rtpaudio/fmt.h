/* fmt.h: the payload format table: one `struct rtpaudio_fmt` a format, defined in its
 * fmt_NAME.c, found by name in fmt.c. send and play ask a format's fields and operations,
 * never its name or number. */
#ifndef RTPAUDIO_FMT_H
#define RTPAUDIO_FMT_H

#include "rtpaudio.h"

/* What a format's receiver counted, for the report (0 where a count does not apply). */
struct fmt_rx_counts {
	uint64_t malformed, fragments_dropped, dummies, poc, late;
	uint64_t groups, recovered, unrecoverable;   /* FEC */
};

/* A frame out of a receiver, in media order; dummy: an empty frame standing in for a lost
 * ADU (it keeps the reservoir in step; what it decodes to is not audio). */
typedef void fmt_out_cb(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy);

struct rtpaudio_fmt {
	const char *name;       /* --format's value, and the report's */
	const char *alias;      /* another name --format takes, or NULL */
	int pt;                 /* the RTP payload type; -1: groups, not RTP */
	uint32_t clock;         /* the reports' timestamp clock (RTCP jitter) */
	size_t min_mtu;         /* the smallest --mtu its packer can work with; 0: any */
	int adus;               /* the sender sends each frame's ADU (RFC 5219), not the frame */
	int interleave;         /* --interleave applies (RFC 5219 section 7) */
	/* groups: FEC groups of -k ADUs as -n datagrams of its own, no RTP (fmt_fec.c): the
	 * sender paces them packet by packet over the group's duration, the player takes
	 * them without RTP's sequence and source, in microseconds */
	int groups;
	const char *sdp_name;   /* the SDP's rtpmap encoding name; NULL: no SDP describes it */
	const char *no_sdp;     /* then --sdp's error */
	/* sender: one RTP payload from the frames (ADUs) f[0..n), as fmt_2250_pack; NULL for
	 * groups (fmt_fec_group) */
	fmt_pack_fn *pack;
	/* player: a receiver that turns packets (an RTP payload, or a whole datagram for
	 * groups) into frames for cb; put returns 0, or -1 for a packet it could not take
	 * (malformed), or (groups) FMT_FEC_DUP or FMT_FEC_LATE (rtpaudio.h);
	 * flush hands on what it holds (the end of a sequence), reset starts it over (its
	 * counts too, after a flush). NULL from new: out of memory. */
	void *(*rx_new)(fmt_out_cb *cb, void *arg);
	int (*rx_put)(void *rx, const uint8_t *pl, size_t len, uint16_t seq, uint32_t ts);
	void (*rx_flush)(void *rx);
	void (*rx_reset)(void *rx);
	void (*rx_counts)(const void *rx, struct fmt_rx_counts *c);
	void (*rx_free)(void *rx);
	/* the report's line of the counts only this format has (text), or NULL */
	void (*report)(const struct fmt_rx_counts *c, char *buf, size_t size);
};

/* fmt.c: the table; NULL for a name it does not have */
const struct rtpaudio_fmt *rtpaudio_fmt_find(const char *name);

/* one entry a format, in its fmt_NAME.c */
extern const struct rtpaudio_fmt fmt_2250_fmt, fmt_3119_fmt, fmt_fec_fmt;

#endif
