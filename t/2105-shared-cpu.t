#!/bin/sh
# A busy task on the measuring CPU is seen in every measuring process: no
# readings can be set aside, so the result is flagged `shared` and untrusted
# (exit 7), with the task named.
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
is 7 "$rc" "measured beside a busy task: not trustworthy"
like "$TMP/out" 'shared' "the flags say shared"
like "$TMP/err" "other work ran on the measuring CPU .*'$hog sh'" "the message names the task"
run time --cpu "$cpu" --format=tsv l m 2000 100 nop
{ [ "$rc" = 0 ] || [ "$rc" = 7 ]; }
ok $? "and without it the command still runs (exit $rc)"
done_testing
