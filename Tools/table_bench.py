#!/usr/bin/env python3
"""Table and isochrone benchmark over HTTP, `waymark serve` beside `osrm-routed`, same run.

Tables: N×N (N = 100, 1000) over the first N endpoints of the shared pairs, each size asked
`--runs` times of each server, alternating; wall time per request (client side, keep-alive
off), medians. Also how close the two servers' durations are (median ratio over cells both
reach). Isochrones (Waymark only: OSRM has none): 5, 10 and 15 minutes from the first
`--origins` pair origins, p50/p95 per time.

  python3 Tools/table_bench.py --map /tmp/porto-h.wmg --osrm /tmp/osrm-porto/porto.osrm \
      --pairs ../shared/bench/od_pairs/od_pairs_porto.json
"""
import argparse, json, os, signal, statistics, subprocess, time, urllib.request

from benchlib import free_port, osrm_bin, wait_ready


def get(url):
    start = time.perf_counter()
    body = urllib.request.urlopen(url, timeout=600).read()
    return time.perf_counter() - start, json.loads(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waymark", default=".build/release/waymark")
    ap.add_argument("--map", required=True)
    ap.add_argument("--osrm", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--sizes", default="100,1000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--origins", type=int, default=30)
    ap.add_argument("--out", default="bench-results/table.json")
    args = ap.parse_args()
    pairs = json.load(open(args.pairs))["pairs"]
    points = [(p["from"]["lon"], p["from"]["lat"]) for p in pairs] + [(p["to"]["lon"], p["to"]["lat"]) for p in pairs]
    wp, op = free_port(), free_port()
    procs = [subprocess.Popen([args.waymark, "serve", args.map, "--port", str(wp), "--threads", "2", "--max-table-size", "1000"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
             subprocess.Popen([os.path.join(osrm_bin(), "osrm-routed"), args.osrm, "-i", "127.0.0.1", "-p", str(op), "-t", "2",
                               "--max-table-size", "1000", "-l", "WARNING"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for port in (wp, op):
            wait_ready(f"http://127.0.0.1:{port}/nearest/v1/driving/{points[0][0]},{points[0][1]}")
        result = {"runs": args.runs, "tables": {}, "isochrones": {}}
        for n in [int(s) for s in args.sizes.split(",")]:
            path = "/table/v1/driving/" + ";".join(f"{lon:.6f},{lat:.6f}" for lon, lat in points[:n])
            times = {"waymark": [], "osrm-routed": []}
            answers = {}
            for _ in range(args.runs):
                for name, port in (("waymark", wp), ("osrm-routed", op)):
                    t, answer = get(f"http://127.0.0.1:{port}{path}")
                    times[name].append(t)
                    answers[name] = answer
            w, o = answers["waymark"]["durations"], answers["osrm-routed"]["durations"]
            ratios = [w[i][j] / o[i][j] for i in range(n) for j in range(n) if w[i][j] and o[i][j]]
            both_null = sum(1 for i in range(n) for j in range(n) if w[i][j] is None and o[i][j] is None)
            only = sum(1 for i in range(n) for j in range(n) if (w[i][j] is None) != (o[i][j] is None))
            entry = {name: {"median_s": statistics.median(ts), "all_s": ts} for name, ts in times.items()}
            entry["duration_ratio_median"] = statistics.median(ratios)
            entry["cells_unreachable_in_one_only"] = only
            entry["cells_unreachable_in_both"] = both_null
            result["tables"][str(n)] = entry
            print(f"table {n}x{n}: waymark {entry['waymark']['median_s'] * 1000:.1f} ms, osrm-routed {entry['osrm-routed']['median_s'] * 1000:.1f} ms "
                  f"(ratio {entry['waymark']['median_s'] / entry['osrm-routed']['median_s']:.2f}); durations waymark/osrm median "
                  f"{entry['duration_ratio_median']:.3f}; cells unreachable in one only {only}", flush=True)
        for minutes in (5, 10, 15):
            ts = []
            for lon, lat in points[:args.origins]:
                t, answer = get(f"http://127.0.0.1:{wp}/isochrone/v1/driving/{lon},{lat}?contours_minutes={minutes}&polygons=true")
                ts.append(t)
            ts.sort()
            result["isochrones"][str(minutes)] = {"p50_ms": ts[len(ts) // 2] * 1000, "p95_ms": ts[min(len(ts) - 1, int(len(ts) * 0.95))] * 1000}
            print(f"isochrone {minutes} min from {len(ts)} origins: p50 {ts[len(ts) // 2] * 1000:.1f} ms, "
                  f"p95 {ts[min(len(ts) - 1, int(len(ts) * 0.95))] * 1000:.1f} ms", flush=True)
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        json.dump(result, open(args.out, "w"), indent=1)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=60)


if __name__ == "__main__":
    main()
