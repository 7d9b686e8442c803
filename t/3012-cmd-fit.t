#!/bin/sh
# 3012-cmd-fit - `t32 fit` on a small sweep written here: fits, steps, formats,
# errors and exit codes.

. "$(dirname "$0")/lib-tap.sh"
[ -x "$T32" ] || skip_all "T32 does not name the built t32 binary"
plan 39

"$T32" fit --help >"$TMP/help" 2>"$TMP/help.err"
rc=$?
[ $rc -eq 0 ] && grep -q '^usage: t32 fit' "$TMP/help"; ok $? "--help exits 0 with the usage (exit $rc)"
[ ! -s "$TMP/help.err" ]; ok $? "--help writes nothing to stderr"

# The sweep: a line with two outliers, a staircase of step 21 every 37 n, a skipped row.
awk 'BEGIN {
	print "# tool: t32 sweep"
	print "# tsc_quantum: 21"
	print "form\tn\ttotal\tticks_min"
	for (n = 1; n <= 100; n++) {
		y = 3 + 0.5 * n + ((n * 7919) % 13 - 6) / 60
		if (n == 10 || n == 50) y += 30
		printf "add rbx, 1\t%d\t%.4f\t%d\n", n, y, 0
	}
	for (n = 1; n <= 100; n++)
		printf "inc eax\t%d\t%.4f\t%d\n", n, 105 + 21 * int((n + 5) / 37), 105
	print "nop\t1\t-\t0"
}' >"$TMP/sweep.tsv" || { echo "Bail out! cannot write $TMP/sweep.tsv"; exit 1; }

"$T32" fit --format=tsv "$TMP/sweep.tsv" >"$TMP/out.tsv" 2>"$TMP/err"
ok $? "fit --format=tsv exits 0"
[ ! -s "$TMP/err" ]; ok $? "nothing on stderr"
head -n 1 "$TMP/out.tsv" | grep -q '^# '; ok $? "TSV opens with # provenance"
grep -q '^# > tool: t32 sweep' "$TMP/out.tsv"; ok $? "the input's provenance is carried over"
grep -v '^#' "$TMP/out.tsv" | head -n 1 >"$TMP/head"
cut -f 1-3 "$TMP/head" | grep -q "^form	points	skipped$"; ok $? "header row names the group column"
[ "$(grep -vc '^#' "$TMP/out.tsv")" -eq 4 ]; ok $? "a header and three groups"

# Columns by name, so the test follows the header.
cell() {
	# cell FILE GROUP COLUMN: print one cell
	awk -F '\t' -v g="$2" -v c="$3" '
		/^#/ { next }
		!h { for (i = 1; i <= NF; i++) idx[$i] = i; h = 1; next }
		$1 == g { print $(idx[c]) }' "$1"
}
slope=$(cell "$TMP/out.tsv" "add rbx, 1" slope)
awk -v s="$slope" 'BEGIN { exit !(s > 0.495 && s < 0.505) }'; ok $? "robust slope 0.5 despite outliers ($slope)"
icpt=$(cell "$TMP/out.tsv" "add rbx, 1" intercept)
awk -v s="$icpt" 'BEGIN { exit !(s > 2.8 && s < 3.2) }'; ok $? "intercept 3 ($icpt)"
[ "$(cell "$TMP/out.tsv" "add rbx, 1" fit)" = robust ]; ok $? "robust fit"
[ "$(cell "$TMP/out.tsv" "inc eax" step_x)" = "32,69" ]; ok $? "staircase: steps at n = 32 and 69"
[ "$(cell "$TMP/out.tsv" "inc eax" step_height)" = "21,21" ]; ok $? "staircase: steps 21 high"
[ "$(cell "$TMP/out.tsv" "inc eax" period)" = 37 ]; ok $? "staircase: 37 apart"
[ "$(cell "$TMP/out.tsv" nop skipped)" = 1 ]; ok $? "a row without a value is skipped, not an error"
[ "$(cell "$TMP/out.tsv" "add rbx, 1" steps)" = 0 ]; ok $? "a noisy line has no steps"

# A straight line of 1 cycle per instruction: every difference is the slope, none a step.
awk 'BEGIN { print "n\ttotal"; for (n = 1; n <= 100; n++) printf "%d\t%d\n", n, 3 + n }' \
	>"$TMP/line.tsv" || { echo "Bail out! cannot write $TMP/line.tsv"; exit 1; }
"$T32" fit --format=tsv "$TMP/line.tsv" >"$TMP/line.out" 2>"$TMP/err" &&
	[ "$(cell "$TMP/line.out" all steps)" = 0 ] && [ "$(cell "$TMP/line.out" all plateaus)" = 1 ]
ok $? "by default a straight line has no steps and one plateau"

"$T32" fit "$TMP/sweep.tsv" >"$TMP/out.txt" 2>"$TMP/err"
ok $? "table (default) exits 0"
grep -q '^inc eax: steps at n = 32 (+21), 69 (+21)' "$TMP/out.txt"; ok $? "table lists the steps"

"$T32" fit --y ticks_min --by form --format=tsv - <"$TMP/sweep.tsv" >"$TMP/out2.tsv" 2>"$TMP/err"
ok $? "--y, --by and standard input"
[ "$(cell "$TMP/out2.tsv" "inc eax" steps)" = 0 ]; ok $? "a flat column has no steps"

