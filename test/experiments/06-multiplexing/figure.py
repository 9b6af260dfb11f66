#!/usr/bin/python3
"""figure.py RESULTS OUTDIR NAME: experiment 06's figures on lab v2, one a one-way delay: the time
to fetch the page for every row, cell by cell along the x axis (the loss, random, then bursty),
the median with its bootstrap 95 % interval as an error bar. Writes OUTDIR/NAME-DELAYms.dat and
.gp (gnuplot draws them into .png and .svg: labv2.sh) and prints one Markdown image line a figure.
Rows are drawn in results.csv's order; a cell a row lacks is left out of its line."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import LABEL  # noqa: E402

COLORS = ('#009e73', '#56b4e9', '#e69f00', '#0072b2', '#d55e00', '#cc79a7', '#9400d3', '#7f7f7f',
          '#000000', '#c0a000', '#e51e10')


def cell_name(r):
    m = r.get("loss_model") or "random"
    q = r.get("queue") or "1bdp"
    s = "%s %%" % r["loss_pct"] + ("" if m == "random" else " GE" + m[2:])
    return s + ("" if q in ("", "1bdp") else " q" + q[:-3])


def main(argv):
    if len(argv) != 4:
        print("usage: figure.py RESULTS OUTDIR NAME", file=sys.stderr)
        return 2
    res, outdir, name = argv[1:]
    rows = [r for r in csv.DictReader(open(res)) if r["workload"] == "page"]
    order = []
    for r in rows:
        if r["row"] not in order:
            order.append(r["row"])
    for d in sorted({int(r["one_way_delay_ms"]) for r in rows}):
        for rate in sorted({r["link_mbit"] for r in rows if int(r["one_way_delay_ms"]) == d}, key=float):
            sel = [r for r in rows if int(r["one_way_delay_ms"]) == d and r["link_mbit"] == rate]
            cells = []
            for r in sorted(sel, key=lambda r: ((r.get("loss_model") or "random") != "random",
                                                 float(r["loss_pct"]), r.get("queue") or "")):
                if cell_name(r) not in cells:
                    cells.append(cell_name(r))
            tag = "%s-%smbit-%dms" % (name, rate, d)
            with open(os.path.join(outdir, tag + ".dat"), "w") as f:
                for i, row in enumerate(order):
                    f.write("# %s\n" % row)
                    for x, c in enumerate(cells):
                        for r in sel:
                            if r["row"] == row and cell_name(r) == c:
                                # a small offset a row, so that the bars do not hide each other
                                f.write("%.3f %s %s %s\n" % (x + (i - (len(order) - 1) / 2) * 0.06, r["time_s"],
                                                            r.get("time_ci_lo_s", r["time_s"]),
                                                            r.get("time_ci_hi_s", r["time_s"])))
                    f.write("\n\n")
            with open(os.path.join(outdir, tag + ".gp"), "w") as f:
                f.write("set title \"Time to fetch the page (median, bootstrap 95 %% interval): %s Mbit/s, "
                        "%d ms one way\"\n" % (rate, d))
                f.write("set ylabel 'seconds'\nset xlabel 'loss each way (GE: bursty, mean burst)'\n")
                f.write("set xtics (%s)\n" % ", ".join('"%s" %d' % (c.replace('%', '%%'), x) for x, c in enumerate(cells)))
                f.write("set xrange [-0.5:%f]\nset yrange [0:*]\nset grid ytics\n" % (len(cells) - 0.5))
                f.write("set key outside right top box font ',9'\n")
                f.write("plot " + ", ".join(
                    "'%s.dat' index %d using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.6 lc rgb '%s' title '%s'"
                    % (tag, i, COLORS[i % len(COLORS)], LABEL.get(row, row).replace("'", ""))
                    for i, row in enumerate(order)) + "\n")
            print("![time to fetch the page, %s Mbit/s, %d ms one way](results/%s.png)" % (rate, d, tag))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
