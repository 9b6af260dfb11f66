/* play_report.c: `rtpaudio play`'s report: the accounting (every packet and frame), the
 * verdict, text or JSON from one table of its values. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "play.h"

/* The accounting: every datagram on the media path has one fate, every frame of the
 * timeline is played or concealed (doc/rtpaudio.1, STATISTICS AND VERDICT). */
struct play_tally {
	uint64_t received, played, late, duplicates, malformed, wrong_pt, other, unvalidated,
	    oversized, lost;
	uint64_t timeline, concealed_sum, frames_sum;
	int64_t sender;             /* packets the senders' last SRs counted; -1: no SR */
	uint64_t supported, unsupported; /* of them, what the timestamps support; beyond */
	uint64_t covered, short_pk, short_frames;
	int64_t written;            /* frames the outputs hold; -1: no output */
	int adds_up, output_ok;     /* the accounting; played + concealed == written */
};

static void
play_tally(const struct play *p, struct play_tally *t)
{
	const struct jitter *j = p->jb;

	memset(t, 0, sizeof(*t));
	t->received = p->pk_datagrams;
	t->played = p->fmt->groups ? p->fec_ok : p->acc.played + j->received - p->pk_rejected;
	t->late = p->acc.late + j->late + p->fec_late;
	t->duplicates = p->acc.duplicates + j->duplicates + p->pk_duplicates;
	t->malformed = p->bad_packets + p->pk_rejected;
	t->wrong_pt = p->pk_wrong_pt;
	t->other = p->other_ssrc;
	t->unvalidated = p->pk_unvalidated;
	t->oversized = p->pk_oversized + p->acc.too_big + j->too_big;
	t->lost = p->acc.lost + j->lost;
	t->timeline = p->frames_played + p->frames_concealed;
	t->concealed_sum = p->frames_gap + p->frames_undecodable + p->frames_dummy +
	    p->frames_tail;
	t->frames_sum = p->frames_played + p->frames_undecodable + p->frames_dummy +
	    p->frames_stale + p->info_frames + p->frames_malformed + p->frames_refused;
	t->adds_up = t->received == t->played + t->late + t->duplicates + t->malformed +
	    t->wrong_pt + t->other + t->unvalidated + t->oversized &&
	    t->concealed_sum == p->frames_concealed && t->frames_sum == p->frames_in;
	t->written = play_frames_written(p);
	t->output_ok = t->written < 0 || (uint64_t)t->written == t->timeline;
	/* what the sender says it sent beyond what the timeline covers: frames short at an
	 * end, in the timeline's frames per packet */
	t->sender = -1;
	t->covered = p->span_done + rtcp_rx_span(&p->rx);
	if (!p->fmt->groups && p->have_sr_packets) {
		t->supported = p->sr_packets_done + play_sr_supported(p);
		t->sender = (int64_t)(p->sr_claimed_done + p->sr_packets);
		t->unsupported = (uint64_t)t->sender - t->supported;
		if (t->supported > t->covered)
			t->short_pk = t->supported - t->covered;
		if (t->short_pk > 0)
			t->short_frames = t->covered > 0 ?
			    (t->short_pk * t->timeline + t->covered - 1) / t->covered : t->short_pk;
	}
}

/* The report's counts, once: the JSON object has them in this order, the text takes them from
 * here too, so the two cannot say different things. */
