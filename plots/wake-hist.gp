# wake-hist.gp - histogram of wake (or interrupt) latencies of `t32 wake`, the
# events kept only, as the share of events per bin; with a second file, both
# overlaid on the same bins (`t32 diff`).
#
#   gnuplot -c plots/wake-hist.gp IN.tsv OUT.svg|OUT.png [TITLE [IN2.tsv [COLUMN]]]
#
# IN.tsv: a raw file of `t32 wake -o`: '#' provenance lines, a header row, then one
# row per event with (among others) the columns
#   latency_ns  TSC at wake (or in the handler) minus the deadline, ns
#   gap_ns      spin only: the time the interrupt took from the spinning thread, ns
#   kept        1 when the event is in the statistics, 0 when a filter left it out
# IN2.tsv (optional, "" for none): a second raw file, overlaid.
# COLUMN (optional): latency_ns (default) or gap_ns.
# TITLE is usually the machine name.  Bins run from the smallest value to the
# upper quartile plus six interquartile ranges (the tail is in wake-cdf.gp); the
# key counts the kept events beyond them.

if (ARGC < 2) {
	print "usage: gnuplot -c plots/wake-hist.gp IN.tsv OUT.svg|OUT.png [TITLE [IN2.tsv [COLUMN]]]"
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
lo = STATS_min
hi = STATS_up_quartile + 6 * (STATS_up_quartile - STATS_lo_quartile)
iqr = STATS_up_quartile - STATS_lo_quartile
top = STATS_max
n2 = 0
if (in2 ne "") {
	stats in2 using (us(col)) nooutput
	n2 = STATS_records
	lo = (STATS_min < lo) ? STATS_min : lo
	hi2 = STATS_up_quartile + 6 * (STATS_up_quartile - STATS_lo_quartile)
	hi = (hi2 > hi) ? hi2 : hi
	top = (STATS_max > top) ? STATS_max : top
}
hi = (hi > top) ? top : hi
# the kept events beyond the bins: counted in the key, never dropped silently
stats in using (column("kept") > 0.5 && column(col) / 1000.0 > hi ? 1 : 0) nooutput
beyond = STATS_sum
beyond2 = 0
if (in2 ne "") {
	stats in2 using (column("kept") > 0.5 && column(col) / 1000.0 > hi ? 1 : 0) nooutput
	beyond2 = STATS_sum
}
past(k) = (k > 0) ? sprintf(", %d beyond %.1f µs not drawn (the tail figure has them)", k, hi) : ""
# Freedman-Diaconis bins over the first file, at least 1/200 of the range shown
width = 2 * iqr / (n1 ** (1.0 / 3))
width = (width < (hi - lo) / 200.0) ? (hi - lo) / 200.0 : width
width = (width <= 0) ? 0.01 : width
bin(x) = lo + width * (floor((x - lo) / width) + 0.5)
# an event left out, or beyond the bins, weighs 0 in the first bin: `smooth frequency`
# sums one curve, which an undefined x would cut in pieces
shown(c) = column("kept") > 0.5 && column(c) / 1000.0 >= lo && column(c) / 1000.0 <= hi
x(c) = shown(c) ? bin(column(c) / 1000.0) : bin(lo)

what = (col eq "gap_ns") ? "time the interrupt took from the thread" : "latency"
set title ((machine eq "") ? "t32 wake: " . what : "t32 wake: " . what . " - " . machine)
set xlabel what . " (µs)"
set ylabel "share of kept events per bin (fraction)"
set grid
set key top right
set xrange [lo - width : hi + width]
set yrange [0 : *]
set style fill transparent solid 0.45 border -1
set boxwidth width
set output out
if (in2 eq "") {
	plot in using (x(col)):(shown(col) ? 1.0 / n1 : 0) smooth frequency with boxes \
		lc rgb "#3465a4" title sprintf("%s (%d events, bins %.2f µs%s)", in, n1, width, past(beyond))
} else {
	plot in using (x(col)):(shown(col) ? 1.0 / n1 : 0) smooth frequency with boxes \
		lc rgb "#3465a4" title sprintf("A: %s (%d events%s)", in, n1, past(beyond)), \
	     in2 using (x(col)):(shown(col) ? 1.0 / n2 : 0) smooth frequency with boxes \
		lc rgb "#f57900" title sprintf("B: %s (%d events%s)", in2, n2, past(beyond2))
}
