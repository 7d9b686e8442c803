#!/bin/sh
# What holds on any x86-64 machine: a chain of 1000 imul costs more per
# instruction than 1000 nops.
. "$(dirname "$0")/lib-tap.sh"
plan 4

run time --format=tsv --unit ticks l m 20000 1000 'imul rax, rax'
measured "imul block measured"
imul=$(col per_insn "$TMP/out")
run time --format=tsv --unit ticks l m 20000 1000 nop
measured "nop block measured"
nop=$(col per_insn "$TMP/out")
diag "per instruction: imul $imul ticks, nop $nop ticks"
awk -v a="$imul" -v b="$nop" 'BEGIN {exit !(a > b)}'
ok $? "imul costs more per instruction than nop"
awk -v a="$imul" 'BEGIN {exit !(a > 0.2)}'
ok $? "a dependent imul costs a visible fraction of a tick or more"
done_testing
