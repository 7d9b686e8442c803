#!/bin/sh
# 8005-plots-fresh.t - every figure script of plots/ on the output of the command
# the README pairs it with, made fresh here: the classic form's deltas
# (scatter), a sweep of a spec (step-curve) and of a table (heatmap), t32
# compare --format=tsv of it (compare-heatmap), t32 sample --fold --format=tsv
# (shares) and t32 wake -o (wake-hist, wake-cdf, wake-ldist).  Values need not
# be trusted (the machine may be busy); the figures must be drawn from them.
. "$(dirname "$0")/lib-tap.sh"
plots=$T32_SRC/plots

command -v gnuplot >/dev/null 2>&1 || skip_all "gnuplot is not installed"
plan 25

# figure NAME IN OUT [ARGS...]: gnuplot -c plots/NAME.gp IN OUT ARGS; OUT a non-empty figure
figure() {
	name=$1 in=$2 out=$3
	shift 3
	rm -f "$out"
	gnuplot -c "$plots/$name.gp" "$in" "$out" "$@" >"$TMP/gp.out" 2>"$TMP/gp.err"
	st=$?
	[ $st -eq 0 ] || diag "$(cat "$TMP/gp.err")"
	[ $st -eq 0 ] && [ -s "$out" ]
	ok $? "$name.gp draws $(basename "$in")"
}

# the classic form: one delta a line, no header
"$T32" l m 200 100 'inc eax' >"$TMP/classic.txt" 2>"$TMP/classic.err"
ok $? "the classic form prints 200 deltas"
figure scatter "$TMP/classic.txt" "$TMP/scatter.svg" "test machine"
grep -qs 'TSC ticks per measurement' "$TMP/scatter.svg"
ok $? "scatter.gp: the classic form's deltas in TSC ticks"

# a step curve: a sweep of a spec
run sweep --n 1..12 --budget 0.05 -o "$TMP/steps.tsv" l m 'inc eax'
swept "a spec swept (exit $rc)"
figure step-curve "$TMP/steps.tsv" "$TMP/steps.svg" "test machine"
unit=$(col unit "$TMP/steps.tsv")
case $unit in cycles) want='core cycles per block' ;; *) want='TSC ticks per block' ;; esac
grep -qs "$want" "$TMP/steps.svg"
ok $? "step-curve.gp: the sweep's total in its own unit ($want)"
grep -qs 'minimum-based' "$TMP/steps.svg"
ok $? "step-curve.gp: the minimum-based curve from min_per_insn"

# a table swept in both modes, one form without a chain (its latency rows skipped)
cat >"$TMP/small.tbl" <<'EOF' || bail "cannot write $TMP/small.tbl"
# source: t/8005
# applies to: any x86-64
add-r64 | add rax, 1 | tp=add {r}, 1 | lat=1
cmp-r64 | cmp rax, rbx | tp=cmp {r}, rbx | chain=none
EOF
run sweep --n 100,200 --budget 0.05 --max-k 2 -o "$TMP/table.tsv" "$TMP/small.tbl"
swept "a table swept in latency and throughput mode (exit $rc)"
figure heatmap "$TMP/table.tsv" "$TMP/heat.svg" "test machine"
grep -qs 'add-r64 lat' "$TMP/heat.svg" && grep -qs 'add-r64 tp' "$TMP/heat.svg"
ok $? "heatmap.gp: latency and throughput rows apart"
grep -qis '>nan<' "$TMP/heat.svg"
[ $? -ne 0 ]
ok $? "heatmap.gp: no nan over a cell (the skipped latency rows stay empty)"
unit=$(col unit "$TMP/table.tsv")
case $unit in cycles) want='core cycles per instruction' ;; *) want='TSC ticks per instruction' ;; esac
grep -qs "$want" "$TMP/heat.svg"
ok $? "heatmap.gp: the scale in the sweep's unit ($want)"

# compare's own table
run compare --format=tsv "$TMP/table.tsv" "$TMP/table.tsv"
is 0 "$rc" "t32 compare --format=tsv of two sweeps"
cp "$TMP/out" "$TMP/compare.tsv"
figure compare-heatmap "$TMP/compare.tsv" "$TMP/compare.svg" "test"
grep -qs 'add-r64 lat 100' "$TMP/compare.svg" && grep -qs 'add-r64 lat 200' "$TMP/compare.svg"
ok $? "compare-heatmap.gp: a row per form, mode and n"
grep -qs '>m2<' "$TMP/compare.svg"
ok $? "compare-heatmap.gp: a column per machine"

# where samples land: t32 sample --fold --format=tsv
"$T32" sample --fold --format=tsv --backend signal --seconds 1 load-nop10 \
	>"$TMP/sample.tsv" 2>"$TMP/sample.err"
src=$?
if grep -q '^position	' "$TMP/sample.tsv"; then
	ok 0 "t32 sample --format=tsv writes its rows (exit $src)"
	figure shares "$TMP/sample.tsv" "$TMP/shares.svg" "test machine"
	grep -qs 'measured (' "$TMP/shares.svg" && grep -qs '1: nop' "$TMP/shares.svg"
	ok $? "shares.gp: sample's shares per position"
else
	diag "$(tail -2 "$TMP/sample.err")"
	skip "t32 sample could not sample here (exit $src)"
	skip "no sample file"
	skip "no sample file"
fi

# wake: a raw file
run wake --method spin --count 60 -o "$TMP/wake.tsv"
kept=$(awk -F'\t' '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == "kept") k = i; h = 1; next} $k == 1 {n++} END {print n + 0}' "$TMP/wake.tsv" 2>/dev/null)
if { [ "$rc" = 0 ] || [ "$rc" = 7 ]; } && [ "${kept:-0}" -lt 2 ]; then
	# a busy machine: every event but one at most flagged (other interrupts):
	# too few to draw a distribution
	ok 0 "t32 wake -o writes its events (exit $rc, $kept kept)"
	for i in 1 2 3 4 5; do skip "too few events kept to draw ($kept): $(grep -m1 'left out' "$TMP/err")"; done
elif [ "$rc" = 0 ] || [ "$rc" = 7 ]; then
	ok 0 "t32 wake -o writes its events (exit $rc)"
	figure wake-hist "$TMP/wake.tsv" "$TMP/wake-hist.svg" "test machine"
	figure wake-cdf "$TMP/wake.tsv" "$TMP/wake-cdf.svg" "test machine"
	figure wake-ldist "$TMP/wake.tsv" "$TMP/wake-ldist.svg" "test machine"
	grep -qs 'µs' "$TMP/wake-hist.svg" && ! grep -qs '(us' "$TMP/wake-hist.svg"
	ok $? "wake-hist.gp: microseconds written as µs"
	# a p99.9 line needs 500 events: with 60 the key does not name it
	grep -qs 'p99.9' "$TMP/wake-cdf.svg"
	[ $? -ne 0 ]
	ok $? "wake-cdf.gp: no p99.9 in the key when the axis cannot reach it"
else
	diag "$(tail -2 "$TMP/err")"
	for i in 1 2 3 4 5 6; do skip "t32 wake cannot run here (exit $rc)"; done
fi
done_testing
