/* play_report.c: `rtpaudio play`'s report: the accounting (every packet and frame), the
 * verdict, text or JSON. */
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
	uint64_t covered, short_pk, short_frames;
	int adds_up;
};

static void
play_tally(const struct play *p, struct play_tally *t)
{
	const struct jitter *j = p->jb;

	memset(t, 0, sizeof(*t));
	t->received = p->pk_datagrams;
	t->played = p->fmt->groups ? p->fec_ok : p->acc.played + j->received;
	t->late = p->acc.late + j->late + p->fec_late;
	t->duplicates = p->acc.duplicates + j->duplicates + p->pk_duplicates;
	t->malformed = p->bad_packets;
	t->wrong_pt = p->pk_wrong_pt;
	t->other = p->other_ssrc;
	t->unvalidated = p->pk_unvalidated;
	t->oversized = p->pk_oversized + p->acc.too_big + j->too_big;
	t->lost = p->acc.lost + j->lost;
	t->timeline = p->frames_played + p->frames_concealed;
	t->concealed_sum = p->frames_gap + p->frames_undecodable + p->frames_dummy +
	    p->frames_tail;
	t->frames_sum = p->frames_played + p->frames_undecodable + p->frames_dummy +
	    p->frames_stale + p->info_frames + p->frames_malformed;
	t->adds_up = t->received == t->played + t->late + t->duplicates + t->malformed +
	    t->wrong_pt + t->other + t->unvalidated + t->oversized &&
	    t->concealed_sum == p->frames_concealed && t->frames_sum == p->frames_in;
	/* what the sender says it sent beyond what the timeline covers: frames short at an
	 * end, in the timeline's frames per packet */
	t->sender = -1;
	t->covered = p->span_done + rtcp_rx_span(&p->rx);
	if (!p->fmt->groups && p->have_sr_packets) {
		t->sender = (int64_t)(p->sr_packets_done + p->sr_packets);
		if ((uint64_t)t->sender > t->covered)
			t->short_pk = (uint64_t)t->sender - t->covered;
		if (t->short_pk > 0)
			t->short_frames = t->covered > 0 ?
			    (t->short_pk * t->timeline + t->covered - 1) / t->covered : t->short_pk;
	}
}

