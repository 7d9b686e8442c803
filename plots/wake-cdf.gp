# wake-cdf.gp - the tail of `t32 wake` latencies: for each latency x, the share of
# kept events slower than x, on a log scale down to one event in n, so p99, p99.9
# and the largest values are as visible as the median; with a second file both
# curves (`t32 diff`).
#
#   gnuplot -c plots/wake-cdf.gp IN.tsv OUT.svg|OUT.png [TITLE [IN2.tsv [COLUMN]]]
#
# IN.tsv: a raw file of `t32 wake -o` (columns latency_ns, gap_ns for spin, kept:
# see wake-hist.gp).  IN2.tsv (optional, "" for none): a second one.  COLUMN:
# latency_ns (default) or gap_ns.  TITLE is usually the machine name.

if (ARGC < 2) {
	print "usage: gnuplot -c plots/wake-cdf.gp IN.tsv OUT.svg|OUT.png [TITLE [IN2.tsv [COLUMN]]]"
	exit status 2
}
in = ARG1
out = ARG2
machine = (ARGC >= 3) ? ARG3 : ""
in2 = (ARGC >= 4) ? ARG4 : ""
col = (ARGC >= 5 && ARG5 ne "") ? ARG5 : "latency_ns"
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

us(c) = column("kept") > 0.5 ? column(c) / 1000.0 : NaN
stats in using (us(col)) nooutput
n1 = STATS_records
nmax = n1
xlo = STATS_min
xhi = STATS_max
# the cumulative count of kept events (the others weigh 0), then the share above x
set table $cdf1
plot in using (column(col) / 1000.0):(column("kept") > 0.5 ? 1 : 0) smooth cumulative
unset table
if (in2 ne "") {
	stats in2 using (us(col)) nooutput
	n2 = STATS_records
	nmax = (n2 > nmax) ? n2 : nmax
	xlo = (STATS_min < xlo) ? STATS_min : xlo
	xhi = (STATS_max > xhi) ? STATS_max : xhi
	set table $cdf2
	plot in2 using (column(col) / 1000.0):(column("kept") > 0.5 ? 1 : 0) smooth cumulative
	unset table
}
set datafile nocolumnheaders
set datafile separator whitespace

what = (col eq "gap_ns") ? "time the interrupt took from the thread" : "latency"
set title ((machine eq "") ? "t32 wake: tail of the " . what : "t32 wake: tail of the " . what . " - " . machine)
# less than a decade and a half: a linear axis, whose tics show; else log
narrow = (xhi / (xlo > 0 ? xlo : 0.001) < 30)
set xlabel what . (narrow ? " (µs)" : " (µs, log scale)")
set ylabel "share of kept events slower (log scale)"
set logscale y
set format y "%g"
set format x "%g"
if (!narrow) {
	set logscale x
	set xtics add ("0.2" 0.2, "0.5" 0.5, "2" 2, "5" 5, "20" 20, "50" 50, "200" 200, "500" 500, "2000" 2000, "5000" 5000)
}
set yrange [0.5 / nmax : 1.2]
xlo = (xlo > 0) ? xlo : 0.001
if (narrow) {
	set xrange [xlo - 0.05 * (xhi - xlo) : xhi + 0.05 * (xhi - xlo)]
} else {
	set xrange [xlo / 1.1 : xhi * 1.1]
}
# a percentile's line only where the axis reaches it: fewer events cannot show p99.9
pline(p) = (p >= 0.5 / nmax) ? p : NaN
ptitle(p, t) = (p >= 0.5 / nmax) ? t : ""
set grid xtics ytics mxtics mytics
set key top right
set output out
# the last point (share 0) has no place on a log scale and is left out
if (in2 eq "") {
	plot $cdf1 using 1:(1 - $2 / n1 > 0 ? 1 - $2 / n1 : NaN) with steps lw 2 lc rgb "#3465a4" \
		title sprintf("%s (%d events)", in, n1), \
	     pline(0.5) with lines dt 3 lc rgb "#888888" title ptitle(0.5, "p50"), \
	     pline(0.01) with lines dt 2 lc rgb "#888888" title ptitle(0.01, "p99"), \
	     pline(0.001) with lines dt 4 lc rgb "#888888" title ptitle(0.001, "p99.9")
} else {
	plot $cdf1 using 1:(1 - $2 / n1 > 0 ? 1 - $2 / n1 : NaN) with steps lw 2 lc rgb "#3465a4" \
		title sprintf("A: %s (%d events)", in, n1), \
	     $cdf2 using 1:(1 - $2 / n2 > 0 ? 1 - $2 / n2 : NaN) with steps lw 2 lc rgb "#f57900" \
		title sprintf("B: %s (%d events)", in2, n2), \
	     pline(0.5) with lines dt 3 lc rgb "#888888" title ptitle(0.5, "p50"), \
	     pline(0.01) with lines dt 2 lc rgb "#888888" title ptitle(0.01, "p99"), \
	     pline(0.001) with lines dt 4 lc rgb "#888888" title ptitle(0.001, "p99.9")
}
