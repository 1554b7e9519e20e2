#!/bin/sh
# against.sh: issue 10's delivery 1 measured side by side. It builds the
# command at an old commit (AGAINST, 489b94e by default, the commit the
# issue measured from) in a temporary git worktree and at the working tree,
# the same way (go build, each with its own default.pgo where it has one),
# then runs each case old then new, ROUNDS times, under the same clock, and
# prints the wall seconds, the speed-up of the medians and whether every
# metric the two outputs share is the same. It exits 1 if one differs.
#
#	make against                      # the three cases below, 2 rounds
#	ROUNDS=5 AGAINST=1f5fdcb make against
#
# Wall time on a shared machine moves by the hour: compare only figures
# taken in one sitting, and prefer instruction counts
# (valgrind --tool=cachegrind) for small changes (docs/design.md, "Where
# the time goes").
#
# With STAGES=1 (make stages) it counts instructions instead: each binary
# built with go build -pgo=off (profile-guided inlining would fold stages
# into one another), the three runs at the smaller sizes design.md counts,
# once each under cachegrind (GOMAXPROCS=1 GOGC=off), and each run's
# instructions split by stage: each function's go to the stage it belongs
# to (see stage below), code inlined into a function counting as that
# function's. Millions of instructions, with what each target leaves for
# the whole run (the old total over 3 or 10). Needs valgrind.
#
# With BENCH=1 (make against-bench) it compares the benchmarks instead:
# BenchmarkRun's cases of the three paths at the sizes STAGES counts
# (matmul/fermi, matmul-uncoalesced/gt200, transpose/fermi), the test
# binaries of both commits built with go test -c (no profile for either:
# PGO applies to the command's main package only), each case run old then
# new with -benchtime 3x, ROUNDS times (6 by default), and benchstat's
# table of the two. An old commit whose BenchmarkRun lacks a case gets it
# from the working tree's table, line for line, in its worktree.
set -eu
export LC_ALL=C # sort and join must agree on the order

AGAINST=${AGAINST:-489b94e}
BENCH_ROUNDS=${ROUNDS:-6}
ROUNDS=${ROUNDS:-2}
GO=${GO:-go}
STAGES=${STAGES:-}
BENCH=${BENCH:-}
# benchstat at the version the module proxy served on 2026-11-25.
BENCHSTAT=${BENCHSTAT:-golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da}
build=''
if [ -n "$STAGES" ]; then
	build=-pgo=off
	if ! command -v valgrind >/dev/null; then
		echo "against.sh: STAGES=1 counts instructions with valgrind, which is not installed (apt-get install valgrind)" >&2
		exit 1
	fi
fi

