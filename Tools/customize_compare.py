#!/usr/bin/env python3
"""Durations of a Waymark map against an OSRM dataset of the same extract, on the shared pairs
(`waymark route --batch`; OSRM in-process): after new speeds (`waymark customize` against
`osrm-customize --segment-speed-file` on an MLD dataset customized with the same file), or for a
profile (`waymark build --profile foot` against osrm-extract with foot.lua). Prints the median
duration ratio and the shares within 10 % and 1 %, as JSON. Needs python3.12 with `osrm-bindings`.

    python3.12 Tools/customize_compare.py --map porto-custom.wmg --osrm osrm-porto/porto.osrm \\
        --pairs ../shared/bench/od_pairs/od_pairs_porto.json [--algorithm CH]
"""
import argparse, json, statistics, subprocess, tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waymark", default=".build/release/waymark")
    ap.add_argument("--map", required=True)
    ap.add_argument("--osrm", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--algorithm", default="MLD", help="MLD or CH: the dataset's")
    args = ap.parse_args()
    pairs = json.load(open(args.pairs))["pairs"]
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        for p in pairs:
            f.write(f"{p['from']['lat']},{p['from']['lon']},{p['to']['lat']},{p['to']['lon']}\n")
        csv = f.name
    out = subprocess.run([args.waymark, "route", args.map, "--batch", csv], capture_output=True, text=True).stdout
    ours = []
    for line in out.splitlines():
        record = json.loads(line)
        ours.append(record["routes"][0]["duration"] if record.get("code") == "Ok" else None)
    import osrm
    engine = osrm.OSRM(storage_config=args.osrm, algorithm=args.algorithm, use_shared_memory=False)
    theirs = []
    for p in pairs:
        params = osrm.RouteParameters(coordinates=[(p["from"]["lon"], p["from"]["lat"]),
                                                   (p["to"]["lon"], p["to"]["lat"])])
        try:
            theirs.append(engine.Route(params)["routes"][0]["duration"])
        except Exception:
            theirs.append(None)
    both = [(a, b) for a, b in zip(ours, theirs) if a is not None and b is not None and b > 0]
    ratios = [a / b for a, b in both]
    print(json.dumps({
        "pairs": len(pairs), "both_routed": len(both),
        "only_waymark": sum(a is not None and b is None for a, b in zip(ours, theirs)),
        "only_osrm": sum(a is None and b is not None for a, b in zip(ours, theirs)),
        "median_ratio": round(statistics.median(ratios), 4),
        "within_10_percent": round(sum(abs(r - 1) <= 0.1 for r in ratios) / len(ratios), 4),
        "within_1_percent": round(sum(abs(r - 1) <= 0.01 for r in ratios) / len(ratios), 4),
    }, indent=1))


if __name__ == "__main__":
    main()
