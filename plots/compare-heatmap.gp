# compare-heatmap.gp - t32 compare's heat map: the rows (form and mode) whose
# values differ most across machines, a column per machine and one for the
# table's published value, the cycles printed in each cell.
#
#   gnuplot -c plots/compare-heatmap.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: '#' lines, a header row, then one line per row and column:
#   row      "FORM lat N" or "FORM tp N" (rows keep the order of first appearance)
#   machine  m1, m2, ... or expected (columns keep the order of first appearance)
#   cycles   core cycles per instruction
# (compare.tsv's heat-map data, `t32 compare -o DIR`), or `t32 compare
# --format=tsv` itself: a row per form, mode and n ("add-r64 lat 840"), a
# column per machine (m1_per_insn, m2_per_insn, ...) and the published
# `expected`; the first 60 rows (--differing keeps the rows worth drawing).

if (ARGC < 2) {
	print "usage: gnuplot -c plots/compare-heatmap.gp IN.tsv OUT.svg|OUT.png [TITLE]"
	exit status 2
}
in = ARG1
out = ARG2
what = (ARGC >= 3) ? ARG3 : ""
ext = (strlen(out) > 4) ? out[strlen(out)-3:] : ""
if (ext eq ".svg") {
	set terminal svg size 1000,900 dynamic noenhanced font "sans,11"
} else {
	if (ext eq ".png") {
		if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
			set terminal pngcairo size 1000,900 noenhanced font "sans,10"
		} else {
			set terminal png size 1000,900 noenhanced
		}
	} else {
		print sprintf("t32: unknown figure type '%s' (use .svg or .png)", out)
		exit status 2
	}
}
set datafile separator tab
set datafile columnheaders

# Which columns the header names: compare's own table is wide, a column per machine.
set table $header
plot in every ::0::0 using (header = "", sum [c = 1:128] (header = header . "\t" . columnhead(c), 0)):(0) with table
unset table
has(name) = strstrt(header . "\t", "\t" . name . "\t") > 0
if (has("m1_per_insn") && has("form")) {
	nm = 0
	do for [k = 1:32] { if (has(sprintf("m%d_per_insn", k))) { nm = k } }
	short(m) = (m eq "latency") ? "lat" : ((m eq "throughput") ? "tp" : m)
	rowname(d) = strcol("form") . " " . short(strcol("mode")) . " " . strcol("n")
	stats in using (0) nooutput
	total = STATS_records
	shown = (total > 60) ? 60 : total
	ncols = nm + (has("expected") ? 1 : 0)
	set title ((what eq "") ? "Cycles per instruction" : "Cycles per instruction - " . what) . \
		((total > shown) ? sprintf(" (the first %d of %d rows)", shown, total) : "")
	set xlabel "machine (m1, m2, ... as t32 compare names them; expected: the table's published value)"
	set cblabel "per instruction, the sweeps' unit (log scale)"
	set xrange [0.5 : ncols + 0.5]
	set yrange [0.5 : shown + 0.5]
	set xtics () scale 0
	do for [k = 1:nm] { set xtics add (sprintf("m%d", k) k) }
	if (has("expected")) { set xtics add ("expected" ncols) }
	set ytics scale 0 font ",8"
	set logscale cb
	set palette defined (0 "#ffffcc", 0.5 "#fd8d3c", 1 "#800026")
	set style fill solid 1.0 noborder
	set key off
	set tics front
	set lmargin 28
	set output out
	yrow(d) = shown - $0
	val(c) = (strcol(c) eq "" || strcol(c) eq "-") ? NaN : (column(c) > 0.001 ? column(c) : 0.001)
	txt(c) = (strcol(c) eq "" || strcol(c) eq "-") ? "" : sprintf("%.3g", column(c))
	plot for [k = 1:ncols] in every ::0::(shown - 1) using (k):(yrow(0)):(0.5):(0.5):(val(k <= nm ? sprintf("m%d_per_insn", k) : "expected")):ytic(rowname(0)) \
			with boxxyerror fillcolor palette, \
		for [k = 1:ncols] in every ::0::(shown - 1) using (k):(yrow(0)):(txt(k <= nm ? sprintf("m%d_per_insn", k) : "expected")) \
			with labels font ",8"
	exit
}
array rows[1000]
array cols[100]
nrows = 0
ncols = 0
seen_rows = "\t"
seen_cols = "\t"
add_row(f) = (strstrt(seen_rows, "\t" . f . "\t") == 0) ? \
	(nrows = nrows + 1, rows[nrows] = f, seen_rows = seen_rows . f . "\t", 0) : 0
has_expected = 0
add_col(v) = (v eq "expected") ? (has_expected = 1, 0) : \
	(strstrt(seen_cols, "\t" . v . "\t") == 0) ? \
	(ncols = ncols + 1, cols[ncols] = v, seen_cols = seen_cols . v . "\t", 0) : 0
stats in using (add_row(strcol("row")) + add_col(strcol("machine"))) nooutput
if (nrows == 0 || ncols == 0) {
	print sprintf("t32: no rows in '%s'", in)
	exit status 1
}
# the published value last, after the machines
if (has_expected) {
	ncols = ncols + 1
	cols[ncols] = "expected"
}
row_of(f) = sum [k = 1:nrows] ((rows[k] eq f) ? nrows - k + 1 : 0)
col_of(v) = sum [k = 1:ncols] ((cols[k] eq v) ? k : 0)

set title ((what eq "") ? "Cycles per instruction" : "Cycles per instruction - " . what)
set xlabel "machine (m1, m2, ... as in compare.tsv; expected: the table's published value)"
set cblabel "core cycles per instruction (log scale)"
set xrange [0.5 : ncols + 0.5]
set yrange [0.5 : nrows + 0.5]
set xtics () scale 0
set ytics () scale 0 font ",8"
do for [k = 1:ncols] { set xtics add (cols[k] k) }
do for [k = 1:nrows] { set ytics add (rows[k] nrows - k + 1) }
set logscale cb
set palette defined (0 "#ffffcc", 0.5 "#fd8d3c", 1 "#800026")
set style fill solid 1.0 noborder
set key off
set tics front
set lmargin 28

set output out
plot in using (col_of(strcol("machine"))):(row_of(strcol("row"))):(0.5):(0.5):(column("cycles") > 0.001 ? column("cycles") : 0.001) \
		with boxxyerror fillcolor palette, \
	in using (col_of(strcol("machine"))):(row_of(strcol("row"))):(sprintf("%.3g", column("cycles"))) \
		with labels font ",8"
