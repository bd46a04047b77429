#!/usr/bin/env python3
"""Route queries on a tiled map (../shared/bench/tile_osm.py): Waymark against OSRM CH, one run.

Draws pairs across the copies — each shared Porto pair's origin moved into one copy and its
destination into another, both chosen at random (fixed seed) — writes them as a Waymark batch
file, runs `waymark route TILE.wmg --batch` (its own per-query times: snapping, the search, the
whole route with steps), then routes the same pairs with OSRM's in-process bindings (CH,
steps=true, overview=full) and times each call. Prints p50/p95 for both and how many routes
agree in duration within 1 %.

    python3.12 Tools/tile_query_bench.py --extract ../shared/data/osm/porto.osm.gz --grid 4x4 \\
        --pairs ../shared/bench/od_pairs/od_pairs_porto.json --waymark .build/release/waymark \\
        --map tile.wmg --osrm porto-4x4.osrm [--n 1000]

The copies' offsets are tile_osm.py's: the bounding box of the extract's way nodes, one box
height per row and one width per column.
"""
import argparse
import gzip
import json
import random
import re
import statistics
import subprocess
import tempfile
import time


def way_node_box(path):
    pos, used = {}, set()
    node = re.compile(r'<node id="(\d+)"[^>]*?lat="([-\d.]+)"[^>]*?lon="([-\d.]+)"')
    ref = re.compile(r'<nd ref="(\d+)"')
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for line in f:
            m = node.search(line)
            if m:
                pos[int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
                continue
            m = ref.search(line)
            if m:
                used.add(int(m.group(1)))
    lats = [pos[n][0] for n in used if n in pos]
    lons = [pos[n][1] for n in used if n in pos]
    return max(lats) - min(lats), max(lons) - min(lons)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--extract", required=True, help="the extract the tile was made from")
    ap.add_argument("--grid", default="4x4")
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--waymark", required=True)
    ap.add_argument("--map", required=True, help="the tile's graph file, with its hierarchy")
    ap.add_argument("--osrm", required=True, help="the tile's .osrm dataset (osrm-extract, osrm-contract)")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    rows, cols = (int(x) for x in args.grid.lower().split("x"))
    height, width = way_node_box(args.extract)
    rng = random.Random(args.seed)
    base = json.load(open(args.pairs))["pairs"][: args.n]
    pairs = []
    for p in base:
        (r1, c1), (r2, c2) = [(rng.randrange(rows), rng.randrange(cols)) for _ in range(2)]
        a = (p["from"]["lat"] + r1 * height, p["from"]["lon"] + c1 * width)
        b = (p["to"]["lat"] + r2 * height, p["to"]["lon"] + c2 * width)
        pairs.append((a, b))

    with tempfile.TemporaryDirectory() as tmp:
        batch = f"{tmp}/pairs.csv"
        with open(batch, "w") as f:
            for a, b in pairs:
                f.write("%.7f,%.7f,%.7f,%.7f\n" % (a[0], a[1], b[0], b[1]))
        out = f"{tmp}/routes.ndjson"
        run = subprocess.run([args.waymark, "route", args.map, "--batch", batch, "-o", out],
                             capture_output=True, text=True, check=True)
        summary = (run.stdout + run.stderr).strip().splitlines()[-1]
        ours = [json.loads(line) for line in open(out)]

    import osrm

    engine = osrm.OSRM(storage_config=args.osrm, algorithm="CH", use_shared_memory=False)
    times, agree, compared = [], 0, 0
    for (a, b), mine in zip(pairs, ours):
        params = osrm.RouteParameters(coordinates=[(a[1], a[0]), (b[1], b[0])], steps=True, overview="full")
        start = time.perf_counter()
        try:
            theirs = engine.Route(params)
        except RuntimeError:
            continue
        times.append((time.perf_counter() - start) * 1000)
        if theirs["code"] == "Ok" and mine.get("code") == "Ok":
            compared += 1
            d0, d1 = theirs["routes"][0]["duration"], mine["routes"][0]["duration"]
            agree += abs(d0 - d1) <= 0.01 * max(d0, 1)
    print(f"pairs: {len(pairs)} across {rows * cols} copies (box {height:.4f}° × {width:.4f}°)")
    print(f"waymark: {summary}")
    print(f"osrm CH (in-process bindings, steps, overview=full): {len(times)} queries, "
          f"p50 {statistics.median(times):.3f} ms, p95 {percentile(times, 0.95):.3f} ms")
    print(f"durations within 1 %: {agree} of {compared}")


if __name__ == "__main__":
    main()
