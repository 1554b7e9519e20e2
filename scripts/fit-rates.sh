#!/bin/sh
# fit-rates.sh: fits the rates the time estimate uses (cmd/gpumemsim/
# rates.go) to this machine. It times sim.Run of every shipped example
# (or KERNELS, comma-separated) on every device, the devices split over
# two processes, one a core (ratefit_test.go: TestRateRows), then fits
# each class's rates, least squares of the relative error with every rate
# non-negative (TestRateFit), and prints them with the error they leave,
# the current rates' and each kernel's under rates fitted without it.
#
#	make fit-rates                     # about 85 min of CPU, 45 of wall time
#	KERNELS=vecadd,transpose-shared sh scripts/fit-rates.sh
#
# The runs are timed in user seconds, so run it on an otherwise idle
# machine; ROWS keeps the timed runs in that directory.
set -eu
export LC_ALL=C

GO=${GO:-go}
LANES=${LANES:-"g80,kepler,maxwell a100,gt200,fermi"}
MIN=${MIN:-0.1}

root=$(git rev-parse --show-toplevel)
work=${ROWS:-$(mktemp -d)}
[ -n "${ROWS:-}" ] || trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work"
bin=$work/rates.test
(cd "$root" && "$GO" test -c -o "$bin" ./cmd/gpumemsim)

files=
pids=
n=0
for devs in $LANES; do
	n=$((n + 1))
	f=$work/rows$n.tsv
	files=${files:+$files,}$f
	"$bin" -test.run '^TestRateRows$' -test.v -test.timeout 4h -rate-rows "$f" -rate-devices "$devs" \
		-rate-kernels "${KERNELS:-}" >"$work/rows$n.log" 2>&1 &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p" || {
		echo "fit-rates.sh: a lane failed:" >&2
		tail -5 "$work"/rows*.log >&2
		exit 1
	}
done
"$bin" -test.run '^TestRateFit$' -test.v -rate-fit "$files" -rate-min "$MIN" | sed -n 's/^ *ratefit_test.go:[0-9]*: //p'
