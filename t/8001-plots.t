#!/bin/sh
# 8001-plots.t - every figure script in plots/ runs on a small sample TSV (written
# here, in a temporary directory) and writes a non-empty SVG; the scripts refuse
# bad usage and unknown output types with exit status 2 and write nothing.

. "$(dirname "$0")/lib-tap.sh"
plots=$T32_SRC/plots

command -v gnuplot >/dev/null 2>&1 || skip_all "gnuplot is not installed"
plan 22
tmp=$TMP

# Sample inputs: '#' provenance lines, a header row, tab-separated rows.
printf '# t32 sample\n# cpu: test\ni\tticks\n0\t420\n1\t399\n2\t378\n3\t377\n4\t500\n5\t377\n' \
	>"$tmp/scatter.tsv" || bail "cannot write $tmp/scatter.tsv"
printf '# t32 sample\ncount\tmin_ticks\n1000\t452\n10000\t396\n100000\t377\n500000\t376\n1000000\t376\n' \
	>"$tmp/min.tsv" || bail "cannot write $tmp/min.tsv"
printf '# t32 sample\nn\tcycles\tfit\tstep\n1\t3\t3.2\t0\n2\t3\t4.1\t0\n3\t3\t5.0\t0\n4\t6\t5.9\t1\n5\t6\t6.8\t0\n6\t6\t7.7\t0\n7\t9\t8.6\t1\n' \
	>"$tmp/steps.tsv" || bail "cannot write $tmp/steps.tsv"
printf '# t32 sample\nn\testimate\n1\t380\n2\t380\n3\t383\n4\t383\n' >"$tmp/estimate.tsv" &&
	printf '# detected steps\nn\n3\n' >"$tmp/stepfile.tsv" || bail "cannot write $tmp/estimate.tsv"
{
	printf '# t32 sample\nform\tn\tper_insn\n'
	for form in add-ax-1 inc-eax nop xor-eax-eax; do
		printf '%s\t100\t2\n%s\t1000\t0.89\n%s\t10000\t0.7813\n%s\t100000\t0.70657\n' \
			"$form" "$form" "$form" "$form"
	done
} >"$tmp/heat.tsv" || bail "cannot write $tmp/heat.tsv"
printf '# t32 sample\nindex\tinsn\tmeasured\tpredicted\n0\tinc eax\t0.10\t0.12\n1\tadd ebx, 1\t0.60\t0.55\n2\tnop\t0.30\t0.33\n' \
	>"$tmp/shares.tsv" || bail "cannot write $tmp/shares.tsv"
printf '# t32 sample\nn\tmeasured\tpredicted\n1\t3\t3\n2\t3\t3\n3\t4\t3\n4\t6\t6\n5\t6\t6\n' \
	>"$tmp/overlay.tsv" || bail "cannot write $tmp/overlay.tsv"

# Run one script; the SVG must exist, be non-empty and be an SVG document.
figure() {
	name=$1
	in=$2
	shift 2
	out="$tmp/$name.svg"
	rm -f "$out"
	gnuplot -c "$plots/$name.gp" "$in" "$out" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	status=$?
	[ $status -eq 0 ] || diag "$(cat "$tmp/$name.err")"
	ok $status "$name.gp runs"
	[ -s "$out" ] && grep -qs '<svg' "$out"
	ok $? "$name.gp writes a non-empty SVG"
}

figure scatter "$tmp/scatter.tsv" "test machine"
grep -qs 'minimum 377 ticks' "$tmp/scatter.svg"
ok $? "scatter.gp marks the minimum (377 ticks)"
grep -qs 'test machine' "$tmp/scatter.svg"
ok $? "scatter.gp puts the title argument in the title"
figure min-vs-count "$tmp/min.tsv" "test machine"
figure step-curve "$tmp/steps.tsv" "test machine"
grep -qs 'detected step' "$tmp/step-curve.svg"
ok $? "step-curve.gp marks the steps from the step column"
figure heatmap "$tmp/heat.tsv" "test machine"
grep -qs 'xor-eax-eax' "$tmp/heatmap.svg"
ok $? "heatmap.gp labels the forms"
figure shares "$tmp/shares.tsv" "test machine"
figure model-overlay "$tmp/overlay.tsv"

rm -f "$tmp/est.svg"
gnuplot -c "$plots/step-curve.gp" "$tmp/estimate.tsv" "$tmp/est.svg" "" "$tmp/stepfile.tsv" \
	>"$tmp/est.out" 2>"$tmp/est.err" && [ -s "$tmp/est.svg" ]
ok $? "step-curve.gp takes an estimate column and a steps file"

# As t32 study writes it: the minimum-based curve, its steps marked and listed apart.
printf '# t32 sample\nn\tcycles\tmin_cycles\tfit\tstep\n1\t4\t0\t4\t0\n2\t5\t0\t5\t0\n3\t6\t39\t6\t1\n4\t7\t39\t7\t0\n5\t8\t39\t8\t0\n' \
	>"$tmp/study.tsv" && printf 'n\tn_before\theight\n3\t2\t39\n' >"$tmp/study.steps.tsv" ||
	bail "cannot write $tmp/study.tsv"
rm -f "$tmp/study.svg"
gnuplot -c "$plots/step-curve.gp" "$tmp/study.tsv" "$tmp/study.svg" "test machine" \
	"$tmp/study.steps.tsv" >"$tmp/study.out" 2>"$tmp/study.err" &&
	grep -qs 'minimum-based' "$tmp/study.svg"
ok $? "step-curve.gp draws the minimum-based curve"
[ "$(grep -c 'detected step' "$tmp/study.svg")" -eq 1 ]
ok $? "step-curve.gp names the detected steps once in the key"

# Bad usage and unknown output types: exit 2, nothing written.
gnuplot -c "$plots/scatter.gp" >"$tmp/usage.out" 2>"$tmp/usage.err"
[ $? -eq 2 ] && grep -qs '^usage: gnuplot -c plots/scatter.gp' "$tmp/usage.err"
ok $? "scatter.gp without arguments prints usage and exits 2"
gnuplot -c "$plots/scatter.gp" "$tmp/scatter.tsv" "$tmp/x.pdf" >"$tmp/pdf.out" 2>"$tmp/pdf.err"
[ $? -eq 2 ] && [ ! -e "$tmp/x.pdf" ] &&
	grep -qs "^t32: unknown figure type '$tmp/x.pdf' (use .svg or .png)" "$tmp/pdf.err"
ok $? "an unknown output type is refused with exit 2"
gnuplot -c "$plots/step-curve.gp" "$tmp/scatter.tsv" "$tmp/none.svg" >"$tmp/none.out" 2>"$tmp/none.err"
[ $? -ne 0 ] && [ ! -e "$tmp/none.svg" ] && grep -qs "no 'total', 'cycles' or 'estimate' column" "$tmp/none.err"
ok $? "step-curve.gp without a cost column fails and writes nothing"

done_testing
