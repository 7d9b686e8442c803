#!/bin/sh
# 8002-wake-plots.t - the wake figures (histogram, tail, latency against launch
# distance) on small raw files written here, alone and two overlaid, and t32 diff
# -o drawing the overlays as SVG and PNG.
. "$(dirname "$0")/lib-tap.sh"
plots=$T32_SRC/plots

command -v gnuplot >/dev/null 2>&1 || skip_all "gnuplot is not installed"
plan 17

# 300 events each, two of them left out (late)
wake_events "$TMP/a.tsv" sleep 10000 300 150 0 late
wake_events "$TMP/b.tsv" spin 14000 300 150 0 late

# figure NAME OUT ARGS...: gnuplot -c plots/NAME.gp ARGS, OUT must be a non-empty SVG/PNG
figure() {
	name=$1
	out=$2
	shift 2
	rm -f "$out"
	gnuplot -c "$plots/$name.gp" "$@" >"$TMP/gp.out" 2>"$TMP/gp.err"
	st=$?
	[ $st -eq 0 ] || diag "$(cat "$TMP/gp.err")"
	[ $st -eq 0 ] && [ -s "$out" ]
	ok $? "$name.gp $(basename "$out") ${5:-}"
}
figure wake-hist "$TMP/h.svg" "$TMP/a.tsv" "$TMP/h.svg" "test machine"
grep -qs '298 events' "$TMP/h.svg"
ok $? "the histogram counts the kept events only"
figure wake-cdf "$TMP/c.svg" "$TMP/a.tsv" "$TMP/c.svg" "test machine"
grep -qs 'log scale' "$TMP/c.svg"
ok $? "the tail is on a log scale"
figure wake-ldist "$TMP/l.svg" "$TMP/a.tsv" "$TMP/l.svg" "test machine"
grep -qs 'left out' "$TMP/l.svg"
ok $? "latency against launch distance shows the left-out events apart"
figure wake-hist "$TMP/h2.png" "$TMP/a.tsv" "$TMP/h2.png" "test machine" "$TMP/b.tsv"
figure wake-cdf "$TMP/c2.svg" "$TMP/a.tsv" "$TMP/c2.svg" "test machine" "$TMP/b.tsv"
grep -qs 'B: ' "$TMP/c2.svg"
ok $? "two files overlaid, A and B in the key"
figure wake-hist "$TMP/g.svg" "$TMP/b.tsv" "$TMP/g.svg" "test machine" "" gap_ns
grep -qs 'time the interrupt took' "$TMP/g.svg"
ok $? "the spin gap's histogram"

run diff -o "$TMP/d" "$TMP/a.tsv" "$TMP/b.tsv"
is 0 "$rc" "t32 diff -o DIR draws"
for f in hist.svg hist.png cdf.svg cdf.png; do
	test -s "$TMP/d/$f"
	ok $? "t32 diff -o: $f"
done
gnuplot -c "$plots/wake-cdf.gp" "$TMP/a.tsv" "$TMP/x.pdf" >"$TMP/pdf.out" 2>"$TMP/pdf.err"
[ $? -eq 2 ] && [ ! -e "$TMP/x.pdf" ]
ok $? "an unknown figure type is refused with exit 2"
done_testing
