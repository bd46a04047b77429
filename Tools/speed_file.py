#!/usr/bin/env python3
"""A segment speed file in OSRM's CSV format (from_osm_id,to_osm_id,speed_kmh) for a share of a
map's car roads: every stretch between consecutive nodes of the chosen ways, both directions, at a
random speed (some closed at 0). For `waymark customize --segment-speeds` and osrm-customize's
`--segment-speed-file` on the same file.

    python3 Tools/speed_file.py ../shared/data/osm/porto.osm.gz --share 0.1 -o speeds.csv
"""
import argparse, gzip, random, re

ROADS = {"motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential",
         "living_street", "service", "motorway_link", "trunk_link", "primary_link", "secondary_link",
         "tertiary_link"}
REF = re.compile(r'<nd ref="(\d+)"')
HIGHWAY = re.compile(r'<tag k="highway" v="([^"]*)"')


def ways(path):
    """Each way's node ids and highway value, read line by line (one element tag per line)."""
    opener = gzip.open if path.endswith(".gz") else open
    nodes, highway, inside = [], None, False
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if "<way " in line:
                nodes, highway, inside = [], None, True
            elif inside:
                m = REF.search(line)
                if m:
                    nodes.append(int(m.group(1)))
                m = HIGHWAY.search(line)
                if m:
                    highway = m.group(1)
                if "</way>" in line:
                    inside = False
                    yield nodes, highway


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("osm")
    ap.add_argument("--share", type=float, default=0.1, help="share of the car roads' ways (default 0.1)")
    ap.add_argument("--closed", type=float, default=0.01, help="share of chosen ways closed (speed 0)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    chosen = stretches = 0
    with open(args.output, "w") as out:
        for nodes, highway in ways(args.osm):
            if highway not in ROADS or rng.random() >= args.share:
                continue
            chosen += 1
            speed = 0 if rng.random() < args.closed else rng.randint(5, 90)
            for a, b in zip(nodes, nodes[1:]):
                out.write(f"{a},{b},{speed}\n{b},{a},{speed}\n")
                stretches += 2
    print(f"{chosen} ways, {stretches} directed stretches -> {args.output}")


if __name__ == "__main__":
    main()
