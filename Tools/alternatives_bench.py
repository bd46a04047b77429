#!/usr/bin/env python3
"""Alternative routes and annotations on fixed pairs, Waymark against OSRM (CH and MLD), in one run.

    python3.12 Tools/alternatives_bench.py --waymark .build/release/waymark --map porto-ch.wmg \
        --pairs ../shared/bench/od_pairs/od_pairs_porto.json --osrm-ch porto.osrm --osrm-mld porto-mld.osrm

For each side: how many pairs get at least one alternative (alternatives=3), how many per such
pair, their stretch (duration and weight ÷ the best route's; median and max) and the share of the
best route's length they drive too (by OSM node pairs from the `nodes` and `distance`
annotations). Then the time per query: OSRM in-process (osrm-bindings, Python 3.12) with and
without alternatives, and Waymark's batch (`waymark route --batch`, its own p50/p95 of the routing
alone) single, with alternatives and with annotations, in alternating rounds (medians printed).
Every query asks for steps, the full overview and GeoJSON geometries.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


def stats(results):
    """results: per pair, the routes (best first) as (duration, weight, distance, [(a, b, metres)])."""
    with_alt = [r for r in results if len(r) > 1]
    stretch, weights, share = [], [], []
    for routes in with_alt:
        best = routes[0]
        pieces = {(a, b) for a, b, _ in best[3]}
        for alt in routes[1:]:
            stretch.append(alt[0] / best[0])
            weights.append(alt[1] / best[1])
            share.append(sum(m for a, b, m in alt[3] if (a, b) in pieces) / best[2])
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    return (f"pairs with an alternative {len(with_alt)}, per such pair "
            f"{sum(len(r) - 1 for r in with_alt) / max(1, len(with_alt)):.2f}, stretch median {med(stretch):.4f} "
            f"max {max(stretch, default=0):.3f} (by weight {med(weights):.4f} / {max(weights, default=0):.3f}), "
            f"shared median {med(share):.3f} max {max(share, default=0):.3f}")


def pieces(leg):
    a = leg["annotation"]
    return [(a["nodes"][i], a["nodes"][i + 1], a["distance"][i]) for i in range(len(a["distance"]))]


def route_tuple(route):
    return (route["duration"], route["weight"], route["distance"], pieces(route["legs"][0]))


def percentiles(times):
    t = sorted(times)
    return t[len(t) // 2], t[int(len(t) * 0.95)]


def osrm_side(path, algorithm, pairs):
    import osrm
    engine = osrm.OSRM(storage_config=path, algorithm=algorithm, use_shared_memory=False)
    results, single, alternatives = [], [], []
    for (a, b) in pairs:
        coordinates = [(a[1], a[0]), (b[1], b[0])]
        asked = dict(coordinates=coordinates, steps=True, overview="full", geometries="geojson")
        start = time.perf_counter()
        engine.Route(osrm.RouteParameters(**asked))
        single.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        engine.Route(osrm.RouteParameters(**asked, number_of_alternatives=3))
        alternatives.append((time.perf_counter() - start) * 1000)
        answer = engine.Route(osrm.RouteParameters(coordinates=coordinates, overview="false",
                                                   annotations=["nodes", "distance"], number_of_alternatives=3))
        results.append([route_tuple(r) for r in answer["routes"]])
    print(f"OSRM {algorithm}: {stats(results)}")
    print(f"  p50 / p95 single {percentiles(single)[0]:.3f} / {percentiles(single)[1]:.3f} ms, "
          f"alternatives {percentiles(alternatives)[0]:.3f} / {percentiles(alternatives)[1]:.3f} ms")


def waymark_batch(binary, map_path, csv, extra, output):
    done = subprocess.run([binary, "route", map_path, "--batch", csv, "-o", output] + extra,
                          capture_output=True, text=True, check=True)
    line = [l for l in done.stderr.splitlines() if l.startswith("queries")][-1]
    p50 = float(line.split("p50 ")[1].split(" ms")[0])
    p95 = float(line.split("p95 ")[1].split(" ms")[0])
    return p50, p95


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--waymark", required=True)
    parser.add_argument("--map", required=True)
    parser.add_argument("--pairs", required=True)
    parser.add_argument("--osrm-ch")
    parser.add_argument("--osrm-mld")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    data = json.load(open(args.pairs))
    pairs = [((p["from"]["lat"], p["from"]["lon"]), (p["to"]["lat"], p["to"]["lon"])) for p in data["pairs"]]
    work = tempfile.mkdtemp()
    csv = os.path.join(work, "pairs.csv")
    with open(csv, "w") as f:
        for a, b in pairs:
            f.write(f"{a[0]},{a[1]},{b[0]},{b[1]}\n")
    print(time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), f"{len(pairs)} pairs")
    if args.osrm_ch:
        osrm_side(args.osrm_ch, "CH", pairs)
    if args.osrm_mld:
        osrm_side(args.osrm_mld, "MLD", pairs)
    answers = os.path.join(work, "alternatives.ndjson")
    waymark_batch(args.waymark, args.map, csv, ["--overview", "false", "--alternatives", "3", "--annotations",
                                                 "true"], answers)
    results = [[route_tuple(r) for r in json.loads(l).get("routes", [])] for l in open(answers)]
    print(f"Waymark: {stats(results)}")
    plain = ["--overview", "full", "--geometries", "geojson"]
    rounds = {"single": [], "alternatives": [], "annotations": []}
    for _ in range(args.rounds):
        rounds["single"].append(waymark_batch(args.waymark, args.map, csv, plain, os.devnull))
        rounds["alternatives"].append(waymark_batch(args.waymark, args.map, csv, plain + ["--alternatives", "3"],
                                                    os.devnull))
        rounds["annotations"].append(waymark_batch(args.waymark, args.map, csv, plain + ["--annotations", "true"],
                                                   os.devnull))
    for name, values in rounds.items():
        p50 = statistics.median(v[0] for v in values)
        p95 = statistics.median(v[1] for v in values)
        print(f"  Waymark {name}: p50 / p95 {p50:.3f} / {p95:.3f} ms (medians of {args.rounds} rounds)")


if __name__ == "__main__":
    main()
