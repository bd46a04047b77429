#!/usr/bin/env python3
"""Waymark's guidance against OSRM's, pair by pair, in one run.

Routes every origin/destination pair of a shared pairs file with OSRM (in-process bindings,
steps=true) and reads Waymark's answers for the same pairs from `waymark route --batch`
(NDJSON, one route per line, in order). Reports the number of steps per route (median, mean)
for each, how often the maneuver sequences (type and modifier of every step) are identical,
how often the types alone are, and the most frequent differences.

    python3.12 Tools/compare_guidance.py --osrm porto.osrm --pairs ../shared/bench/od_pairs/od_pairs_porto.json \
        --waymark waymark-porto.ndjson [--show 5]

Needs `pip install osrm-bindings` (Python >= 3.12) and an OSRM dataset made with its car.lua
(osrm-extract, osrm-contract).
"""
import argparse
import collections
import json
import statistics


def maneuvers(route):
    out = []
    for leg in route["legs"]:
        for step in leg["steps"]:
            m = step["maneuver"]
            out.append((str(m["type"]), str(m["modifier"]) if "modifier" in m else ""))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osrm", required=True, help="the .osrm dataset (CH)")
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--waymark", required=True, help="waymark route --batch output (NDJSON)")
    ap.add_argument("--show", type=int, default=0, help="print this many differing pairs")
    args = ap.parse_args()

    import osrm

    pairs = json.load(open(args.pairs))["pairs"]
    engine = osrm.OSRM(storage_config=args.osrm, algorithm="CH", use_shared_memory=False)
    ours = [json.loads(line) for line in open(args.waymark)]
    assert len(ours) == len(pairs), "one Waymark line per pair"

    steps_osrm, steps_ours = [], []
    identical = same_types = compared = 0
    differences = collections.Counter()
    shown = 0
    for i, (pair, mine) in enumerate(zip(pairs, ours)):
        a, b = pair["from"], pair["to"]
        params = osrm.RouteParameters(coordinates=[(a["lon"], a["lat"]), (b["lon"], b["lat"])], steps=True,
                                      overview="false")
        try:
            theirs = engine.Route(params)
        except RuntimeError:
            continue
        if theirs["code"] != "Ok" or mine.get("code") != "Ok":
            continue
        x, y = maneuvers(theirs["routes"][0]), maneuvers(mine["routes"][0])
        compared += 1
        steps_osrm.append(len(x))
        steps_ours.append(len(y))
        if x == y:
            identical += 1
        if [t for t, _ in x] == [t for t, _ in y]:
            same_types += 1
        for t in set(t for t, _ in x) | set(t for t, _ in y):
            cx, cy = sum(1 for s in x if s[0] == t), sum(1 for s in y if s[0] == t)
            if cx != cy:
                differences[(t, "osrm more" if cx > cy else "waymark more")] += 1
        if x != y and shown < args.show:
            shown += 1
            print(f"pair {i}: OSRM {len(x)} steps, Waymark {len(y)}")
            print("  OSRM   :", ", ".join(f"{t} {m}".strip() for t, m in x))
            print("  Waymark:", ", ".join(f"{t} {m}".strip() for t, m in y))

    print(f"pairs compared: {compared}")
    print(f"steps per route, OSRM: median {statistics.median(steps_osrm)}, mean {statistics.mean(steps_osrm):.1f}")
    print(f"steps per route, Waymark: median {statistics.median(steps_ours)}, mean {statistics.mean(steps_ours):.1f}")
    print(f"identical maneuver sequences (type and modifier): {identical} ({100 * identical / compared:.1f} %)")
    print(f"identical maneuver types: {same_types} ({100 * same_types / compared:.1f} %)")
    print("most frequent differences (routes where the count of a type differs):")
    for (t, who), n in differences.most_common(10):
        print(f"  {t}: {who} in {n} routes")


if __name__ == "__main__":
    main()
