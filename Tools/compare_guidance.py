#!/usr/bin/env python3
"""Waymark's guidance against OSRM's, pair by pair, in one run.

Routes every origin/destination pair of a shared pairs file with OSRM (in-process bindings,
steps=true) and reads Waymark's answers for the same pairs from `waymark route --batch`
(NDJSON, one route per line, in order). Reports the number of steps per route (median, mean)
for each, how often the maneuver sequences (type and modifier of every step) are identical,
how often the types alone are, and the most frequent differences.

Step by step: where the two routes share road (their geometries pass the same places, to about
10 m), each OSRM maneuver is looked up at the same place in Waymark's route: the same type and
modifier, another one, or none (Waymark says nothing there); Waymark maneuvers where OSRM says
nothing are counted too. Whole sequences differ as soon as the two routes take different roads;
this count does not.

    python3.12 Tools/compare_guidance.py --osrm porto.osrm --pairs ../shared/bench/od_pairs/od_pairs_porto.json \
        --waymark waymark-porto.ndjson [--show 5]

`--places N` ranks the junctions that keep same-road routes from OSRM's whole sequence: each
route's differing places (about 80 m), then greedily the place whose fix alone would set the most
routes right, with what OSRM and Waymark say there.

Needs `pip install osrm-bindings` (Python >= 3.12) and an OSRM dataset made with its car.lua
(osrm-extract, osrm-contract).
"""
import argparse
import collections
import json
import statistics


def maneuvers(route):
    out = []
    for leg in route["legs"]:
        for step in leg["steps"]:
            m = step["maneuver"]
            out.append((str(m["type"]), str(m["modifier"]) if "modifier" in m else ""))
    return out


def with_exits(route):
    """(type, modifier, exit) of every step: the whole sequence a driver follows."""
    return [(str(s["maneuver"]["type"]), str(s["maneuver"]["modifier"]) if "modifier" in s["maneuver"] else "",
             int(s["maneuver"]["exit"]) if "exit" in s["maneuver"] else 0)
            for leg in route["legs"] for s in leg["steps"]]


def decode_polyline(text, precision=5):
    """The points of an encoded polyline, (latitude, longitude)."""
    index = lat = lon = 0
    points = []
    factor = 10 ** precision
    while index < len(text):
        deltas = []
        for _ in range(2):
            shift = result = 0
            while True:
                byte = ord(text[index]) - 63
                index += 1
                result |= (byte & 0x1F) << shift
                shift += 5
                if byte < 0x20:
                    break
            deltas.append(~(result >> 1) if result & 1 else result >> 1)
        lat += deltas[0]
        lon += deltas[1]
        points.append((lat / factor, lon / factor))
    return points


def cell(lat, lon):
    """A grid cell of about 10 m."""
    return (round(lat * 1e4), round(lon * 1e4))


def step_places(route):
    """(cell, type, modifier) of every maneuver."""
    out = {}
    for leg in route["legs"]:
        for step in leg["steps"]:
            m = step["maneuver"]
            lon, lat = m["location"][0], m["location"][1]
            out[cell(lat, lon)] = (str(m["type"]), str(m["modifier"]) if "modifier" in m else "")
    return out


def cells_of_osrm(route):
    return {cell(c[1], c[0]) for c in route["geometry"]["coordinates"]}


