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
#   samples    (optional) samples that landed on it: 95% Wilson intervals on measured
# Or `t32 sample --format=tsv` (position, insn, samples, share, share_lo,
# share_hi): the measured shares with sample's own 95% intervals, no prediction.
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

# a long title (a block's whole text) is cut to fit the figure
short(t, n) = (strlen(t) > n) ? t[1:n-3] . "..." : t
set title short((machine eq "") ? "Interrupt sample shares" : "Interrupt sample shares - " . machine, 90)
set xlabel "instruction (index: text)"
set ylabel "share of interrupt samples (fraction)"

# 95% Wilson intervals on the measured shares, from the sample counts when the
# file gives them (column samples)
set table $header
plot in every ::0::0 using (header = "", sum [c = 1:16] (header = header . "\t" . columnhead(c), 0)):(0) with table
unset table
has(name) = strstrt(header . "\t", "\t" . name . "\t") > 0
# t32 sample's file: its shares and intervals as they are, no prediction
if (has("share") && has("position") && !has("measured")) {
	stats in using "share" nooutput
	records = STATS_records
	stats in using "share_hi" nooutput
	top = (STATS_max * 1.15 < 1) ? STATS_max * 1.15 : 1
	stats in using "samples" nooutput
	total = STATS_sum
	set xrange [-0.6 : records - 0.4]
	set yrange [0 : top]
	set style data histogram
	set style histogram errorbars gap 1 lw 1.5
	set style fill solid 0.85 border -1
	set boxwidth 0.9
	set xtics rotate by -30 left
	set bmargin 7
	set grid ytics
	set key outside top center horizontal
	set output out
	# an unfolded loop has many positions: every k-th labelled, so the labels stay apart
	every_k = (records > 30) ? ceil(records / 30.0) : 1
	plot in using "share":"share_lo":"share_hi":xtic((int(column("position")) % every_k == 0) ? short(sprintf("%d: %s", column("position"), strcol("insn")), 24) : "") \
		lc rgb "#3465a4" title sprintf("measured (%d samples, 95%% interval)", total)
	exit
}
total = 0
if (has("samples")) {
	stats in using "samples" nooutput
	total = STATS_sum
}
z = 1.96
wc(k) = (k / total + z * z / (2 * total)) / (1 + z * z / total)
wh(k) = z * sqrt((k / total) * (1 - k / total) / total + z * z / (4 * total * total)) / (1 + z * z / total)
lo(k) = (total > 0) ? wc(k) - wh(k) : NaN
hi(k) = (total > 0) ? wc(k) + wh(k) : NaN

stats in using "measured" nooutput
records = STATS_records
top = STATS_max
stats in using "predicted" nooutput
top = (STATS_max > top) ? STATS_max : top
if (total > 0) {
	stats in using (hi(column("samples"))) nooutput
	top = (STATS_max > top) ? STATS_max : top
}
top = (top * 1.15 < 1) ? top * 1.15 : 1
set xrange [-0.6 : records - 0.4]
set yrange [0 : top]
set style data histogram
set style histogram errorbars gap 1 lw 1.5
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 left
set bmargin 7
set grid ytics
set key outside top center horizontal

set output out
label(i, t) = short(sprintf("%d: %s", i, t), 24)
if (total > 0) {
	plot in using "measured":(lo(column("samples"))):(hi(column("samples"))):xtic(label(column("index"), strcol("insn"))) \
			lc rgb "#3465a4" title sprintf("measured (%d samples, 95%% Wilson interval)", total), \
		in using "predicted":"predicted":"predicted" lc rgb "#f57900" title "predicted by the model"
} else {
	plot in using "measured":"measured":"measured":xtic(label(column("index"), strcol("insn"))) \
			lc rgb "#3465a4" title "measured", \
		in using "predicted":"predicted":"predicted" lc rgb "#f57900" title "predicted by the model"
}
