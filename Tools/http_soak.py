#!/usr/bin/env python3
"""Soak: `waymark serve` under wrk for a long run, its RSS sampled every few seconds.

Requests cycle through the shared pairs as routes with steps, every 10th a 10×10 table, every
50th a 5/10-minute isochrone, every 20th a nearest; wrk's errors and the RSS curve are printed,
and written to bench-results/soak.json.

  python3 Tools/http_soak.py --map /tmp/porto-h.wmg --pairs ../shared/bench/od_pairs/od_pairs_porto.json --seconds 600
"""
import argparse, json, os, re, signal, subprocess, tempfile, threading, time

from benchlib import free_port, status_kb, wait_ready


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waymark", default=".build/release/waymark")
    ap.add_argument("--map", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--out", default="bench-results/soak.json")
    args = ap.parse_args()
    pairs = json.load(open(args.pairs))["pairs"]
    tmp = tempfile.mkdtemp(prefix="soak-")
    paths = []
    for n, p in enumerate(pairs):
        a, b = p["from"], p["to"]
        paths.append(f"/route/v1/driving/{a['lon']},{a['lat']};{b['lon']},{b['lat']}?steps=true")
        if n % 10 == 0:
            coords = ";".join(f"{q['from']['lon']},{q['from']['lat']}" for q in pairs[n:n + 10])
            paths.append(f"/table/v1/driving/{coords}?annotations=duration,distance")
        if n % 20 == 0:
            paths.append(f"/nearest/v1/driving/{a['lon']},{a['lat']}?number=3")
        if n % 50 == 0:
            paths.append(f"/isochrone/v1/driving/{a['lon']},{a['lat']}?contours_minutes=5,10&polygons=true")
    with open(os.path.join(tmp, "paths.txt"), "w") as f:
        f.write("\n".join(paths) + "\n")
    script = os.path.join(tmp, "soak.lua")
    with open(script, "w") as f:
        f.write(f"""
local paths = {{}}
for line in io.lines("{tmp}/paths.txt") do paths[#paths + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1])
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %.3f %.3f\\n", summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write, summary.errors.timeout,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000))
end
""")
    port = free_port()
    log = open(os.path.join(tmp, "serve.log"), "w")
    server = subprocess.Popen([args.waymark, "serve", args.map, "--port", str(port), "--threads", "2"], stdout=log, stderr=log)
    wait_ready(f"http://127.0.0.1:{port}/health")
    samples = []
    stop = threading.Event()

    def sample():
        start = time.time()
        while not stop.is_set():
            samples.append((round(time.time() - start, 1), status_kb(server.pid, "VmRSS") // 1024))
            stop.wait(10)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out = subprocess.run(["wrk", "-t", "2", "-c", str(args.connections), "-d", f"{args.seconds}s", "--timeout", "10s", "-s", script,
                          f"http://127.0.0.1:{port}"], capture_output=True, text=True).stdout
    stop.set()
    sampler.join()
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)
    m = re.search(r"RESULT (\d+) (\d+) (\d+) (\d+) ([\d.]+) ([\d.]+)", out)
    requests, non2xx, socket_errors, timeouts, p50, p95 = m.groups()
    result = {"seconds": args.seconds, "connections": args.connections, "requests": int(requests), "non2xx": int(non2xx),
              "socket_errors": int(socket_errors), "timeouts": int(timeouts), "p50_ms": float(p50), "p95_ms": float(p95),
              "exit": server.returncode, "rss_mb": samples, "log_lines": sum(1 for _ in open(os.path.join(tmp, "serve.log")))}
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    json.dump(result, open(args.out, "w"), indent=1)
    rss = [r for _, r in samples]
    print(f"{requests} requests in {args.seconds} s ({int(requests) / args.seconds:.0f}/s), non-2xx {non2xx}, socket errors {socket_errors}, "
          f"timeouts {timeouts}, p50 {p50} ms, p95 {p95} ms, exit {server.returncode}")
    print(f"RSS MB: first {rss[0]}, after 1 min {rss[min(6, len(rss) - 1)]}, last {rss[-1]}, max {max(rss)}")


if __name__ == "__main__":
    main()