def cells_of_waymark(route):
    found = set()
    for leg in route["legs"]:
        for step in leg["steps"]:
            g = step["geometry"]
            points = decode_polyline(g) if isinstance(g, str) else [(c[1], c[0]) for c in g["coordinates"]]
            found |= {cell(lat, lon) for lat, lon in points}
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osrm", required=True, help="the .osrm dataset (CH)")
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--waymark", required=True, help="waymark route --batch output (NDJSON)")
    ap.add_argument("--exclude", default=None, help="classes both engines keep off (OSRM's exclude, e.g. motorway)")
    ap.add_argument("--show", type=int, default=0, help="print this many differing pairs")
    ap.add_argument("--top", type=int, default=8, help="list this many of the most frequent other maneuvers")
    ap.add_argument("--limit", type=int, default=12, help="print at most this many places for --missing, --unlike, --examples")
    ap.add_argument("--examples", default=None, help='print where Waymark makes this maneuver and OSRM none (e.g. "turn straight")')
    ap.add_argument("--unlike", default=None, help='print where OSRM and Waymark make different maneuvers, e.g. "turn slight right -> turn straight"')
    ap.add_argument("--places", type=int, default=0,
                    help="rank this many junctions by the routes on OSRM's road each would set right alone")
    ap.add_argument("--missing", default=None, help='print where OSRM makes this maneuver and Waymark none (e.g. "new name straight")')
    args = ap.parse_args()

    import osrm

    pairs = json.load(open(args.pairs))["pairs"]
    engine = osrm.OSRM(storage_config=args.osrm, algorithm="CH", use_shared_memory=False)
    ours = [json.loads(line) for line in open(args.waymark)]
    assert len(ours) == len(pairs), "one Waymark line per pair"

    steps_osrm, steps_ours = [], []
    # Intersections both list at one place with the same bearings, and those whose entry flags agree.
    entries = collections.Counter()
    identical = with_exit = same_types = compared = same_roads = same_road_and_sequence = 0
    duration_ratios = []
    differences = collections.Counter()
    aligned, unlike, only_osrm, only_ours = collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter()
    shown = 0
    spoiled = []  # per same-road route that differs: the places (about 80 m) where it differs
    place_classes = collections.defaultdict(collections.Counter)
    for i, (pair, mine) in enumerate(zip(pairs, ours)):
        a, b = pair["from"], pair["to"]
        params = osrm.RouteParameters(coordinates=[(a["lon"], a["lat"]), (b["lon"], b["lat"])], steps=True,
                                      overview="full", geometries="geojson",
                                      exclude=args.exclude.split(",") if args.exclude else [])
        try:
            theirs = engine.Route(params)
        except RuntimeError:
            continue
        if theirs["code"] != "Ok" or mine.get("code") != "Ok":
            continue
        x, y = maneuvers(theirs["routes"][0]), maneuvers(mine["routes"][0])
        listed = {}
        for leg in theirs["routes"][0]["legs"]:
            for step in leg["steps"]:
                for junction in step["intersections"]:
                    place = (round(float(junction["location"][0]), 5), round(float(junction["location"][1]), 5))
                    listed[place] = ([int(b) for b in junction["bearings"]], [bool(e) for e in junction["entry"]])
        for leg in mine["routes"][0]["legs"]:
            for step in leg["steps"]:
                for junction in step["intersections"]:
                    place = (round(junction["location"][0], 5), round(junction["location"][1], 5))
                    if place in listed and listed[place][0] == junction["bearings"]:
                        entries["compared"] += 1
                        entries["same"] += listed[place][1] == junction["entry"]
        shared = cells_of_osrm(theirs["routes"][0]) & cells_of_waymark(mine["routes"][0])
        at_osrm, at_ours = step_places(theirs["routes"][0]), step_places(mine["routes"][0])
        for place, maneuver in at_osrm.items():
            if place not in shared:
                continue
            if place not in at_ours:
                aligned["osrm only"] += 1
                only_osrm[maneuver] += 1
                if args.missing and f"{maneuver[0]} {maneuver[1]}".strip() == args.missing and only_osrm[maneuver] <= args.limit:
                    step = next(s for leg in theirs["routes"][0]["legs"] for s in leg["steps"]
                                if cell(s["maneuver"]["location"][1], s["maneuver"]["location"][0]) == place)
                    lat, lon = step["maneuver"]["location"][1], step["maneuver"]["location"][0]
                    print(f"pair {i} at {lat:.6f},{lon:.6f}: OSRM {maneuver[0]} {maneuver[1]} onto {step['name']!r} "
                          f"(Waymark nearby: " + ", ".join(
                              f"{w['maneuver']['type']} {w['maneuver'].get('modifier', '')} {w['name']}" for leg in mine["routes"][0]["legs"]
                              for w in leg["steps"] if abs(w["maneuver"]["location"][1] - lat) < 0.003
                              and abs(w["maneuver"]["location"][0] - lon) < 0.004) + ")")
            elif at_ours[place] == maneuver:
                aligned["same"] += 1
            else:
                aligned["different"] += 1
                unlike[(maneuver, at_ours[place])] += 1
                pair_text = f"{maneuver[0]} {maneuver[1]}".strip() + " -> " + f"{at_ours[place][0]} {at_ours[place][1]}".strip()
                if args.unlike and pair_text == args.unlike and unlike[(maneuver, at_ours[place])] <= args.limit:
                    step = next(s for leg in theirs["routes"][0]["legs"] for s in leg["steps"]
                                if cell(s["maneuver"]["location"][1], s["maneuver"]["location"][0]) == place)
                    print(f"pair {i} at {step['maneuver']['location'][1]:.6f},{step['maneuver']['location'][0]:.6f}: "
                          f"OSRM {pair_text} onto {step['name']!r}")
        for place, maneuver in at_ours.items():
            if place in shared and place not in at_osrm:
                aligned["waymark only"] += 1
                only_ours[maneuver] += 1
                if args.examples and f"{maneuver[0]} {maneuver[1]}".strip() == args.examples and only_ours[maneuver] <= args.limit:
                    step = next(s for leg in mine["routes"][0]["legs"] for s in leg["steps"]
                                if cell(s["maneuver"]["location"][1], s["maneuver"]["location"][0]) == place)
                    print(f"pair {i} at {step['maneuver']['location'][1]:.6f},{step['maneuver']['location'][0]:.6f}: "
                          f"{step['maneuver']['instruction']} (OSRM: " + ", ".join(
                              f"{o['maneuver']['type']} {o['maneuver']['modifier'] if 'modifier' in o['maneuver'] else ''} {o['name']}" for leg in theirs["routes"][0]["legs"]
                              for o in leg["steps"] if abs(o["maneuver"]["location"][1] - step["maneuver"]["location"][1]) < 0.003
                              and abs(o["maneuver"]["location"][0] - step["maneuver"]["location"][0]) < 0.004) + ")")
        compared += 1
        if args.places and with_exits(theirs["routes"][0]) != with_exits(mine["routes"][0]):
            spoiled.append(differing_places(theirs["routes"][0], mine["routes"][0], place_classes))
        # The same road (lengths within 0.2 %, or 2 m): then only guidance can tell them apart.
        ours_length, theirs_length = mine["routes"][0]["distance"], theirs["routes"][0]["distance"]
        same_road = abs(ours_length - theirs_length) <= max(2, 0.002 * theirs_length)
        same_roads += same_road
        if theirs["routes"][0]["duration"] > 0:
            duration_ratios.append(mine["routes"][0]["duration"] / theirs["routes"][0]["duration"])
        steps_osrm.append(len(x))
        steps_ours.append(len(y))
        if x == y:
            identical += 1
            if with_exits(theirs["routes"][0]) == with_exits(mine["routes"][0]):
                with_exit += 1
                same_road_and_sequence += same_road
        if [t for t, _ in x] == [t for t, _ in y]:
            same_types += 1
        for t in set(t for t, _ in x) | set(t for t, _ in y):
            cx, cy = sum(1 for s in x if s[0] == t), sum(1 for s in y if s[0] == t)
            if cx != cy:
                differences[(t, "osrm more" if cx > cy else "waymark more")] += 1
        if x != y and shown < args.show:
            shown += 1
            print(f"pair {i}: OSRM {len(x)} steps, Waymark {len(y)}")
            print("  OSRM   :", ", ".join(f"{t} {m}".strip() for t, m in x))
            print("  Waymark:", ", ".join(f"{t} {m}".strip() for t, m in y))

    print(f"pairs compared: {compared}")
    print(f"intersections both list alike (place, bearings): {entries['compared']}; "
          f"the same entry flags: {entries['same']} ({100 * entries['same'] / max(1, entries['compared']):.2f} %)")
    print(f"steps per route, OSRM: median {statistics.median(steps_osrm)}, mean {statistics.mean(steps_osrm):.1f}")
    print(f"steps per route, Waymark: median {statistics.median(steps_ours)}, mean {statistics.mean(steps_ours):.1f}")
    print(f"identical maneuver sequences (type and modifier): {identical} ({100 * identical / compared:.1f} %)")
    print(f"identical (type, modifier, exit) sequences: {with_exit} ({100 * with_exit / compared:.1f} %)")
    print(f"identical maneuver types: {same_types} ({100 * same_types / compared:.1f} %)")
    print(f"routes of the same length (within 0.2 %): {same_roads}; of them, identical (type, modifier, exit) "
          f"sequences: {same_road_and_sequence} ({100 * same_road_and_sequence / max(1, same_roads):.1f} %)")
    ratios = sorted(duration_ratios)
    print(f"duration Waymark / OSRM: median {statistics.median(ratios):.4f}, "
          f"within 10 %: {100 * sum(1 for r in ratios if abs(r - 1) <= 0.1) / max(1, len(ratios)):.1f} %")
    total = aligned["same"] + aligned["different"] + aligned["osrm only"]
    print(f"OSRM maneuvers on road both routes take: {total}")
    print(f"  the same maneuver in Waymark: {aligned['same']} ({100 * aligned['same'] / max(1, total):.1f} %)")
    print(f"  another maneuver: {aligned['different']} ({100 * aligned['different'] / max(1, total):.1f} %)")
    print(f"  none in Waymark: {aligned['osrm only']} ({100 * aligned['osrm only'] / max(1, total):.1f} %)")
    print(f"Waymark maneuvers where OSRM has none: {aligned['waymark only']}")
    def pair(m):
        return f"{m[0]} {m[1]}".strip()
    print("most frequent other maneuvers (OSRM -> Waymark):")
    for (a, b), n in unlike.most_common(args.top):
        print(f"  {n}: {pair(a)} -> {pair(b)}")
    print("most frequent OSRM maneuvers Waymark does not make:", ", ".join(f"{pair(m)} {n}" for m, n in only_osrm.most_common(5)))
    print("most frequent Waymark maneuvers OSRM does not make:", ", ".join(f"{pair(m)} {n}" for m, n in only_ours.most_common(5)))
    print("most frequent differences (routes where the count of a type differs):")
    for (t, who), n in differences.most_common(10):
        print(f"  {t}: {who} in {n} routes")
    if args.places:
        rank_places(spoiled, place_classes, with_exit, args.places)


