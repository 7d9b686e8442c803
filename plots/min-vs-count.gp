# min-vs-count.gp - the minimum over the first COUNT measurements against COUNT
# (the study's "how many measurements are enough": 452, 396, 377, 376, 376 ticks).
#
#   gnuplot -c plots/min-vs-count.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: '#' provenance lines, a header row, then rows with columns
#   count      number of measurements the minimum is taken over
#   min_ticks  the minimum, TSC ticks
# TITLE is usually the machine name.

if (ARGC < 2) {
	print "usage: gnuplot -c plots/min-vs-count.gp IN.tsv OUT.svg|OUT.png [TITLE]"
	exit status 2
}
in = ARG1
out = ARG2
machine = (ARGC >= 3) ? ARG3 : ""
ext = (strlen(out) > 4) ? out[strlen(out)-3:] : ""
if (ext eq ".svg") {
	set terminal svg size 960,600 dynamic noenhanced font "sans,12"
} else {
	if (ext eq ".png") {
		if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
			set terminal pngcairo size 960,600 noenhanced font "sans,11"
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

set title ((machine eq "") ? "Minimum against number of measurements" : "Minimum against number of measurements - " . machine)
set xlabel "measurements (count, log scale)"
set ylabel "minimum, TSC ticks"
set logscale x 10
set format x "%.0s%c"
set grid xtics mxtics ytics
set key top right

set offsets 0, 0, graph 0.05, graph 0.05
set output out
# t32's sub-quantum estimate over the same measurements, when the file has its
# columns (count min_ticks est_ticks est_lo est_hi, as `t32 study` writes them)
stats in using 1 nooutput
if (STATS_columns >= 5) {
	set ylabel "TSC ticks"
	plot in using "count":"min_ticks" with linespoints pt 7 ps 0.8 lw 2 lc rgb "#3465a4" title "minimum over count measurements", \
	     in using "count":"est_ticks":"est_lo":"est_hi" with yerrorlines pt 5 ps 0.6 lw 2 lc rgb "#cc0000" title "t32 estimate (95% interval)"
} else {
	plot in using "count":"min_ticks" with linespoints pt 7 ps 0.8 lw 2 lc rgb "#3465a4" title "minimum over count measurements"
}
