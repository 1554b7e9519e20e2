package sim_test

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"gpumemsim/sim"
)

// peakRSS is the process's peak resident set in bytes (VmHWM in
// /proc/self/status), or false where that file does not exist.
func peakRSS(t *testing.T) (int64, bool) {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "VmHWM:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			t.Fatalf("/proc/self/status: VmHWM %q: %v", rest, err)
		}
		return kb << 10, true
	}
	return 0, false
}

// Counting every transaction of matmul at M = N = P = 4096 on fermi
// (2·4096³/32 ≈ 4.3·10⁹ memory warp instructions) streams: the process's
// peak resident set stays under 100 MB, because sim.Count holds one warp
// cursor and the per-reference counts, never the trace.
//
// It takes minutes of one core, so it runs only when asked:
//
//	GPUMEMSIM_LONG=1 go test ./sim -run TestCountStreamsMatmul4096 -v -timeout 30m
//
// Without /proc (not Linux), the bound checked is the Go runtime's memory
// obtained from the OS (runtime.MemStats.Sys), which bounds the heap and
// stacks but not the binary's own pages.
func TestCountStreamsMatmul4096(t *testing.T) {
	if os.Getenv("GPUMEMSIM_LONG") != "1" {
		t.Skip("takes minutes: set GPUMEMSIM_LONG=1 to count matmul at 4096³ and check its resident set")
	}
	const n = 4096
	dev, l := bind(t, "fermi", "matmul", "", "", map[string]int64{"M": n, "N": n, "P": n})
	start := time.Now()
	c, err := sim.Count(context.Background(), dev, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	// Mapping β on fermi (see wantMatmulBeta): n³/32 instructions per load
	// reference, n²/32 stores.
	if want := int64(2 * n * n * n / 32); c.Loads.Requests != want {
		t.Errorf("matmul 4096: %d load instructions; want %d", c.Loads.Requests, want)
	}
	if want := int64(3 * n * n * n / 32); c.Loads.Transactions != want {
		t.Errorf("matmul 4096: %d load transactions; want %d", c.Loads.Transactions, want)
	}
	if want := int64(n * n / 32); c.Stores.Requests != want {
		t.Errorf("matmul 4096: %d store instructions; want %d", c.Stores.Requests, want)
	}
	insts := c.Loads.Requests + c.Stores.Requests
	const limit = 100 << 20
	rss, ok := peakRSS(t)
	what := "peak resident set (VmHWM)"
	if !ok {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss, what = int64(ms.Sys), "Go runtime memory from the OS (MemStats.Sys)"
	}
	t.Logf("matmul 4096³ on fermi: %d memory warp instructions in %v (%.1f M/s); %s %.1f MiB",
		insts, elapsed.Round(time.Second), float64(insts)/elapsed.Seconds()/1e6, what, float64(rss)/(1<<20))
	if rss >= limit {
		t.Errorf("matmul 4096³: %s = %d bytes; want under %d", what, rss, limit)
	}
}
