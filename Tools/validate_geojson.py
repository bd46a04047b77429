#!/usr/bin/env python3
"""Check GeoJSON files with an independent validator (geojson-validator, PyPI).

    python3 Tools/validate_geojson.py FILE...

Fails (exit 1) on any structural error, any invalid geometry, and on the "problematic" criteria
that our writer promises to avoid: positions outside lon/lat bounds and more than 6 decimal places
(the default precision). Exit 2 when the validator is not installed.

Lines that cross the antimeridian must be split (RFC 7946 3.1.9). geojson-validator's own
`crosses_antimeridian` check normalises 180 to -180 and so flags the RFC's own example
([[170, 45], [180, 45]]); this script checks the RFC's criterion instead: no two consecutive
positions more than 180 degrees of longitude apart.
"""
import json
import sys

try:
    import geojson_validator
except ImportError:
    print("validate_geojson: geojson-validator is not installed (pip install geojson-validator)", file=sys.stderr)
    sys.exit(2)
try:
    geojson_validator.configure_logging(enabled=False)
except Exception:
    pass

PROMISED = ["outside_lat_lon_boundaries", "excessive_coordinate_precision"]


def position_lists(geometry):
    """Every list of positions in a geometry (LineString, rings, parts)."""
    if geometry is None:
        return
    kind = geometry.get("type")
    if kind == "GeometryCollection":
        for g in geometry.get("geometries", []):
            yield from position_lists(g)
    elif kind in ("LineString", "MultiPoint"):
        yield geometry["coordinates"]
    elif kind in ("MultiLineString", "Polygon"):
        yield from geometry["coordinates"]
    elif kind == "MultiPolygon":
        for polygon in geometry["coordinates"]:
            yield from polygon


def antimeridian_jumps(document):
    """Indices of features with consecutive positions more than 180 degrees of longitude apart."""
    if document.get("type") == "FeatureCollection":
        geometries = [f.get("geometry") for f in document.get("features", [])]
    elif document.get("type") == "Feature":
        geometries = [document.get("geometry")]
    else:
        geometries = [document]
    return [i for i, g in enumerate(geometries)
            if any(abs(b[0] - a[0]) > 180 for line in position_lists(g) for a, b in zip(line, line[1:]))]
failed = False
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    structure = geojson_validator.validate_structure(document, check_crs=False)
    geometries = geojson_validator.validate_geometries(document, criteria_problematic=PROMISED)
    problems = {"structure": structure, "invalid": geometries.get("invalid"), "problematic": geometries.get("problematic"),
                "unsplit_antimeridian_crossings": antimeridian_jumps(document)}
    if any(problems.values()):
        failed = True
        print(f"{path}: INVALID {json.dumps(problems)}")
    else:
        print(f"{path}: valid ({json.dumps(geometries.get('count_geometry_types'))})")
sys.exit(1 if failed else 0)
