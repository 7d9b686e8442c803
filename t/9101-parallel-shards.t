#!/bin/sh
# contrib/parallel/t32-parallel.sh: GNU parallel runs three shards of a small
# table on this machine (the ssh login ":"), the script merges them, and the
# merged sweep holds exactly the rows of one sweep of the whole table.
. "$(dirname "$0")/lib-tap.sh"
command -v parallel >/dev/null 2>&1 || skip_all "GNU parallel is not installed (Debian: parallel)"
parallel --version 2>/dev/null | grep -q 'GNU parallel' || skip_all "parallel is not GNU parallel"
plan 7

S="--n 840 --k-list 12 --budget 0.05 --block-precision 5 --precision 1"
keys() { grep '^[0-9]' "$1" | cut -f1-4 | sort; }
printf '# source: test\n# applies to: any\n%s\n%s\n%s\n%s\n' \
	'add | add rax, rbx | tp=add {r}, rbx' 'imul | imul rax, rbx | tp=imul {r}, rbx' \
	'popcnt | popcnt rax, rax | tp=popcnt {r}, rbx' 'cmp | cmp rax, rbx | chain=none | tp=cmp rax, rbx' \
	>"$TMP/t.tbl"

run sweep $S -o "$TMP/single.tsv" "$TMP/t.tbl"
swept "one sweep of the whole table"
T32="$T32" PARALLEL_HOSTS=: PARALLEL_JOBS=2 \
	"$T32_SRC/contrib/parallel/t32-parallel.sh" 3 "$TMP/t.tbl" "$TMP/out3" $S >"$TMP/p.out" 2>"$TMP/p.err"
is 0 "$?" "t32-parallel.sh runs three shards and merges them"
for k in 1 2 3; do
	[ -s "$TMP/out3/shard-$k-of-3.tsv" ]; ok $? "shard $k of 3 came back"
done
like "$TMP/out3/merged.tsv" '^# merged: 3 pieces' "the merge joined three pieces"
is "$(keys "$TMP/single.tsv")" "$(keys "$TMP/out3/merged.tsv")" "the merged rows are the single sweep's rows"
done_testing
