#!/bin/sh
# 5106-untrusted-steps - steps of a step curve the sweep did not trust (taken
# beside a thread on the same core, while the clock drifted...) are left out of
# the measured cycles per iteration and of the fit when at least half of the
# curve is trusted, both where correlate reads a sweep (--from) and where learn
# reads a recorded block.  A recorded Zen 4 block has its upper half marked
# untrusted, and then also made 40 cycles slower: the figures do not move, and
# move far when the slowed steps are trusted; a curve trusted in one step of
# sixteen is counted by learn as one to doubt.  A step that failed or is
# missing stops correlate; a sweep older than the status column is trusted
# whole; a sample table a row short or without its samples column stops
# correlate.  Nothing is measured here.

. "$(dirname "$0")/lib-tap.sh"

command -v nasm >/dev/null 2>&1 || skip_all "nasm is not installed"
[ -n "$T32_DATADIR" ] || { T32_DATADIR=$T32_SRC/data; export T32_DATADIR; }
S="$T32_SRC/t/data/recorded/zen4-epyc-kvm-noavx512/study/load-add2"
[ -f "$S/sweep.tsv" ] || skip_all "no Zen 4 recording"

plan 18

# the block's copy with steps $4..16 (default 9) marked untrusted ($1) and slowed by $3 cycles
spoil() {
	mkdir -p "$TMP/$2/load-add2"
	cp "$S/sample.tsv" "$S/shares.tsv" "$TMP/$2/load-add2/"
	awk -F'\t' -v OFS='\t' -v mark="$1" -v slow="$3" -v from="${4:-9}" '
		/^#/ { print; next }
		!h { h = 1; for (i = 1; i <= NF; i++) col[$i] = i; print; next }
		$col["n"] >= from { $col["total"] += slow; $col["per_insn"] = $col["total"] / $col["n"];
			$col["ci_lo"] = $col["per_insn"] - 0.01; $col["ci_hi"] = $col["per_insn"] + 0.01
			if (mark) { $col["status"] = "untrusted"; $col["reason"] = "another thread shared the core: made so by t/5106" } }
		{ print }' "$S/sweep.tsv" >"$TMP/$2/load-add2/sweep.tsv"
	awk -F'\t' -v OFS='\t' -v slow="$3" -v from="${4:-9}" '
		/^#/ { print; next }
		!h { h = 1; for (i = 1; i <= NF; i++) col[$i] = i; print; next }
		$col["copies"] >= from { $col["measured"] += slow }
		{ print }' "$S/curve.tsv" >"$TMP/$2/load-add2/curve.tsv"
}
spoil 1 marked 0
spoil 1 slowed 40
spoil "" trusted 40
spoil 1 mostly 0 2

cycles() { sed -n 's/^cycles per iteration: measured \([0-9.]*\) .*/\1/p' "$TMP/out"; }
run correlate --from "$S" --no-measure --uarch zen4 --fit none load-add2
all=$(cycles)
run correlate --from "$TMP/marked/load-add2" --no-measure --uarch zen4 --fit none load-add2
want=$(cycles)
like "$TMP/out" '^curve .*[(]9 of the steps not trusted by the sweep; the first, k = 0: another thread shared the core[)]$' \
	"the curve line counts the untrusted steps (k = 0 was, as recorded) and names the first"
awk -v a="$want" -v b="$all" 'BEGIN { exit !(a != b && a > b - 0.3 && a < b + 0.3) }'
ok $? "the cycles per iteration come from the trusted half ($want; every step: $all)"
run correlate --from "$TMP/slowed/load-add2" --no-measure --uarch zen4 --fit none load-add2
is "$want" "$(cycles)" "correlate --from: slowing the untrusted steps moves nothing"
run correlate --from "$TMP/mostly/load-add2" --no-measure --uarch zen4 --fit none load-add2
like "$TMP/out" '^  read off a curve the sweep mostly did not trust [(]16 of 17 steps[)]' \
	"cycles read off a curve trusted in one step of 16 say so"
run correlate --from "$TMP/mostly/load-add2" --no-measure --uarch zen4 --fit none --format=tsv load-add2
like "$TMP/out" '^# curve_mostly_untrusted: 1$' "and in TSV"
run correlate --from "$TMP/slowed/load-add2" --no-measure --uarch zen4 --fit none --format=tsv load-add2
like "$TMP/out" '^# curve_mostly_untrusted: 0$' "one trusted in half is not such a curve"
run correlate --from "$TMP/trusted/load-add2" --no-measure --uarch zen4 --fit none load-add2
awk -v a="$want" -v b="$(cycles)" 'BEGIN { exit !(b > a + 2) }'
ok $? "the same steps trusted raise it (from $want to $(cycles))"

