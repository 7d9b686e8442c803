#!/bin/sh
# 3012-cmd-fit - `t32 fit` on a small sweep written here: fits, steps, formats,
# errors and exit codes.

n=0
failed=0
ok() {
	# ok COND-STATUS NAME: report one test from the status of the command before it
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

if [ -z "$T32" ] || [ ! -x "$T32" ]; then
	echo "1..0 # SKIP T32 does not name the built t32 binary"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t32-3012.XXXXXX") || { echo "Bail out! mktemp"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

echo "1..39"

"$T32" fit --help >"$tmp/help" 2>"$tmp/help.err"
rc=$?
[ $rc -eq 0 ] && grep -q '^usage: t32 fit' "$tmp/help"; ok $? "--help exits 0 with the usage (exit $rc)"
[ ! -s "$tmp/help.err" ]; ok $? "--help writes nothing to stderr"

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
}' >"$tmp/sweep.tsv" || { echo "Bail out! cannot write $tmp/sweep.tsv"; exit 1; }

"$T32" fit --format=tsv "$tmp/sweep.tsv" >"$tmp/out.tsv" 2>"$tmp/err"
ok $? "fit --format=tsv exits 0"
[ ! -s "$tmp/err" ]; ok $? "nothing on stderr"
head -n 1 "$tmp/out.tsv" | grep -q '^# '; ok $? "TSV opens with # provenance"
grep -q '^# > tool: t32 sweep' "$tmp/out.tsv"; ok $? "the input's provenance is carried over"
grep -v '^#' "$tmp/out.tsv" | head -n 1 >"$tmp/head"
cut -f 1-3 "$tmp/head" | grep -q "^form	points	skipped$"; ok $? "header row names the group column"
[ "$(grep -vc '^#' "$tmp/out.tsv")" -eq 4 ]; ok $? "a header and three groups"

# Columns by name, so the test follows the header.
col() {
	# col FILE GROUP COLUMN: print one cell
	awk -F '\t' -v g="$2" -v c="$3" '
		/^#/ { next }
		!h { for (i = 1; i <= NF; i++) idx[$i] = i; h = 1; next }
		$1 == g { print $(idx[c]) }' "$1"
}
slope=$(col "$tmp/out.tsv" "add rbx, 1" slope)
awk -v s="$slope" 'BEGIN { exit !(s > 0.495 && s < 0.505) }'; ok $? "robust slope 0.5 despite outliers ($slope)"
icpt=$(col "$tmp/out.tsv" "add rbx, 1" intercept)
awk -v s="$icpt" 'BEGIN { exit !(s > 2.8 && s < 3.2) }'; ok $? "intercept 3 ($icpt)"
[ "$(col "$tmp/out.tsv" "add rbx, 1" fit)" = robust ]; ok $? "robust fit"
[ "$(col "$tmp/out.tsv" "inc eax" step_x)" = "32,69" ]; ok $? "staircase: steps at n = 32 and 69"
[ "$(col "$tmp/out.tsv" "inc eax" step_height)" = "21,21" ]; ok $? "staircase: steps 21 high"
[ "$(col "$tmp/out.tsv" "inc eax" period)" = 37 ]; ok $? "staircase: 37 apart"
[ "$(col "$tmp/out.tsv" nop skipped)" = 1 ]; ok $? "a row without a value is skipped, not an error"
[ "$(col "$tmp/out.tsv" "add rbx, 1" steps)" = 0 ]; ok $? "a noisy line has no steps"

# A straight line of 1 cycle per instruction: every difference is the slope, none a step.
awk 'BEGIN { print "n\ttotal"; for (n = 1; n <= 100; n++) printf "%d\t%d\n", n, 3 + n }' \
	>"$tmp/line.tsv" || { echo "Bail out! cannot write $tmp/line.tsv"; exit 1; }
"$T32" fit --format=tsv "$tmp/line.tsv" >"$tmp/line.out" 2>"$tmp/err" &&
	[ "$(col "$tmp/line.out" all steps)" = 0 ] && [ "$(col "$tmp/line.out" all plateaus)" = 1 ]
ok $? "by default a straight line has no steps and one plateau"

"$T32" fit "$tmp/sweep.tsv" >"$tmp/out.txt" 2>"$tmp/err"
ok $? "table (default) exits 0"
grep -q '^inc eax: steps at n = 32 (+21), 69 (+21)' "$tmp/out.txt"; ok $? "table lists the steps"

"$T32" fit --y ticks_min --by form --format=tsv - <"$tmp/sweep.tsv" >"$tmp/out2.tsv" 2>"$tmp/err"
ok $? "--y, --by and standard input"
[ "$(col "$tmp/out2.tsv" "inc eax" steps)" = 0 ]; ok $? "a flat column has no steps"

"$T32" fit --format=json "$tmp/sweep.tsv" >"$tmp/out.json" 2>"$tmp/err"
ok $? "fit --format=json exits 0"
perl -MJSON::PP -e '
	local $/; open my $f, "<", $ARGV[0] or exit 1; my $j = decode_json(<$f>);
	my ($g) = grep { $_->{name} eq "inc eax" } @{$j->{groups}};
	exit !($g && join(",", map { $_->{x} } @{$g->{steps}{at}}) eq "32,69");
