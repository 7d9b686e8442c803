#!/bin/sh
# The command's front door: help, version, usage errors and their exit codes.
. "$(dirname "$0")/lib-tap.sh"
plan 12

run --help
is 0 "$rc" "--help exits 0"
like "$TMP/out" '^usage: t32' "--help prints usage to stdout"
run --version
like "$TMP/out" '^t32 [0-9]' "--version names the version"
run
is 2 "$rc" "no arguments is a usage error (2)"
run l m
is 2 "$rc" "too few arguments is a usage error (2)"
like "$TMP/err" '^usage: t32' "the usage line goes to stderr"
run time --help
is 0 "$rc" "time --help exits 0"
run gen --help
is 0 "$rc" "gen --help exits 0"
run --bogus-option l m 1 nop
is 2 "$rc" "an unknown option is a usage error (2)"
run --cpu 99999 l m 10 50 nop
is 2 "$rc" "a bad cpu number is a usage error (2)"
like "$TMP/err" "^t32: .*cpu.*'99999'" "and the message names the cpu"
run l m 10 50 nop --cpu 99999
is 2 "$rc" "an option after the instructions is a bad instruction, a usage error (2)"
done_testing
