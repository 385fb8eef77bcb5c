#!/usr/bin/env bash
# Regenerates Screenshots/*.png from the real browser: builds stackscope, then runs
# Scripts/screenshots.py (tmux + Pillow; see its header for what it needs and its options).
#   Scripts/screenshot.sh                 # every scene
#   Scripts/screenshot.sh --scene main    # one scene
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import PIL' 2>/dev/null || { echo "needs Pillow: python3 -m pip install pillow" >&2; exit 1; }
swift build --product stackscope
exec python3 Scripts/screenshots.py --binary "$(swift build --show-bin-path)/stackscope" "$@"
