# model-overlay.gp - a measured step curve with the retirement model's prediction
# laid over it.
#
#   gnuplot -c plots/model-overlay.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: '#' provenance lines, a header row, then one row per n:
#   n          instructions in the block
#   measured   measured cost of the block, core cycles
#   predicted  the model's cost for the same block, core cycles
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

set title ((machine eq "") ? "Measured and modelled cost against n" : "Measured and modelled cost against n - " . machine)
set xlabel "n (instructions in the block)"
set ylabel "core cycles per block"
set grid
set key top left opaque

set autoscale xfix
set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05
set output out
plot in using "n":"measured" with points pt 7 ps 1.0 lc rgb "#3465a4" title "measured", \
	in using "n":"predicted" with steps lw 2 lc rgb "#cc0000" title "model"
