#!/usr/bin/env bash
# Issue 18's figures in one run: the W1–W8 workloads at three sizes against raw SQLite, the time
# per link, `demo create` of a 1M store, `dump` on it, and the browser's launch steps and batched
# controller on it. Release builds; prints a Markdown report (also written to $OUT).
#
#   Scripts/large-stores-bench.sh                 # the full run (~10 minutes on 2 cores)
#   SIZES=1000,10000 DEMO=20000 Scripts/large-stores-bench.sh   # a quick check of the script
#
# Run it on a quiet machine: every figure shares the cores with whatever else runs.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-10000,100000,1000000}
RUNS=${RUNS:-3}
DEMO=${DEMO:-1000000}
SCRATCH=${SCRATCH:-.build-rel}
WORK=${WORK:-$(mktemp -d /tmp/large-stores-bench.XXXXXX)}
mkdir -p "$WORK"
OUT=${OUT:-$WORK/report.md}
BIN=$SCRATCH/release

swift build -c release --scratch-path "$SCRATCH" --product corestack-bench >&2
swift build -c release --scratch-path "$SCRATCH" --product stackscope >&2
swift build -c release --scratch-path "$SCRATCH" --product stackscope-bench >&2

timed() { # timed LABEL CMD…: "LABEL | seconds | peak MB", the command's output to $WORK/last.txt
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >"$WORK/last.txt" 2>"$WORK/last.err"
    read -r secs kb <"$WORK/time.txt"
    printf '| %s | %s s | %.1f MB |\n' "$label" "$secs" "$(echo "$kb / 1024" | bc -l)"
}

{
    echo "# Large stores (issue 18): one run"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "## W1–W8 at $SIZES objects ($RUNS runs each)"
    echo
    echo '```'
    echo "corestack-bench --sizes $SIZES --runs $RUNS"
    echo '```'
    "$BIN/corestack-bench" --sizes "$SIZES" --runs "$RUNS" 2>/dev/null
    echo
    echo "## Time per link"
    echo
    "$BIN/corestack-bench" --only links --runs 5 2>/dev/null
    echo
    echo "## \`stackscope\` on a store of $DEMO objects"
    echo
    echo "| command | time | peak memory |"
    echo "|---|---:|---:|"
    STORE="$WORK/demo.sqlite"
    timed "\`demo create --size $DEMO\`" "$BIN/stackscope" demo create "$STORE" --size "$DEMO" --force
    timed "\`info\`" "$BIN/stackscope" info "$STORE"
    timed "\`dump --entity Book --sort title --limit 10\`" "$BIN/stackscope" dump "$STORE" --entity Book --sort title --limit 10
    timed "\`dump --entity Chapter --sort -title,number --limit 10\`" "$BIN/stackscope" dump "$STORE" --entity Chapter --sort=-title,number --limit 10
    timed "\`dump --entity Chapter\` (every chapter) to /dev/null" "$BIN/stackscope" dump "$STORE" --entity Chapter
    echo
    echo "## The browser's launch steps and a batched controller on that store"
    echo
    mkdir -p "$WORK/ssb"
    cp "$STORE" "$WORK/ssb/demo-$DEMO.sqlite"
    touch "$WORK/ssb/demo-$DEMO.sqlite.complete"
    echo '```'
    "$BIN/stackscope-bench" --dir "$WORK/ssb" --profile "$DEMO" --entity Chapter 2>/dev/null
    echo '```'
    echo
    echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT"
echo "report: $OUT" >&2
