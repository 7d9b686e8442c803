# model-overlay.gp - a measured step curve with the retirement model's prediction
# laid over it.
#
#   gnuplot -c plots/model-overlay.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: '#' provenance lines, a header row, then one row per n:
#   n          instructions in the block
#   measured   measured cost of the block, core cycles
#   predicted  the model's cost for the same block, core cycles (drawn at 0
#              where negative, and counted in the key)
#   measured_hw  (optional) the measurement's 95% half-width, core cycles
# TITLE is usually the machine name.

if (ARGC < 2) {
	print "usage: gnuplot -c plots/model-overlay.gp IN.tsv OUT.svg|OUT.png [TITLE]"
	exit status 2
}
in = ARG1
out = ARG2
machine = (ARGC >= 3) ? ARG3 : ""
ext = (strlen(out) > 4) ? out[strlen(out)-3:] : ""
if (ext eq ".svg") {
	set terminal svg size 960,600 dynamic noenhanced font "sans,14"
} else {
	if (ext eq ".png") {
		if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
			set terminal pngcairo size 960,600 noenhanced font "sans,13"
		} else {
			set terminal png size 960,600 noenhanced
		}
	} else {
		print sprintf("t32: unknown figure type '%s' (use .svg or .png)", out)
		exit status 2
	}
}
set datafile separator tab
set datafile columnheaders

short(t, n) = (strlen(t) > n) ? t[1:n-3] . "..." : t
set title short((machine eq "") ? "Measured and modelled cost against n" : "Measured and modelled cost against n - " . machine, 90)
set xlabel "n (instructions in the block)"
set ylabel "core cycles per block"
set grid
set key top left opaque box

set table $header
plot in every ::0::0 using (header = "", sum [c = 1:16] (header = header . "\t" . columnhead(c), 0)):(0) with table
unset table
has(name) = strstrt(header . "\t", "\t" . name . "\t") > 0
# a block takes no time below nothing: a negative prediction is drawn at 0, and said
stats in using (column("predicted") < 0 ? 1 : 0) nooutput
negative = STATS_sum
model = (negative > 0) ? sprintf("model (%d negative predictions drawn at 0)", negative) : "model"
clamp(v) = (v < 0) ? 0 : v

set autoscale xfix
set yrange [0 : *]
set offsets graph 0.02, graph 0.02, graph 0.05, 0
set output out
if (has("measured_hw")) {
	plot in using "n":"measured":"measured_hw" with yerrorbars pt 7 ps 0.8 lc rgb "#3465a4" title "measured (95% interval)", \
		in using "n":(clamp(column("predicted"))) with steps lw 2 lc rgb "#cc0000" title model
} else {
	plot in using "n":"measured" with points pt 7 ps 1.0 lc rgb "#3465a4" title "measured", \
		in using "n":(clamp(column("predicted"))) with steps lw 2 lc rgb "#cc0000" title model
}
