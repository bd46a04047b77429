#!/usr/bin/env python3
"""OSRM client libraries from PyPI against `waymark serve`, each with its default settings and with
the options OSRM serves: routingpy's OSRM client and py-osrm-client (module `osrm`), every service
but tile.

    osrm_clients_test.py PORT LON,LAT LON,LAT LON,LAT

Runs in the virtual environment .ci/run makes (.build/osrm-clients: routingpy, py-osrm-client),
apart from osrm-bindings, whose module is also named `osrm`. Prints one line per call; exits 1 at
the first call that fails or answers what OSRM would not.
"""
import sys

import routingpy
from osrm import OsrmClient

port = int(sys.argv[1])
a, b, c = ([float(x) for x in p.split(",")] for p in sys.argv[2:5])
base = f"http://127.0.0.1:{port}"
calls = 0


def check(name, ok, detail=""):
    global calls
    calls += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name} {detail}")
    if not ok:
        sys.exit(1)


# routingpy: directions and matrix, defaults first.
client = routingpy.OSRM(base_url=base, timeout=10)
route = client.directions([a, b])
check("routingpy directions", route.distance > 0 and len(route.geometry) >= 2, f"{route.distance} m")
full = client.directions([a, b], alternatives=3, steps=True, annotations=True, geometries="geojson",
                         overview="full", continue_straight=False, radiuses=[500, 500], bearings=[[0, 180], [0, 180]])
raw = full.raw
leg = raw["routes"][0]["legs"][0]
check("routingpy directions (alternatives, annotations, steps)",
      raw["code"] == "Ok" and len(leg["steps"]) >= 2 and len(leg["annotation"]["nodes"]) == len(leg["annotation"]["duration"]) + 1,
      f"{len(raw['routes'])} routes")
via = client.directions([a, c, b], steps=True)
check("routingpy directions via a point", len(via.raw["routes"][0]["legs"]) == 2)
matrix = client.matrix([a, b, c])
check("routingpy matrix", len(matrix.durations) == 3 and len(matrix.distances[0]) == 3)
part = client.matrix([a, b, c], sources=[0], destinations=[1, 2], annotations=["duration"])
check("routingpy matrix (sources, destinations)", len(part.durations) == 1 and len(part.durations[0]) == 2)

# py-osrm-client: route, table, nearest, trip and match (a trace along the first route's line).
with OsrmClient(base_url=base + "/") as osrm:
    answer = osrm.route([tuple(a), tuple(b)])
    check("py-osrm-client route", answer.code.name == "OK" and answer.routes[0].distance > 0)
    answer = osrm.route([tuple(a), tuple(b)], alternatives=True, steps=True, annotations=True, overview="full",
                        geometries="geojson")
    legs = answer.routes[0].legs
    check("py-osrm-client route (alternatives, steps, annotations)",
          answer.code.name == "OK" and len(legs[0].steps) >= 2 and legs[0].annotation is not None,
          f"{len(answer.routes)} routes")
    table = osrm.table([tuple(a), tuple(b), tuple(c)])
    check("py-osrm-client table", table.code.name == "OK" and len(table.durations) == 3)
    nearest = osrm.nearest(tuple(a), number=2)
    check("py-osrm-client nearest", nearest.code.name == "OK" and 1 <= len(nearest.waypoints) <= 2)
    trip = osrm.trip([tuple(a), tuple(b), tuple(c)], steps=True)
    check("py-osrm-client trip", trip.code.name == "OK" and len(trip.trips) == 1
          and sorted(w.waypoint_index for w in trip.waypoints) == [0, 1, 2])
    line = route.geometry
    fixes = [tuple(line[i * (len(line) - 1) // 9]) for i in range(10)]
    # (Its lists of timestamps and radiuses go out as Python's text of the list, which OSRM
    # refuses too: its defaults only.)
    match = osrm.match(fixes, steps=True, overview="full")
    check("py-osrm-client match", match.code.name == "OK" and len(match.matchings) >= 1
          and len(match.tracepoints) == 10 and 0 < match.matchings[0].confidence <= 1,
          f"{len(match.matchings)} matchings")
print(f"{calls} calls, all answered")
