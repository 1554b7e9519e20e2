#!/bin/sh
# estimate-error.sh: how far the time `run` estimates before it starts is
# from the time the run takes. For every shipped per-thread example (or
# KERNELS) on every device (or DEVICES), at its own size, it runs
# `gpumemsim run -format json` under a pseudo-terminal (script(1)), where
# the estimate is printed, and under /usr/bin/time, and prints a line per
# run: the kernel, the device, the estimated and the user seconds and
# their ratio; then, per class of device (with an L2 for global memory or
# without), the runs of at least MIN seconds: the least and greatest
# ratio, the median and how many are within 2x.
#
#	make estimate-error                          # about 47 min of CPU
#	KERNELS="matmul-tiled siddon" DEVICES=fermi sh scripts/estimate-error.sh
#
# The rates the estimate uses (cmd/gpumemsim/rates.go) were fitted to
# sim.Run of every example on the development machine (make fit-rates,
# which refits them); another machine scales every ratio by its speed.
set -eu
export LC_ALL=C

GO=${GO:-go}
DEVICES=${DEVICES:-g80 gt200 fermi kepler maxwell a100}
MIN=${MIN:-0.1}

root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
bin=$work/gpumemsim
(cd "$root" && "$GO" build -o "$bin" ./cmd/gpumemsim)

# The per-thread examples: those whose source is a __global__ function.
if [ -z "${KERNELS:-}" ]; then
	KERNELS=$("$bin" run -kernel nosuch 2>&1 | sed -n 's/.*(examples: \([^)]*\)).*/\1/p' | tr -d ',')
	for k in $KERNELS; do
		"$bin" run -kernel "$k" -show-kernel | grep -q __global__ && echo "$k"
	done >"$work/kernels"
	KERNELS=$(cat "$work/kernels")
fi

# seconds converts the estimate's duration (40 ms, 3.1 s, 2.5 min, 12 h)
# to seconds.
seconds() {
	awk -v v="$1" -v u="$2" 'BEGIN { f = (u == "ms") ? 0.001 : (u == "min") ? 60 : (u == "h") ? 3600 : 1; printf "%.4g", v * f }'
}

printf 'kernel\tdevice\testimated_s\tuser_s\tratio\n' >"$work/runs"
for k in $KERNELS; do
	for d in $DEVICES; do
		script -qec "/usr/bin/time -f 'user %U' $bin run -device $d -kernel $k -format json >/dev/null" /dev/null >"$work/out" 2>&1 || {
			echo "estimate-error.sh: $k on $d failed:" >&2
			tr '\r' '\n' <"$work/out" | tail -3 >&2
			exit 1
		}
		est=$(tr '\r' '\n' <"$work/out" | sed -n 's/.*; estimated \([0-9.]*\) \([a-z]*\).*/\1 \2/p' | head -1)
		user=$(tr '\r' '\n' <"$work/out" | sed -n 's/^user \([0-9.]*\).*/\1/p' | tail -1)
		[ -n "$est" ] || est="0 s" # a grid of no blocks prints none
		# shellcheck disable=SC2086 # value and unit
		s=$(seconds $est)
		ratio=$(awk -v u="$user" -v s="$s" 'BEGIN { if (s > 0) printf "%.2f", u / s; else print "inf" }')
		printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$d" "$s" "$user" "$ratio" | tee -a "$work/runs"
	done
done

echo
echo "runs of at least $MIN s (user), actual over estimated:"
for class in L2 DRAM; do
	case $class in
	L2) devs="fermi kepler maxwell a100 fermi-l1-48k fermi-m2050" ;;
	DRAM) devs="g80 gt200" ;;
	esac
	awk -F'\t' -v min="$MIN" -v devs="$devs" 'NR > 1 && $4 >= min && index(" " devs " ", " " $2 " ") { print $5 }' "$work/runs" |
		sort -g >"$work/$class"
	n=$(wc -l <"$work/$class")
	[ "$n" -gt 0 ] || continue
	awk -v class="$class" -v n="$n" '{ r[NR] = $1; if ($1 >= 0.5 && $1 <= 2) w++ }
		END { printf "%s: %d runs, %.2f to %.2f, median %.2f, %d within 2x\n", class, n, r[1], r[n], r[int((n + 1) / 2)], w }' "$work/$class"
done
