#!/usr/bin/env python3
"""Map matching against OSRM's on the same synthetic traces, both over HTTP with the same client.

Traces are made from Waymark's own routes between the shared pairs' points (the first `--routes`
that route, at least 500 m): a fix every 1–10 s of the route's travel time (one interval per
trace, fixed seed), each moved by Gaussian noise of σ metres east and north. Both engines get the
same fixes (polyline6), `timestamps` and `radiuses` (σ). Accuracy is the share of the true
route's length within 5 m of the matched lines (recall), and of the matched lines' length within
5 m of the true route (precision), summed over all traces. Speed is milliseconds per fix, the
requests sent one after another, each timed from sending it to the answer's last byte (reading
the answer as JSON is the client's, not timed). `--keep-alive` sends each engine's requests on
one connection kept open (the same client library for both) rather than a new connection per
request (urllib's): the client's own fixed cost per request, the same for both engines, then
weighs less in each one's time. Prints JSON per noise level. Needs numpy.

    python3 Tools/match_compare.py --map porto.wmg --osrm porto.osrm \\
        --pairs ../shared/bench/od_pairs/od_pairs_porto.json --routes 200 --noise 5,10,20
"""
import argparse, http.client, json, math, os, random, subprocess, time, urllib.error, urllib.parse, urllib.request

import numpy as np

from benchlib import free_port, osrm_bin, wait_ready


def polyline6(points):
    """Google's encoded polyline at 10⁻⁶ degrees, (lat, lon) order."""
    out, last = [], (0, 0)
    for lon, lat in points:
        now = (round(lat * 1e6), round(lon * 1e6))
        for value in (now[0] - last[0], now[1] - last[1]):
            value = ~(value << 1) if value < 0 else value << 1
            while value >= 0x20:
                out.append(chr((0x20 | (value & 0x1F)) + 63))
                value >>= 5
            out.append(chr(value + 63))
        last = now
    return "".join(out)


def match_query(fixes, times, sigma):
    # (A polyline may hold '?', '\\' and the like: percent-encoded, as OSRM's clients send it.)
    line = urllib.parse.quote(polyline6(fixes), safe="")
    return (f"polyline6({line})?overview=full&geometries=geojson"
            f"&timestamps={';'.join(map(str, times))}&radiuses={';'.join([str(sigma)] * len(fixes))}")


def fetch(url):
    """The response's bytes (an error's too)."""
    try:
        return urllib.request.urlopen(url, timeout=600).read()
    except urllib.error.HTTPError as error:
        return error.read()


class KeptConnections:
    """One connection per port, kept open between requests (opened again if the server closed it)."""

    def __init__(self):
        self.connections = {}

    def fetch(self, port, path):
        for attempt in (0, 1):
            connection = self.connections.get(port)
            if connection is None:
                connection = self.connections[port] = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            try:
                connection.request("GET", path)
                return connection.getresponse().read()
            except (http.client.HTTPException, OSError):
                connection.close()
                del self.connections[port]
                if attempt:
                    raise


def get(url):
    return json.loads(fetch(url))


