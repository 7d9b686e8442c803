#!/bin/sh
# t32 sweep results fill the model's latency table: --lat-from, then --lat.
. "$(dirname "$0")/lib-tap.sh"
plan 7

printf 'add | add rax, 1\nimul | imul rax, rax | tp=imul {r}, {r}\nchase | mov rax, [rax]\npair | mov rbx, rax ; mov rax, rbx\n' >"$TMP/t.tbl"
run sweep --n 200 --mode latency --budget 0.2 -o "$TMP/s.tsv" "$TMP/t.tbl"
is 0 "$rc" "a latency sweep of four forms"
run model --lat-from "$TMP/s.tsv"
is 0 "$rc" "--lat-from writes a latency table"
cp "$TMP/out" "$TMP/m.lat"
like "$TMP/m.lat" '^imul r64, r64 +\| - +\| zen5=3	# imul: 3\.' "imul measured at 3 cycles, in the model's form syntax"
like "$TMP/m.lat" '^add r64, i +\| - +\| zen5=1	' "add r64, i at 1"
grep -c 'chase\|pair' "$TMP/m.lat" >"$TMP/n"
is 0 "$(cat "$TMP/n")" "memory forms and forms of several instructions are left out"
run model --lat "$TMP/m.lat" 'imul rax, rax'
like "$TMP/out" '^cycles per iteration: 3\.00' "the model runs on the measured table"
run model --lat "$TMP/nosuch.lat" nop
is 1 "$rc" "a missing latency table is an error"
done_testing