root=$(git rev-parse --show-toplevel)
. "$root/scripts/cachegrind.sh"
work=$(mktemp -d)
cleanup() {
	git -C "$root" worktree remove --force "$work/old-tree" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# tree is where the test binary of old or new runs: its own sources.
tree() { if [ "$1" = old ]; then echo "$work/old-tree"; else echo "$root"; fi; }

# bench is BENCH=1's whole run, in the worktree made below.
bench() {
	benches='matmul/fermi matmul-uncoalesced/gt200 transpose/fermi'
	file=sim/run_bench_test.go
	for c in $benches; do
		if grep -q "{\"$c\"," "$work/old-tree/$file"; then
			continue
		fi
		line=$(grep "{\"$c\"," "$root/$file") || {
			echo "against.sh: $file has no BenchmarkRun case $c" >&2
			exit 1
		}
		# After the table's first case, which every version has.
		awk -v add="$line" '{print} !done && /\{"matmul\/fermi",/ {print add; done = 1}' \
			"$work/old-tree/$file" >"$work/bench.go"
		mv "$work/bench.go" "$work/old-tree/$file"
	done
	(cd "$work/old-tree" && "$GO" test -c -o "$work/old.test" ./sim)
	(cd "$root" && "$GO" test -c -o "$work/new.test" ./sim)
	printf 'against %s, BenchmarkRun, %s rounds of -benchtime 3x, %s\n\n' \
		"$(git -C "$root" rev-parse --short "$AGAINST")" "$BENCH_ROUNDS" "$(date -u '+%Y-%m-%d %H:%M UTC')"
	i=0
	while [ "$i" -lt "$BENCH_ROUNDS" ]; do
		for c in $benches; do
			pattern="^BenchmarkRun\$/^${c%/*}\$/^${c#*/}\$"
			for v in old new; do
				(cd "$(tree "$v")/sim" && "$work/$v.test" -test.run '^$' -test.bench "$pattern" \
					-test.benchtime 3x -test.benchmem) >>"$work/$v.bench"
			done
		done
		i=$((i + 1))
	done
	# benchstat names its columns by the files.
	cp "$work/old.bench" "$work/$AGAINST"
	cp "$work/new.bench" "$work/now"
	(cd "$work" && "$GO" run "$BENCHSTAT" "$AGAINST" now)
}

if ! git -C "$root" worktree add --detach "$work/old-tree" "$AGAINST" >/dev/null; then
	echo "against.sh: cannot check out AGAINST=$AGAINST; set it to a commit of this repository, e.g. AGAINST=489b94e" >&2
	exit 1
fi
if [ -n "$BENCH" ]; then
	bench
	exit 0
fi
# shellcheck disable=SC2086 # build is one flag or none
(cd "$work/old-tree" && "$GO" build $build -o "$work/old" ./cmd/gpumemsim)
# shellcheck disable=SC2086
(cd "$root" && "$GO" build $build -o "$work/new" ./cmd/gpumemsim)

# Metrics whose meaning a later commit changed, as "commit metric" pairs:
# against an older commit they are left out of the comparison, and the
# table says so. 18a15f1 counts an access that waited for an L2 MSHR
# entry once, not at every failed retry.
redefined='18a15f1 sim_l2_mshr_waits'
skip=''
# shellcheck disable=SC2086 # split into the pairs on purpose
set -- $redefined
while [ $# -ge 2 ]; do
	if ! git -C "$root" merge-base --is-ancestor "$1" "$AGAINST"; then
		skip="$skip $2:$1"
	fi
	shift 2
done

# name|target|arguments: the full hierarchy, the DRAM-bound path and the
# stall-bound path, as issue 10 names them, with the speed-up it asks.
cases='full hierarchy: fermi matmul 512^3|3|-device fermi -kernel matmul -set M=512,N=512,P=512
DRAM-bound: gt200 matmul 256^3 uncoalesced|10|-device gt200 -kernel matmul -map i1=tx,i2=ty -set M=256,N=256,P=256
stall-bound: fermi transpose N=4096|10|-device fermi -kernel transpose -set N=4096'
if [ -n "$STAGES" ]; then
	# A run under cachegrind is some 30 times slower: the sizes whose
	# counts docs/design.md gives.
	cases='full hierarchy: fermi matmul 256^3|3|-device fermi -kernel matmul -set M=256,N=256,P=256
DRAM-bound: gt200 matmul 128^3 uncoalesced|10|-device gt200 -kernel matmul -map i1=tx,i2=ty -set M=128,N=128,P=128
stall-bound: fermi transpose N=1024|10|-device fermi -kernel transpose -set N=1024'
fi

# wall runs the binary $1 with the arguments $2, its report to $3, and
# prints the wall seconds; a run that fails stops the script with its
# error. With STAGES it runs under cachegrind, its counts to $3.cg.
wall() {
	start=$(date +%s.%N)
	# shellcheck disable=SC2086 # the arguments are split on purpose
	if [ -n "$STAGES" ]; then
		cachegrind_run "$3" "$3.cg" "$1" run $2 -format json || fail "$1" "$2" "$3"
	else
		"$1" run $2 -format json >"$3" 2>"$3.err" || fail "$1" "$2" "$3"
	fi
	end=$(date +%s.%N)
	echo "$start $end" | awk '{printf "%.2f", $2 - $1}'
}

fail() {
	echo "against.sh: $1 run $2 failed:" >&2
	cat "$3.err" >&2
	exit 1
}

# stage prints a cachegrind output's instructions by stage, a "stage
# count" line each, in the order of the table. A function goes to its
# stage by name; the names of 489b94e's single engine file are there too.
stage() {
	cg_annotate --auto=no --show-percs=no --threshold=0 "$1" | awk '
	/^ *[0-9,]+ +[^ ]+:[^ ]+$/ {
		n = $1; gsub(",", "", n)
		fn = $2; sub(/^.*:/, "", fn)
		s = "other"
		if (fn ~ /sim\/dram\./ || fn == "runtime.memmove") s = "dram"
		else if (fn ~ /sim\.\(\*port\)\.|engine\)\.(advanceDRAM|pushDRAM|sendDRAM|dramDone|scheduleDRAM)/) s = "port"
		else if (fn ~ /sim\.\(\*eventQueue\)|sim\.\(\*engine\)\.run$/) s = "events"
		else if (fn ~ /sim\/coalesce\.|sim\.\(\*RefCounts\)|sim\.\(\*Coalescer\)|\)\.coalesce$/) s = "coalesce"
		else if (fn ~ /traces\.|sim\.scan|\(\*(gto|lrr|scheduler|warp)\)\.|(sm|engine)\)\.(schedule|issue|next|nextIssue|refresh|wake|toBack|tryFinish|launchBlock|finishWarp|arrive|globalAccess)$/) s = "issue"
		else if (fn ~ /sim\/cache\.|sim\.\(\*(level|l2|slice|dramOnly|waitQueue)\)|sim\.cores\.|sim\.(reap|release|sectorMask|l1Token)$|(sm|engine)\)\.(loadTxn|loadTxns|storeTxns|sharedAccess|constantAccess|textureAccess|readThrough|addressed|resolve|retryLSU|scheduleRetry|l2Read|sliceOf|write|writeBack|lineRequest|deliver|ack|addWaiter|finishLine)$/) s = "lsu"
		count[s] += n; total += n
	}
	END {
		split("issue coalesce lsu port dram events other", order, " ")
		for (i = 1; i <= 7; i++) print order[i], count[order[i]] + 0
		print "total", total
	}'
}

