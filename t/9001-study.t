#!/bin/sh
# t32 study: the quick recipes write their data, figures and an index page.
. "$(dirname "$0")/lib-tap.sh"
plan 8

run study -o "$TMP/rep" scatter min-vs-count combos
is 0 "$rc" "three recipes run"
is 1001 "$(grep -vc '^#' "$TMP/rep/scatter.tsv")" "scatter: a header and 1000 measurements"
like "$TMP/rep/min-vs-count.tsv" '^1000000	[0-9]+	' "min-vs-count reaches 1,000,000 measurements"
like "$TMP/rep/combos.tsv" "^5	.*	raw	100	1	cycles	" "combos: C1 100 C2"
like "$TMP/rep/index.html" 'Oxide|AMD|Intel|<b>.+</b>; profile' "the index names the machine"
if command -v gnuplot >/dev/null 2>&1; then
	test -s "$TMP/rep/scatter.svg"; ok $? "the scatter figure is drawn"
	test -s "$TMP/rep/min-vs-count.png"; ok $? "figures come as png too"
else
	skip "gnuplot is not installed"; skip "gnuplot is not installed"
fi
run study nosuch
is 2 "$rc" "an unknown recipe is a usage error"
done_testing
