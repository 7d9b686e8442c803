#!/bin/sh
# t32 wake on this machine: short real runs of both methods, their raw rows checked
# against each other and against the statistics, bad input, and Ctrl-C keeping
# what was measured.  Latencies themselves are machine figures (make bench).
. "$(dirname "$0")/lib-tap.sh"
plan 46

run wake --count 40 --ldist 50us,400us --format=tsv -o "$TMP/s.tsv"
case $rc in 0|7) ok 0 "sleep: 40 events measured (exit $rc)" ;; *) ok 1 "sleep: exit $rc"; diag "$(cat "$TMP/err")" ;; esac
cp "$TMP/out" "$TMP/s.stats"
like "$TMP/s.tsv" "^# wake: method=sleep ldist_ns=50000\.\.400000 " "the setup is recorded"
# the baseline is 0.3 s asked, and as long as the sleep took (longer on a busy machine)
base=$(sed -n 's/^# tsc: [0-9.]* ticks\/ns against CLOCK_MONOTONIC over a \([0-9.]*\) s baseline.*/\1/p' "$TMP/s.tsv")
awk -v b="$base" 'BEGIN { exit !(b != "" && b >= 0.3 && b < 2) }'
ok $? "and the conversion with its baseline (0.3 s asked, $base s taken)"
like "$TMP/s.tsv" "^# idle: " "and the idle states (or that there are none)"
like "$TMP/s.tsv" "^# run: 40 events in " "and the run at the end"
rows() { awk -F'\t' '/^#/ {next} !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next} '"$2" "$1"; }
is 40 "$(rows "$TMP/s.tsv" '{n++} END {print n}')" "one row per event"
is 0 "$(rows "$TMP/s.tsv" '$c["ldist_ns"] < 50000 || $c["ldist_ns"] > 400000 {n++} END {print n + 0}')" \
	"every launch distance within the range asked"
is 0 "$(rows "$TMP/s.tsv" '$c["status"] !~ /^(ok|((tsc_back|negative|late|other_irq|no_idle),?)+)$/ {n++} END {print n + 0}')" \
	"every status is ok or known flags"
is 0 "$(rows "$TMP/s.tsv" '$c["wake_ticks"] - $c["deadline_ticks"] != $c["latency_ticks"] {n++} END {print n + 0}')" \
	"latency_ticks = wake_ticks - deadline_ticks on every row"
rate=$(sed -n 's/^# tsc: \([0-9.]*\) ticks.*/\1/p' "$TMP/s.tsv")
is 0 "$(rows "$TMP/s.tsv" '{d = $c["latency_ticks"] / '"$rate"' - $c["latency_ns"]; if (d > 0.1 || d < -0.1) n++} END {print n + 0}')" \
	"latency_ns = latency_ticks / the TSC rate"
is 0 "$(rows "$TMP/s.tsv" '$c["kept"] == 1 && ($c["latency_ns"] < -$c["conv_err_ns"] || $c["status"] ~ /late|tsc_back|other_irq/) {n++} END {print n + 0}')" \
	"no kept event is negative, late, backwards or disturbed"
is 0 "$(rows "$TMP/s.tsv" '$c["status"] !~ /late|tsc_back/ && $c["deadline_ticks"] <= $c["launch_ticks"] {n++} END {print n + 0}')" \
	"an event not flagged late was armed before its deadline"
is 0 "$(rows "$TMP/s.tsv" '$c["conv_err_ns"] <= 0 || $c["conv_err_ns"] > 1000000 {n++} END {print n + 0}')" \
	"every conversion error is stated, and small"