# metrics prints the "name value" pairs of the "metrics" object of a run's
# JSON report (indented, one metric a line), sorted by name.
metrics() {
	awk '/^  "metrics": \{/ {on = 1; next} on && /^  }/ {exit}
		on {gsub(/[",]/, ""); sub(/:/, ""); print $1, $2}' "$1" | sort
}

# median of the numbers given.
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

if [ -n "$STAGES" ]; then
	ROUNDS=1
	printf 'against %s, instructions by stage, %s\n' "$(git -C "$root" rev-parse --short "$AGAINST")" "$(date -u '+%Y-%m-%d %H:%M UTC')"
else
	printf 'against %s, %s rounds, %s\n\n' "$(git -C "$root" rev-parse --short "$AGAINST")" "$ROUNDS" "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf '| run | %s | now | speed-up | shared metrics |\n|---|---|---|---|---|\n' "$AGAINST"
fi
echo "$cases" | while IFS='|' read -r name target args; do
	olds='' news=''
	i=0
	while [ "$i" -lt "$ROUNDS" ]; do
		olds="$olds $(wall "$work/old" "$args" "$work/old.out")"
		news="$news $(wall "$work/new" "$args" "$work/new.out")"
		i=$((i + 1))
	done
	metrics "$work/old.out" >"$work/old.m"
	metrics "$work/new.out" >"$work/new.m"
	join "$work/old.m" "$work/new.m" >"$work/all.m"
	# The redefined metrics the outputs share go aside, named in note.
	note=$(awk -v skip="$skip" 'BEGIN {n = split(skip, s, " "); for (i = 1; i <= n; i++) {split(s[i], p, ":"); by[p[1]] = p[2]}}
		$1 in by {printf "; %s not compared (redefined by %s)", $1, by[$1]}' "$work/all.m")
	awk -v skip="$skip" 'BEGIN {n = split(skip, s, " "); for (i = 1; i <= n; i++) {split(s[i], p, ":"); drop[p[1]] = 1}}
		!($1 in drop)' "$work/all.m" >"$work/both.m"
	shared=$(wc -l <"$work/both.m")
	differ=$(awk '$2 != $3' "$work/both.m" | wc -l)
	ok=true
	same="$shared identical$note"
	if [ "$differ" -ne 0 ] || [ "$shared" -eq 0 ]; then
		ok=false
		same="$differ of $shared DIFFER"
	fi
	if [ -n "$STAGES" ]; then
		stage "$work/old.out.cg" >"$work/old.st"
		stage "$work/new.out.cg" >"$work/new.st"
		printf '\n%s (`%s`), metrics %s; millions of instructions:\n\n' "$name" "$args" "$same"
		printf '| stage | %s | now |\n|---|---|---|\n' "$AGAINST"
		# Both in the table's order, line for line: stage, old, stage, new.
		paste -d ' ' "$work/old.st" "$work/new.st" | awk -v target="$target" '
			BEGIN {
				label["issue"] = "issue path: scheduler, issue, the trace cursor"
				label["coalesce"] = "coalescing and the per-reference counts"
				label["lsu"] = "LSU, L1 and L2 lookups, MSHRs, the data back to the warps"
				label["port"] = "port: to DRAM and back"
				label["dram"] = "DRAM model (sim/dram)"
				label["events"] = "event queue and engine loop"
				label["other"] = "the rest: setup, output, the Go runtime"
				label["total"] = "total"
			}
			{printf "| %s | %.0f | %.0f |\n", label[$1], $2 / 1e6, $4 / 1e6; if ($1 == "total") old = $2}
			END {printf "| the whole run at the target, %s× | | %.0f |\n", target, old / target / 1e6}'
	else
		# shellcheck disable=SC2086
		speedup=$(echo "$(median $olds) $(median $news)" | awk '{printf "%.2fx", $1 / $2}')
		# shellcheck disable=SC2086
		printf '| %s (`%s`) | %s s | %s s | %s | %s |\n' "$name" "$args" "$(echo $olds | sed 's/ /, /g')" "$(echo $news | sed 's/ /, /g')" "$speedup" "$same"
	fi
	if ! $ok; then
		awk '$2 != $3 {print "  " $1 ": " $2 " against " $3}' "$work/both.m" >&2
		exit 1
	fi
done