void
play_report(struct play *p)
{
	double fdur = p->rate ? (double)p->samples * 1000.0 / p->rate : 0;
	struct play_tally t;
	uint64_t frames;
	double loss, gap;
	int ok;
	char snr[400] = "";
	struct fmt_rx_counts fc;
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
	 * what the sender sent, or else of the sequence numbers covered */
	if (!p->fmt->groups) {
		uint64_t all = t.covered > (uint64_t)(t.sender > 0 ? t.sender : 0) ? t.covered :
		    (uint64_t)t.sender;
		if (all > 0 && all > t.played && 100.0 * (double)(all - t.played) / (double)all > loss)
			loss = 100.0 * (double)(all - t.played) / (double)all;
	}
	ok = t.timeline > 0 && loss <= PLAY_OK_LOSS_PCT && gap <= PLAY_OK_GAP_MS;
	p->fmt->rx_counts(p->frx, &fc);
	bad = p->bad_packets + p->pk_wrong_pt + fc.malformed;

	if (p->have_snr && p->json)
		snprintf(snr, sizeof(snr), "\"segsnr_db\":%.2f,\"ref_offset\":%ld,"
		    "\"snr_segments\":%zu,\"intact_segments_pct\":%.2f,", p->snr_db, p->ref_offset,
		    p->snr_segs, p->intact_pct);
	else if (p->have_snr)
		snprintf(snr, sizeof(snr), "segmental SNR: %.2f dB against %s (offset %ld sample "
		    "frames, %zu segments of 20 ms)\nintact segments: %.2f %% (20 ms segments at "
		    "%.0f dB SNR or better)\n", p->snr_db, p->ref_path, p->ref_offset, p->snr_segs,
		    p->intact_pct, COMPARE_INTACT_DB);
	if (p->json) {
		printf("{\"packets_received\":%llu,\"packets_lost\":%llu,\"packets_late\":%llu,"
		    "\"packets_duplicate\":%llu,\"packets_bad\":%llu,\"frames_played\":%llu,"
		    "\"frames_concealed\":%llu,\"frames_undecodable\":%llu,"
		    "\"fragments_dropped\":%llu,\"longest_gap_ms\":%.1f,"
		    "\"residual_frame_loss_pct\":%.3f,\"duration_s\":%.3f,\"format\":\"%s\","
		    "\"adu_dummies\":%llu,\"poc_descriptors\":%llu,\"deinterleave_late\":%llu,"
		    "\"fec_groups\":%llu,\"fec_recovered\":%llu,\"fec_unrecoverable\":%llu,"
		    "\"rtcp_rr_sent\":%llu,\"rtcp_sr_received\":%llu,\"jitter_ms\":%.2f,"
		    "\"cpu_s\":%.3f,",
		    (unsigned long long)t.received, (unsigned long long)t.lost,
		    (unsigned long long)t.late, (unsigned long long)t.duplicates,
		    (unsigned long long)bad,
		    (unsigned long long)p->frames_played, (unsigned long long)p->frames_concealed,
		    (unsigned long long)p->frames_undecodable,
		    (unsigned long long)fc.fragments_dropped, gap, loss,
		    (double)t.timeline * fdur / 1000.0, p->fmt->name,
		    (unsigned long long)fc.dummies,
		    (unsigned long long)fc.poc, (unsigned long long)fc.late,
		    (unsigned long long)fc.groups, (unsigned long long)fc.recovered,
		    (unsigned long long)fc.unrecoverable,
		    (unsigned long long)p->rr_sent, (unsigned long long)p->sr_received,
		    rtcp_rx_jitter_ms(&p->rx), rtpaudio_cpu_s());
		printf("\"packets_played\":%llu,\"packets_malformed\":%llu,"
		    "\"packets_wrong_pt\":%llu,\"packets_other_source\":%llu,"
		    "\"packets_unvalidated\":%llu,\"packets_oversized\":%llu,"
		    "\"sources\":%llu,\"sequence_restarts\":%llu,\"frames_timeline\":%llu,"
		    "\"frames_gap\":%llu,\"frames_dummy\":%llu,\"frames_end\":%llu,"
		    "\"frames_in\":%llu,\"frames_stale\":%llu,\"frames_info\":%llu,"
		    "\"frames_malformed\":%llu,\"sender_packets\":%lld,\"sender_packets_missing\":%llu,"
		    "\"frames_missing\":%llu,\"timestamp_splices\":%llu,\"schedule_jumps\":%llu,"
		    "\"accounting_adds_up\":%s,",
		    (unsigned long long)t.played, (unsigned long long)t.malformed,
		    (unsigned long long)t.wrong_pt, (unsigned long long)t.other,
		    (unsigned long long)t.unvalidated, (unsigned long long)t.oversized,
		    (unsigned long long)p->sources, (unsigned long long)p->restarts,
		    (unsigned long long)t.timeline, (unsigned long long)p->frames_gap,
		    (unsigned long long)p->frames_dummy, (unsigned long long)p->frames_tail,
		    (unsigned long long)p->frames_in, (unsigned long long)p->frames_stale,
		    (unsigned long long)p->info_frames, (unsigned long long)p->frames_malformed,
		    (long long)t.sender, (unsigned long long)t.short_pk,
		    (unsigned long long)t.short_frames, (unsigned long long)p->ts_splices,
		    (unsigned long long)(p->acc.rebases + p->jb->rebases),
		    t.adds_up ? "true" : "false");
		printf("%s\"satisfactory\":%s}\n", snr, ok ? "true" : "false");
	} else {
		char extra[160] = "", sender[160] = "no RTCP SR with a packet count";
		if (p->fmt->report != NULL)
			p->fmt->report(&fc, extra, sizeof(extra));
		if (t.sender >= 0)
			snprintf(sender, sizeof(sender), "%lld packets in its RTCP SRs, %llu beyond "
			    "the sequence numbers received (%llu frames missing)", (long long)t.sender,
			    (unsigned long long)t.short_pk, (unsigned long long)t.short_frames);
		printf("packets: %llu received, %llu lost, %llu late, %llu duplicated, %llu bad\n"
		    "frames: %llu played, %llu concealed (%llu undecodable after a loss)\n"
		    "longest gap: %.1f ms\nresidual frame loss: %.3f %%\naudio: %.3f s\n"
		    "rtcp: %llu receiver reports sent, %llu sender reports received, jitter %.2f ms\n"
		    "%s%s",
		    (unsigned long long)t.received, (unsigned long long)t.lost,
		    (unsigned long long)t.late, (unsigned long long)t.duplicates,
		    (unsigned long long)bad,
		    (unsigned long long)p->frames_played, (unsigned long long)p->frames_concealed,
		    (unsigned long long)p->frames_undecodable, gap, loss,
		    (double)t.timeline * fdur / 1000.0, (unsigned long long)p->rr_sent,
		    (unsigned long long)p->sr_received, rtcp_rx_jitter_ms(&p->rx), snr, extra);
		printf("accounting: %llu received = %llu played + %llu late + %llu duplicate + "
		    "%llu malformed + %llu wrong payload type + %llu other source + "
		    "%llu unvalidated + %llu oversized (%s)\n"
		    "timeline: %llu frames = %llu played + %llu concealed (%llu gaps, "
		    "%llu undecodable, %llu dummies, %llu at the end)\n"
		    "sources: %llu, %llu sequence restarts, %llu timestamp jumps spliced; "
		    "sender: %s\n"
		    "verdict: %s\n",
		    (unsigned long long)t.received, (unsigned long long)t.played,
		    (unsigned long long)t.late, (unsigned long long)t.duplicates,
		    (unsigned long long)t.malformed, (unsigned long long)t.wrong_pt,
		    (unsigned long long)t.other, (unsigned long long)t.unvalidated,
		    (unsigned long long)t.oversized, t.adds_up ? "adds up" : "DOES NOT ADD UP",
		    (unsigned long long)t.timeline, (unsigned long long)p->frames_played,
		    (unsigned long long)p->frames_concealed, (unsigned long long)p->frames_gap,
		    (unsigned long long)p->frames_undecodable, (unsigned long long)p->frames_dummy,
		    (unsigned long long)p->frames_tail, (unsigned long long)p->sources,
		    (unsigned long long)p->restarts, (unsigned long long)p->ts_splices, sender,
		    ok ? "satisfactory" : "not satisfactory");
	}
	fflush(stdout);
}
