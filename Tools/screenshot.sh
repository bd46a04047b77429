#!/usr/bin/env bash
# Turns an SVG from `waymark render` into a PNG with a real browser (Debian's chromium, headless),
# to look at what a map app user would see.
#   Tools/screenshot.sh map.svg map.png [WIDTHxHEIGHT]
# Installs nothing: needs `apt-get install chromium fonts-dejavu-core`.
set -euo pipefail
svg=${1:?usage: Tools/screenshot.sh MAP.svg OUT.png [WIDTHxHEIGHT]}
png=${2:?usage: Tools/screenshot.sh MAP.svg OUT.png [WIDTHxHEIGHT]}
size=${3:-$(sed -n 's/.*<svg[^>]* height="\([0-9.]*\)"[^>]* width="\([0-9.]*\)".*/\2x\1/p' "$svg" | head -1)}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "screenshot.sh: chromium is not installed (apt-get install chromium fonts-dejavu-core)" >&2
    exit 1
fi
abs_svg=$(cd "$(dirname "$svg")" && pwd)/$(basename "$svg")
abs_png=$(cd "$(dirname "$png")" && pwd)/$(basename "$png")
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="${size/x/,}" \
    --screenshot="$abs_png" "file://$abs_svg" 2>/dev/null >/dev/null
test -s "$abs_png" && echo "$png ($size)"
