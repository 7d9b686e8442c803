#!/bin/sh
# Every example command in README.md's sh blocks runs as written: README and the
# command line cannot drift apart.  Examples run in order in a scratch directory
# with the repository's data (a later one may read what an earlier one wrote); an
# example may end 0, 3 (a facility this machine lacks, as documented), 5 (a sweep
# whose rows are not all ok) or 7 (measured, flagged untrustworthy on a busy
# machine), never as a usage error or a failure.  Long measurements get short budgets (a sweep measures one row in
# twelve, --shard 1/12), put right after the command word so the example's own
# options still win: the words are what is tested, not the time they take.
. "$(dirname "$0")/lib-tap.sh"

awk '/^```sh/ {f = 1; next} /^```/ {f = 0} f && /^build\/t32 / {sub(/[ \t]+#.*$/, ""); print}' \
	"$T32_SRC/README.md" >"$TMP/examples"
n=$(wc -l <"$TMP/examples" | tr -d ' ')
plan $((n + 1))
[ "$n" -gt 0 ]; ok $? "README has build/t32 examples ($n)"

mkdir -p "$TMP/work"
ln -s "$T32_SRC/data" "$TMP/work/data"
mkdir -p "$TMP/work/build"
ln -s "$T32" "$TMP/work/build/t32"
while IFS= read -r cmd; do
	short=$(printf '%s\n' "$cmd" | sed \
		-e 's/^build\/t32 sweep /build\/t32 sweep --budget 0.02 --max-runs 20000 --shard 1\/12 /' \
		-e 's/^build\/t32 sample /build\/t32 sample --seconds 1 /' \
		-e 's/^build\/t32 correlate /build\/t32 correlate --seconds 1 /' \
		-e 's/^build\/t32 study /build\/t32 study --no-plots /')
	( cd "$TMP/work" && eval "$short" ) >"$TMP/ex.out" 2>"$TMP/ex.err" </dev/null
	rc=$?
	case $rc in
	0|3|5|7) ok 0 "exit $rc: $cmd" ;;
	*) ok 1 "exit $rc: $cmd"; diag "$(head -3 "$TMP/ex.err")" ;;
	esac
done <"$TMP/examples"
done_testing