def trace(route, interval, sigma, rng):
    """Fixes every `interval` s along the route's line at its speeds, with noise, and their times."""
    line = route["geometry"]["coordinates"]
    lat0 = line[0][1]
    k = 111_320 * math.cos(math.radians(lat0))
    # Time as a function of distance along the route, from the annotations' stretches.
    stretches = [(m, s) for leg in route["legs"]
                 for m, s in zip(leg["annotation"]["distance"], leg["annotation"]["duration"])]
    marks = np.cumsum([0.0] + [m for m, _ in stretches])
    clocks = np.cumsum([0.0] + [s for _, s in stretches])
    pieces = [math.hypot((b[0] - a[0]) * k, (b[1] - a[1]) * 110_574) for a, b in zip(line, line[1:])]
    scale = marks[-1] / max(sum(pieces), 1e-9)
    fixes, times, along, next_fix = [], [], 0.0, 0.0
    for (a, b), metres in zip(zip(line, line[1:]), pieces):
        start, end = (float(np.interp(x * scale, marks, clocks)) for x in (along, along + metres))
        while next_fix <= end:
            f = (next_fix - start) / (end - start) if end > start else 0
            fixes.append((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
            times.append(int(round(next_fix)))
            next_fix += interval
        along += metres
    clock = float(clocks[-1])
    if times[-1] < clock:
        fixes.append(tuple(line[-1]))
        times.append(int(math.ceil(clock)))
    noisy = [(lon + rng.gauss(0, sigma) / k, lat + rng.gauss(0, sigma) / 110_574) for lon, lat in fixes]
    return noisy, times


def to_metres(lines, lat0):
    k = 111_320 * math.cos(math.radians(lat0))
    return [np.array([(lon * k, lat * 110_574) for lon, lat in line]) for line in lines if len(line) >= 2]


def covered(sample_lines, target_lines, tolerance=5.0, step=2.0):
    """Metres of `sample_lines` within `tolerance` of `target_lines`, and their whole length."""
    if not target_lines:
        total = sum(float(np.linalg.norm(np.diff(l, axis=0), axis=1).sum()) for l in sample_lines)
        return 0.0, total
    segments = np.concatenate([np.stack([l[:-1], l[1:]], axis=1) for l in target_lines])
    a, b = segments[:, 0, :], segments[:, 1, :]
    ab = b - a
    length2 = np.maximum((ab ** 2).sum(axis=1), 1e-12)
    near = total = 0.0
    for line in sample_lines:
        for p, q in zip(line[:-1], line[1:]):
            seg = float(np.linalg.norm(q - p))
            if seg == 0:
                continue
            n = max(1, int(seg / step))
            points = p + (q - p) * ((np.arange(n) + 0.5) / n)[:, None]
            # Only target pieces whose box comes within the tolerance of this piece.
            lo, hi = np.minimum(p, q) - tolerance, np.maximum(p, q) + tolerance
            keep = ~((np.maximum(a, b) < lo).any(axis=1) | (np.minimum(a, b) > hi).any(axis=1))
            if keep.any():
                ka, kab, kl = a[keep], ab[keep], length2[keep]
                t = np.clip(((points[:, None, :] - ka[None]) * kab[None]).sum(axis=2) / kl[None], 0, 1)
                d = np.linalg.norm(points[:, None, :] - (ka[None] + t[..., None] * kab[None]), axis=2).min(axis=1)
                near += seg * float((d <= tolerance).mean())
            total += seg
    return near, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waymark", default=".build/release/waymark")
    ap.add_argument("--map", required=True)
    ap.add_argument("--osrm", required=True, help="an osrm-contract'ed dataset (CH)")
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--routes", type=int, default=200)
    ap.add_argument("--noise", default="5,10,20")
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--keep-alive", action="store_true", help="one connection per engine, kept open")
    args = ap.parse_args()
    kept = KeptConnections() if args.keep_alive else None
    pairs = json.load(open(args.pairs))["pairs"]
    ours_port, osrm_port = free_port(), free_port()
    ours = subprocess.Popen([args.waymark, "serve", args.map, "--port", str(ours_port), "--threads", "1",
                             "--max-matching-size", "100000"], stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    theirs = subprocess.Popen([os.path.join(osrm_bin(), "osrm-routed"), "-i", "127.0.0.1", "-p", str(osrm_port),
                               "-t", "1", "-a", "CH", "--max-matching-size", "100000", args.osrm],
                              stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{ours_port}/health")
        first = pairs[0]["from"]
        wait_ready(f"http://127.0.0.1:{osrm_port}/nearest/v1/driving/{first['lon']},{first['lat']}")
        routes = []
        for p in pairs:
            if len(routes) == args.routes:
                break
            path = f"{p['from']['lon']},{p['from']['lat']};{p['to']['lon']},{p['to']['lat']}"
            answer = get(f"http://127.0.0.1:{ours_port}/route/v1/driving/{path}"
                         "?overview=full&geometries=geojson&annotations=duration,distance")
            if answer.get("code") == "Ok" and answer["routes"][0]["distance"] >= 500:
                routes.append(answer["routes"][0])
        # One untimed match on each first: what a server makes at its first request is not timed.
        warm = match_query(*trace(routes[0], 5, 5, random.Random(0)), 5)
        for port in (ours_port, osrm_port):
            get(f"http://127.0.0.1:{port}/match/v1/driving/{warm}")
        result = {}
        for sigma in [float(s) for s in args.noise.split(",")]:
            rng = random.Random(args.seed * 1000 + int(sigma))
            sums = {"waymark": [0.0] * 4 + [0.0, 0, 0], "osrm": [0.0] * 4 + [0.0, 0, 0]}
            fixes_total = 0
            for route in routes:
                fixes, times = trace(route, rng.randint(1, 10), sigma, rng)
                fixes_total += len(fixes)
                query = match_query(fixes, times, sigma)
                lat0 = route["geometry"]["coordinates"][0][1]
                truth = to_metres([route["geometry"]["coordinates"]], lat0)
                for name, port in (("waymark", ours_port), ("osrm", osrm_port)):
                    # (Timed to the last byte of the answer; reading it as JSON is the client's work.)
                    start = time.perf_counter()
                    path = f"/match/v1/driving/{query}"
                    body = kept.fetch(port, path) if kept else fetch(f"http://127.0.0.1:{port}{path}")
                    elapsed = time.perf_counter() - start
                    answer = json.loads(body)
                    s = sums[name]
                    s[4] += elapsed
                    if answer.get("code") != "Ok":
                        s[5] += 1
                        matched = []
                    else:
                        matched = to_metres([m["geometry"]["coordinates"] for m in answer["matchings"]], lat0)
                        s[6] += len(answer["matchings"])
                    near, total = covered(truth, matched)
                    s[0] += near
                    s[1] += total
                    near, total = covered(matched, truth)
                    s[2] += near
                    s[3] += total
            result[f"sigma {sigma:g} m"] = {
                name: {"recall": round(s[0] / s[1], 4), "precision": round(s[2] / s[3], 4) if s[3] else 0,
                       "ms_per_fix": round(1000 * s[4] / fixes_total, 4), "failed": s[5], "matchings": s[6]}
                for name, s in sums.items()}
            result[f"sigma {sigma:g} m"]["traces"] = len(routes)
            result[f"sigma {sigma:g} m"]["fixes"] = fixes_total
            w, o = result[f"sigma {sigma:g} m"]["waymark"], result[f"sigma {sigma:g} m"]["osrm"]
            result[f"sigma {sigma:g} m"]["speed_ratio"] = round(o["ms_per_fix"] / w["ms_per_fix"], 2)
            print(json.dumps({f"sigma {sigma:g} m": result[f"sigma {sigma:g} m"]}), flush=True)
        print(json.dumps(result, indent=1))
    finally:
        for server in (ours, theirs):
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
