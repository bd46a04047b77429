#!/usr/bin/env python3
"""Alternating rounds of route batches: two `waymark` builds, and OSRM CH in-process, same pairs.

    python3.12 Tools/route_rounds.py --map porto-ch.wmg --pairs ../shared/bench/od_pairs/od_pairs_porto.json \\
        --build old=OLD/waymark --build new=.build/release/waymark [--osrm porto.osrm] [--rounds 5]

(`--build old=OLD/waymark:old-porto-ch.wmg` gives a build its own map, where the two cannot read
each other's files.)

Each round runs every build's `waymark route MAP --batch` on the pairs (its own per-query times:
snapping, the search, the whole route with steps; p50/p95 from its last line), then, with
`--osrm`, routes the same pairs with OSRM's in-process bindings (CH, steps=true, overview=full,
geometries=geojson) and times each call (with `--osrm-bare` also its query without steps or
geometry, steps=false, overview=false). Prints p50/p95 per round and the medians, and the ratios
of each build to the first and to OSRM. Needs a Python with `osrm-bindings` for `--osrm`.
"""
import argparse
import json
import re
import statistics
import subprocess
import tempfile
import time


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def waymark_batch(binary, map_path, pairs_csv, extra=()):
    done = subprocess.run([binary, "route", map_path, "--batch", pairs_csv, "-o", "/dev/null", *extra],
                          capture_output=True, text=True)
    m = re.search(r"p50 ([\d.]+) ms, p95 ([\d.]+) ms", done.stderr)
    if not m:
        raise SystemExit(f"{binary}: no p50/p95 in its output: {done.stderr.strip()[-300:]}")
    return float(m.group(1)), float(m.group(2))


def osrm_batch(engine, osrm, pairs, bare=False, exclude=None):
    """OSRM's in-process Route() per pair: with steps, the full overview as GeoJSON, or `bare`
    (steps=false, overview=false: the search and little else); `exclude` a comma-separated set."""
    times = []
    extra = {"exclude": exclude.split(",")} if exclude else {}
    for a, b in pairs:
        if bare:
            params = osrm.RouteParameters(coordinates=[(a[1], a[0]), (b[1], b[0])], steps=False, overview="false",
                                          **extra)
        else:
            params = osrm.RouteParameters(coordinates=[(a[1], a[0]), (b[1], b[0])], steps=True, overview="full",
                                          geometries="geojson", **extra)
        start = time.perf_counter()
        try:
            engine.Route(params)
        except RuntimeError:
            continue
        times.append((time.perf_counter() - start) * 1000)
    return percentile(times, 0.5), percentile(times, 0.95)


def load_pairs(path):
    """The shared pairs ((lat, lon), (lat, lon)) and a CSV of them for `waymark route --batch`."""
    pairs = [((p["from"]["lat"], p["from"]["lon"]), (p["to"]["lat"], p["to"]["lon"]))
             for p in json.load(open(path))["pairs"]]
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        for a, b in pairs:
            f.write(f"{a[0]},{a[1]},{b[0]},{b[1]}\n")
    return pairs, f.name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--map", required=True)
    parser.add_argument("--pairs", required=True)
    parser.add_argument("--build", action="append", required=True,
                        help="NAME=PATH to a waymark binary, or NAME=PATH:MAP for one with its own map file "
                             "(a build whose graph files another cannot read)")
    parser.add_argument("--osrm", help="a CH .osrm dataset of the same extract")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--osrm-bare", action="store_true",
                        help="with --osrm, also time OSRM's bare query (steps=false, overview=false) each round")
    args = parser.parse_args()
    pairs, pairs_csv = load_pairs(args.pairs)
    builds = [tuple(b.split("=", 1)) for b in args.build]
    def split_map(path):
        return tuple(path.split(":", 1)) if ":" in path else (path, args.map)
    runners = [(name, lambda spec=split_map(path): waymark_batch(spec[0], spec[1], pairs_csv))
               for name, path in builds]
    if args.osrm:
        import osrm
        engine = osrm.OSRM(storage_config=args.osrm, algorithm="CH", use_shared_memory=False)
        osrm_batch(engine, osrm, pairs)  # warm-up, untimed
        runners.append(("osrm", lambda: osrm_batch(engine, osrm, pairs)))
        if args.osrm_bare:
            osrm_batch(engine, osrm, pairs, bare=True)  # warm-up, untimed
            runners.append(("osrm-bare", lambda: osrm_batch(engine, osrm, pairs, bare=True)))
    results = {name: [] for name, _ in runners}
    print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), f"{len(pairs)} pairs, {args.rounds} rounds")
    for r in range(args.rounds):
        for name, run in runners:
            results[name].append(run())
        print(f"round {r + 1}: " + "; ".join(f"{n} {results[n][-1][0]:.3f} / {results[n][-1][1]:.3f}" for n in results))
    medians = {n: (statistics.median(v[0] for v in rs), statistics.median(v[1] for v in rs)) for n, rs in results.items()}
    first = builds[0][0]
    for name, (p50, p95) in medians.items():
        line = f"{name}: p50 {p50:.3f} ms, p95 {p95:.3f} ms (medians)"
        if name != first:
            line += f"; ÷ {first} {p50 / medians[first][0]:.2f} / {p95 / medians[first][1]:.2f}"
        if "osrm" in medians and not name.startswith("osrm"):
            line += f"; OSRM ÷ this {medians['osrm'][0] / p50:.2f} / {medians['osrm'][1] / p95:.2f}"
        if "osrm-bare" in medians and not name.startswith("osrm"):
            line += f"; OSRM bare ÷ this {medians['osrm-bare'][0] / p50:.2f} / {medians['osrm-bare'][1] / p95:.2f}"
        print(line)


if __name__ == "__main__":
    main()
