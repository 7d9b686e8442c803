# bash completion for t32: commands, options, block, table, recipe, bench and
# micro-architecture names, table's subcommand.
# Every list comes from t32 itself (t32 --list ..., t32 help COMMAND), so a new
# command or option completes without editing this file.  `make install` puts it
# in share/bash-completion/completions/t32.

_t32_words() {
	# _t32_words T32 WHAT: names for the current word
	case $2 in
	commands) "$1" --list commands 2>/dev/null | cut -f1 ;;
	blocks) "$1" --list blocks 2>/dev/null ;;
	tables) "$1" --list tables 2>/dev/null ;;
	options)
		# the options a command's help lists (the classic form's: t32 --help)
		if [ -n "$3" ]; then "$1" help "$3" 2>/dev/null; else "$1" --help 2>/dev/null; fi |
			grep -oE -- '(^|[ [])--[a-z][a-z-]*' | sed 's/^[ [(]*//' | sort -u
		;;
	uarchs)
		# the micro-architectures: data/uarch/*.uarch beside the tables t32 lists
		local d f
		d=$("$1" --list tables 2>/dev/null | head -1)
		d=${d%/*}
		for f in "$d"/uarch/*.uarch; do
			[ -e "$f" ] && f=${f##*/} && printf '%s\n' "${f%.uarch}"
		done
		;;
	subcommands)
		# the indented names under a command's usage (t32 table: gen)
		"$1" help "$3" 2>/dev/null | awk '/^  [a-z][a-z-]+  +[^ -]/ { print $1 }'
		;;
	recipes | benches)
		# the indented names under the first list of the command's help
		"$1" help "$3" 2>/dev/null | awk '/^  [a-z][a-z-]+  +[^ -]/ { print $1 }'
		;;
	esac
}

_t32() {
	local cur prev t32 cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	t32=${COMP_WORDS[0]}
	command -v "$t32" >/dev/null 2>&1 || t32=t32
	COMPREPLY=()
	# the command: the first word after t32 that is not an option
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$(_t32_words "$t32" commands) help" -- "$cur"))
		return
	fi
	case $prev in
	--format)
		# the formats the command's help offers on its --format line
		COMPREPLY=($(compgen -W "$("$t32" help "$cmd" 2>/dev/null | grep -- '--format' |
			grep -oE '\b(table|tsv|json)\b' | sort -u)" -- "$cur"))
		return
		;;
	--profile) COMPREPLY=($(compgen -W "quick full" -- "$cur")); return ;;
	--mode) COMPREPLY=($(compgen -W "raw latency throughput" -- "$cur")); return ;;
	--unit) COMPREPLY=($(compgen -W "cycles ticks ns" -- "$cur")); return ;;
	--backend) COMPREPLY=($(compgen -W "auto perf signal precise" -- "$cur")); return ;;
	--uarch)
		COMPREPLY=($(compgen -W "$(_t32_words "$t32" uarchs)" -- "$cur") $(compgen -f -X '!*.uarch' -- "$cur"))
		return
		;;
	--method) COMPREPLY=($(compgen -W "sleep spin" -- "$cur")); return ;;
	-o | --output | --raw | --lat | --lat-from)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		case $cmd in
		help) ;;
		table)
			# a subcommand's options (t32 table gen, t32 table check) from its own help
			[ -n "${COMP_WORDS[i + 1]}" ] && [[ ${COMP_WORDS[i + 1]} != -* ]] &&
				COMPREPLY=($(compgen -W "$("$t32" table "${COMP_WORDS[i + 1]}" --help 2>/dev/null |
					grep -oE -- '(^|[ [])--[a-z][a-z-]*' | sed 's/^[ [(]*//' | sort -u)" -- "$cur"))
			;;
		*) COMPREPLY=($(compgen -W "$(_t32_words "$t32" options "$cmd")" -- "$cur")) ;;
		esac
		return
	fi
	case $cmd in
	help) COMPREPLY=($(compgen -W "$(_t32_words "$t32" commands) flags" -- "$cur")) ;;
	sweep) COMPREPLY=($(compgen -W "$(_t32_words "$t32" tables)" -- "$cur") $(compgen -f -X '!*.tbl' -- "$cur")) ;;
	sample | model | correlate)
		COMPREPLY=($(compgen -W "$(_t32_words "$t32" blocks)" -- "$cur") $(compgen -f -X '!*.blk' -- "$cur"))
		;;
	study) COMPREPLY=($(compgen -W "$(_t32_words "$t32" recipes study)" -- "$cur")) ;;
	bench) COMPREPLY=($(compgen -W "$(_t32_words "$t32" benches bench)" -- "$cur")) ;;
	fit) COMPREPLY=($(compgen -f -- "$cur")) ;;
	table) [ "$COMP_CWORD" -eq $((i + 1)) ] && COMPREPLY=($(compgen -W "$(_t32_words "$t32" subcommands table)" -- "$cur")) ;;
	esac
}
complete -F _t32 t32
