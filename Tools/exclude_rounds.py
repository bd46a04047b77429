#!/usr/bin/env python3
"""Alternating rounds of route batches with classes kept off (`exclude`) against the plain route,
for Waymark and, in the same job, for OSRM CH in-process with its own excludable classes.

    python3.12 Tools/exclude_rounds.py --waymark .build/release/waymark --map porto-x.wmg \\
        --pairs ../shared/bench/od_pairs/od_pairs_porto.json --osrm porto.osrm --rounds 9

Each Waymark round runs `waymark route MAP --batch` on the pairs plainly and with each of
`--sets` (p50/p95 from the batch's own per-query times); then OSRM routes the same pairs (steps,
full GeoJSON overview) plainly and with each of `--osrm-sets` (stock car.lua prepares `toll`,
`motorway` and `ferry` each alone) in its own alternating rounds. Prints, per set, the median of
the rounds' own ratios (set ÷ plain) at p50 and p95: how much longer a route keeping classes off
takes than the plain one, in each engine. Needs a Python with `osrm-bindings` for `--osrm`.
"""
import argparse
import statistics
import time

from route_rounds import load_pairs, osrm_batch, waymark_batch


def report(name, results):
    plain = results[None]
    for key, rounds in results.items():
        if key is None:
            continue
        r50 = statistics.median(a[0] / b[0] for a, b in zip(rounds, plain))
        r95 = statistics.median(a[1] / b[1] for a, b in zip(rounds, plain))
        print(f"{name} exclude={key}: ÷ plain p50 {r50:.2f}, p95 {r95:.2f} (medians of the rounds' own ratios)")
    print(f"{name} plain: p50 {statistics.median(a[0] for a in plain):.3f} ms, "
          f"p95 {statistics.median(a[1] for a in plain):.3f} ms (medians)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--waymark", required=True)
    parser.add_argument("--map", required=True, help="a map built with --hierarchy --exclusions")
    parser.add_argument("--pairs", required=True)
    parser.add_argument("--sets", default="toll;motorway;motorway,ferry")
    parser.add_argument("--osrm", help="a CH .osrm dataset of the same extract (stock car.lua)")
    parser.add_argument("--osrm-sets", default="toll;motorway")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    pairs, pairs_csv = load_pairs(args.pairs)
    print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), f"{len(pairs)} pairs, {args.rounds} rounds")
    sets = [None] + args.sets.split(";")
    ours = {s: [] for s in sets}
    for _ in range(args.rounds):
        for s in sets:
            extra = ["--exclude", s] if s else []
            ours[s].append(waymark_batch(args.waymark, args.map, pairs_csv, extra))
    report("waymark", ours)
    if args.osrm:
        import osrm
        engine = osrm.OSRM(storage_config=args.osrm, algorithm="CH", use_shared_memory=False)
        osrm_batch(engine, osrm, pairs)  # warm-up, untimed
        osrm_sets = [None] + args.osrm_sets.split(";")
        theirs = {s: [] for s in osrm_sets}
        for _ in range(args.rounds):
            for s in osrm_sets:
                theirs[s].append(osrm_batch(engine, osrm, pairs, exclude=s))
        report("osrm", theirs)


if __name__ == "__main__":
    main()
