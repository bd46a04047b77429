#!/usr/bin/env python3
"""Trips against OSRM's on the same stops: random sets of stops drawn from the shared pairs' points
(fixed seed), a round trip by `waymark serve` (HTTP) and by OSRM (in-process, CH or MLD); both tours
scored on Waymark's own duration table for those stops, so the engines' small duration
differences do not decide. Prints, per set size, how often Waymark's tour is longer, equal or
shorter, and the median ratio, as JSON. Needs python3.12 with `osrm-bindings`.

    python3.12 Tools/trip_compare.py --map porto.wmg --osrm porto.osrm \\
        --pairs ../shared/bench/od_pairs/od_pairs_porto.json --sizes 5,12,50 --sets 100
"""
import argparse, json, random, statistics, subprocess, time, urllib.request

from benchlib import free_port, wait_ready


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waymark", default=".build/release/waymark")
    ap.add_argument("--map", required=True)
    ap.add_argument("--osrm", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--sizes", default="5,12,50")
    ap.add_argument("--sets", type=int, default=100)
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--algorithm", default="CH", help="CH or MLD: the dataset's")
    args = ap.parse_args()
    points = [(p[end]["lon"], p[end]["lat"]) for p in json.load(open(args.pairs))["pairs"] for end in ("from", "to")]
    import osrm
    engine = osrm.OSRM(storage_config=args.osrm, algorithm=args.algorithm, use_shared_memory=False)
    port = free_port()
    server = subprocess.Popen([args.waymark, "serve", args.map, "--port", str(port), "--max-table-size", "100"],
                              stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/health")
        rng = random.Random(args.seed)
        result = {}
        for size in [int(s) for s in args.sizes.split(",")]:
            longer = equal = shorter = failed = 0
            ratios, ours_s, theirs_s = [], 0.0, 0.0
            for _ in range(args.sets):
                stops = rng.sample(points, size)
                path = ";".join(f"{lon},{lat}" for lon, lat in stops)
                get = lambda url: json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}{url}").read())
                table = get(f"/table/v1/driving/{path}")["durations"]
                t = time.perf_counter()
                ours = get(f"/trip/v1/driving/{path}?overview=false")
                ours_s += time.perf_counter() - t
                t = time.perf_counter()
                try:
                    theirs = engine.Trip(osrm.TripParameters(coordinates=stops, overview="false"))
                except Exception:
                    failed += 1
                    continue
                theirs_s += time.perf_counter() - t

                def tour(answer):
                    order = sorted(range(size), key=lambda i: answer["waypoints"][i]["waypoint_index"])
                    return sum(table[a][b] for a, b in zip(order, order[1:] + order[:1]))
                a, b = tour(ours), tour(theirs)
                longer += a > b + 1e-6
                shorter += a < b - 1e-6
                equal += abs(a - b) <= 1e-6
                ratios.append(a / b if b > 0 else 1)
            result[size] = {"sets": args.sets, "waymark_longer": longer, "equal": equal, "waymark_shorter": shorter,
                            "osrm_failed": failed, "median_ratio": round(statistics.median(ratios), 4),
                            "worst_ratio": round(max(ratios), 4),
                            "trip_ms_waymark_http": round(1000 * ours_s / args.sets, 2),
                            "trip_ms_osrm_inprocess": round(1000 * theirs_s / args.sets, 2)}
        print(json.dumps(result, indent=1))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
