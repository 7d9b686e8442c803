#!/bin/sh
# t32 table check: a sweep read row by row, as its users read it.  The sweep is an
# excerpt of the full table swept on a Zen 5 (t/data/recorded/zen5-turin-bhyve),
# with the table that sweep measured: every ok latency row below a cycle or below
# its own throughput is impossible (exit 7), a published latency is compared only
# with the row whose chain is its chain, and each row has its command.
. "$(dirname "$0")/lib-tap.sh"
plan 29

D="$T32_SRC/t/data/recorded/zen5-turin-bhyve"
S="$D/excerpt.sweep.tsv"
T="$D/excerpt.tbl"

"$T32" table check "$S" "$T" >"$TMP/out" 2>"$TMP/err"
is 7 "$?" "ok latency rows that carry no dependency: exit 7"
like "$TMP/out" '^impossible: 27 of 141 ok latency rows \(27 below 0\.9 cycles, 0 below their throughput\)' \
	"the 27 rows below a cycle counted"
like "$TMP/out" '^test-r32-i8	n=840	0\.1709 .*	test eax, 5	no dependency carried \(it writes only flags' \
	"test of an immediate: flags only, its rate kept"
like "$TMP/out" '^vxorps-zmm-zmm	.*	vxorps zmm0, zmm0	no dependency carried \(a zero idiom\)' "a zero idiom"
like "$TMP/out" '^mov-r64-r64	.*	mov rax, rax	no dependency carried \(an eliminated move\)' "an eliminated move"
! grep -Eq '^add-r64-r64	' "$TMP/out"; ok $? "a 1-cycle add is a latency"
! grep -Eq '^fdiv-m32	' "$TMP/out"; ok $? "fdiv 0.7% below its own throughput row is the same chain measured twice"
like "$TMP/err" "is not the table .* swept" "a table that is not the one swept is named"

# below its own throughput: add's latency row made to read below its throughput row
awk -F'\t' 'BEGIN { OFS = "\t" } $2 == "add-r64-r64" && $3 == "throughput" { $7 = "1.2000"; $8 = "1.1900"; $9 = "1.2100" } { print }' \
	"$S" >"$TMP/tp.tsv"
"$T32" table check "$TMP/tp.tsv" "$T" >"$TMP/out" 2>"$TMP/err"
is 7 "$?" "a latency below its throughput: exit 7"
like "$TMP/out" '^add-r64-r64	n=840	1\.0038 .*below the form.s own throughput 1\.2000' "named with both rates"
like "$TMP/out" '^impossible: 28 of 141 .*1 below their throughput' "counted apart"

# the same rows flagged nochain, as the sweep now writes them, are no longer ok
"$T32" table check "$S" "$T" >"$TMP/out" 2>/dev/null
awk -F'\t' 'NR == FNR && /^[a-z0-9]/ { bad[$1] = 1; next }
	FNR == NR { next }
	BEGIN { OFS = "\t" } ($2 in bad) && $3 == "latency" { $17 = "nochain" } { print }' "$TMP/out" "$S" >"$TMP/flagged.tsv"
"$T32" table check "$TMP/flagged.tsv" "$T" >"$TMP/out" 2>"$TMP/err"
is 0 "$?" "with those rows flagged nochain: exit 0"
like "$TMP/out" '^impossible: 0 of 114 ok latency rows .*; 27 latency rows flagged nochain' "and they are counted as flagged"

# like with like: a reference latency beside the row whose chain is its chain
cat >"$TMP/ref.tbl" <<'REF'
# source: figures written for this test
#   (two sources: A and B)
popcnt-r64   | popcnt rax, rax    | lat=1  # A: POPCNT r64, r64 1.0; B: POPCNT (R64, R64) 1
imul-r64     | imul rax, rax      | lat=3  # A: 3.0; B: 3
load-chase   | mov rax, [rax]     | lat=5  # A: 5.0; B: 5
add-imm      | add rax, 5         | lat=2  # A: 2.0; B: 2
REF
"$T32" table check --ref "$TMP/ref.tbl" "$S" "$T" >"$TMP/out" 2>"$TMP/err"
is 7 "$?" "--ref: still exit 7 for the impossible rows"
like "$TMP/out" '^#   source: figures written for this test' "the reference's sources beside its figures"
like "$TMP/out" '^popcnt-r64-r64	popcnt rax, rax	1\.0073	ref 1	A: POPCNT r64, r64 1\.0; B: POPCNT \(R64, R64\) 1	within' \
	"popcnt rax, rax: the reference's chain, within"
