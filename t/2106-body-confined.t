#!/bin/sh
# The measuring process cannot reach outside the block: a body that makes a system
# call is stopped and reported as such, and nothing it asked for happens; a body
# that breaks the harness's own data is named, never measured.  Then a suite of
# hostile bodies (files, processes, network, signals, descriptors, environment,
# ptrace, mmap, rdtsc) against every command that runs code, and the processes
# that run bodies, seen from outside while each command runs: under seccomp,
# no_new_privs, only their own pipes, no environment.
. "$(dirname "$0")/lib-tap.sh"

# getuid: harmless, but not the block's business
run l m 3 'mov eax, 102; syscall'
is 1 "$rc" "a system call in the body is an error"
like "$TMP/err" "^t32: instruction faulted 'mov eax, 102; syscall' \(SIGSYS: a system call.*, at syscall\)" \
	"named as a system call, at the syscall"

# kill(victim, SIGKILL) would reach another process: refused, not sent
sleep 30 &
victim=$!
run time l m 100 "mov eax, 62; mov edi, $victim; mov esi, 9; syscall"
is 1 "$rc" "kill from the body is refused"
like "$TMP/err" "SIGSYS" "as a system call"

# a signal to another process of ours through tgkill: refused too
run l m 2 "mov eax, 234; mov edi, $victim; mov esi, $victim; mov edx, 9; syscall"
is 1 "$rc" "tgkill to another process is refused"
kill -0 "$victim" 2>/dev/null
ok $? "and the other process lives through both"
kill "$victim" 2>/dev/null

# a body that moves the harness's own loop counter: an error naming it, never a
# stale buffer printed as deltas
run l m 5 'mov qword [rel left], 0'
is 1 "$rc" "a body that changes the harness's data is an error"
like "$TMP/err" "the body changed the harness's own data" "and says so"

# a body that creates a file or directory (open, creat, openat, mkdir): refused,
# and nothing is made
for call in 'open:mov eax, 2; lea rdi, [rel .p]; mov esi, 0x41; mov edx, 0x1a4' \
	'creat:mov eax, 85; lea rdi, [rel .p]; mov esi, 0x1a4' \
	'openat:mov eax, 257; mov edi, -100; lea rsi, [rel .p]; mov edx, 0x41; mov r10d, 0x1a4' \
	'mkdir:mov eax, 83; lea rdi, [rel .p]; mov esi, 0x1ed'; do
	name=${call%%:*}
	run l m 1 "jmp .s; .p: db \"$TMP/made-$name\", 0; .s: ${call#*:}; syscall"
	[ "$rc" -eq 1 ] && grep -q SIGSYS "$TMP/err" && [ ! -e "$TMP/made-$name" ]
	ok $? "$name from the body is refused and makes nothing (exit $rc)"
done

# the block itself still runs
run l m 5 100 nop
is 0 "$rc" "a body without system calls runs"

# ---- hostile bodies against every command that runs code ----
WORK=$TMP/work
mkdir -p "$WORK" "$TMP/cache"
export T32_CACHE_DIR="$TMP/cache"
SECRET=t32-secret-$$-token
export SECRET_TOKEN="$SECRET"
printf 'STDIN-%s\n' "$SECRET" >"$TMP/stdin"
sleep 120 &
victim=$!

# file: mkdir("Z"), open("F", O_CREAT) and openat(AT_FDCWD, "G", O_CREAT), relative to the command's directory
H_mkdir='mov rax, 0x5a; push rax; mov rdi, rsp; mov esi, 493; mov eax, 83; syscall; pop rax'
H_open='mov rax, 0x46; push rax; mov rdi, rsp; mov esi, 65; mov edx, 420; mov eax, 2; syscall; pop rax'
H_openat='mov rax, 0x47; push rax; mov edi, -100; mov rsi, rsp; mov edx, 65; mov r10d, 420; mov eax, 257; syscall; pop rax'
# process: execve("/bin/touch", ["/bin/touch", "E"], NULL)
H_exec='push 0x6863; mov rax, 0x756f742f6e69622f; push rax; mov rdi, rsp; push 0x45; mov rbx, rsp; push 0; push rbx; push rdi; mov rsi, rsp; xor edx, edx; mov eax, 59; syscall; add rsp, 48'
# network: a unix socket bound to "S"
H_socket='mov edi, 1; mov esi, 1; xor edx, edx; mov eax, 41; syscall; mov rdi, rax; push 0x530001; mov rsi, rsp; mov edx, 4; mov eax, 49; syscall; pop rax'
# signals: kill the victim; SIGTERM to t32 itself
H_kill="mov edi, $victim; mov esi, 9; mov eax, 62; syscall"
H_killparent='mov eax, 110; syscall; mov rdi, rax; mov esi, 15; mov eax, 62; syscall'
# ptrace: attach to the victim (it would stop)
H_ptrace="mov edi, 16; mov esi, $victim; xor edx, edx; xor r10d, r10d; mov eax, 101; syscall"
# descriptors: FORGED on 1..9; the stack (and the environment above it) to 1..9; stdin echoed
H_forge='mov rax, 0xa444547524f46; push rax'
H_leak='nop'
for fd in 1 2 3 4 5 6 7 8 9; do
	H_forge="$H_forge; mov edi, $fd; mov rsi, rsp; mov edx, 7; mov eax, 1; syscall"
	H_leak="$H_leak; mov edi, $fd; mov rsi, rsp; mov edx, 0x100000; mov eax, 1; syscall"
