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
# TITLE is usually the machine name; UNIT names the cost's unit (default TSC ticks).

if (ARGC < 2) {
	print "usage: gnuplot -c plots/heatmap.gp IN.tsv OUT.svg|OUT.png [TITLE]"
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
stats in using (add_form(strcol("form")) + add_n(strcol("n"))) nooutput
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
plot in using (n_col(strcol("n"))):(form_row(strcol("form"))):(0.5):(0.5):"per_insn" \
		with boxxyerror fillcolor palette, \
	in using (n_col(strcol("n"))):(form_row(strcol("form"))):(cell(column("per_insn"))) \
		with labels font ",13"
