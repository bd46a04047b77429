#!/usr/bin/env bash
# Fuzzes one target of Tools/Fuzz with libFuzzer (and AddressSanitizer):
#   Tools/fuzz.sh TARGET [SECONDS] [libFuzzer options…]
# TARGET: osm-xml, pbf, graph-file, geojson, csv or http. Without SECONDS, 60. The corpus grows in
# .build/fuzz-corpus/TARGET (seeded from Data/ and small hand-made inputs); crashing inputs land
# in .build/fuzz-findings/TARGET/ — add them to Tests/Fixtures/fuzz/TARGET/ with the fix.
# `FUZZ_RUNS=N` runs N inputs from seed 1 instead of a time limit (what .ci/run does).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: Tools/fuzz.sh osm-xml|pbf|graph-file|geojson|csv|http [SECONDS] [libFuzzer options…]}
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))

swift build -q --build-path .build/fuzz --product waymark-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DWAYMARK_FUZZ
binary=.build/fuzz/debug/waymark-fuzz

corpus=.build/fuzz-corpus/$target findings=.build/fuzz-findings/$target
mkdir -p "$corpus" "$findings"
seeds=Tests/Fixtures/fuzz/$target
[ -d "$seeds" ] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
case "$target" in
    osm-xml)
        cp -n Data/sample-town.osm "$corpus"/ ;;  # with Tests/Fixtures/fuzz/osm-xml/small-grid.osm
    graph-file)
        [ -f "$corpus/small-grid.wmg" ] || swift run -q waymark build Tests/Fixtures/fuzz/osm-xml/small-grid.osm -o "$corpus/small-grid.wmg" --quiet --hierarchy
        [ -f "$corpus/sample-town.wmg" ] || swift run -q waymark build Data/sample-town.osm -o "$corpus/sample-town.wmg" --quiet ;;
    geojson)
        cp -n Data/places.geojson "$corpus"/ ;;
    csv)
        [ -f "$corpus/places.csv" ] || printf 'latitude,longitude,title,subtitle\n52.3094,-2.5988,Town hall,"Market Square, 1"\n52.3117,-2.5726,Fuel,\n' > "$corpus/places.csv" ;;
esac

if [ -n "${FUZZ_RUNS:-}" ]; then
    limit=(-runs="$FUZZ_RUNS" -seed=1)
else
    limit=(-max_total_time="$seconds")
fi
"$binary" "$target" "${limit[@]}" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$@" "$corpus"
