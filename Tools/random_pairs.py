#!/usr/bin/env python3
"""Random origin/destination pairs in a box, anywhere (not only on roads): the points a user taps.

Writes a pairs JSON in the shape of ../shared/bench/od_pairs (for Tools/compare_guidance.py)
and the same pairs as CSV for `waymark route --batch`.

    python3 Tools/random_pairs.py --bbox 1.45,42.46,1.70,42.62 --count 200 --seed 40 \\
        --json andorra_rand.json --csv andorra_rand.csv
"""
import argparse
import json
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bbox", required=True, help="WEST,SOUTH,EAST,NORTH in degrees")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=40)
    ap.add_argument("--json", required=True)
    ap.add_argument("--csv", required=True)
    args = ap.parse_args()
    west, south, east, north = (float(v) for v in args.bbox.split(","))
    rng = random.Random(args.seed)
    pairs = []
    for _ in range(args.count):
        a = {"lat": rng.uniform(south, north), "lon": rng.uniform(west, east)}
        b = {"lat": rng.uniform(south, north), "lon": rng.uniform(west, east)}
        pairs.append({"from": a, "to": b})
    with open(args.json, "w") as f:
        json.dump({"method": f"random points in {args.bbox}, seed {args.seed}", "pairs": pairs}, f)
    with open(args.csv, "w") as f:
        f.writelines(f"{p['from']['lat']},{p['from']['lon']},{p['to']['lat']},{p['to']['lon']}\n" for p in pairs)


if __name__ == "__main__":
    main()
