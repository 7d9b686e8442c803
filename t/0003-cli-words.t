#!/bin/sh
# Words checked: a mistyped command is named with the nearest one, help COMMAND
# shows the command's help, an unknown bench, block or recipe lists the known
# ones, a format a command cannot write and an option it does not take are usage
# errors, and each --help lists only the options that apply.
. "$(dirname "$0")/lib-tap.sh"
plan 33

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

# an unknown block name lists the known ones (and the nearest); instructions still run
run sample nosuch
is 2 "$rc" "sample: an unknown block is a usage error"
like "$TMP/err" "^t32: unknown block 'nosuch' \(known: .*load-nop10" "listing the known blocks"
run model load-nop1
like "$TMP/err" "^t32: unknown block 'load-nop1' \(did you mean load-nop10\?" "model: the nearest block suggested"
run correlate nosuch
is 2 "$rc" "correlate: an unknown block is a usage error"
run model nop
is 0 "$rc" "a one-word instruction is still an instruction"
run study nosuch
is 2 "$rc" "study: an unknown recipe is a usage error"
like "$TMP/err" "^t32: unknown recipe 'nosuch' \(known: scatter, .*interrupts" "listing the known recipes"

# a format a command cannot write, an option it does not take: usage errors
run sweep --format=json --n 1 l m nop
is 2 "$rc" "sweep --format=json is a usage error"
like "$TMP/err" "^t32: sweep cannot write format 'json' \(tsv only\)" "saying what sweep writes"
run gen --format=json l m nop
is 2 "$rc" "gen takes no --format"
run env --format=tsv
is 2 "$rc" "env cannot write tsv"
run gen --cpu 1 l m nop
like "$TMP/err" "^t32: gen does not take '--cpu'" "gen takes no --cpu"
run --format=json l m 2 nop
is 2 "$rc" "the classic form takes no --format"
run time --format=xml l m 10 nop
like "$TMP/err" "^t32: unknown format 'xml' \(table, tsv or json\)" "an unknown format lists the known ones"

# --help lists what applies, and only that
run gen --help
grep -q -- '--cpu\|--format\|--warmup' "$TMP/out"; is 1 "$?" "gen --help lists no --cpu, --format or --warmup"
run sweep --help
like "$TMP/out" "^  --format F +tsv, the only one" "sweep --help offers tsv only"
like "$TMP/out" "^  --warmup N .*\(default 200\)" "and its own warm-up default"
run env --help
grep -q -- '--init\|--raw-nasm' "$TMP/out"; is 1 "$?" "env --help lists no --init or --raw-nasm"
run --help
like "$TMP/out" "^Options of the classic form:" "t32 --help lists the classic form's options"
grep -q -- '--format' "$TMP/out"; is 1 "$?" "without --format"
run --list commands
like "$TMP/out" "^sweep	" "--list commands names each command and its summary"
done_testing