' "$tmp/out.json"
ok $? "JSON parses and holds the steps"

"$T32" fit >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ]; ok $? "no file: exit 2"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^usage: t32 fit' "$tmp/err" && [ ! -s "$tmp/out" ]
ok $? "one usage line on stderr"

"$T32" fit --format=xml "$tmp/sweep.tsv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ]; ok $? "unknown format: exit 2"

"$T32" fit "$tmp/missing.tsv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^t32: cannot read '$tmp/missing.tsv'" "$tmp/err"; ok $? "unreadable file: exit 1 and says so"

printf '# no total here\nn\tticks_min\n1\t105\n' >"$tmp/bare.tsv"
"$T32" fit "$tmp/bare.tsv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(cat "$tmp/err")" = "t32: no column 'total' in '$tmp/bare.tsv' (--y names the column to fit)" ]
ok $? "missing column: exit 1, named"

printf 'n\ttotal\n1\t5\n2\tfive\n' >"$tmp/bad.tsv"
"$T32" fit "$tmp/bad.tsv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^t32: not a number 'five'" "$tmp/err"; ok $? "not a number: exit 1"

if [ -w /dev/full ]; then
	"$T32" fit "$tmp/sweep.tsv" >/dev/full 2>"$tmp/err"
	[ $? -eq 1 ] && grep -q '^t32: cannot write' "$tmp/err"; ok $? "a full disk is an error"
else
	n=$((n + 1))
	echo "ok $n # skip no /dev/full here"
fi

printf 'n\ttotal\n1\t5\n2\t6\n3\t7\n' >"$tmp/nogroup.tsv"
"$T32" fit --format=tsv "$tmp/nogroup.tsv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ "$(col "$tmp/out" all slope)" = 1 ]; ok $? "no form column: one group 'all'"

# A sweep older than the rename (`estimate`) is read by the new name.
printf 'form\tn\testimate\n' >"$tmp/old.tsv" && printf 'a\t%d\t%d\n' 1 2 2 3 3 4 >>"$tmp/old.tsv"
"$T32" fit --y per_insn --format=tsv "$tmp/old.tsv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ "$(col "$tmp/out" a slope)" = 1 ]; ok $? "--y per_insn reads an older sweep's estimate column"

# A real sweep of a small table in both modes: by default one fit per form and
# mode, of the block's total against n, so the slope is the cost per instruction
# (a chain of 1-cycle adds: about 1) and a straight line has no steps.
printf 'add\t| add eax, 1\t| tp=add {e}, 1\nimul\t| imul eax, eax\t| tp=imul {e}, {e}\n' >"$tmp/t.tbl"
"$T32" sweep --n 100,200,300,400,500,600 --max-k 4 --budget 0.05 --block-precision 2 \
	-o "$tmp/real.tsv" "$tmp/t.tbl" >"$tmp/out" 2>"$tmp/err"
rc=$?
# every row written: exit 0, or 5 where rows are not all ok (a busy machine)
[ "$rc" = 0 ] || [ "$rc" = 5 ]
ok $? "a sweep of two forms in two modes (exit $rc)"
"$T32" fit --format=tsv "$tmp/real.tsv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ "$(grep -vc '^#' "$tmp/out")" -eq 5 ] && grep -v '^#' "$tmp/out" | head -n 1 | grep -q "^form	mode	points"
ok $? "one fit per form and mode (four, named by form and mode)"
colm() {
	awk -F '\t' -v f="$2" -v m="$3" -v c="$4" '/^#/ { next }
		!h { for (i = 1; i <= NF; i++) idx[$i] = i; h = 1; next }
		$1 == f && $2 == m { print $(idx[c]) }' "$1"
}
slope=$(colm "$tmp/out" add latency slope)
awk -v s="$slope" 'BEGIN { exit !(s > 0.8 && s < 1.3) }'; ok $? "add's latency slope is its cost per instruction, ~1 cycle ($slope)"
slope3=$(colm "$tmp/out" imul latency slope)
awk -v s="$slope" -v t="$slope3" 'BEGIN { exit !(t > 2 * s) }'; ok $? "imul's chain costs more per instruction than add's ($slope3)"
[ "$(colm "$tmp/out" add latency steps)" = 0 ]; ok $? "the measured straight line has no steps"

# 40,000 forms of three rows each: groups found by hash, not a search per row
awk 'BEGIN { print "row\tform\tmode\tn\ttotal"; r = 0
	for (f = 0; f < 40000; f++) for (k = 1; k <= 3; k++) printf "%d\tf%d\traw\t%d\t%d\n", r++, f, 10 * k, 10 * k }' \
	>"$tmp/big.tsv"
t0=$(date +%s.%N)
"$T32" fit --format=tsv "$tmp/big.tsv" >"$tmp/big.out" 2>"$tmp/big.err"
rc=$?
t1=$(date +%s.%N)
[ $rc -eq 0 ] && [ "$(grep -vc '^#' "$tmp/big.out")" -eq 40001 ]; ok $? "40,000 groups fitted, one row each"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 8) }'; ok $? "in well under 8 s ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s), not quadratically"

[ $failed -eq 0 ]