err() { awk -F'\t' '$1 == "load-add2" { print $3 }' "$TMP/out"; }
run learn --from "$TMP/marked" --keys none --no-store --format=tsv
want=$(err)
run learn --from "$TMP/slowed" --keys none --no-store --format=tsv
is "$want" "$(err)" "learn --from: slowing the untrusted steps moves nothing ($want%)"
like "$TMP/out" '^# curves_mostly_untrusted: 0$' "a curve trusted in half is not counted as mostly untrusted"
run learn --from "$TMP/trusted" --keys none --no-store --format=tsv
awk -v a="$want" -v b="$(err)" 'BEGIN { exit !(b < a - 20 || b > a + 20) }'
ok $? "and trusted, the slowed steps move it (from $want% to $(err)%)"
run learn --from "$TMP/mostly" --keys none --no-store --format=tsv
like "$TMP/out" '^# curves_mostly_untrusted: 1$' "one trusted in one step of 16 is"
run learn --from "$TMP/mostly" --keys none --no-store
like "$TMP/out" '^doubt      1 of 1 probes have step curves their sweep mostly did not trust' \
	"and learn says what that means for what it learned"

# the recorded sweep with step 5 failed, with step 5 gone, without status and reason columns
mkdir -p "$TMP/failed/load-add2" "$TMP/gone/load-add2" "$TMP/old/load-add2"
for d in failed gone old; do cp "$S/sample.tsv" "$S/shares.tsv" "$S/curve.tsv" "$TMP/$d/load-add2/"; done
awk -F'\t' -v OFS='\t' '/^#/ { print; next } !h { h = 1; for (i = 1; i <= NF; i++) col[$i] = i; print; next }
	$col["n"] == 5 { $col["status"] = "fault"; $col["total"] = "" } { print }' "$S/sweep.tsv" >"$TMP/failed/load-add2/sweep.tsv"
awk -F'\t' '/^#/ { print; next } !h { h = 1; for (i = 1; i <= NF; i++) col[$i] = i; print; next }
	$col["n"] != 5 { print }' "$S/sweep.tsv" >"$TMP/gone/load-add2/sweep.tsv"
awk -F'\t' -v OFS='\t' '/^#/ { print; next } { NF -= 3; print }' "$S/sweep.tsv" >"$TMP/old/load-add2/sweep.tsv"
run correlate --from "$TMP/failed/load-add2" --no-measure --uarch zen4 --fit none load-add2
like "$TMP/err" "a step of the curve was not measured '5: fault'" "a step that failed stops correlate (exit $rc)"
run correlate --from "$TMP/gone/load-add2" --no-measure --uarch zen4 --fit none load-add2
like "$TMP/err" "the sweep has no row for copies '5'" "and so does a step missing (exit $rc)"
run correlate --from "$TMP/old/load-add2" --no-measure --uarch zen4 --fit none load-add2
is "$all" "$(cycles)" "a sweep without a status column: every step trusted, as before the column"
! grep -q 'not trusted by the sweep' "$TMP/out"
ok $? "and none said to be untrusted"

# the sampler's table, read by correlate --from: a row gone, a column renamed
mkdir -p "$TMP/short/load-add2" "$TMP/nocol/load-add2"
for d in short nocol; do cp "$S/shares.tsv" "$S/curve.tsv" "$S/sweep.tsv" "$TMP/$d/load-add2/"; done
awk -F'\t' '/^#/ || $1 != "3" { print }' "$S/sample.tsv" >"$TMP/short/load-add2/sample.tsv"
sed 's/^position\tinsn\tsamples/position\tinsn\tcount/; s/^position\toffset_bytes\tinsn\tsamples/position\toffset_bytes\tinsn\tcount/' \
	"$S/sample.tsv" >"$TMP/nocol/load-add2/sample.tsv"
run correlate --from "$TMP/short/load-add2" --no-measure --uarch zen4 --fit none load-add2
like "$TMP/err" "the sampled body is not whole copies of the unit '69 positions, unit of 7'" \
	"a sample table a row short stops correlate (exit $rc)"
run correlate --from "$TMP/nocol/load-add2" --no-measure --uarch zen4 --fit none load-add2
like "$TMP/err" "the sample table has no column 'samples'" "and so does one without its samples column (exit $rc)"