"$T32" fit --format=json "$TMP/sweep.tsv" >"$TMP/out.json" 2>"$TMP/err"
ok $? "fit --format=json exits 0"
perl -MJSON::PP -e '
	local $/; open my $f, "<", $ARGV[0] or exit 1; my $j = decode_json(<$f>);
	my ($g) = grep { $_->{name} eq "inc eax" } @{$j->{groups}};
	exit !($g && join(",", map { $_->{x} } @{$g->{steps}{at}}) eq "32,69");
' "$TMP/out.json"
ok $? "JSON parses and holds the steps"

"$T32" fit >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ]; ok $? "no file: exit 2"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^usage: t32 fit' "$TMP/err" && [ ! -s "$TMP/out" ]
ok $? "one usage line on stderr"

"$T32" fit --format=xml "$TMP/sweep.tsv" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ]; ok $? "unknown format: exit 2"

"$T32" fit "$TMP/missing.tsv" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "^t32: cannot read '$TMP/missing.tsv'" "$TMP/err"; ok $? "unreadable file: exit 1 and says so"

printf '# no total here\nn\tticks_min\n1\t105\n' >"$TMP/bare.tsv"
"$T32" fit "$TMP/bare.tsv" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(cat "$TMP/err")" = "t32: no column 'total' in '$TMP/bare.tsv' (--y names the column to fit)" ]
ok $? "missing column: exit 1, named"

printf 'n\ttotal\n1\t5\n2\tfive\n' >"$TMP/bad.tsv"
"$T32" fit "$TMP/bad.tsv" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "^t32: not a number 'five'" "$TMP/err"; ok $? "not a number: exit 1"

if [ -w /dev/full ]; then
	"$T32" fit "$TMP/sweep.tsv" >/dev/full 2>"$TMP/err"
	[ $? -eq 1 ] && grep -q '^t32: cannot write' "$TMP/err"; ok $? "a full disk is an error"
else
	skip "no /dev/full here"
fi

printf 'n\ttotal\n1\t5\n2\t6\n3\t7\n' >"$TMP/nogroup.tsv"
"$T32" fit --format=tsv "$TMP/nogroup.tsv" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] && [ "$(cell "$TMP/out" all slope)" = 1 ]; ok $? "no form column: one group 'all'"

# A sweep older than the rename (`estimate`) is read by the new name.
printf 'form\tn\testimate\n' >"$TMP/old.tsv" && printf 'a\t%d\t%d\n' 1 2 2 3 3 4 >>"$TMP/old.tsv"
"$T32" fit --y per_insn --format=tsv "$TMP/old.tsv" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] && [ "$(cell "$TMP/out" a slope)" = 1 ]; ok $? "--y per_insn reads an older sweep's estimate column"

# A real sweep of a small table in both modes: by default one fit per form and
# mode, of the block's total against n, so the slope is the cost per instruction
# (a chain of 1-cycle adds: about 1) and a straight line has no steps.
printf 'add\t| add eax, 1\t| tp=add {e}, 1\nimul\t| imul eax, eax\t| tp=imul {e}, {e}\n' >"$TMP/t.tbl"
"$T32" sweep --n 100,200,300,400,500,600 --max-k 4 --budget 0.05 --block-precision 2 \
	-o "$TMP/real.tsv" "$TMP/t.tbl" >"$TMP/out" 2>"$TMP/err"
rc=$?
swept "a sweep of two forms in two modes (exit $rc)"
"$T32" fit --format=tsv "$TMP/real.tsv" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] && [ "$(grep -vc '^#' "$TMP/out")" -eq 5 ] && grep -v '^#' "$TMP/out" | head -n 1 | grep -q "^form	mode	points"
ok $? "one fit per form and mode (four, named by form and mode)"
colm() {
	awk -F '\t' -v f="$2" -v m="$3" -v c="$4" '/^#/ { next }
		!h { for (i = 1; i <= NF; i++) idx[$i] = i; h = 1; next }
		$1 == f && $2 == m { print $(idx[c]) }' "$1"
}
slope=$(colm "$TMP/out" add latency slope)
awk -v s="$slope" 'BEGIN { exit !(s > 0.8 && s < 1.3) }'; ok $? "add's latency slope is its cost per instruction, ~1 cycle ($slope)"
slope3=$(colm "$TMP/out" imul latency slope)
awk -v s="$slope" -v t="$slope3" 'BEGIN { exit !(t > 2 * s) }'; ok $? "imul's chain costs more per instruction than add's ($slope3)"
[ "$(colm "$TMP/out" add latency steps)" = 0 ]; ok $? "the measured straight line has no steps"

# 40,000 forms of three rows each: groups found by hash, not a search per row
awk 'BEGIN { print "row\tform\tmode\tn\ttotal"; r = 0
	for (f = 0; f < 40000; f++) for (k = 1; k <= 3; k++) printf "%d\tf%d\traw\t%d\t%d\n", r++, f, 10 * k, 10 * k }' \
	>"$TMP/big.tsv"
t0=$(date +%s.%N)
"$T32" fit --format=tsv "$TMP/big.tsv" >"$TMP/big.out" 2>"$TMP/big.err"
rc=$?
t1=$(date +%s.%N)
[ $rc -eq 0 ] && [ "$(grep -vc '^#' "$TMP/big.out")" -eq 40001 ]; ok $? "40,000 groups fitted, one row each"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 8) }'; ok $? "in well under 8 s ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s), not quadratically"

done_testing
