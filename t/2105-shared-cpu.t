#!/bin/sh
# A busy task on the measuring CPU is seen: the result is flagged `shared`, with a
# warning on stderr naming the task.
. "$(dirname "$0")/lib-tap.sh"
plan 4

command -v taskset >/dev/null 2>&1 || skip_all "no taskset to pin a busy task"
cpu=$(($(nproc) - 1))
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
sleep 0.2
run time --cpu "$cpu" --format=tsv l m auto 1000 'imul rax, rax'
kill "$hog"
wait "$hog" 2>/dev/null
{ [ "$rc" = 0 ] || [ "$rc" = 7 ]; }
ok $? "measured beside a busy task (exit $rc)"
like "$TMP/out" 'shared' "the flags say shared"
like "$TMP/err" "warning: cpu $cpu was shared with .*'$hog sh'" "the warning names the task"
run time --cpu "$cpu" --format=tsv l m 2000 100 nop
{ [ "$rc" = 0 ] || [ "$rc" = 7 ]; }
ok $? "and without it the command still runs (exit $rc)"
done_testing
