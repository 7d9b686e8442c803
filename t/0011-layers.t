#!/bin/sh
# The folders of t32/ are layers (cmd, sample, core, io, then the ground: t32/*.c,
# gen/, analysis/): a file includes only from its own layer or those below it.
. "$(dirname "$0")/lib-tap.sh"
plan 3

rank() {
	case $1 in
	t32/cmd/*) echo 4 ;; t32/sample/*) echo 3 ;; t32/core/*) echo 2 ;; t32/io/*) echo 1 ;; *) echo 0 ;;
	esac
}
# upward FILE...: "FILE -> HEADER" for each include from a layer above FILE's
upward() {
	for f in "$@"; do
		rf=$(rank "$f")
		sed -n 's/^#include "\(t32\/[^"]*\)".*/\1/p' "$T32_SRC/$f" | while read -r h; do
			[ "$(rank "$h")" -gt "$rf" ] && echo "$f -> $h"
		done
	done
}
cd "$T32_SRC" || bail "no source tree"
files=$(ls t32/*.[ch] t32/*/*.[ch] gen/*.[ch] analysis/*.[ch] 2>/dev/null)
[ -n "$files" ] || bail "no sources under $T32_SRC"
upward $files >"$TMP/up"
is "" "$(cat "$TMP/up")" "no file includes from a layer above its own"
# every header a source names is there: the layout and the includes agree
missing=$(sed -n 's/^#include "\(t32\/[^"]*\)".*/\1/p' $files | sort -u | while read -r h; do [ -f "$h" ] || echo "$h"; done)
is "" "$missing" "every t32 header included is where the include says"
# the check itself: a core file that includes a command's header is named
printf '#include "t32/cmd/cmd.h"\n' >"$TMP/probe.c"
mkdir -p "$TMP/t32/core" && cp "$TMP/probe.c" "$TMP/t32/core/probe.c"
got=$(T32_SRC=$TMP upward t32/core/probe.c)
is "t32/core/probe.c -> t32/cmd/cmd.h" "$got" "an include from above is found"
done_testing
