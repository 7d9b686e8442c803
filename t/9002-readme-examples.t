#!/bin/sh
# Every example command in the sh blocks of README.md and doc/*.md runs as
# written: the documentation and the command line cannot drift apart.  Each
# file's examples run in order in a scratch directory of their own with the
# repository's data (a later one may read what an earlier one of the same file
# wrote); an example may end 0, 3 (a facility this machine lacks, as documented),
# 5 (a sweep whose rows are not all ok) or 7 (measured, flagged untrustworthy on a
# busy machine), never as a usage error or a failure.  Long measurements get short
# budgets (a sweep measures one row in twelve, --shard 1/12), put right after the
# command word so the example's own options still win: the words are what is
# tested, not the time they take.
. "$(dirname "$0")/lib-tap.sh"

# the files whose examples are run: README.md first, then every doc/*.md
files="README.md $(cd "$T32_SRC" && ls doc/*.md)"
: >"$TMP/examples"
for f in $files; do
	awk -v file="$f" '/^```sh/ {s = 1; next} /^```/ {s = 0}
		s && /^build\/t32 / {sub(/[ \t]+#.*$/, ""); print file "\t" $0}' \
		"$T32_SRC/$f" >>"$TMP/examples"
done
n=$(wc -l <"$TMP/examples" | tr -d ' ')
nreadme=$(grep -c '^README\.md	' "$TMP/examples")
ndoc=$(grep -c '^doc/' "$TMP/examples")
plan $((n + 2))
[ "$nreadme" -gt 0 ]; ok $? "README has build/t32 examples ($nreadme)"
[ "$ndoc" -gt 0 ]; ok $? "doc/ has build/t32 examples ($ndoc)"

while IFS='	' read -r file cmd; do
	dir="$TMP/work/$(printf '%s' "$file" | tr '/.' '__')"
	if [ ! -d "$dir" ]; then
		mkdir -p "$dir/build"
		ln -s "$T32_SRC/data" "$dir/data"
		ln -s "$T32" "$dir/build/t32"
	fi
	short=$(printf '%s\n' "$cmd" | sed \
		-e 's/^build\/t32 sweep /build\/t32 sweep --budget 0.02 --max-runs 20000 --shard 1\/12 /' \
		-e 's/^build\/t32 sample /build\/t32 sample --seconds 1 /' \
		-e 's/^build\/t32 correlate /build\/t32 correlate --seconds 1 /' \
		-e 's/^build\/t32 study /build\/t32 study --no-plots /')
	( cd "$dir" && eval "$short" ) >"$TMP/ex.out" 2>"$TMP/ex.err" </dev/null
	rc=$?
	case $rc in
	0|3|5|7) ok 0 "exit $rc: $file: $cmd" ;;
	*) ok 1 "exit $rc: $file: $cmd"; diag "$(head -3 "$TMP/ex.err")" ;;
	esac
done <"$TMP/examples"
done_testing
