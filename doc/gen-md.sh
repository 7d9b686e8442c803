#!/bin/sh
# gen-md.sh T32 FILE.md - print FILE.md with each generated region written again
# from the binary T32 (t32 --list KIND), so the lists in doc/ follow the command
# line as the manual page does.  A region is
#   <!-- generated: KIND (doc/gen-md.sh) -->
#   ...
#   <!-- end generated -->
# (indented as its first line is, inside a list item), with KIND one of
# exit-codes, flags, sweep-columns, tables, blocks.  `make doc` rewrites doc/*.md
# in place; t/0010-doc-generated.t fails when one is stale.
set -e
T32=${1:?usage: gen-md.sh PATH-TO-T32 FILE.md}
FILE=${2:?usage: gen-md.sh PATH-TO-T32 FILE.md}

# region KIND: the markdown for one kind, from the binary
region() {
	case $1 in
	exit-codes)
		printf '| code | meaning |\n|---|---|\n'
		"$T32" --list exit-codes | awk -F '\t' '{ print "| " $1 " | " $2 " |" }' ;;
	flags)
		printf '| flag | kind | meaning | what to do |\n|---|---|---|---|\n'
		"$T32" --list flags | awk -F '\t' '{ print "| `" $1 "` | " $2 " | " $3 " | " $4 " |" }' ;;
	sweep-columns)
		"$T32" --list sweep-columns | awk -F '\t' '{ s = "`" $1 "`"; for (i = 2; i <= NF; i++) s = s " `" $i "`"; print s }' ;;
	tables)
		"$T32" --list tables | sed 's|.*/||' | awk '{ s = s (NR > 1 ? ", " : "") "`" $0 "`" } END { print s }' ;;
	blocks)
		"$T32" --list blocks | awk '{ s = s (NR > 1 ? ", " : "") "`" $0 "`" } END { print s }' ;;
	*)
		echo "gen-md.sh: unknown generated region '$1' in $FILE" >&2; return 2 ;;
	esac
}

kind=
while IFS= read -r line || [ -n "$line" ]; do
	bare=${line#"${line%%[! ]*}"}	# the line without its indent
	case $bare in
	'<!-- generated: '*' (doc/gen-md.sh) -->')
		[ -z "$kind" ] || { echo "gen-md.sh: region inside a region in $FILE" >&2; exit 2; }
		printf '%s\n' "$line"
		indent=${line%"$bare"}
		kind=${bare#'<!-- generated: '}; kind=${kind%' (doc/gen-md.sh) -->'}
		tmp=$(mktemp)
		region "$kind" >"$tmp" || { rm -f "$tmp"; exit 2; }
		sed "s/^/$indent/" "$tmp"; rm -f "$tmp" ;;
	'<!-- end generated -->')
		[ -n "$kind" ] || { echo "gen-md.sh: an end without a region in $FILE" >&2; exit 2; }
		printf '%s\n' "$line"; kind= ;;
	*)
		[ -n "$kind" ] || printf '%s\n' "$line" ;;
	esac
done <"$FILE"
[ -z "$kind" ] || { echo "gen-md.sh: region '$kind' not ended in $FILE" >&2; exit 2; }
