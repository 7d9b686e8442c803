#!/bin/sh
# --record keeps every reading a result came from; --replay recomputes the result
# from them, offline and bit for bit, for time and for sweep.  A recording that
# does not match, or one of another command, is refused with the reason.
. "$(dirname "$0")/lib-tap.sh"
plan 16

run time --format=tsv --record "$TMP/t.rec" l m auto 200 'imul rax, rax'
{ [ "$rc" = 0 ] || [ "$rc" = 7 ]; }
ok $? "time measured and recorded (exit $rc)"
rc_rec=$rc
cp "$TMP/out" "$TMP/t.tsv"
like "$TMP/t.rec" '^# t32 recording 1: ' "the recording says what it is"
like "$TMP/t.rec" '^argv	time	--format=tsv	l	m	auto	200	imul rax, rax$' \
	"it keeps the command line, --record left out"
run time --replay "$TMP/t.rec" --format=tsv
is "$rc_rec" "$rc" "the replay ends as the measurement did"
grep -v '^#' "$TMP/t.tsv" >"$TMP/a"
grep -v '^#' "$TMP/out" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b"
ok $? "and gives the same row, bit for bit"
like "$TMP/out" '^# replayed: from ' "its provenance says it is a replay"
like "$TMP/out" "^# date: $(sed -n 's/^# date: //p' "$TMP/t.rec")\$" "of the recorded date"

# a recording whose readings were changed parts from the measuring loop
sed '0,/^run\t/s/^run\t\([0-9]*\)\t\([0-9]*\)/run\t\1\t999/' "$TMP/t.rec" >"$TMP/bad.rec"
run time --replay "$TMP/bad.rec"
is 1 "$rc" "a recording that does not match is refused"
like "$TMP/err" "the recording does not match this measurement at line [0-9]+" "saying where"
run time --replay "$TMP/t.rec" --precision 0.1
is 2 "$rc" "--replay takes only --format beside it"

printf 'add | add rax, 1 | tp=add {r}, 1\n' >"$TMP/s.tbl"
# in ticks, as step curves and the coursework table are swept: their placements
# start at 1 ms (scaled), and the replay must follow them
run sweep --n 40 --unit ticks --budget 0.2 --record "$TMP/s.rec" -o "$TMP/s1.tsv" "$TMP/s.tbl"
swept "a sweep recorded (exit $rc)"
like "$TMP/s.rec" '^# placements: half$' "the recording names its placements"
run sweep --replay "$TMP/s.rec"
grep -v '^#' "$TMP/s1.tsv" >"$TMP/a"
grep -v '^#' "$TMP/out" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b"
ok $? "its replay gives the same rows"
run time --replay "$TMP/s.rec"
is 2 "$rc" "a sweep's recording is not replayed as time"
printf 'not a recording\n' >"$TMP/no.rec"
expect 1 "not a t32 recording" "a file that is no recording" -- time --replay "$TMP/no.rec"
done_testing
