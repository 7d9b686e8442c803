# scatter.gp - every measurement of one block, in the order taken, with a line at
# the minimum (the study's first figure: `t32 mx m 1000 100000 'inc eax'`).
#
#   gnuplot -c plots/scatter.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: '#' provenance lines, a header row, then rows with columns
#   i      measurement number (0, 1, 2...)
#   ticks  TSC ticks between the two rdtsc readings
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

stats in using "ticks" nooutput
lowest = STATS_min

set title ((machine eq "") ? "Ticks per measurement" : "Ticks per measurement - " . machine)
set xlabel "measurement number"
set ylabel "TSC ticks per measurement"
set grid
set key top right opaque
set autoscale xfix
span = STATS_max - lowest + 1
set yrange [lowest - 0.05 * span : STATS_max + 0.05 * span]

set offsets graph 0.01, graph 0.01, 0, 0
set output out
plot in using "i":"ticks" with points pt 7 ps 0.35 lc rgb "#3465a4" title "measurement", \
	lowest with lines lw 2 lc rgb "#cc0000" title sprintf("minimum %g ticks", lowest)
