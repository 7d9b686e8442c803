# min-vs-count.gp - the minimum over the first COUNT measurements against COUNT
# (the study's "how many measurements are enough": 452, 396, 377, 376, 376 ticks).
#
#   gnuplot -c plots/min-vs-count.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: '#' provenance lines, a header row, then rows with columns
#   count      number of measurements the minimum is taken over
#   min_ticks  the minimum, TSC ticks (or min_cycles, in core cycles: drawn instead)
#   est_ticks est_lo est_hi  (optional) t32's estimate over the same measurements
#              and its 95% interval (est_cycles est_lo_cycles est_hi_cycles in cycles)
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

# Which columns the file has: cycles when it gives them, else ticks.
set table $header
plot in every ::0::0 using (header = "", sum [c = 1:16] (header = header . "\t" . columnhead(c), 0)):(0) with table
unset table
has(name) = strstrt(header . "\t", "\t" . name . "\t") > 0
u = has("min_cycles") ? "cycles" : "ticks"
mn = "min_" . u
est = has("est_" . u) ? "est_" . u : ""
lo = "est_lo" . ((u eq "cycles") ? "_cycles" : "")
hi = "est_hi" . ((u eq "cycles") ? "_cycles" : "")
if (!has(mn)) {
	print sprintf("t32: no 'min_cycles' or 'min_ticks' column in '%s'", in)
	exit status 1
}

set title ((machine eq "") ? "Minimum against number of measurements" : "Minimum against number of measurements - " . machine)
set xlabel "measurements (count, log scale)"
set ylabel ((u eq "cycles") ? "core cycles" : "TSC ticks")
set logscale x 10
set format x "%.0s%c"
set grid xtics mxtics ytics
set key top right opaque box

# the x axis spans the counts measured, a little either side
stats in using "count" nooutput
set xrange [STATS_min / 1.4 : STATS_max * 1.4]
set offsets 0, 0, graph 0.08, graph 0.08
set output out
if (est ne "") {
	plot in using "count":mn with linespoints pt 7 ps 0.8 lw 2 lc rgb "#3465a4" title "minimum over the first COUNT measurements", \
	     in using "count":est:lo:hi with yerrorlines pt 5 ps 0.6 lw 2 lc rgb "#cc0000" title "t32's estimate over the same (95% interval)"
} else {
	plot in using "count":mn with linespoints pt 7 ps 0.8 lw 2 lc rgb "#3465a4" title "minimum over the first COUNT measurements"
}