enum play_kind { PK_U, PK_I, PK_D1, PK_D2, PK_D3, PK_S, PK_B };
enum play_f {
	F_RECEIVED, F_LOST, F_LATE, F_DUP, F_BAD, F_PLAYED, F_CONCEALED, F_UNDECODABLE, F_FRAGS,
	F_GAP, F_LOSS, F_DURATION, F_FORMAT, F_DUMMIES, F_POC, F_DEINT_LATE, F_FEC_GROUPS,
	F_FEC_RECOVERED, F_FEC_UNRECOVERABLE, F_RR_SENT, F_SR_RECEIVED, F_JITTER, F_CPU,
	F_PK_PLAYED, F_PK_MALFORMED, F_PK_WRONG_PT, F_PK_OTHER, F_PK_UNVALIDATED, F_PK_OVERSIZED,
	F_SOURCES, F_RESTARTS, F_TIMELINE, F_FR_GAP, F_FR_DUMMY, F_FR_END, F_FR_IN, F_FR_STALE,
	F_FR_INFO, F_FR_MALFORMED, F_SENDER, F_SENDER_MISSING, F_FR_MISSING, F_SPLICES,
	F_JUMPS, F_ADDS_UP, F_WRITTEN, F_REFUSED, F_OUTPUT_OK, F_END, F_UNSUPPORTED, F_PAUSES, F_FR_PAUSED, F_SNR, F_REF_OFFSET, F_SNR_SEGS, F_INTACT, F_SATISFACTORY, F_N
};
static const struct {
	const char *key;
	enum play_kind kind;
	int snr;                    /* only with --reference */
} play_fields[F_N] = {
	[F_RECEIVED] = { "packets_received", PK_U, 0 },
	[F_LOST] = { "packets_lost", PK_U, 0 },
	[F_LATE] = { "packets_late", PK_U, 0 },
	[F_DUP] = { "packets_duplicate", PK_U, 0 },
	[F_BAD] = { "packets_bad", PK_U, 0 },
	[F_PLAYED] = { "frames_played", PK_U, 0 },
	[F_CONCEALED] = { "frames_concealed", PK_U, 0 },
	[F_UNDECODABLE] = { "frames_undecodable", PK_U, 0 },
	[F_FRAGS] = { "fragments_dropped", PK_U, 0 },
	[F_GAP] = { "longest_gap_ms", PK_D1, 0 },
	[F_LOSS] = { "residual_frame_loss_pct", PK_D3, 0 },
	[F_DURATION] = { "duration_s", PK_D3, 0 },
	[F_FORMAT] = { "format", PK_S, 0 },
	[F_DUMMIES] = { "adu_dummies", PK_U, 0 },
	[F_POC] = { "poc_descriptors", PK_U, 0 },
	[F_DEINT_LATE] = { "deinterleave_late", PK_U, 0 },
	[F_FEC_GROUPS] = { "fec_groups", PK_U, 0 },
	[F_FEC_RECOVERED] = { "fec_recovered", PK_U, 0 },
	[F_FEC_UNRECOVERABLE] = { "fec_unrecoverable", PK_U, 0 },
	[F_RR_SENT] = { "rtcp_rr_sent", PK_U, 0 },
	[F_SR_RECEIVED] = { "rtcp_sr_received", PK_U, 0 },
	[F_JITTER] = { "jitter_ms", PK_D2, 0 },
	[F_CPU] = { "cpu_s", PK_D3, 0 },
	[F_PK_PLAYED] = { "packets_played", PK_U, 0 },
	[F_PK_MALFORMED] = { "packets_malformed", PK_U, 0 },
	[F_PK_WRONG_PT] = { "packets_wrong_pt", PK_U, 0 },
	[F_PK_OTHER] = { "packets_other_source", PK_U, 0 },
	[F_PK_UNVALIDATED] = { "packets_unvalidated", PK_U, 0 },
	[F_PK_OVERSIZED] = { "packets_oversized", PK_U, 0 },
	[F_SOURCES] = { "sources", PK_U, 0 },
	[F_RESTARTS] = { "sequence_restarts", PK_U, 0 },
	[F_TIMELINE] = { "frames_timeline", PK_U, 0 },
	[F_FR_GAP] = { "frames_gap", PK_U, 0 },
	[F_FR_DUMMY] = { "frames_dummy", PK_U, 0 },
	[F_FR_END] = { "frames_end", PK_U, 0 },
	[F_FR_IN] = { "frames_in", PK_U, 0 },
	[F_FR_STALE] = { "frames_stale", PK_U, 0 },
	[F_FR_INFO] = { "frames_info", PK_U, 0 },
	[F_FR_MALFORMED] = { "frames_malformed", PK_U, 0 },
	[F_SENDER] = { "sender_packets", PK_I, 0 },
	[F_SENDER_MISSING] = { "sender_packets_missing", PK_U, 0 },
	[F_FR_MISSING] = { "frames_missing", PK_U, 0 },
	[F_SPLICES] = { "timestamp_splices", PK_U, 0 },
	[F_JUMPS] = { "schedule_jumps", PK_U, 0 },
	[F_ADDS_UP] = { "accounting_adds_up", PK_B, 0 },
	[F_WRITTEN] = { "frames_written", PK_I, 0 },
	[F_REFUSED] = { "frames_refused", PK_U, 0 },
	[F_OUTPUT_OK] = { "output_adds_up", PK_B, 0 },
	[F_END] = { "stream_end", PK_S, 0 },
	[F_UNSUPPORTED] = { "sender_packets_unsupported", PK_U, 0 },
	[F_PAUSES] = { "pauses", PK_U, 0 },
	[F_FR_PAUSED] = { "frames_paused", PK_U, 0 },
	[F_SNR] = { "segsnr_db", PK_D2, 1 },
	[F_REF_OFFSET] = { "ref_offset", PK_I, 1 },
	[F_SNR_SEGS] = { "snr_segments", PK_U, 1 },
	[F_INTACT] = { "intact_segments_pct", PK_D2, 1 },
	[F_SATISFACTORY] = { "satisfactory", PK_B, 0 },
};
static const char *const play_end_names[] = {
	[PLAY_END_NONE] = "none", [PLAY_END_BYE] = "bye", [PLAY_END_CLOSED] = "closed",
	[PLAY_END_RESET] = "reset",
	[PLAY_END_IDLE] = "idle", [PLAY_END_DURATION] = "duration", [PLAY_END_OUTPUT] = "output",
};
struct play_val {
	uint64_t u;     /* PK_U, PK_B */
	int64_t i;      /* PK_I */
	double d;       /* PK_D* */
	const char *s;  /* PK_S */
};

