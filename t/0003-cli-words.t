#!/bin/sh
# Words checked: a mistyped command is named with the nearest one, help COMMAND
# shows the command's help, an unknown bench lists the known ones.
. "$(dirname "$0")/lib-tap.sh"
plan 12

run tme l m auto 100 nop
is 2 "$rc" "a mistyped command is a usage error"
like "$TMP/err" "^t32: unknown command 'tme' \(did you mean time\?\)" "named, with the nearest command"
run swep
is 2 "$rc" "a mistyped command alone, too"
like "$TMP/err" "^t32: unknown command 'swep' \(did you mean sweep\?\)" "sweep suggested"
run zzz l m 1 nop
like "$TMP/err" "^t32: unknown command 'zzz' \(t32 --help lists them\)" "no near command: where to look"
run help sweep
is 0 "$rc" "help COMMAND exits 0"
like "$TMP/out" '^usage: t32 sweep' "and prints that command's usage"
run help nosuch
is 2 "$rc" "help of an unknown command is a usage error"
run mx m 2 nop
is 0 "$rc" "barrier letters still make the classic form"
run bench nosuch
is 2 "$rc" "an unknown bench is a usage error"
like "$TMP/err" "^t32: unknown bench 'nosuch' \(known: resolution, .*coverage" "listing the known ones"
run l m 2 nop
is 0 "$rc" "the classic form runs"
done_testing
