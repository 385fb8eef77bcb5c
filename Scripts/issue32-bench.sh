#!/usr/bin/env bash
# Issue 32's figures in one run (release build): `stackscope stats` for every column of Chapter in
# the 1,000,000-object demo store, beside sqlite3 running the same counts; `stackscope diff` of that
# store and a copy with about 1 % of its objects changed (text and --json); `stackscope find` over
# a tree of 10,000 files. Prints a Markdown report (also written to $WORK/report.md).
#
#   Scripts/issue32-bench.sh                      # ~2 minutes on 2 cores, once the build is there
#   DEMO=100000 Scripts/issue32-bench.sh          # a quick check of the script
#
# Every figure shares the cores with whatever else runs: note the load average it prints.
set -euo pipefail
cd "$(dirname "$0")/.."

DEMO=${DEMO:-1000000}
SCRATCH=${SCRATCH:-.build-release}
WORK=${WORK:-$(mktemp -d /tmp/issue32-bench.XXXXXX)}
mkdir -p "$WORK"
BIN=$SCRATCH/release/stackscope
command -v sqlite3 >/dev/null || { echo "needs sqlite3" >&2; exit 1; }

swift build -c release --scratch-path "$SCRATCH" --product stackscope >&2

# timed CMD…: "wall s (user+sys CPU s) | peak MB" of one run, its output in $WORK/last.txt.
timed() {
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >"$WORK/last.txt" 2>"$WORK/last.err"
    read -r secs user sys kb <"$WORK/time.txt"
    printf '%s s (%.2f s) | %.0f MB' "$secs" "$(echo "$user + $sys" | bc -l)" "$(echo "$kb / 1024" | bc -l)"
}

OLD=$WORK/old.sqlite
NEW=$WORK/new.sqlite
[ -f "$OLD" ] || "$BIN" demo create "$OLD" --size "$DEMO" >/dev/null 2>&1
CHAPTERS=$(sqlite3 "$OLD" "SELECT COUNT(*) FROM ZCHAPTER")

{
echo "Load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores."
echo
echo "### Column statistics: every column of Chapter ($CHAPTERS rows), demo store of $DEMO"
echo
echo "| column | \`stackscope stats\`: wall (CPU) | peak RSS | sqlite3, the three queries stats made before: wall (CPU) | peak RSS |"
echo "|---|---|---|---|---|"
for p in title:ZTITLE number:ZNUMBER wordCount:ZWORDCOUNT book:ZBOOK; do
    name=${p%%:*}
    col=${p##*:}
    ours=$(timed "$BIN" stats "$OLD" --entity Chapter --property "$name" --json)
    mean="NULL"
    [ "$name" = "number" ] || [ "$name" = "wordCount" ] && mean="AVG($col)"
    sql="SELECT COUNT(*), COUNT($col), COUNT(DISTINCT $col), MIN($col), MAX($col), $mean FROM ZCHAPTER;
         SELECT $col, COUNT(*) AS n FROM ZCHAPTER WHERE $col IS NOT NULL GROUP BY $col ORDER BY n DESC, $col LIMIT 10;"
    if [ "$mean" != "NULL" ]; then
        sql="$sql SELECT MIN(MAX(CAST(($col - (SELECT MIN($col) FROM ZCHAPTER)) / ((SELECT MAX($col) - MIN($col) FROM ZCHAPTER) / 10.0) AS INTEGER), 0), 9) AS b, COUNT(*) FROM ZCHAPTER GROUP BY b;"
    fi
    theirs=$(timed sqlite3 -readonly "$OLD" "$sql")
    echo "| $name | $ours | $theirs |"
done
echo
echo "Commands: \`stackscope stats STORE --entity Chapter --property P --json\`; sqlite3: \`COUNT(*), COUNT(c), COUNT(DISTINCT c), MIN, MAX, AVG\`, then \`GROUP BY c ORDER BY n DESC LIMIT 10\`, then (numbers) a \`GROUP BY\` bin."

# The copy with about 1 % changed: every 100th book's title and publisher, chapter's word count and
# person's email; every 1,000th chapter deleted; every 100th book–genre link removed; every 100th
# book's chapters in reverse order (order moves).
if [ ! -f "$NEW" ]; then
    cp "$OLD" "$NEW"
    sqlite3 "$NEW" "BEGIN;
        UPDATE ZBOOK SET ZTITLE = ZTITLE || ' (revised)', ZPUBLISHER = (SELECT MIN(Z_PK) FROM ZPUBLISHER) WHERE Z_PK % 100 = 0;
        UPDATE ZCHAPTER SET ZWORDCOUNT = ZWORDCOUNT + 1 WHERE Z_PK % 100 = 0;
        UPDATE ZPERSON SET ZEMAIL = 'changed-' || Z_PK || '@example.org' WHERE Z_PK % 100 = 0;
        DELETE FROM ZCHAPTER WHERE Z_PK % 1000 = 1;
        DELETE FROM Z_1GENRES WHERE rowid % 100 = 0;
        UPDATE ZCHAPTER SET Z_FOK_BOOK = -Z_FOK_BOOK WHERE ZBOOK % 100 = 50;
        COMMIT;"
fi
echo
echo "### Diff of two $DEMO-object stores, about 1 % changed"
echo
echo "| command | wall (CPU) | peak RSS |"
echo "|---|---|---|"
echo "| \`stackscope diff old.sqlite new.sqlite --text\` | $(timed "$BIN" diff "$OLD" "$NEW" --text) |"
json=$(timed "$BIN" diff "$OLD" "$NEW" --json)
echo "| \`stackscope diff old.sqlite new.sqlite --json\` ($(du -h "$WORK/last.txt" | cut -f1) of JSON) | $json |"
echo "| sqlite3: \`EXCEPT\` both ways on ZCHAPTER (rows only, no matching, no attributes named) | $(timed sqlite3 "$NEW" "ATTACH '$OLD' AS o; SELECT COUNT(*) FROM (SELECT * FROM main.ZCHAPTER EXCEPT SELECT * FROM o.ZCHAPTER); SELECT COUNT(*) FROM (SELECT * FROM o.ZCHAPTER EXCEPT SELECT * FROM main.ZCHAPTER);") |"

# A tree of 10,000 files: 100 folders of 100 text files of 600 bytes, and the two stores.
TREE=$WORK/tree
if [ ! -d "$TREE" ]; then
    for d in $(seq -w 1 100); do
        mkdir -p "$TREE/folder-$d"
        for f in $(seq -w 1 100); do head -c 600 /dev/zero | tr '\0' 'x' > "$TREE/folder-$d/file-$f.txt"; done
    done
    cp "$OLD" "$TREE/folder-001/Library.sqlite"
    cp "$NEW" "$TREE/folder-050/Library copy.store"
fi
echo
echo "### find over $(find "$TREE" -type f | wc -l) files in $(find "$TREE" -type d | wc -l) folders (two $DEMO-object stores among them)"
echo
echo "| command | wall (CPU) | peak RSS |"
echo "|---|---|---|"
echo "| \`stackscope find tree\` | $(timed "$BIN" find "$TREE") |"
echo "| \`find tree -type f -size +511c -exec head -c 16 {} +\` (the header reads alone) | $(timed sh -c "find '$TREE' -type f -size +511c -exec head -c 16 {} + | wc -c") |"
} | tee "$WORK/report.md"
