#!/bin/sh
# t32 diff: two wake results (a shift in latency is significant, a file against
# itself is not), two sweeps of one table, and the files it must refuse.
. "$(dirname "$0")/lib-tap.sh"
plan 24

# 400 events each, latency BASE + 0..2 us, every 40th other_irq
wake_events "$TMP/a.tsv" sleep 10000 400 40 1 other_irq
wake_events "$TMP/b.tsv" sleep 20000 400 40 1 other_irq
wake_events "$TMP/s.tsv" spin 12000 400 40 1 other_irq

run diff "$TMP/a.tsv" "$TMP/b.tsv"
is 0 "$rc" "two wake results compare"
like "$TMP/out" "^latency_us p50 +1[01]\.[0-9]+ +2[01]\.[0-9]+ +\+(10|9\.9[0-9]*|10\.0[0-9]*) .* yes$" "a 10 us shift of the median is significant"
like "$TMP/out" "^latency_us count +390 +390 " "kept events are counted (other_irq left out)"
run diff --format=tsv "$TMP/a.tsv" "$TMP/a.tsv"
is 0 "$rc" "a file against itself"
is "no" "$(awk -F'\t' '$2 == "p50" {print $NF}' "$TMP/out")" "shows no significant change of the median"
is "0" "$(awk -F'\t' '$2 == "p90" {print $9}' "$TMP/out")" "and a change of 0 at p90"
is "metric	statistic	a_us	a_lo_us	a_hi_us	b_us	b_lo_us	b_hi_us	change_us	change_lo_us	change_hi_us	change_percent	significant" \
	"$(grep -v '^#' "$TMP/out" | head -1)" "tsv columns carry their unit"
run diff --format=json "$TMP/a.tsv" "$TMP/b.tsv"
perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !($j->{kind} eq "wake" && @{$j->{changes}} == 8)' <"$TMP/out"
ok $? "json parses, eight statistics"
run diff "$TMP/a.tsv" "$TMP/s.tsv"
is 0 "$rc" "sleep against spin compares"
like "$TMP/out" "note: the methods differ" "with a note that they time different things"
run diff "$TMP/s.tsv" "$TMP/s.tsv"
like "$TMP/out" "^gap_us p50 " "two spin results compare their gaps too"

# sweeps: one spec, two runs; another spec; another unit
sweep() {
	{
		echo "# tool: t32 0.1"
		echo "# sweep: rows=3 of=l m n 'inc eax' modes=raw barrier=l store=m unit=$2 shards=1 init=- n=10,20,30"
		printf 'row\tform\tmode\tn\tk\tunit\testimate\tci_lo\tci_hi\ttotal\tmin_est\tmedian_est\truns\tseconds\tflags\tstatus\texpected\treason\n'
		printf "0\tl m n 'inc eax'\traw\t10\t1\t$2\t1.00\t0.98\t1.02\t10\t1\t1\t100\t0.1\t\tok\t\t\n"
		printf "1\tl m n 'inc eax'\traw\t20\t1\t$2\t%s\t%s\t%s\t20\t1\t1\t100\t0.1\t\tok\t\t\n" $3
		printf "2\tl m n 'inc eax'\traw\t30\t1\t$2\t0\t0\t0\t0\t0\t0\t0\t0\t\tfault\t\tSIGSEGV\n"
	} >"$1"
}
sweep "$TMP/w1.tsv" cycles "1.00 0.99 1.01"
sweep "$TMP/w2.tsv" cycles "1.50 1.49 1.51"
sweep "$TMP/w3.tsv" ticks "1.00 0.99 1.01"
sed "s/'inc eax'/'add eax, 1'/g" "$TMP/w1.tsv" >"$TMP/w4.tsv"
run diff "$TMP/w1.tsv" "$TMP/w2.tsv"
is 0 "$rc" "two sweeps of one spec compare"
like "$TMP/out" "^2 rows in both: 1 changed significantly \(1 up, 0 down\); 0 only in A, 0 only in B, 2 not ok" "rows matched, the faulted one counted apart"
like "$TMP/out" "raw 20 +1 +1\.5 +\+0\.5 .* yes$" "the row that moved is significant"
like "$TMP/out" "raw 10 .* no$" "the one that did not is not"
run diff --format=tsv "$TMP/w1.tsv" "$TMP/w2.tsv"
is "l m n 'inc eax'	raw	20" "$(awk -F'\t' '$NF == "yes" {print $1 "\t" $2 "\t" $3}' "$TMP/out")" "tsv: form, mode and n in their own columns"
run diff "$TMP/w1.tsv" "$TMP/w3.tsv"
is 2 "$rc" "sweeps in different units are refused"
like "$TMP/err" "^t32: sweeps in different units '.*w3.tsv' \(cycles in .*, ticks in .*\)" "saying which"
run diff "$TMP/w1.tsv" "$TMP/w4.tsv"
is 2 "$rc" "sweeps of different specs are refused"
like "$TMP/err" "^t32: sweeps of different tables" "saying so"
run diff "$TMP/w1.tsv" "$TMP/a.tsv"
is 2 "$rc" "a sweep and a wake result are refused"
like "$TMP/err" "^t32: files of different kinds '.*a.tsv' \(.*w1.tsv is a sweep, .*a.tsv is a wake result\)" "naming both kinds"
run diff "$TMP/a.tsv" /etc/hostname
is 2 "$rc" "a file of no kind is refused"
run diff "$TMP/a.tsv"
is 2 "$rc" "one file is a usage error"
done_testing