def differing_places(theirs, mine, classes):
    """The places (cells of about 80 m) where two routes on the same road tell different maneuvers;
    None for routes on different roads (lengths more than 0.2 % apart)."""
    if abs(theirs["distance"] - mine["distance"]) > max(2, 0.002 * theirs["distance"]):
        return None
    def told(route):
        out = {}
        for s in (s for leg in route["legs"] for s in leg["steps"]):
            m = s["maneuver"]
            out[cell(m["location"][1], m["location"][0])] = (
                str(m["type"]), str(m["modifier"]) if "modifier" in m else "", int(m["exit"]) if "exit" in m else 0)
        return out
    a, b = told(theirs), told(mine)
    places = set()
    for c in set(a) | set(b):
        if a.get(c) != b.get(c):
            place = (c[0] // 8, c[1] // 8)
            places.add(place)
            classes[place][(a.get(c), b.get(c))] += 1
    return places


def rank_places(spoiled, classes, identical, count):
    """Greedily, the places whose fix alone would make the most routes' sequences OSRM's."""
    same_road = [p for p in spoiled if p is not None]
    print(f"routes differing on OSRM's road: {len(same_road)}; on another road: {len(spoiled) - len(same_road)}")
    fixed, total = set(), identical
    for _ in range(count):
        gain = collections.Counter(next(iter(p - fixed)) for p in same_road if len(p - fixed) == 1)
        if not gain:
            break
        place, n = gain.most_common(1)[0]
        fixed.add(place)
        total += n
        what = ", ".join(f"{a} -> {b} ({k})" for (a, b), k in classes[place].most_common(2))
        print(f"  +{n} -> {total}: near {place[0] * 8e-4:.4f},{place[1] * 8e-4:.4f}: {what}")


if __name__ == "__main__":
    main()
