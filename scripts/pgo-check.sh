#!/bin/sh
# pgo-check.sh: whether a profile retaken with make pgo is worth
# committing. It builds the command twice from the working tree's code,
# once with the profile committed at HEAD and once with
# cmd/gpumemsim/default.pgo as it stands, runs every case below once with
# each under cachegrind (GOMAXPROCS=1 GOGC=off; the two binaries side by
# side), and prints each case's instructions and their change. The two
# reports must be byte-identical: a profile changes speed, never results;
# it exits 1 if one differs.
#
#	make pgo && make pgo-check
#
# A profile is a sample of a benchmark run, and two retakes of the same
# code have differed by more than a change under test does: on 2026-12-01
# one retake gave -0.4 to -4.7% on every case below and the next -4.1 to
# +0.7% (docs/speed-log.md, "The command's profile, retaken"). Keep a new
# profile only where no case loses, and say which retake it was.
# Instruction counts are exact for a given binary; wall time on a shared
# machine is not (docs/design.md, "Where the time goes"). Needs valgrind.
set -eu

GO=${GO:-go}
if ! command -v valgrind >/dev/null; then
	echo "pgo-check.sh: counts instructions with valgrind, which is not installed (apt-get install valgrind)" >&2
	exit 1
fi
root=$(git rev-parse --show-toplevel)
. "$root/scripts/cachegrind.sh"
pgo=cmd/gpumemsim/default.pgo
if git -C "$root" diff --quiet HEAD -- "$pgo"; then
	echo "pgo-check.sh: $pgo is the one committed at HEAD; retake it first (make pgo)" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

git -C "$root" show "HEAD:$pgo" >"$work/old.pgo"
(cd "$root" && "$GO" build -pgo="$work/old.pgo" -o "$work/old" ./cmd/gpumemsim)
(cd "$root" && "$GO" build -o "$work/new" ./cmd/gpumemsim)

# Every path of docs/design.md's counts: issue 10's three (the full
# hierarchy, the DRAM-bound and the stall-bound), shared memory and the
# per-thread cursor, texture and constant memory, the L2's wait queue.
cases='-device fermi -kernel matmul -set M=256,N=256,P=256
-device gt200 -kernel matmul -map i1=tx,i2=ty -set M=128,N=128,P=128
-device fermi -kernel transpose -set N=1024
-device g80 -kernel matmul -set M=128,N=128,P=128
-device fermi -kernel transpose-shared
-device kepler -kernel transpose-shared
-device fermi -kernel stencil-shared
-device fermi -kernel reduce-interleaved
-device fermi -kernel reduce-sequential
-device fermi -kernel nw-shared
-device fermi -kernel convolution-global
-device fermi -kernel convolution-tex2d
-device fermi -kernel matmul-tiled -set M=256,N=256,P=256
-device gt200 -kernel matmul-tiled -set M=256,N=256,P=256
-device fermi -kernel kmeans-rodinia-row
-device g80 -kernel kmeans-rodinia-row -set np=8192,bpd=6
-device maxwell -kernel matvec -set N=2048'

# count runs binary $1 with the arguments $2 under cachegrind, its report
# to $3, and prints the instructions executed.
count() {
	# shellcheck disable=SC2086 # the arguments are split on purpose
	cachegrind_run "$3" /dev/null "$1" run $2 -format json || {
		echo "pgo-check.sh: $1 run $2 failed:" >&2
		cat "$3.err" >&2
		exit 1
	}
	cachegrind_count "$3.err"
}

printf 'profile at HEAD (%s) against the working tree'"'"'s, %s\n\n' "$(git -C "$root" rev-parse --short HEAD)" "$(date -u '+%Y-%m-%d %H:%M UTC')"
printf '| run | HEAD'"'"'s profile | new profile | change | report |\n|---|---|---|---|---|\n'
echo "$cases" | {
	status=0
	while read -r args; do
		count "$work/old" "$args" "$work/old.json" >"$work/old.n" &
		new=$(count "$work/new" "$args" "$work/new.json")
		wait $!
		old=$(cat "$work/old.n")
		same=identical
		if ! cmp -s "$work/old.json" "$work/new.json"; then
			same=DIFFERS
			status=1
		fi
		echo "$args|$old|$new|$same" | awk -F'|' '{printf "| `%s` | %.1f M | %.1f M | %+.2f%% | %s |\n", $1, $2 / 1e6, $3 / 1e6, ($3 - $2) / $2 * 100, $4}'
	done
	exit $status
}
