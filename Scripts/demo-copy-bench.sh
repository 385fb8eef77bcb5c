#!/usr/bin/env bash
# Issue 34's demo-create target: `stackscope demo create --size N` against SQLite itself copying
# the same tables and indexes row by row into a new WAL file (`INSERT INTO … SELECT` from the
# attached store), one after the other on the same machine. Prints a Markdown table.
#
#   Scripts/demo-copy-bench.sh                 # N = 1,000,000 (~1 minute on 2 quiet cores)
#   SIZE=100000 Scripts/demo-copy-bench.sh     # a quicker check
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-1000000}
SCRATCH=${SCRATCH:-.build}
WORK=${WORK:-$(mktemp -d /tmp/demo-copy-bench.XXXXXX)}
mkdir -p "$WORK"
BIN=${BIN:-$SCRATCH/release}
[ -x "$BIN/stackscope" ] || swift build -c release --scratch-path "$SCRATCH" --product stackscope >&2

STORE=$WORK/demo.sqlite
COPY=$WORK/copy.sqlite
timed() { # timed CMD…: "wall s (user+sys CPU s), peak MB", the command's output thrown away
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/last.err"
    read -r wall user sys kb <"$WORK/time.txt"
    printf '%s s (%.2f s CPU), %.1f MB' "$wall" "$(echo "$user + $sys" | bc -l)" "$(echo "$kb / 1024" | bc -l)"
}

created=$(timed "$BIN/stackscope" demo create "$STORE" --size "$SIZE" --force)
# The copy: a file of the store's own format (its page size and auto-vacuum mode, incremental in
# Core Data's stores and CoreStack's, which keeps a pointer map that every page split updates:
# without it SQLite's copy does ~18 % fewer instructions than the same file takes), the store's
# own schema (tables, then indexes, so the rows go in with their indexes as they do for demo
# create), then every table's rows in one transaction, row by row (`WHERE 1` keeps SQLite from
# copying whole pages, its transfer optimisation for `INSERT … SELECT *`).
{
    echo "PRAGMA page_size = $(sqlite3 "$STORE" 'PRAGMA page_size');"
    echo "PRAGMA auto_vacuum = $(sqlite3 "$STORE" 'PRAGMA auto_vacuum');"
    echo "PRAGMA journal_mode=WAL;"
    sqlite3 "$STORE" "SELECT sql || ';' FROM sqlite_master WHERE type = 'table' AND sql NOT NULL AND name NOT LIKE 'sqlite_%'"
    sqlite3 "$STORE" "SELECT sql || ';' FROM sqlite_master WHERE type = 'index' AND sql NOT NULL"
    echo "ATTACH '$STORE' AS source;"
    echo "BEGIN;"
    sqlite3 "$STORE" "SELECT 'INSERT INTO main.\"' || name || '\" SELECT * FROM source.\"' || name || '\" WHERE 1;' FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    echo "COMMIT;"
} >"$WORK/copy.sql"
rm -f "$COPY" "$COPY-wal" "$COPY-shm"
copied=$(timed sqlite3 "$COPY" -init "$WORK/copy.sql" .quit)

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "copy: page size $(sqlite3 "$COPY" 'PRAGMA page_size'), auto_vacuum $(sqlite3 "$COPY" 'PRAGMA auto_vacuum') (store: $(sqlite3 "$STORE" 'PRAGMA page_size'), $(sqlite3 "$STORE" 'PRAGMA auto_vacuum'))"
echo
echo "| what | command | wall (CPU), peak |"
echo "|---|---|---|"
echo "| CoreStack writes the demo store | \`stackscope demo create STORE --size $SIZE\` | $created |"
echo "| SQLite copies its tables and indexes | \`sqlite3 COPY\` with the schema, \`ATTACH\` and \`INSERT INTO … SELECT * … WHERE 1\` per table, row by row | $copied |"