done
H_forge="$H_forge; pop rax"
H_stdin='sub rsp, 64; xor edi, edi; mov rsi, rsp; mov edx, 64; xor eax, eax; syscall; mov edi, 1; mov rsi, rsp; mov edx, 64; mov eax, 1; syscall; add rsp, 64'
# mmap: an executable page, a ret in it, called (runs only if the mmap went through)
H_mmap='xor edi, edi; mov esi, 4096; mov edx, 7; mov r10d, 0x22; mov r8, -1; xor r9d, r9d; mov eax, 9; syscall; mov byte [rax], 0xc3; call rax'
# rdtsc: make rdtsc fault from now on (prctl PR_SET_TSC, PR_TSC_SIGSEGV)
H_tsc='mov edi, 26; mov esi, 2; mov eax, 157; syscall'
CASES='mkdir open openat exec socket kill killparent ptrace forge leak stdin mmap tsc'

# what no case may leave: a file in the command's directory, a dead or stopped
# victim, the forged text or the secret in anything the command wrote
escaped() {
	ls -A "$WORK" >"$TMP/left"
	[ -s "$TMP/left" ] && { diag "left in the directory: $(cat "$TMP/left")"; return 0; }
	kill -0 "$victim" 2>/dev/null || { diag "the victim was killed"; return 0; }
	case $(awk '{print $3}' "/proc/$victim/stat" 2>/dev/null) in
	t|T) diag "the victim was stopped"; return 0 ;;
	esac
	if grep -rlaq -e FORGED -e "$SECRET" "$TMP/out" "$TMP/err" "$TMP/o" 2>/dev/null; then
		diag "forged or secret text in $(grep -rla -e FORGED -e "$SECRET" "$TMP/out" "$TMP/err" "$TMP/o")"
		return 0
	fi
	return 1
}

