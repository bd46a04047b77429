#!/usr/bin/env python3
"""The hot swap under load: `waymark serve` on a copy of OLD, clients sending routes on kept-alive
connections, and NEW renamed over the served file after the first `--swap-at` requests. Every
answer must be a 200 equal to OLD's or NEW's for its pair, and no client may hear OLD after it
heard NEW. Prints the counts as JSON.

    python3 Tools/serve_swap_load.py --map porto.wmg --new porto-custom.wmg \\
        --pairs ../shared/bench/od_pairs/od_pairs_porto.json --requests 2000
"""
import argparse, http.client, json, os, shutil, subprocess, tempfile, threading, time

from benchlib import free_port, wait_ready


def serve(waymark, path, port, log=subprocess.DEVNULL):
    """A server on `path`; its log (a line per request) to `log`, never to a pipe left unread."""
    return subprocess.Popen([waymark, "serve", path, "--port", str(port), "--threads", "4"],
                            stderr=log, stdout=subprocess.DEVNULL)


def durations(waymark, path, routes):
    """Each route's duration on the map at `path`, from a server of its own."""
    port = free_port()
    server = serve(waymark, path, port)
    try:
        wait_ready(f"http://127.0.0.1:{port}/health")
        connection = http.client.HTTPConnection("127.0.0.1", port)
        found = []
        for route in routes:
            connection.request("GET", route)
            answer = connection.getresponse()
            body = json.loads(answer.read())
            found.append(body["routes"][0]["duration"] if answer.status == 200 else None)
        return found
    finally:
        server.terminate()
        server.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waymark", default=".build/release/waymark")
    ap.add_argument("--map", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--swap-at", type=int, default=500)
    ap.add_argument("--pace-ms", type=float, default=6,
                    help="each client's pause between requests, so the run outlasts the server's 1 s file check")
    args = ap.parse_args()
    pairs = json.load(open(args.pairs))["pairs"][:100]
    routes = [f"/route/v1/driving/{p['from']['lon']},{p['from']['lat']};{p['to']['lon']},{p['to']['lat']}"
              "?overview=false&generate_hints=false" for p in pairs]
    old, new = durations(args.waymark, args.map, routes), durations(args.waymark, args.new, routes)
    tmp = tempfile.mkdtemp(prefix="swap-")
    served, incoming = os.path.join(tmp, "served.wmg"), os.path.join(tmp, "incoming.wmg")
    shutil.copy(args.map, served)
    shutil.copy(args.new, incoming)
    port = free_port()
    log_path = os.path.join(tmp, "serve.log")
    server = serve(args.waymark, served, port, log=open(log_path, "w"))
    wait_ready(f"http://127.0.0.1:{port}/health")
    lock = threading.Lock()
    sent = [0]
    swapped_at = [None]
    answers = [[] for _ in range(args.clients)]  # (pair, "old" | "new" | "same" | "error", time)

    def client(c):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            with lock:
                n = sent[0]
                if n >= args.requests:
                    return
                sent[0] += 1
                if n == args.swap_at:
                    os.rename(incoming, served)
                    swapped_at[0] = time.time()
            i = (n * 7 + c) % len(routes)
            try:
                connection.request("GET", routes[i])
                answer = connection.getresponse()
                body = answer.read()
                d = json.loads(body)["routes"][0]["duration"] if answer.status == 200 else None
            except Exception:
                d = None
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            kind = "error" if d is None else "same" if d == old[i] == new[i] else \
                "old" if d == old[i] else "new" if d == new[i] else "error"
            answers[c].append((i, kind, time.time()))
            time.sleep(args.pace_ms / 1000)

    start = time.time()
    threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - start
    server.terminate()
    server.wait()
    log = open(log_path).read()
    flat = [a for list_ in answers for a in list_]
    first_new = min((t for _, kind, t in flat if kind == "new"), default=None)
    regressions = sum(1 for list_ in answers for k, (_, kind, _) in enumerate(list_)
                      if kind == "old" and any(b[1] == "new" for b in list_[:k]))
    result = {
        "requests": len(flat), "errors": sum(k == "error" for _, k, _ in flat),
        "old": sum(k == "old" for _, k, _ in flat), "new": sum(k == "new" for _, k, _ in flat),
        "same_on_both": sum(k == "same" for _, k, _ in flat), "old_after_new": regressions,
        "pairs_differing": sum(a != b for a, b in zip(old, new)),
        "swap_to_first_new_s": round(first_new - swapped_at[0], 3) if first_new and swapped_at[0] else None,
        "wall_s": round(wall, 2), "reload_log": [l for l in log.splitlines() if "reload" in l],
    }
    print(json.dumps(result, indent=1))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
