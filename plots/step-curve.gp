# step-curve.gp - cost of a block against n, the number of instructions in it, with
# the fitted line, the study's minimum-based curve and its detected steps (the
# study's step-shaped curves).
#
#   gnuplot -c plots/step-curve.gp IN.tsv OUT.svg|OUT.png [TITLE [STEPS.tsv]]
#
# IN.tsv: a sweep (`t32 sweep --n 1..100 -o IN.tsv l m 'inc eax'`): its first
# form and mode are drawn, the block's `total` against n in the sweep's unit
# with per_insn's interval times n, and `min_per_insn` times n as the
# minimum-based curve; or the study's steps-*.tsv, with columns
#   n                   instructions in the block
#   cycles | estimate   cost of the block: core cycles, or the estimate in TSC ticks
#   min_cycles | min_ticks  (optional) the study's (min - min), whole block, same unit
#   fit       (optional) the fitted line at n
#   step      (optional) 1 on rows where a step was detected (in the minimum-based
#             curve when there is one), else 0; marked on that curve
# STEPS.tsv (optional): a header row and a column `n` (the first n after the jump),
#   optionally `n_before` (the last n before it), one row per detected step: a
#   dotted line at each jump.
# TITLE is usually the machine name ("" to leave it out when giving STEPS.tsv).

if (ARGC < 2) {
	print "usage: gnuplot -c plots/step-curve.gp IN.tsv OUT.svg|OUT.png [TITLE [STEPS.tsv]]"
	exit status 2
}
in = ARG1
out = ARG2
machine = (ARGC >= 3) ? ARG3 : ""
steps = (ARGC >= 4) ? ARG4 : ""
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

# Which optional columns the header names (columnhead() of a missing column is "").
set table $header
plot in every ::0::0 using (header = "", sum [c = 1:64] (header = header . "\t" . columnhead(c), 0)):(0) with table
unset table
has(name) = strstrt(header . "\t", "\t" . name . "\t") > 0
steps_header = ""
if (steps ne "") {
	set table $stepsheader
	plot steps every ::0::0 using (steps_header = "", sum [c = 1:16] (steps_header = steps_header . "\t" . columnhead(c), 0)):(0) with table
	unset table
}
steps_has(name) = strstrt(steps_header . "\t", "\t" . name . "\t") > 0

# A sweep: its first row's form, mode and unit; the rows of that form and mode only.
sweep = has("total") && has("per_insn") && has("n")
if (sweep) {
	form0 = ""
	mode0 = ""
	unit0 = ""
	set table $first
	plot in every ::0::0 using (form0 = strcol("form"), mode0 = strcol("mode"), unit0 = strcol("unit"), 0):(0) with table
	unset table
	mine(v) = (strcol("form") eq form0 && strcol("mode") eq mode0) ? v : NaN
	y = "total"
	unitname = (unit0 eq "cycles") ? "core cycles" : ((unit0 eq "ticks") ? "TSC ticks" : unit0)
	set ylabel unitname . " per block (" . form0 . ", " . mode0 . ")"
} else {
	mine(v) = v
	if (has("cycles")) {
		y = "cycles"
		set ylabel "core cycles per block"
	} else {
		if (has("estimate")) {
			y = "estimate"
			set ylabel "estimate per block, TSC ticks"
		} else {
			print sprintf("t32: no 'total', 'cycles' or 'estimate' column in '%s' (a sweep, or the study's steps-*.tsv)", in)
			exit status 1
		}
	}
}
stats in using (mine(column(y))) nooutput
ylo = STATS_min
yhi = STATS_max
# The study's minimum-based curve, in the unit of y: a sweep's min_per_insn times n.
mn = has("min_cycles") ? "min_cycles" : (has("min_ticks") ? "min_ticks" : "")
if (sweep && has("min_per_insn")) {
	mn = "min_per_insn"
}
mnval(dummy) = (mn eq "min_per_insn") ? column("min_per_insn") * column("n") : column(mn)
if (mn ne "") {
	stats in using (mine(mnval(0))) nooutput
	ylo = (STATS_min < ylo) ? STATS_min : ylo
	yhi = (STATS_max > yhi) ? STATS_max : yhi
}

set title ((machine eq "") ? "Cost against n" : "Cost against n - " . machine)
set xlabel "n (instructions in the block)"
set grid
set key top left opaque

# Each optional layer is added only when its data is there; "detected step" is one
# legend entry: the circles on the curve the steps were found in, or else the lines.
cmd = "plot in using \"n\":(mine(column(y))) with linespoints pt 7 ps 0.6 lw 1.5 lc rgb \"#3465a4\" title \"" . ((mn ne "") ? "sub-quantum estimate" : "measured") . "\""
if (sweep && has("ci_lo") && has("ci_hi")) {
	cmd = cmd . ", in using \"n\":(mine(column(y))):(column(\"ci_lo\") * column(\"n\")):(column(\"ci_hi\") * column(\"n\")) with yerrorbars pt 0 lc rgb \"#3465a4\" title \"95% interval\""
}
if (mn ne "") {
	cmd = cmd . ", in using \"n\":(mine(mnval(0))) with linespoints pt 5 ps 0.5 lw 1.5 lc rgb \"#ce5c00\" title \"minimum-based, (min - min)\""
}
if (has("fit")) {
	cmd = cmd . ", in using \"n\":\"fit\" with lines lw 2 dt 2 lc rgb \"#cc0000\" title \"fit\""
}
nstep = 0
if (has("step")) {
	stats in using (column("step") == 1 ? 1 : 0) nooutput
	nstep = STATS_sum
}
# the steps file's rows (none: nothing drawn, nothing in the key)
nsteprows = 0
if (steps ne "") {
	# `stats` leaves STATS_records undefined on a file with no rows
	nsteprows = 0
	set table $steprows
	plot steps using (nsteprows = nsteprows + 1, 0):(0) with table
	unset table
}
if (steps ne "" && nsteprows > 0) {
	# at the jump: half way between the last n before it and the first after
	stepx = steps_has("n_before") ? "((column(\"n\") + column(\"n_before\")) / 2)" : "(column(\"n\"))"
	cmd = cmd . ", steps using " . stepx . ":(ylo):(0):(yhi - ylo) with vectors nohead dt 3 lw 1.5 lc rgb \"#4e9a06\" " . ((has("step") && nstep > 0) ? "notitle" : "title \"detected step\"")
}
if (has("step") && nstep > 0) {
	on = (mn ne "") ? mn : y
	cmd = cmd . ", in using \"n\":(column(\"step\") == 1 ? column(on) : NaN) with points pt 6 ps 2 lw 2 lc rgb \"#4e9a06\" title \"detected step\""
}
set autoscale xfix
set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05
set output out
eval cmd