# hostile CMD CASE ARGS...: t32 ARGS in $WORK (stdin the secret, killed after
# a minute: a body that escaped may hang it), then nothing escaped and the
# body's system call was reported (refused, never run)
hostile() {
	cmd=$1 case=$2
	shift 2
	rm -rf "$TMP/o"
	mkdir -p "$TMP/o"
	(cd "$WORK" && exec timeout -k 5 60 "$T32" "$@" <"$TMP/stdin" >"$TMP/out" 2>"$TMP/err")
	rc=$?
	if escaped; then
		ok 1 "$cmd: $case is contained"
	else
		ok 0 "$cmd: $case is contained"
	fi
	rm -rf "$WORK"/* "$WORK"/.[!.]* 2>/dev/null
	if [ "$rc" -eq 130 ] || [ "$rc" -eq 143 ]; then
		ok 1 "$cmd: $case: t32 was interrupted ($rc)"
	elif grep -rqs 'SIGSYS' "$TMP/err" "$TMP/out" "$TMP/o"; then
		ok 0 "$cmd: $case: refused and reported as a system call"
	else
		ok 1 "$cmd: $case: refused and reported as a system call (exit $rc)"
		sed 's/^/#   /' "$TMP/err" | head -3
	fi
}

for c in $CASES; do
	eval "body=\$H_$c"
	hostile classic "$c" l m 3 "$body"
	hostile time "$c" time --budget 0.2 l m 100 "$body"
	hostile sweep "$c" sweep --n 1 --budget 0.1 -o "$TMP/o/s.tsv" l m "$body"
	printf 'hostile | %s\n' "$body" >"$TMP/h.tbl"
	hostile "sweep of a table" "$c" sweep --n 1 --mode latency --budget 0.1 -o "$TMP/o/t.tsv" "$TMP/h.tbl"
	hostile sample "$c" sample --seconds 0.2 "$body"
	printf '# source: a hostile body\n%s\n' "$body" >"$TMP/h.blk"
	hostile "sample of a block file" "$c" sample --seconds 0.2 "$TMP/h.blk"
	hostile correlate "$c" correlate --no-measure --kmax 2 --seconds 0.2 -o "$TMP/o/c" "$body"
done

# study interrupts and bench correlate run correlate on every block of the data
# directory, which runs the same sampler and sweep as above (each block's forms
# are timed first, seconds each): one block there, the file case written with
# its name as data, so that no form of it is timed
mkdir -p "$TMP/data/blocks"
for e in "$T32_SRC"/data/*; do
	[ "$(basename "$e")" = blocks ] || ln -s "$e" "$TMP/data/"
done
printf '# source: a hostile body\n%s\n' \
	'jmp $+4; db 0x46, 0; lea rdi, [rel $-2]; mov esi, 65; mov edx, 420; mov eax, 2; syscall' \
	>"$TMP/data/blocks/open.blk"
T32_DATADIR=$TMP/data hostile study open study --no-plots -o "$TMP/o/st" interrupts
(cd "$WORK" && T32_DATADIR=$TMP/data exec timeout -k 5 60 "$T32" bench correlate \
	>"$TMP/out" 2>"$TMP/err")
rc=$?
escaped
ok $((1 - $?)) "bench correlate: open is contained"
like "$TMP/out" "^correlate: open +failed \(exit 1\)" "bench correlate: the block fails, a target missed (exit $rc)"

# rdtsc: a body that overwrites the first reading gets an impossible delta: never ok
run l m 3 'mov qword [rel t0], 0'
is 7 "$rc" "classic: a body that overwrites the first reading is untrustworthy (exit 7)"
run time --budget 0.2 l m 100 'mov qword [rel t0], 0'
is 7 "$rc" "time: the same is untrustworthy (exit 7)"
run sweep --n 1 --budget 0.1 -o "$TMP/r.tsv" l m 'mov qword [rel t0], 0'
st=$(col status "$TMP/r.tsv")
ok "$([ -n "$st" ] && [ "$st" != ok ] && echo 0 || echo 1)" "sweep: and its row is not ok ($st)"
kill "$victim" 2>/dev/null

# ---- the processes that run bodies, seen from outside ----
# watch NAME ARGS...: run t32 ARGS in the background; while it runs, every
# t32-body process in its tree must be under seccomp with no_new_privs, hold
# only /dev/null on 0-2 and its pipes (and a sampler's perf event), and have no
# environment left.  At least one must be seen.
# A busy machine can hide every short-lived body process from a watcher
# polling every 20 ms (`time` starts a new one every 30-50 ms, and on a 2-CPU
# guest under load a run caught none in 5 of 5 tries), so a run in which none
# was seen is made again, up to twelve times.
watch() {
	name=$1
	shift
	seen='' bad='' tries=0
	while [ -z "$seen" ] && [ "$tries" -lt 12 ]; do
		tries=$((tries + 1))
		watch_once "$@"
	done
	ok "$([ -n "$seen" ] && echo 0 || echo 1)" "$name: its body runs in a t32-body process ($(echo $seen | wc -w) seen, $tries runs)"
	ok "$([ -z "$bad" ] && echo 0 || echo 1)" "$name: confined: seccomp, no_new_privs, only its pipes, no environment"
	[ -z "$bad" ] || diag "$bad"
}
watch_once() {
	(cd "$WORK" && exec "$T32" "$@" >"$TMP/wout" 2>"$TMP/werr") &
	top=$!
	while kill -0 "$top" 2>/dev/null; do
		for comm in $(grep -lx t32-body /proc/[0-9]*/comm 2>/dev/null); do
			p=${comm#/proc/}
			p=${p%/comm}
			# one of ours: $top is an ancestor
			a=$p
			while [ -n "$a" ] && [ "$a" -gt 1 ] && [ "$a" != "$top" ]; do
				a=$(awk '/^PPid:/ {print $2}' "/proc/$a/status" 2>/dev/null)
			done
			[ "$a" = "$top" ] || continue
			case " $seen " in *" $p "*) continue ;; esac
			# a process caught between fork and confinement is looked at again
			for try in 1 2; do
				sc=$(awk '/^Seccomp:/ {print $2}' "/proc/$p/status" 2>/dev/null)
				nnp=$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$p/status" 2>/dev/null)
				fds=$(ls -l "/proc/$p/fd" 2>/dev/null | awk 'NR > 1 {print $9 "=" $11}')
				envb=$(cat "/proc/$p/environ" 2>/dev/null | tr -d '\0' | wc -c)
				[ "$sc" = 2 ] && break
				sleep 0.05
			done
			# what was read counts only if the process outlived the reading
			kill -0 "$p" 2>/dev/null && [ -n "$sc" ] || continue
			seen="$seen $p"
			[ "$sc" = 2 ] && [ "$nnp" = 1 ] && [ "$envb" = 0 ] || bad="$bad $p(seccomp=$sc,nnp=$nnp,env=$envb)"
			for f in $fds; do
				case $f in
				[012]=/dev/null|*=pipe:*|*=anon_inode:\[perf_event\]) ;;
				*) bad="$bad $p($f)" ;;
				esac
			done
		done
		sleep 0.02
	done
	wait "$top"
}
printf '# source: a plain block\nadd rax, 1\n' >"$TMP/plain.blk"
watch classic l m 3000000 100 nop
watch time time --budget 1 --precision 0.00001 l m auto 1000000 nop
watch sweep sweep --n 1000000 --budget 1 --precision 0.00001 -o "$TMP/w.tsv" l m nop
watch sample sample --seconds 1 "$TMP/plain.blk"
watch correlate correlate --no-measure --kmax 2 --seconds 1 "$TMP/plain.blk"
watch "model --measure" model --measure --cache "$TMP/wcache" \
	'imul rax, rax; add rbx, rbx; popcnt rcx, rcx; crc32 edx, edx; bswap rsi; rol rdi, 1'
echo "1..$_tap_n"
done_testing
