# shares.gp - where interrupt samples land in a block: the measured share of
# samples per instruction beside the share the retirement model predicts.
#
#   gnuplot -c plots/shares.gp IN.tsv OUT.svg|OUT.png [TITLE]
#
# IN.tsv: '#' provenance lines, a header row, then one row per instruction:
#   index      position of the instruction in the block (0, 1, 2...)
#   insn       its text
#   measured   share of the samples that landed on it (fraction of all samples)
#   predicted  share the model predicts (fraction)
# TITLE is usually the machine name.

if (ARGC < 2) {
	print "usage: gnuplot -c plots/shares.gp IN.tsv OUT.svg|OUT.png [TITLE]"
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

set title ((machine eq "") ? "Interrupt sample shares" : "Interrupt sample shares - " . machine)
set xlabel "instruction (index: text)"
set ylabel "share of interrupt samples (fraction)"
stats in using "measured" nooutput
set xrange [-0.6 : STATS_records - 0.4]
set yrange [0 : *]
set offsets 0, 0, graph 0.08, 0
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 left
set grid ytics
set key top right

set output out
plot in using "measured":xtic(sprintf("%d: %s", column("index"), strcol("insn"))) \
		lc rgb "#3465a4" title "measured", \
	in using "predicted" lc rgb "#f57900" title "predicted"
