#!/usr/bin/env python3
"""HTTP benchmark: `waymark serve` against `osrm-routed`, on the same pairs, in the same run.

For each concurrency (connections), wrk drives each server in turn with the shared
origin/destination pairs as OSRM route URLs (`steps=true`, every other option OSRM's default),
round robin over the pairs, keep-alive. Reports requests/s, p50/p95 latency, non-2xx and socket
errors, and each server's peak RSS. Servers and wrk share the machine: both servers get the same
threads, and run alternately, never at once.

  python3 Tools/http_bench.py --waymark-map /tmp/porto-h.wmg --osrm /tmp/osrm-porto/porto.osrm \
      --pairs ../shared/bench/od_pairs/od_pairs_porto.json --seconds 20 --connections 1,2,16 [--rounds 5]

With --rounds N both servers stay up and wrk drives them in turn N times per concurrency (each
for --seconds), so a slow spell of the machine falls on both; the table gives the pooled rates,
the median round's p50/p95, and the spread of the per-round ratios.

Needs wrk (Debian package) and osrm-routed (pip osrm-bindings under pyenv's Python 3.12).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import tempfile

from benchlib import free_port, osrm_bin, status_kb, wait_ready

WRK_SCRIPT = r"""
local paths = {}
for line in io.lines("%s") do paths[#paths + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %%d %%d %%d %%d %%d %%.3f %%.3f %%.3f %%.3f\n",
    summary.requests, summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write,
    summary.errors.timeout, summary.duration,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
"""


def run_wrk(port, paths_file, connections, seconds, script_dir):
    script = os.path.join(script_dir, "bench.lua")
    with open(script, "w") as f:
        f.write(WRK_SCRIPT % paths_file)
    threads = min(connections, 2)
    out = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "10s",
                          "-s", script, f"http://127.0.0.1:{port}"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"RESULT (\d+) (\d+) (\d+) (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)", out)
    requests, status_errors, socket_errors, timeouts, duration_us, p50, p95, p99, pmax = m.groups()
    return {"requests": int(requests), "rps": int(requests) / (int(duration_us) / 1e6), "non2xx": int(status_errors),
            "socket_errors": int(socket_errors), "timeouts": int(timeouts), "p50_ms": float(p50), "p95_ms": float(p95),
            "p99_ms": float(p99), "max_ms": float(pmax)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waymark", default=".build/release/waymark")
    ap.add_argument("--waymark-map", required=True)
    ap.add_argument("--osrm", required=True, help="base path of OSRM's CH data (x.osrm)")
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--connections", default="1,2,16")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--query", default="steps=true")
    ap.add_argument("--rounds", type=int, default=1, help="alternate the servers this many times per concurrency")
    ap.add_argument("--out", default="bench-results/http.json")
    args = ap.parse_args()

    pairs = json.load(open(args.pairs))["pairs"]
    tmp = tempfile.mkdtemp(prefix="http-bench-")
    paths_file = os.path.join(tmp, "paths.txt")
    with open(paths_file, "w") as f:
        for p in pairs:
            a, b = p["from"], p["to"]
            f.write(f"/route/v1/driving/{a['lon']},{a['lat']};{b['lon']},{b['lat']}?{args.query}\n")

    servers = {
        "waymark": lambda port: [args.waymark, "serve", args.waymark_map, "--port", str(port), "--threads", str(args.threads),
                                 "--max-connections", "1024"],
        "osrm-routed": lambda port: [os.path.join(osrm_bin(), "osrm-routed"), args.osrm, "-i", "127.0.0.1", "-p", str(port),
                                     "-t", str(args.threads), "-l", "WARNING"],
    }
    results = {"pairs": len(pairs), "seconds": args.seconds, "threads": args.threads, "query": args.query,
               "rounds": args.rounds, "runs": {}}
    for connections in [int(c) for c in args.connections.split(",")]:
        # Both servers are started (and warmed) once; wrk then drives them in turn, `rounds` times,
        # so that a slow spell of the machine falls on both alike. Only one is under load at a time.
        procs, ports, rss_start = {}, {}, {}
        try:
            for name, command in servers.items():
                ports[name] = free_port()
                log = open(os.path.join(tmp, f"{name}.log"), "w")
                procs[name] = subprocess.Popen(command(ports[name]), stdout=log, stderr=log)
                wait_ready(f"http://127.0.0.1:{ports[name]}/nearest/v1/driving/{pairs[0]['from']['lon']},{pairs[0]['from']['lat']}")
                rss_start[name] = status_kb(procs[name].pid, "VmRSS")
            rounds = {name: [] for name in servers}
            for _ in range(args.rounds):
                for name in servers:
                    rounds[name].append(run_wrk(ports[name], paths_file, connections, args.seconds, tmp))
            for name in servers:
                runs = rounds[name]
                total = sum(r["requests"] for r in runs)
                r = {"requests": total, "rps": total / (args.seconds * len(runs)),
                     "round_rps": [x["rps"] for x in runs],
                     "non2xx": sum(x["non2xx"] for x in runs), "socket_errors": sum(x["socket_errors"] for x in runs),
                     "timeouts": sum(x["timeouts"] for x in runs),
                     "p50_ms": sorted(x["p50_ms"] for x in runs)[len(runs) // 2],
                     "p95_ms": sorted(x["p95_ms"] for x in runs)[len(runs) // 2],
                     "rss_start_mb": rss_start[name] / 1024, "rss_end_mb": status_kb(procs[name].pid, "VmRSS") / 1024,
                     "peak_rss_mb": status_kb(procs[name].pid, "VmHWM") / 1024}
                results["runs"].setdefault(str(connections), {})[name] = r
        finally:
            for name, proc in procs.items():
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                results["runs"].get(str(connections), {}).get(name, {})["exit"] = proc.returncode
        run = results["runs"][str(connections)]
        ratios = sorted(w / o for w, o in zip(run["waymark"]["round_rps"], run["osrm-routed"]["round_rps"]))
        run["round_ratios"] = ratios
        for name, r in run.items():
            if name == "round_ratios":
                continue
            print(f"c={connections:3d} {name:12s} {r['rps']:9.1f} req/s  p50 {r['p50_ms']:.3f} ms  p95 {r['p95_ms']:.3f} ms  "
                  f"non2xx {r['non2xx']} socket errors {r['socket_errors']} timeouts {r['timeouts']}  "
                  f"RSS {r['rss_start_mb']:.0f}→{r['rss_end_mb']:.0f} MB (peak {r['peak_rss_mb']:.0f})  exit {r['exit']}", flush=True)
        print(f"c={connections:3d} ratio per round: " + " ".join(f"{x:.2f}" for x in ratios), flush=True)
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    json.dump(results, open(args.out, "w"), indent=1)
    print("\n| connections | waymark req/s | osrm-routed req/s | ratio | ratio per round (min / median / max) | "
          "waymark p50 / p95 ms | osrm-routed p50 / p95 ms | errors (w / o) |")
    print("|---:|---:|---:|---:|---|---:|---:|---|")
    for c, run in results["runs"].items():
        w, o, ratios = run["waymark"], run["osrm-routed"], run["round_ratios"]
        print(f"| {c} | {w['rps']:.0f} | {o['rps']:.0f} | {w['rps'] / o['rps']:.2f} | "
              f"{ratios[0]:.2f} / {ratios[len(ratios) // 2]:.2f} / {ratios[-1]:.2f} | {w['p50_ms']:.2f} / {w['p95_ms']:.2f} | "
              f"{o['p50_ms']:.2f} / {o['p95_ms']:.2f} | {w['non2xx'] + w['socket_errors']} / {o['non2xx'] + o['socket_errors']} |")


if __name__ == "__main__":
    main()
