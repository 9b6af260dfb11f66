#!/usr/bin/python3
"""objects.py WWW WORK: experiment 06's objects in WWW and its workloads in WORK.

WORK/workload.NAME: the paths a workload fetches, one a line, all requested at once;
WORK/page.sizes: "path bytes" for the page; WORK/manifest: "path bytes crc32" for every object
(httpload --verify-manifest). The page is 100 objects whose sizes follow,
approximately, the median web page's composition as HTTP Archive reports it (Web Almanac
2022, page weight: a median page of about 2 MB over about 70 requests, images and JavaScript
the bulk, then fonts, CSS and HTML): each type's sizes log-normal around its median, spread
evenly over its quantiles, so every run fetches the same set. The numbers are a rough
reconstruction, not HTTP Archive's data.
"""
import math, os, random, statistics, sys, zlib

# type: (objects, median bytes, log-normal sigma)
MIX = {
    "html": (2, 30000, 0.5),
    "css": (8, 9000, 0.8),
    "js": (25, 15000, 1.2),
    "img": (45, 12000, 1.3),
    "font": (5, 25000, 0.4),
    "xhr": (15, 1500, 0.8),
}
FIXED = (1024, 16384, 131072)
BUDGET = 1250000  # bytes a fixed-size workload fetches at most (about 10 s at 1 Mbit/s)


MANIFEST = []


def write(www, name, size, rnd):
    data = rnd.randbytes(size)
    with open(os.path.join(www, name), "wb") as f:
        f.write(data)
    MANIFEST.append("/%s %d %08x\n" % (name, size, zlib.crc32(data) & 0xffffffff))


def main():
    www, work = sys.argv[1], sys.argv[2]
    rnd = random.Random(6)
    nd = statistics.NormalDist()
    page = []
    for t, (n, med, sigma) in MIX.items():
        for i in range(n):
            size = max(200, int(med * math.exp(sigma * nd.inv_cdf((i + 0.5) / n))))
            name = "%s%02d" % (t, i)
            write(www, name, size, rnd)
            page.append((name, size))
    rnd.shuffle(page)
    with open(os.path.join(work, "workload.page"), "w") as f:
        f.writelines("/%s\n" % p for p, _ in page)
    with open(os.path.join(work, "page.sizes"), "w") as f:
        f.writelines("/%s %d\n" % p for p in page)
    # one large object first, then 100 small ones: do they wait behind it?
    write(www, "big", 1 << 20, rnd)
    for i in range(100):
        write(www, "s%02d" % i, 4096, rnd)
    with open(os.path.join(work, "workload.big"), "w") as f:
        f.write("/big\n")
        f.writelines("/s%02d\n" % i for i in range(100))
    # experiment 04's fixed sizes: one file fetched n times, n by the byte budget (10..100)
    for s in FIXED:
        write(www, "f%d" % s, s, rnd)
        n = min(100, max(10, BUDGET // s // 10 * 10))
        with open(os.path.join(work, "workload.f%d" % s), "w") as f:
            f.writelines("/f%d\n" % s for _ in range(n))
    with open(os.path.join(work, "manifest"), "w") as f:
        f.writelines(sorted(MANIFEST))


if __name__ == "__main__":
    main()