static void
play_json(const struct play *p, const struct play_val *v)
{
	const char *sep = "{";
	int f;

	for (f = 0; f < F_N; f++) {
		if (play_fields[f].snr && !p->have_snr)
			continue;
		printf("%s\"%s\":", sep, play_fields[f].key);
		sep = ",";
		switch (play_fields[f].kind) {
		case PK_U: printf("%llu", (unsigned long long)v[f].u); break;
		case PK_I: printf("%lld", (long long)v[f].i); break;
		case PK_D1: printf("%.1f", v[f].d); break;
		case PK_D2: printf("%.2f", v[f].d); break;
		case PK_D3: printf("%.3f", v[f].d); break;
		case PK_S: printf("\"%s\"", v[f].s); break;
		case PK_B: printf("%s", v[f].u ? "true" : "false"); break;
		}
	}
	printf("}\n");
}

#define U(f) ((unsigned long long)v[f].u)

/* The report as text: the same values as the JSON's (play_fields) */
static void
play_text(const struct play *p, const struct play_val *v, const struct fmt_rx_counts *fc)
{
	char snr[400] = "", extra[160] = "", sender[160] = "no RTCP SR with a packet count";

	if (p->have_snr)
		snprintf(snr, sizeof(snr), "segmental SNR: %.2f dB against %s (offset %lld sample "
		    "frames, %llu segments of 20 ms)\nintact segments: %.2f %% (20 ms segments at "
		    "%.0f dB SNR or better)\n", v[F_SNR].d, p->ref_path, (long long)v[F_REF_OFFSET].i,
		    U(F_SNR_SEGS), v[F_INTACT].d, COMPARE_INTACT_DB);
	if (p->fmt->report != NULL)
		p->fmt->report(fc, extra, sizeof(extra));
	if (v[F_SENDER].i >= 0)
		snprintf(sender, sizeof(sender), "%lld packets in its RTCP SRs (%llu more than "
		    "its timestamps support), %llu beyond the sequence numbers received (%llu "
		    "frames missing)", (long long)v[F_SENDER].i, U(F_UNSUPPORTED),
		    U(F_SENDER_MISSING), U(F_FR_MISSING));
	printf("packets: %llu received, %llu lost, %llu late, %llu duplicated, %llu bad\n"
	    "frames: %llu played, %llu concealed (%llu undecodable after a loss)\n"
	    "longest gap: %.1f ms\nresidual frame loss: %.3f %%\naudio: %.3f s\n"
	    "rtcp: %llu receiver reports sent, %llu sender reports received, jitter %.2f ms\n"
	    "%s%s",
	    U(F_RECEIVED), U(F_LOST), U(F_LATE), U(F_DUP), U(F_BAD), U(F_PLAYED), U(F_CONCEALED),
	    U(F_UNDECODABLE), v[F_GAP].d, v[F_LOSS].d, v[F_DURATION].d, U(F_RR_SENT),
	    U(F_SR_RECEIVED), v[F_JITTER].d, snr, extra);
	printf("accounting: %llu received = %llu played + %llu late + %llu duplicate + "
	    "%llu malformed + %llu wrong payload type + %llu other source + "
	    "%llu unvalidated + %llu oversized (%s)\n"
	    "timeline: %llu frames = %llu played + %llu concealed (%llu gaps, "
	    "%llu undecodable, %llu dummies, %llu at the end)\n"
	    "sources: %llu, %llu sequence restarts, %llu timestamp jumps spliced, %llu pauses "
	    "(%llu frames long); sender: %s\n"
	    "output: %lld frames written = %llu played + %llu concealed, %llu refused (%s); "
	    "stream end: %s\n"
	    "verdict: %s\n",
	    U(F_RECEIVED), U(F_PK_PLAYED), U(F_LATE), U(F_DUP), U(F_PK_MALFORMED),
	    U(F_PK_WRONG_PT), U(F_PK_OTHER), U(F_PK_UNVALIDATED), U(F_PK_OVERSIZED),
	    v[F_ADDS_UP].u ? "adds up" : "DOES NOT ADD UP",
	    U(F_TIMELINE), U(F_PLAYED), U(F_CONCEALED), U(F_FR_GAP), U(F_UNDECODABLE),
	    U(F_FR_DUMMY), U(F_FR_END), U(F_SOURCES), U(F_RESTARTS), U(F_SPLICES), U(F_PAUSES),
	    U(F_FR_PAUSED), sender,
	    (long long)v[F_WRITTEN].i, U(F_PLAYED), U(F_CONCEALED), U(F_REFUSED),
	    v[F_OUTPUT_OK].u ? "adds up" : "DOES NOT ADD UP", v[F_END].s,
	    v[F_SATISFACTORY].u ? "satisfactory" : "not satisfactory");
}

