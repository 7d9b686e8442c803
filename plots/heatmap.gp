# heatmap.gp - the coursework table as a heat map: cost per instruction of every
# form (rows) at every n (columns), the value printed in each cell.
#
#   gnuplot -c plots/heatmap.gp IN.tsv OUT.svg|OUT.png [TITLE [UNIT]]
#
# IN.tsv: '#' provenance lines, a header row, then one row per form and column:
#   form      the form's name (rows keep the order of first appearance)
#   n         the column: instructions in the block, or any label ("model",
#             "throughput"); columns keep the order of first appearance
#   per_insn  (t - bar) / n, cost per instruction in UNIT
#   mode      (optional, a sweep's) latency, throughput or raw: with more than one
#             mode, a form's rows per mode are rows of their own ("add-r64 lat")
#   unit      (optional, a sweep's) cycles, ticks or ns: names the colour scale
# A sweep (`t32 sweep -o IN.tsv TABLE.tbl`) is such a file; its rows without a
# value (skipped, fault, unsupported) leave their cell empty.
# TITLE is usually the machine name; UNIT names the cost's unit where the file
# has no unit column (default TSC ticks).

if (ARGC < 2) {
	print "usage: gnuplot -c plots/heatmap.gp IN.tsv OUT.svg|OUT.png [TITLE [UNIT]]"
	exit status 2
}
in = ARG1
out = ARG2
machine = (ARGC >= 3) ? ARG3 : ""
unit = (ARGC >= 4 && ARG4 ne "") ? ARG4 : "TSC ticks"
ext = (strlen(out) > 4) ? out[strlen(out)-3:] : ""
if (ext eq ".svg") {
	set terminal svg size 960,800 dynamic noenhanced font "sans,14"
} else {
	if (ext eq ".png") {
		if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
			set terminal pngcairo size 960,800 noenhanced font "sans,13"
		} else {
			set terminal png size 960,800 noenhanced
		}
	} else {
		print sprintf("t32: unknown figure type '%s' (use .svg or .png)", out)
		exit status 2
	}
}
set datafile separator tab
set datafile columnheaders

# Which optional columns the header names (columnhead() of a missing column is "").
set table $header
plot in every ::0::0 using (header = "", sum [c = 1:64] (header = header . "\t" . columnhead(c), 0)):(0) with table
unset table
has(name) = strstrt(header . "\t", "\t" . name . "\t") > 0
if (!has("form") || !has("n") || !has("per_insn")) {
	print sprintf("t32: no 'form', 'n' and 'per_insn' columns in '%s' (a sweep, or the study's table-heatmap.tsv)", in)
	exit status 1
}
# the unit column's first value names the scale
if (has("unit") && (ARGC < 4 || ARG4 eq "")) {
	set table $unitrow
	plot in every ::0::0 using (u0 = strcol("unit"), 0):(0) with table
	unset table
	unit = (u0 eq "cycles") ? "core cycles" : ((u0 eq "ticks") ? "TSC ticks" : u0)
}
# modes: how many there are decides whether a row names its mode
nmodes = 0
seen_modes = "\t"
add_mode(m) = (strstrt(seen_modes, "\t" . m . "\t") == 0) ? \
	(nmodes = nmodes + 1, seen_modes = seen_modes . m . "\t", 0) : 0
if (has("mode")) {
	stats in using (add_mode(strcol("mode"))) nooutput
}
short(m) = (m eq "latency") ? "lat" : ((m eq "throughput") ? "tp" : m)
key(dummy) = (nmodes > 1) ? strcol("form") . " " . short(strcol("mode")) : strcol("form")

# Distinct forms and n, in order of first appearance, into arrays.
array forms[1000]
array ns[1000]
nforms = 0
nns = 0
seen_forms = "\t"
seen_ns = "\t"
add_form(f) = (strstrt(seen_forms, "\t" . f . "\t") == 0) ? \
	(nforms = nforms + 1, forms[nforms] = f, seen_forms = seen_forms . f . "\t", 0) : 0
add_n(v) = (strstrt(seen_ns, "\t" . v . "\t") == 0) ? \
	(nns = nns + 1, ns[nns] = v, seen_ns = seen_ns . v . "\t", 0) : 0
stats in using (add_form(key(0)) + add_n(strcol("n"))) nooutput
if (nforms == 0 || nns == 0) {
	print sprintf("t32: no rows in '%s'", in)
	exit status 1
}
form_row(f) = sum [k = 1:nforms] ((forms[k] eq f) ? nforms - k + 1 : 0)
n_col(v) = sum [k = 1:nns] ((ns[k] eq v) ? k : 0)

set title ((machine eq "") ? "Cost per instruction" : "Cost per instruction - " . machine)
set xlabel "n (instructions in the block), and the columns named"
set ylabel "form"
set cblabel unit . " per instruction"
set xrange [0.5 : nns + 0.5]
set yrange [0.5 : nforms + 0.5]
set xtics () scale 0
set ytics () scale 0
do for [k = 1:nns] { set xtics add (ns[k] k) }
do for [k = 1:nforms] { set ytics add (forms[k] nforms - k + 1) }
set palette defined (0 "#ffffcc", 0.5 "#fd8d3c", 1 "#800026")
set style fill solid 1.0 noborder
set key off
set tics front

# a cell's text: two decimals, three below 0.1, short enough for a large font
cell(v) = (abs(v) >= 100) ? sprintf("%.0f", v) : (abs(v) >= 0.1 ? sprintf("%.2f", v) : sprintf("%.3f", v))
set output out
# a cell without a value (a row skipped, faulted or unsupported) stays empty
cellv(dummy) = (strcol("per_insn") eq "") ? NaN : column("per_insn")
plot in using (n_col(strcol("n"))):(form_row(key(0))):(0.5):(0.5):(cellv(0)) \
		with boxxyerror fillcolor palette, \
	in using (n_col(strcol("n"))):(form_row(key(0))):(cellv(0) == cellv(0) ? cell(cellv(0)) : "") \
		with labels font ",13"
