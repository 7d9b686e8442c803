#!/bin/sh
# t32 study: the quick recipes write their data with provenance, figures and an
# index page that reads as a report; running one recipe into an existing report
# keeps the others.
. "$(dirname "$0")/lib-tap.sh"
plan 17

run study -o "$TMP/rep" scatter min-vs-count combos
is 0 "$rc" "three recipes run"
like "$TMP/out" "^t32 study: .*/rep/index.html: 3 of [0-9]+ sections" "one closing line says what was written where"
is 1001 "$(grep -vc '^#' "$TMP/rep/scatter.tsv")" "scatter: a header and 1000 measurements"
like "$TMP/rep/min-vs-count.tsv" '^1000000	[0-9]+	' "min-vs-count reaches 1,000,000 measurements"
like "$TMP/rep/combos.sweep.tsv" "^5	.*	raw	100	1	cycles	" "combos: C1 100 C2 swept"
like "$TMP/rep/combos.tsv" "^100	[0-9.]+	" "combos: C1 100 C2 against 100 C2 alone"
for f in scatter.tsv min-vs-count.tsv combos.tsv combos.sweep.tsv; do
	n=0
	for key in tool command cpu core date tsc calibration; do
		grep -q "^# $key: ." "$TMP/rep/$f" && n=$((n + 1))
	done
	is 7 "$n" "$f names tool, command, cpu, core, date, TSC and calibration"
done
grep -rl 'build/\.\./' "$TMP/rep" >"$TMP/dotdot"
is "" "$(cat "$TMP/dotdot")" "no file records a build/../ path"
like "$TMP/rep/index.html" '<th>CPU</th><td>[^<]+' "the index heads with the machine"
like "$TMP/rep/index.html" 'What this shows' "each section says what it shows"
if command -v gnuplot >/dev/null 2>&1; then
	test -s "$TMP/rep/scatter.svg" && test -s "$TMP/rep/min-vs-count.png"
	ok $? "figures come as SVG and PNG"
else
	skip "gnuplot is not installed"
fi
# one recipe again: the page keeps the sections of the others
run study -o "$TMP/rep" --no-plots combos
is 0 "$rc" "one recipe into the existing report"
grep -c 'What this shows' "$TMP/rep/index.html" >"$TMP/n"
is 3 "$(cat "$TMP/n")" "the page keeps the other recipes' sections"
run study nosuch
is 2 "$rc" "an unknown recipe is a usage error"
done_testing
