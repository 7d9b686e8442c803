#!/bin/sh
# 0010-doc-generated.t - the lists doc/*.md take from the binary (exit codes,
# flags and statuses, sweep columns, tables, blocks: doc/gen-md.sh) are as the
# binary prints them now (`make doc` writes them again), and README.md points to
# every file of doc/.
. "$(dirname "$0")/lib-tap.sh"

cd "$T32_SRC" || bail "cannot enter $T32_SRC"
docs=$(ls doc/*.md)
ndoc=$(printf '%s\n' $docs | wc -l | tr -d ' ')
plan $((2 * ndoc + 4))

for f in $docs; do
	sh doc/gen-md.sh "$T32" "$f" >"$TMP/gen.md" 2>"$TMP/gen.err"
	if cmp -s "$f" "$TMP/gen.md"; then
		ok 0 "$f: its generated lists are the binary's (doc/gen-md.sh)"
	else
		ok 1 "$f: its generated lists are the binary's (doc/gen-md.sh)"
		diag "$(diff "$f" "$TMP/gen.md" | head -5)" "$(head -2 "$TMP/gen.err")" "run make doc"
	fi
	grep -q "(${f})" README.md; ok $? "README.md points to $f"
done

# what the binary lists is in doc/formats.md: every exit code, flag and status
"$T32" --list exit-codes | cut -f1 >"$TMP/codes"
missing=$(while read -r c; do grep -q "^| $c | " doc/formats.md || echo "$c"; done <"$TMP/codes")
[ -s "$TMP/codes" ] && [ -z "$missing" ]; ok $? "doc/formats.md lists every exit code ($missing)"
"$T32" --list flags | cut -f1 >"$TMP/flags"
missing=$(while read -r c; do grep -q "^| \`$c\` | " doc/formats.md || echo "$c"; done <"$TMP/flags")
[ -s "$TMP/flags" ] && [ -z "$missing" ]; ok $? "doc/formats.md explains every flag and status ($missing)"

# a stale region is written again, and an unknown one is refused
printf 'a\n<!-- generated: exit-codes (doc/gen-md.sh) -->\n| 0 | stale |\n<!-- end generated -->\nb\n' >"$TMP/stale.md"
sh doc/gen-md.sh "$T32" "$TMP/stale.md" >"$TMP/fresh.md" 2>"$TMP/gen.err"
! grep -q stale "$TMP/fresh.md" && grep -q '^| 130 | ' "$TMP/fresh.md" &&
	[ "$(head -1 "$TMP/fresh.md")" = a ] && [ "$(tail -1 "$TMP/fresh.md")" = b ]
ok $? "a stale region is written again from the binary, the text around it kept"
printf '<!-- generated: nonesuch (doc/gen-md.sh) -->\n<!-- end generated -->\n' >"$TMP/bad.md"
sh doc/gen-md.sh "$T32" "$TMP/bad.md" >/dev/null 2>"$TMP/gen.err"
rc=$?
[ "$rc" = 2 ] && grep -q "unknown generated region 'nonesuch'" "$TMP/gen.err"
ok $? "an unknown region is refused (exit $rc)"
done_testing
