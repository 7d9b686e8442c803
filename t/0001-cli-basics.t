#!/bin/sh
# The command's front door: help, version, usage errors and their exit codes.
. "$(dirname "$0")/lib-tap.sh"
plan 13

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
# every command's option help is one paragraph filled under its column within 79:
# a line under the help column is followed by another only when the next word
# did not fit (no orphan word left where the source happened to break its text)
: >"$TMP/gaps"
for c in $("$T32" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
	"$T32" help "$c" 2>/dev/null | awk -v c="$c" '
		length > 79 { print c ": too long: " $0 }
		/^  -/ { opts = 1 }
		/^$/ { opts = 0 }
		# in the options, prev holds help text from column 23 (not an option name alone)
		opts && substr(prev, 22, 1) == " " && substr(prev, 23, 1) ~ /[^ ]/ && /^[^ ]/ { print c ": " prev " / " $0 }
		opts && /^                      [^ ]/ && substr(prev, 22, 1) == " " && substr(prev, 23, 1) ~ /[^ ]/ {
			w = $0; sub(/^ +/, "", w); sub(/ .*/, "", w)
			if (length(prev) + 1 + length(w) <= 79) print c ": " prev " / " w
		}
		{ prev = $0 }' >>"$TMP/gaps"
done
if [ -s "$TMP/gaps" ]; then ok 1 "option help filled within 79 columns"; sed 's/^/#   /' "$TMP/gaps" | head -5
else ok 0 "option help filled within 79 columns"; fi
run --bogus-option l m 1 nop
is 2 "$rc" "an unknown option is a usage error (2)"
run --cpu 99999 l m 10 50 nop
is 2 "$rc" "a bad cpu number is a usage error (2)"
like "$TMP/err" "^t32: .*cpu.*'99999'" "and the message names the cpu"
run l m 10 50 nop --cpu 99999
is 2 "$rc" "an option after the instructions is a bad instruction, a usage error (2)"
done_testing