like "$TMP/out" '^mov-r64-m64	mov rax, qword \[rax\]	4\.0034	ref 5	.*	OFF' "the load chase, its size word aside: off"
! grep -Eq '^imul-r64-r64	' "$TMP/out"; ok $? "imul rax, rbx is not the reference's imul rax, rax: not compared"
like "$TMP/out" '^add-r64-i8	add rax, 5	1\.0039	ref 2	.*sources disagree: the table.s lat=1, the reference 2' \
	"where the table's lat= and the reference disagree, both shown"
like "$TMP/out" "^reference $TMP/ref.tbl: 1 of 2 forms with its chain within 0\\.05 cycles \\(50\\.0%\\); 1 where its sources" \
	"the agreement counts forms whose sources agree"

# each row again as it was measured
"$T32" table check --rows "$S" "$T" >"$TMP/out" 2>"$TMP/err"
like "$TMP/out" "^[0-9]*	mov-r64-r64	latency	840	ok	t32 time l m auto 840 'mov rax, rax'\$" "a latency row's command"
like "$TMP/out" "^[0-9]*	add-r64-r64	throughput	840	ok	t32 time l m auto 70 'add rax, rbx; add rcx, rbx; add rdx, rbx; " \
	"a throughput row's: n/k copies of k rotated copies"

# the sweep judges as it measures: nop repeated is no chain on any x86-64 core, so its
# latency row is never ok (nochain, or untrusted on a busy machine); the throughput
# row measured beside it still comes out in its turn
printf 'nop-chain | nop | tp=nop\n' >"$TMP/nop.tbl"
"$T32" sweep --ignore-busy --n 840 --k-list 12 --budget 0.2 --precision 0.1 -o "$TMP/nop.tsv" "$TMP/nop.tbl" \
	>"$TMP/out" 2>"$TMP/err"
is 5 "$?" "a sweep of nop finishes with a row not ok (exit 5)"
is "0 latency;1 throughput;" "$(awk -F'\t' '/^[0-9]/ { printf "%s %s;", $1, $3 }' "$TMP/nop.tsv")" \
	"its rows in order, the throughput row after the latency row it was measured beside"
st=$(awk -F'\t' '/^[0-9]/ && $3 == "latency" { print $17 ($17 == "nochain" && $19 !~ /^no dependency carried/ ? " without its reason" : "") }' "$TMP/nop.tsv")
case "$st" in nochain | untrusted) ok 0 "nop's latency row is $st, never ok" ;; *) ok 1 "nop's latency row is $st, never ok" ;; esac

"$T32" table check --rows "$TMP/nop.tsv" >"$TMP/out" 2>"$TMP/err"
like "$TMP/out" "^0	nop-chain	latency	840	[a-z]*	t32 time l m auto 840 'nop'\$" \
	"without TABLE, the table the sweep line names gives the commands"
printf 'nop-chain | nop | lat=1 | tp=nop\n' >"$TMP/nop.tbl"
"$T32" table check --rows "$TMP/nop.tsv" >"$TMP/out" 2>"$TMP/err"
is 2 "$?" "a table edited since the sweep is not taken for it"

# bad input
"$T32" table check "$TMP/nothere.tsv" >"$TMP/out" 2>"$TMP/err"
is 1 "$?" "a sweep that cannot be read: exit 1"
grep -v '^sbb' "$T" >"$TMP/short.tbl"
"$T32" table check "$S" "$TMP/short.tbl" >"$TMP/out" 2>"$TMP/err"
is 2 "$?" "a table without the sweep's forms: exit 2"
done_testing
