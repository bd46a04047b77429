#!/usr/bin/env python3
"""Instructions per HTTP route request in `waymark serve`, counted by callgrind (noise-free).

Runs the server under valgrind twice, answering N route requests (the shared pairs as OSRM
URLs, one keep-alive connection, one at a time) and then 1, and divides the difference of the
two totals by N - 1, so loading the map and starting up cancel out.

  python3 Tools/serve_instructions.py --map porto-h.wmg --pairs ../shared/bench/od_pairs/od_pairs_porto.json \\
      [--waymark .build/release/waymark] [--requests 300] [--query steps=true]

Needs valgrind (Debian package).
"""
import argparse
import http.client
import json
import os
import re
import subprocess
import tempfile

from benchlib import free_port, wait_ready


def total(waymark, graph, paths, count):
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "valgrind.log")
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", f"--log-file={log}",
                                 waymark, "serve", graph, "--port", str(port), "--threads", "2"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_ready(f"http://127.0.0.1:{port}/health", timeout=300) # (slow under valgrind)
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for path in paths[:count]:
                c.request("GET", path)
                r = c.getresponse()
                r.read()
                assert r.status == 200, (path, r.status)
        finally:
            proc.terminate()
            proc.wait(timeout=300)
        m = re.search(r"Collected : ([\d,]+)", open(log).read())
        return int(m.group(1).replace(",", ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waymark", default=".build/release/waymark")
    ap.add_argument("--map", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--query", default="steps=true")
    args = ap.parse_args()
    pairs = json.load(open(args.pairs))["pairs"]
    paths = [f"/route/v1/driving/{p['from']['lon']},{p['from']['lat']};{p['to']['lon']},{p['to']['lat']}?{args.query}" for p in pairs]
    one = total(args.waymark, args.map, paths, 1)
    many = total(args.waymark, args.map, paths, args.requests)
    print(f"{(many - one) / (args.requests - 1) / 1e6:.3f} M instructions per request ({args.requests} requests, {args.query})")


if __name__ == "__main__":
    main()