kept=$(rows "$TMP/s.tsv" '$c["kept"] == 1 {n++} END {print n + 0}')
like "$TMP/s.stats" "^latency_ns	count	$kept	" "the statistics count the kept rows ($kept)"
run wake --input "$TMP/s.tsv" --format=tsv
grep -v '^#' "$TMP/out" >"$TMP/again"
grep -v '^#' "$TMP/s.stats" >"$TMP/live"
cmp -s "$TMP/again" "$TMP/live"
ok $? "the raw file gives back the statistics of the run"
run wake --input "$TMP/s.tsv" --format=json
perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !($j->{events} == 40 && exists $j->{stats}{latency_ns}{p50}{value})' <"$TMP/out"
ok $? "json form parses, with the events and p50"
if [ "$rc" = 0 ]; then
	perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !(exists $j->{untrusted} && !defined $j->{untrusted})' <"$TMP/out"
	ok $? "a trusted result's untrusted is null, not an empty string"
else
	skip "the run was not trusted here (exit $rc)"
fi
printf '# wake: method=sleep idle_only=no\ni\tldist_ns\tlatency_ns\tkept\tstatus\n0\t1000\t5\t0\tlate\n' >"$TMP/none.tsv"
run wake --input "$TMP/none.tsv" --format=json
is 7 "$rc" "no event kept: not trustworthy (exit 7)"
perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !($j->{kept} == 0 && !defined $j->{stats}{latency_ns}{p50}{value} && $j->{untrusted} =~ /left out/)' <"$TMP/out"
ok $? "and its json still parses, the missing values null"

run wake --method spin --count 30 --ldist 50us,300us -o "$TMP/p.tsv"
case $rc in 0|7) ok 0 "spin: 30 events measured (exit $rc)" ;; *) ok 1 "spin: exit $rc"; diag "$(cat "$TMP/err")" ;; esac
like "$TMP/out" "^statistic +latency_us +95% interval +gap_us +95% interval" "spin reports latency and the interrupt's gap"
is 30 "$(rows "$TMP/p.tsv" '{n++} END {print n}')" "one row per spin event"
is 0 "$(rows "$TMP/p.tsv" '$c["status"] !~ /tsc_back/ && ($c["handler_ticks"] < $c["gap_start_ticks"] || $c["handler_ticks"] > $c["gap_start_ticks"] + $c["gap_ticks"]) {n++} END {print n + 0}')" \
	"the handler's reading lies in the gap around it"
is 0 "$(rows "$TMP/p.tsv" '$c["kept"] == 1 && ($c["gap_ns"] <= 0 || $c["other_gaps"] != 0) {n++} END {print n + 0}')" \
	"kept spin events have a gap, and no other"

run help wake
is 0 "$rc" "t32 help wake"
like "$TMP/out" "--method M +sleep \(default\)" "names the methods"
like "$TMP/out" "--pm-qos US\|off" "and the PM QoS request"

bad() {
	want=$1
	shift
	run wake "$@"
	is "$want" "$rc" "wake $* exits $want"
}
bad 2 --count 0
bad 2 --ldist 5ms,1ms
bad 2 --ldist 1parsec
bad 2 --method nap
bad 2 --format xml
bad 2 --policy batch
bad 2 --priority 0
bad 2 --cpu 5000
bad 2 --cpu 1000
bad 2 --distribution log --ldist 0,1ms
bad 2 -o -
bad 2 stray
like "$TMP/err" "^t32: unexpected argument 'stray'" "an unexpected argument is named"
bad 1 --input "$TMP/nonexistent.tsv"
bad 2 --input /etc/hostname
bad 1 --count 5 -o "$TMP/no/such/dir/x.tsv"

# Ctrl-C: what was measured is kept, the file put in place whole
"$T32" wake --duration 60 -o "$TMP/c.tsv" >"$TMP/c.out" 2>"$TMP/c.err" &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
is 130 "$?" "Ctrl-C ends the run with 130"
like "$TMP/c.tsv" "^# run: [1-9][0-9]* events in .*, interrupted$" "the raw file holds what was measured"
ls -A "$TMP" >"$TMP/ls"
grep -q 't32-' "$TMP/ls"
is 1 "$?" "and no temporary file is left"
done_testing
