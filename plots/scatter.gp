# scatter.gp - every measurement of one block, in the order taken, with a line at
# the minimum (the study's first figure: `t32 mx m 1000 100000 'inc eax'`), on a
# scale that shows the bulk: measurements far above it (an interrupt, the
# hypervisor) are drawn as triangles on the top edge and counted in the key.
# A histogram of the bulk stands at the right, on the same scale.
#
#   gnuplot -c plots/scatter.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: '#' provenance lines, a header row, then rows with columns
#   i       measurement number (0, 1, 2...)
#   ticks   TSC ticks between the two rdtsc readings
#   cycles  (optional) the same in core cycles: drawn instead of ticks
# or the classic form's output as it prints it (`t32 l m 1000 100000 'inc eax'`:
# one delta in TSC ticks a line, no header), numbered in the order given.
# TITLE is usually the machine name.

if (ARGC < 2) {
	print "usage: gnuplot -c plots/scatter.gp IN.tsv OUT.svg|OUT.png [TITLE]"
	exit status 2
}
in = ARG1
out = ARG2
machine = (ARGC >= 3) ? ARG3 : ""
ext = (strlen(out) > 4) ? out[strlen(out)-3:] : ""
if (ext eq ".svg") {
	set terminal svg size 960,560 dynamic noenhanced font "sans,14"
} else {
	if (ext eq ".png") {
		if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
			set terminal pngcairo size 960,560 noenhanced font "sans,13"
		} else {
			set terminal png size 960,560 noenhanced
		}
	} else {
		print sprintf("t32: unknown figure type '%s' (use .svg or .png)", out)
		exit status 2
	}
}
set datafile separator tab
set datafile columnheaders

# cycles when the file has them, else ticks
set table $header
plot in every ::0::0 using (header = "", sum [c = 1:8] (header = header . "\t" . columnhead(c), 0)):(0) with table
unset table
# a header row that is a number: the classic form's output, one delta a line
classic = strstrt("0123456789", header[2:2]) > 0
if (classic) {
	unset datafile columnheaders
	y = 1
	unit = "TSC ticks"
	yname = "ticks"
	xi(d) = $0
} else {
	y = (strstrt(header . "\t", "\tcycles\t") > 0) ? "cycles" : "ticks"
	unit = (y eq "cycles") ? "core cycles" : "TSC ticks"
	yname = y
	xi(d) = column("i")
}

stats in using y nooutput
lowest = STATS_min
highest = STATS_max
total = STATS_records
med = STATS_median
# The bulk's scale: a few spreads above the upper quartile (the spread at least
# a thousandth of the median, so quantised readings on one or two levels still
# get room); everything above is counted, not drawn to scale.
spread = STATS_up_quartile - STATS_lo_quartile
spread = (spread > 0.001 * med) ? spread : 0.001 * med
top = STATS_up_quartile + 5 * spread
top = (top < highest) ? top : highest + 0.5 * spread
bottom = lowest - 0.5 * spread
stats in using (column(y) > top ? 1 : 0) nooutput
above = STATS_sum

# how many measurements at each level, for the histogram (bins of 1/60 of the scale)
bw = (top - bottom) / 60.0
bin(v) = bw * floor(v / bw) + bw / 2
set table $hist
# (those above the scale in one bin beyond it, so smoothing sees one unbroken curve)
plot in using (column(y) <= top ? bin(column(y)) : top + 10 * bw):(1) smooth frequency
unset table
# a round tic step for the counts
set datafile separator whitespace
stats $hist using 2 nooutput
set datafile separator tab
step = 10 ** floor(log10(STATS_max > 1 ? STATS_max : 2))
step = (STATS_max / step >= 5) ? 2 * step : (STATS_max / step >= 2 ? step : step / 2)

set output out
set multiplot title ((machine eq "") ? "Every measurement" : "Every measurement - " . machine)

# left: the measurements in order
set lmargin at screen 0.10
set rmargin at screen 0.74
set bmargin at screen 0.12
set tmargin at screen 0.90
set xlabel "measurement number"
set ylabel unit . " per measurement"
set grid
set key at graph 0.98, 0.62 right center opaque box samplen 2
set yrange [bottom : top]
set autoscale xfix
set offsets graph 0.01, graph 0.01, 0, 0
set format y "%.0f"
abovetitle = (above > 0) ? sprintf("%d of %d above the scale (up to %.0f)", above, total, highest) : "none above the scale"
plot in using (xi(0)):(column(y) <= top ? column(y) : NaN) with points pt 7 ps 0.35 lc rgb "#3465a4" title "measurement", \
	in using (xi(0)):(column(y) > top ? top - 0.02 * (top - bottom) : NaN) with points pt 9 ps 0.9 lc rgb "#cc0000" title abovetitle, \
	lowest with lines lw 2 lc rgb "#4e9a06" title sprintf("minimum %.0f %s", lowest, yname)

# right: how many measurements at each level, on the same scale
set lmargin at screen 0.79
set rmargin at screen 0.97
unset ylabel
set format y ""
set xlabel "measurements"
set key off
set autoscale x
set xrange [0 : *]
set datafile separator whitespace
unset datafile columnheaders
set xtics 0, (step >= 1 ? step : 1)
set offsets 0, graph 0.05, 0, 0
set style fill solid 0.8 noborder
plot $hist using (0):1:(0):2:($1 - bw / 2):($1 + bw / 2) with boxxyerror lc rgb "#3465a4" notitle
unset multiplot
