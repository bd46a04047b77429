#!/usr/bin/env python3
"""Isochrone latency over HTTP: two `waymark serve` builds on the same map, same run.

For each time (5, 10, 15 minutes) and each of the first `--origins` origins of the shared pairs,
asks each server in turn (alternating, one request at a time, keep-alive off) for the polygons;
prints p50/p95 per build and time. OSRM has no isochrones: the peer is the other build.

  python3 Tools/isochrone_bench.py --map porto.wmg --pairs ../shared/bench/od_pairs/od_pairs_porto.json \
      --build old=/path/to/old/waymark --build new=.build/release/waymark
"""
import argparse, json, subprocess, time, urllib.request

from benchlib import free_port, wait_ready


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--map", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--build", action="append", required=True, help="NAME=BINARY (two or more)")
    ap.add_argument("--origins", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    origins = [(p["from"]["lon"], p["from"]["lat"]) for p in json.load(open(args.pairs))["pairs"]][:args.origins]
    builds = [b.split("=", 1) for b in args.build]
    servers = []
    try:
        for name, binary in builds:
            port = free_port()
            proc = subprocess.Popen([binary, "serve", args.map, "--port", str(port), "--threads", "2"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            servers.append((name, port, proc))
        for _, port, _ in servers:
            wait_ready(f"http://127.0.0.1:{port}/health")
        for minutes in (5, 10, 15):
            times = {name: [] for name, _, _ in servers}
            for _ in range(args.repeat):
                for lon, lat in origins:
                    for name, port, _ in servers:
                        url = f"http://127.0.0.1:{port}/isochrone/v1/driving/{lon},{lat}?contours_minutes={minutes}&polygons=true"
                        start = time.perf_counter()
                        urllib.request.urlopen(url, timeout=60).read()
                        times[name].append(time.perf_counter() - start)
            for name, ts in times.items():
                ts.sort()
                print(f"{minutes:2d} min  {name:8s} p50 {ts[len(ts) // 2] * 1000:6.1f} ms  p95 {ts[int(len(ts) * 0.95)] * 1000:6.1f} ms  ({len(ts)} requests)")
    finally:
        for _, _, proc in servers:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
