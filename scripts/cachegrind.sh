# cachegrind.sh: the one way scripts/pgo-check.sh and scripts/against.sh
# count a run's instructions; sourced, not run.
#
# cachegrind_run OUT CGOUT BIN ARGS... runs BIN with ARGS under cachegrind
# (GOMAXPROCS=1 GOGC=off, no cache model), its standard output to OUT,
# its standard error to OUT.err and its counts to CGOUT (/dev/null for
# none). It returns the run's exit status.
#
# GODEBUG=cpu.rdtscp=off: valgrind 3.19 (Debian 12's) reports RDTSCP in
# CPUID but cannot decode it, and the Go runtime's cputicks runs it where
# CPUID has it (on contended runtime locks, more often beside another
# busy process): the run then dies of SIGILL in a runtime thread, as 13
# of some 34 runs of one make pgo-check did on 2026-12-01. With the
# feature off, cputicks reads the clock by LFENCE and RDTSC, which
# valgrind decodes; the simulation does not read that clock.
cachegrind_run() {
	cg_out=$1
	cg_counts=$2
	shift 2
	GODEBUG=cpu.rdtscp=off GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file="$cg_counts" "$@" >"$cg_out" 2>"$cg_out.err"
}

# cachegrind_count prints the instructions cachegrind counted in the
# standard error ERR of a run.
cachegrind_count() {
	awk '/I *refs:/ {gsub(",", "", $NF); print $NF}' "$1"
}