void
play_report(struct play *p)
{
	double fdur = p->rate ? (double)p->samples * 1000.0 / p->rate : 0;
	struct play_tally t;
	uint64_t frames;
	double loss, gap;
	int ok;
	struct fmt_rx_counts fc;
	struct play_val v[F_N];
	uint64_t bad;

	play_tally(p, &t);
	/* the verdict counts the frames the sender sent beyond the timeline, and the frames
	 * that came but had no place on it (stale), as concealed */
	frames = t.timeline + t.short_frames + p->frames_stale;
	loss = frames ? 100.0 * (double)(p->frames_concealed + t.short_frames +
	    p->frames_stale) / (double)frames : 100.0;
	gap = p->longest_run * fdur;
	if (t.short_frames * fdur > gap)
		gap = t.short_frames * fdur;
	/* and the packets that were not played (RTP formats: FEC makes up for lost ones) of
	 * what the sender sent, or else of the sequence numbers covered; malformed ones came,
	 * and whatever audio they lacked shows on the timeline */
	if (!p->fmt->groups) {
		uint64_t all = t.covered > t.supported ? t.covered : t.supported;
		uint64_t took = t.played + t.malformed;
		if (all > 0 && all > took && 100.0 * (double)(all - took) / (double)all > loss)
			loss = 100.0 * (double)(all - took) / (double)all;
	}
	/* and what the listener got: the output holds the timeline, the stream's end came
	 * (an idle timeout or a failed output is no end: what was still due is unknown) */
	ok = t.timeline > 0 && loss <= PLAY_OK_LOSS_PCT && gap <= PLAY_OK_GAP_MS &&
	    t.output_ok && !p->out_failed && p->ended != PLAY_END_IDLE;
	p->fmt->rx_counts(p->frx, &fc);
	bad = t.malformed + t.wrong_pt;

	memset(v, 0, sizeof(v));
	v[F_RECEIVED].u = t.received;
	v[F_LOST].u = t.lost;
	v[F_LATE].u = t.late;
	v[F_DUP].u = t.duplicates;
	v[F_BAD].u = bad;
	v[F_PLAYED].u = p->frames_played;
	v[F_CONCEALED].u = p->frames_concealed;
	v[F_UNDECODABLE].u = p->frames_undecodable;
	v[F_FRAGS].u = fc.fragments_dropped;
	v[F_GAP].d = gap;
	v[F_LOSS].d = loss;
	v[F_DURATION].d = (double)t.timeline * fdur / 1000.0;
	v[F_FORMAT].s = p->fmt->name;
	v[F_DUMMIES].u = fc.dummies;
	v[F_POC].u = fc.poc;
	v[F_DEINT_LATE].u = fc.late;
	v[F_FEC_GROUPS].u = fc.groups;
	v[F_FEC_RECOVERED].u = fc.recovered;
	v[F_FEC_UNRECOVERABLE].u = fc.unrecoverable;
	v[F_RR_SENT].u = p->rr_sent;
	v[F_SR_RECEIVED].u = p->sr_received;
	v[F_JITTER].d = rtcp_rx_jitter_ms(&p->rx);
	v[F_CPU].d = rtpaudio_cpu_s();
	v[F_PK_PLAYED].u = t.played;
	v[F_PK_MALFORMED].u = t.malformed;
	v[F_PK_WRONG_PT].u = t.wrong_pt;
	v[F_PK_OTHER].u = t.other;
	v[F_PK_UNVALIDATED].u = t.unvalidated;
	v[F_PK_OVERSIZED].u = t.oversized;
	v[F_SOURCES].u = p->sources;
	v[F_RESTARTS].u = p->restarts;
	v[F_TIMELINE].u = t.timeline;
	v[F_FR_GAP].u = p->frames_gap;
	v[F_FR_DUMMY].u = p->frames_dummy;
	v[F_FR_END].u = p->frames_tail;
	v[F_FR_IN].u = p->frames_in;
	v[F_FR_STALE].u = p->frames_stale;
	v[F_FR_INFO].u = p->info_frames;
	v[F_FR_MALFORMED].u = p->frames_malformed;
	v[F_SENDER].i = t.sender;
	v[F_SENDER_MISSING].u = t.short_pk;
	v[F_FR_MISSING].u = t.short_frames;
	v[F_SPLICES].u = p->ts_splices;
	v[F_JUMPS].u = p->acc.rebases + p->jb->rebases;
	v[F_ADDS_UP].u = (uint64_t)t.adds_up;
	v[F_WRITTEN].i = t.written;
	v[F_REFUSED].u = p->frames_refused;
	v[F_OUTPUT_OK].u = (uint64_t)t.output_ok;
	v[F_END].s = play_end_names[p->ended];
	v[F_UNSUPPORTED].u = t.unsupported;
	v[F_PAUSES].u = p->pauses;
	v[F_FR_PAUSED].u = p->frames_paused;
	v[F_SNR].d = p->snr_db;
	v[F_REF_OFFSET].i = p->ref_offset;
	v[F_SNR_SEGS].u = p->snr_segs;
	v[F_INTACT].d = p->intact_pct;
	v[F_SATISFACTORY].u = (uint64_t)ok;
	if (p->json)
		play_json(p, v);
	else
		play_text(p, v, &fc);
	fflush(stdout);
}
