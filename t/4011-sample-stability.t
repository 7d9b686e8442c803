#!/bin/sh
# t32 sample says whether its samples stayed put: the run's parts tested against
# each other (flag unstable, exit 7), and the run against the last run of the same
# block on this machine, kept in the cache directory (a move is warned of).  t32
# correlate refuses a distribution whose parts differ unless asked, names why
# the steps of a step curve the sweep did not trust were not, and warns when
# most samples landed on the loop's own counter.
. "$(dirname "$0")/lib-tap.sh"

export T32_CACHE_DIR="$TMP/cache"
B="$T32_SRC/data/blocks/load-nop10.blk"
run sample --fold --samples 400 --seconds 4 --format=tsv "$B"
[ "$rc" -eq 3 ] && skip_all "no sampling backend here: $(cat "$TMP/err")"
plan 17

{ [ "$rc" = 0 ] || grep -q 'unstable' "$TMP/err"; }
ok $? "sampled (exit $rc)"
like "$TMP/out" '^# stability: (stable|unstable) \(parts 4, chi2 [0-9.]+, df [0-9]+, p [0-9.e+-]+, tvd [0-9.]+, beyond_noise [0-9.]+\)$' \
	"the run's four parts are tested"
run sample --fold --samples 400 --seconds 4 --format=tsv "$B"
like "$TMP/out" '^# since_last: (same|moved) \(0\.[0-9] minutes ago' "a second run is compared with the first"
like "$T32_CACHE_DIR/samples.tsv" "load-nop10|mov rax, \[rax\]" "the history keeps the block's last run"
is 1 "$(grep -vc '^#' "$T32_CACHE_DIR/samples.tsv")" "one line a block: the second run replaced the first"
# the history made to say that every sample landed on the loop's counter before
sed 's/\t[0-9,]*$/\t0,0,0,0,0,0,0,0,0,0,0,5000/' "$T32_CACHE_DIR/samples.tsv" >"$TMP/h" &&
	cp "$TMP/h" "$T32_CACHE_DIR/samples.tsv"
run sample --fold --samples 400 --seconds 4 --format=tsv "$B"
like "$TMP/out" '^# since_last: moved ' "a distribution unlike the last run's is said to have moved"
like "$TMP/err" 'warning: the samples moved since the run of' "and warned of"
run sample --fold --samples 400 --seconds 4 --format=json "$B"
like "$TMP/out" '"stability": \{"stable": (true|false), "parts": 4' "JSON carries the test"

# a loop of more positions than the history compares (ten copies of a thousand nops):
# kept, not compared, and a second run of it ends as the first did
printf '10 times 1000 nop\n' >"$TMP/big.blk"
run sample --samples 200 --seconds 0.3 --format=tsv "$TMP/big.blk"
run sample --samples 200 --seconds 0.3 --format=tsv "$TMP/big.blk"
# 0, or 7 when its own parts differed (a sparse loop's may): ended, not by a signal
{ [ "$rc" = 0 ] || [ "$rc" = 7 ]; }
ok $? "a second run of a loop of 10,000 positions ends with its own verdict (exit $rc)"
grep -q '^# since_last' "$TMP/out"
ok $((! $?)) "and is not compared with it"

# correlate fits recorded samples only when they stayed put
S="$T32_SRC/../shared/recorded/zen5-turin-bhyve/study/load-nop10"
if [ -f "$S/sample.tsv" ] && [ -f "$S/sweep.tsv" ]; then
	mkdir "$TMP/un" && cp "$S/sweep.tsv" "$TMP/un/" &&
		awk '/^# body_samples/ { print "# stability: unstable (parts 4, chi2 613.5, df 30, p 4.7e-110, tvd 0.3630)" } { print }' \
			"$S/sample.tsv" >"$TMP/un/sample.tsv"
	run correlate --from "$TMP/un" --no-measure --uarch zen5 load-nop10
	is 7 "$rc" "correlate refuses samples whose parts differed"
	like "$TMP/err" "samples did not stay put .*flag unstable" "and says why"
	run correlate --from "$TMP/un" --no-measure --uarch zen5 --allow-unstable load-nop10
	is 0 "$rc" "--allow-unstable fits them anyway"
	like "$TMP/err" "did not stay put .*fitted anyway, as asked" "and warns that it did"
else
	for i in 1 2 3 4; do skip "no recorded samples beside the tree"; done
fi
# a step curve with untrusted steps says how many and why the first was
S="$T32_SRC/t/data/recorded/zen5-turin-bhyve/study/vpmulld2-lock"
run correlate --from "$S" --no-measure --uarch zen5 vpmulld2-lock
like "$TMP/out" '^curve .*\(6 of the steps not trusted by the sweep; the first, k = 5: the interval never narrowed to \+-0\.0333 cycles\)$' \
	"an untrusted step curve names its first untrusted step and the reason"
# most samples on the loop's own counter (a loop of one copy of a short unit) are warned of
mkdir "$TMP/over" && cp "$S/sample.tsv" "$S/sweep.tsv" "$S/curve.tsv" "$TMP/over/" &&
	sed -i 's/^# overhead_samples: .*/# overhead_samples: 5000/' "$TMP/over/sample.tsv"
run correlate --from "$S" --no-measure --uarch zen5 vpmulld2-lock
! grep -q "loop's own counter" "$TMP/err"
ok $? "samples mostly in the block: no word of the loop's counter"
run correlate --from "$TMP/over" --no-measure --uarch zen5 vpmulld2-lock
like "$TMP/err" "^t32: warning: most samples landed on the loop's own counter, not on the block '5000 of [0-9]+' [(]a loop of 10 copies" \
	"most on the loop's counter: warned of, with the count that makes more copies"
done_testing
