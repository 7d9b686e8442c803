# wake-ldist.gp - `t32 wake` latency against launch distance (how long the timer
# was armed for), one point per event: kept events in blue, the ones a filter
# left out in grey.  A latency that grows with the launch distance shows the CPU
# going deeper idle the longer it waits.
#
#   gnuplot -c plots/wake-ldist.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: a raw file of `t32 wake -o`: '#' provenance lines, a header row, then one
# row per event with the columns
#   ldist_ns    launch distance, ns
#   latency_ns  TSC at wake (or in the handler) minus the deadline, ns
#   kept        1 when the event is in the statistics, 0 when left out
# TITLE is usually the machine name.

if (ARGC < 2) {
	print "usage: gnuplot -c plots/wake-ldist.gp IN.tsv OUT.svg|OUT.png [TITLE]"
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

set title ((machine eq "") ? "t32 wake: latency against launch distance" : "t32 wake: latency against launch distance - " . machine)
set xlabel "launch distance (ms)"
set ylabel "latency (µs, log scale)"
set logscale y
set grid
set key top right opaque
set output out
# a latency at or below zero (flagged) has no place on a log scale
plot in using (column("ldist_ns") / 1e6):(column("kept") > 0.5 || column("latency_ns") <= 0 ? NaN : column("latency_ns") / 1000.0) \
		with points pt 7 ps 0.3 lc rgb "#bbbbbb" title "left out", \
	in using (column("ldist_ns") / 1e6):(column("kept") > 0.5 && column("latency_ns") > 0 ? column("latency_ns") / 1000.0 : NaN) \
		with points pt 7 ps 0.3 lc rgb "#3465a4" title "kept"
