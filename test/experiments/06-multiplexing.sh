#!/bin/bash
# test/experiments/06-multiplexing.sh: experiment 6, SCTP streams against HTTP/2 and HTTP/3, on
# lab v2 (issue 38): the endpoints native on this host in a client and a server namespace, the
# link held by a router VM (test/lab/router.sh) with every fidelity check on in every cell
# (test/experiments/06-multiplexing/labv2.sh does the measuring; this file picks the grid).
# Run by test/experiments/run (QUICK, EXP_OUT, EXP_ROOT, EXP_REANALYSE); TAP out, exit 0 iff
# every check passed. The VM lab's version (every endpoint in the project's VM, kernel SCTP
# rows) is test/experiments/06-multiplexing/vmlab.sh: `make experiments-06vm`.
# where: host (its endpoints are namespaces on this host, its link its own router VM: run on the
# host even where the host has no kernel SCTP, never inside test/vm/run)
# reanalyse: from docs/results/06 (a full run's raw data, committed there by test/experiments/run;
# --reanalyse 06 makes the section again from that folder alone)
# docs: full (a quick run does not replace 06's section of docs/results.md: one cell, one run)
#
# Quick mode (CI; 500 s at load 25): two cells, 10 Mbit/s 10 ms 1 % random loss and 10 Mbit/s 50 ms 1 % bursty
# (Gilbert, mean burst 4), one run a row, every check on. Full mode: the grid of grid.txt, 10 runs
# a cell, rows interleaved. EXP06_CELLS, EXP06_REPS and EXP06_ROWS pick a subset; a full run of
# fewer cells says which of grid.txt it did not measure.
# The full grid (page only), 18 cells x 9 rows x 10 runs: 10 Mbit/s x one-way 10, 50 and 100 ms
# x loss 0, 1 and 3 % random and 1 and 3 % bursty, one 4 BDP queue cell (10 Mbit/s 50 ms 1 %),
# and 1 Mbit/s x 50 ms x 0 and 3 %. Time, measured on this 2-core host (9 rows, 10 runs, the
# router's counters after each run): 10 Mbit/s 10 ms about 3.5 min at 0 %, 5 min at 1 %, 9-10 min
# at 3 %; longer at 50 and 100 ms; a 1 Mbit/s cell about 30 min. The whole grid: over 3 h, more
# than one session holds. Left out of the grid altogether: 0.5 and 2 % random loss (between 0,
# 1 and 3 %; EXP06_CELLS measures them), 100 Mbit/s (the router forwards 176-236 Mbit/s at most:
# marginal on a shared 2-core host), 1 Mbit/s at 10 and 100 ms (the page spends 18 s on the
# wire there: the delay changes little), the 5 MB object (labv2.sh has the page only yet),
# HTTP/1.1 with a connection per request (tcp1: 100 connections one after another cost 40 s a
# run at 100 ms; the quick mode keeps it).
set -u
: "${EXP_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${QUICK:=0}"
: "${EXP_OUT:=$EXP_ROOT/out/experiments/06-multiplexing}"
L=$EXP_ROOT/test/experiments/06-multiplexing/labv2.sh

if [ "${EXP_REANALYSE:-0}" = 1 ]; then
	exec bash "$L" --reanalyse "$EXP_OUT"
fi
ROWS="h2c h2cbbr h2tls h3 usrsctpnt100 usrsctp100 usrsctpnt100tuned usrsctp100tuned usrsctpnt100tls"
if [ "$QUICK" = 1 ]; then
	CELLS="10mbit:10:1 10mbit:50:1:ge=4"
	REPS=1
	ROWS="tcp1 $ROWS"
else
	CELLS=$(grep -v '^#' "$EXP_ROOT/test/experiments/06-multiplexing/grid.txt" | tr '\n' ' ')
	REPS=10
fi
exec bash "$L" --out "$EXP_OUT" --cells "${EXP06_CELLS:-$CELLS}" --reps "${EXP06_REPS:-$REPS}" \
	--rows "${EXP06_ROWS:-$ROWS}" --mode "$([ "$QUICK" = 1 ] && echo quick || echo full)"
