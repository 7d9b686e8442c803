#!/bin/sh
# The provenance on top of every output says true things, not only the right keys:
# the tool line is `t32 --version`, the command line runs again as the same words
# (quotes and spaces in them too), the CPU's family, model and stepping are
# /proc/cpuinfo's, the host is this one, and the date is now, in UTC, whatever the
# local time zone; the JSON form says the same.
. "$(dirname "$0")/lib-tap.sh"
plan 13

[ -n "$T32_DATADIR" ] || { T32_DATADIR=$T32_SRC/data; export T32_DATADIR; }
body="mov eax, 'a'"
# a local time five hours east of UTC: a date written in local time shows it
before=$(date -u +%s)
TZ=XYZ-5 "$T32" model --format=tsv "$body" >"$TMP/out" 2>"$TMP/err"
rc=$?
TZ=XYZ-5 "$T32" model --format=json "$body" >"$TMP/json" 2>>"$TMP/err"
rc2=$?
after=$(date -u +%s)
is "0 0" "$rc $rc2" "model writes its provenance (tsv and json)"
value() { sed -n "s/^# $1: //p" "$TMP/out" | head -1; }

is "$("$T32" --version)" "$(value tool)" "the tool line is what t32 --version says"

# the command line, read back by a shell, is the command that ran
cmd=$(value command)
(eval "set -- $cmd" && [ $# -eq 4 ] && [ "$1" = "$T32" ] && [ "$2" = model ] &&
	[ "$4" = "$body" ]) 2>/dev/null
ok $? "the command line runs again as the same words ($cmd)"

"$T32" model --format=tsv 'add eax, 1' >"$TMP/out2" 2>>"$TMP/err"
cmd2=$(sed -n 's/^# command: //p' "$TMP/out2")
(eval "set -- $cmd2" && [ $# -eq 4 ] && [ "$4" = 'add eax, 1' ]) 2>/dev/null
ok $? "a word with spaces comes back as one word ($cmd2)"

cpu=$(value cpu)
fam=$(awk -F': *' '$1 ~ /^cpu family/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
mod=$(awk -F': *' '$1 ~ /^model[ \t]*$/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
step=$(awk -F': *' '$1 ~ /^stepping/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
if [ -n "$fam" ] && [ -n "$mod" ] && [ -n "$step" ]; then
	want=$(printf 'family %#x model %#x stepping %u' "$fam" "$mod" "$step")
	case $cpu in *"$want"*) ok 0 "the cpu line names /proc/cpuinfo's $want" ;;
	*) ok 1 "the cpu line names /proc/cpuinfo's $want"; diag "cpu: $cpu" ;; esac
else
	skip "/proc/cpuinfo gives no family, model and stepping here"
fi

is "$(uname -n)" "$(value host)" "the host line is this machine's name"

date=$(value date)
like "$TMP/out" '^# date: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' \
	"the date is ISO 8601 in UTC"
at=$(date -u -d "$date" +%s 2>/dev/null)
[ -n "$at" ] && [ "$at" -ge "$before" ] && [ "$at" -le "$after" ]
ok $? "and it is now, in UTC, under another time zone ($date, run between $before and $after)"

# The JSON form: the same facts.
json() {
	perl -MJSON::PP -e 'local $/; my $p = decode_json(<STDIN>)->{provenance};
		my $v = $p->{$ARGV[0]}; print defined $v ? $v : "(null)"' "$1" <"$TMP/json"
}
is "$("$T32" --version)" "t32 $(json version) (commit $(json commit))" "json: the version and commit"
is "$cmd" "$(json command | sed 's/--format=json/--format=tsv/')" "json: the command line"
is "$cpu" "$(json cpu)" "json: the cpu line"
is "$(uname -n)" "$(json host)" "json: the host"
jat=$(date -u -d "$(json date)" +%s 2>/dev/null)
[ -n "$jat" ] && [ "$jat" -ge "$before" ] && [ "$jat" -le "$after" ] &&
	[ "$(json date)" = "$(date -u -d "@$jat" +%Y-%m-%dT%H:%M:%SZ)" ]
ok $? "json: the date is now, in UTC ($(json date))"
done_testing
