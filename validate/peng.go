package validate

import (
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// PengSegment is the transaction size of Peng et al.'s counting rule: a
// warp access costs one transaction per distinct 128-byte segment.
const PengSegment = 128

// PengMaxTrace bounds the per-thread access sequence PengEstimate unrolls
// (about 100 MiB of working memory at the bound).
const PengMaxTrace = 1 << 22

// PengAccess is one global access of a kernel under Peng et al.'s model:
// a static reference, its transactions per warp, and the cache behaviour
// of its executions in the unrolled per-thread program.
type PengAccess struct {
	// Ref is the index in traces.Launch.Refs.
	Ref   int    `json:"ref"`
	Text  string `json:"text"`
	Array string `json:"array"`
	Op    string `json:"op"`
	// An access is (array, field offset, element size, index): it reads
	// Width bytes at base + Index·ElemSize + FieldOffset. For an array of
	// scalars FieldOffset is 0 and ElemSize = Width; for a struct array's
	// field they are the field's offset in its group's structure and the
	// group's size under the kernel's layout (the structure's for an
	// array of structures, the field's for a structure of arrays).
	FieldOffset int64 `json:"field_offset"`
	ElemSize    int64 `json:"elem_size"`
	Width       int64 `json:"width"`
	// Stride is the byte distance between the addresses of adjacent
	// threads along tx (Peng's indexDiff · sizeof), 0 when tx does not
	// index the access or when it is DynamicStride.
	Stride int64 `json:"stride"`
	// Indirect says the access's subscript depends on data read from an
	// index array (V[COL[i]], or rB[first + tx] with first read from a
	// list; J14's Z, traces.IndexUnknowns): its index difference to any
	// other access is unknown, and the estimate makes Peng's assumption
	// for it (PengIndirectAssumption).
	Indirect bool `json:"indirect,omitempty"`
	// DynamicStride says the data decide the stride along tx itself
	// (V[COL[tx]], a Z in the tx column), not only a base: Peng's rule for
	// a stride unknown at compile time applies.
	DynamicStride bool `json:"dynamic_stride,omitempty"`
	// Transactions is the transaction count per warp execution (see
	// PengTransactions), for warp 0 of block 0.
	Transactions int `json:"transactions_per_warp"`
	// Loops are the in-thread loops enclosing the access, outermost
	// first; Degree is its complexity degree, the number of them whose
	// trip count depends on a param (variable-length loops).
	Loops  []string `json:"loops"`
	Degree int      `json:"complexity_degree"`
	// Executions is how often one thread executes the access (the actual
	// trip counts: with params bound, no loop length is unknown) and
	// Warps the warps with an active lane; Requests = Warps · Executions ·
	// Transactions is N_read or N_write.
	Executions int64 `json:"executions"`
	Warps      int64 `json:"warps"`
	Requests   int64 `json:"requests"`
	// L1Hits and L2Hits count the executions the hit rule sends to L1 and
	// (among the L1 misses) to L2; the rest go to DRAM. L1HitRatio is
	// L1Hits / Executions and L2HitRatio is L2Hits / (Executions −
	// L1Hits): Peng's R_L1 and R_L2 (R_L2_write for a store).
	L1Hits     int64   `json:"l1_hits"`
	L2Hits     int64   `json:"l2_hits"`
	L1HitRatio float64 `json:"l1_hit_ratio"`
	L2HitRatio float64 `json:"l2_hit_ratio"`
	// The last execution's reuse: Previous is the reference of the most
	// recent earlier access to the same array ("" when there is none),
	// IndexDiff its element-index difference (IndexKnown false when the
	// difference depends on the thread), and L1Distance and L2Distance
	// the instruction distances to it in bytes (0 with no previous
	// access; the L1 one to the most recent load, as stores bypass L1).
	Previous    string     `json:"previous"`
	IndexDiff   int64      `json:"index_diff"`
	IndexKnown  bool       `json:"index_known"`
	L1Distance  arch.Bytes `json:"l1_distance"`
	L2Distance  arch.Bytes `json:"l2_distance"`
	L1Accordant bool       `json:"l1_accordant"`
	L2Accordant bool       `json:"l2_accordant"`
	// Cost is Peng's weighted cost of the access and CostVector that cost
	// at position Degree of a vector of length len(Loops)+1.
	Cost       float64        `json:"cost"`
	CostVector PengCostVector `json:"cost_vector"`
}

// PengResult is Peng et al.'s static estimate for one launch on one
// device.
type PengResult struct {
	Device  string    `json:"device"`
	Kernel  string    `json:"kernel"`
	Mapping string    `json:"mapping"`
	Block   arch.Dim3 `json:"block"`
	Grid    arch.Dim3 `json:"grid"`
	// Weights are W̃_L1, W̃_L2, W̃_DRAM (PengWeightsFor) with their source.
	Weights PengWeights `json:"weights"`
	// BlocksPerSM is PengBlocksPerSM with the kernel's registers.
	BlocksPerSM int `json:"blocks_per_sm"`
	// L1Size is 0 when global loads do not use the L1 (no L1, or not
	// cached in it as on Kepler); L2Size is 0 without an L2. L1Line and
	// L2Line are the accordance line sizes: the L1 line, and the L2
	// sector (Peng's 32-B L2 line) or line.
	L1Size arch.Bytes `json:"l1_size"`
	L1Line arch.Bytes `json:"l1_line"`
	L2Size arch.Bytes `json:"l2_size"`
	L2Line arch.Bytes `json:"l2_line"`
	// Accesses in reference order.
	Accesses []PengAccess `json:"accesses"`
	// Totals.
	ReadRequests  int64          `json:"read_requests"`
	WriteRequests int64          `json:"write_requests"`
	ReadCost      float64        `json:"read_cost"`
	WriteCost     float64        `json:"write_cost"`
	Cost          float64        `json:"cost"`
	CostVector    PengCostVector `json:"cost_vector"`
}

// PengEstimate evaluates Peng et al.'s model (models.md §1.4) for a bound
// kernel on device d. The procedure and the decisions where the paper is
// silent:
//
//   - Transactions per warp: PengTransactions over the lane addresses of
//     warp 0 of block 0 at the access's first execution by thread 0.
//   - The per-thread program of global thread 0 is unrolled into one
//     access sequence with the actual trip counts (params are bound, so
//     Peng's 100-iteration guess for unknown loop lengths is never needed;
//     the complexity degree still records which loops depend on a param).
//     All threads are assumed to run that sequence in lockstep, as Peng
//     assumes; in-thread loops whose bounds depend on the thread take
//     thread 0's trip counts.
//   - Hit rule: an execution hits in L1 iff the most recent earlier load
//     of the same array lies within the L1 distance (≤ the L1 size) and is
//     index-accordant for the L1 line; stores never hit in L1 (Fermi
//     stores bypass it). Among L1 misses, it hits in L2 iff the most
//     recent earlier access (load or store) of the same array lies within
//     the L2 distance (≤ the L2 size) and is accordant for the L2 line.
//     The same field counts: Peng's wording does not exclude y = x, and
//     with arrays of scalars every access of an array is to its one
//     "field", so temporal reuse (A[i] read twice) and spatial reuse
//     (A[i] after A[i−1]) both count.
//   - Distances count the unique bytes thread 0 touches from the previous
//     access to the current one, inclusive (unique addresses × width),
//     times BlocksPerSM · block size (L1) or blocks · block size (L2).
//   - The index difference is known at compile time iff the two
//     references' element indices have the same coefficients on the
//     mapped loops (the thread-dependent part cancels); it is then the
//     difference of their element indices in thread 0's sequence.
//   - A per-thread (__global__) kernel: thread 0's sequence and each
//     access's lanes come from running warp 0 of block 0 through the
//     launch's cursor, with the kernel's own ifs and loops; its strides,
//     enclosing loops and index differences from its affine view
//     (traces.AccessColumns, IndexForms), so a global reference whose
//     subscript is neither affine nor data-dependent (below) is an error
//     naming it; every warp of its grid is active; shared-memory
//     references are left out.
//   - An indirect access (a subscript that depends on data read from an
//     index array) is PengIndirectAssumption. Its index difference to any
//     other access is unknown, so it never hits in L1 or L2 and no access
//     after it hits through it. Where the data decide its stride along tx
//     (V[COL[i]], DynamicStride), Peng's rule for a stride unknown at
//     compile time applies, "all dynamic strides are larger than 128
//     bytes": each active lane of the warp is its own transaction (32 for
//     a full warp). Where they decide only a base (rB[first + tx], first
//     read from a neighbour list), the stride is known and its
//     transactions are warp 0's, as any access's. Its executions are
//     thread 0's actual ones, its data-dependent trip counts included.
//   - Costs are per warp: each warp with an active lane executes the
//     sequence, Requests = warps · executions · transactions, weighted by
//     PengCost (Peng's example multiplies by threads instead; models.md
//     flags that factor).
func PengEstimate(d *arch.Device, l *traces.Launch) (PengResult, error) {
	w, err := PengWeightsFor(d)
	if err != nil {
		return PengResult{}, fmt.Errorf("%s on %s: %w", l.Kernel.Name, d.Name, err)
	}
	bs := l.Block.Threads()
	bps, err := PengBlocksPerSM(d, bs, l.Regs)
	if err != nil {
		return PengResult{}, fmt.Errorf("%s on %s: %w", l.Kernel.Name, d.Name, err)
	}
	res := PengResult{Device: d.Name, Kernel: l.Kernel.Name, Mapping: l.Mapping.String(), Block: l.Block, Grid: l.Grid(),
		Weights: w, BlocksPerSM: bps, L1Line: d.L1.Line}
	if d.L1.Present() && d.Coalescer.CacheGlobalLoads {
		res.L1Size = d.L1.Size
	}
	// A texture-only L2 (G80, GT200) holds no global data.
	if d.L2.CachesGlobal() {
		res.L2Size, res.L2Line = d.L2.Size, d.L2.Line
		if d.L2.Sector > 0 {
			res.L2Line = d.L2.Sector
		}
	}

	cols := l.AccessColumns()
	warps := pengActiveWarps(l)
	accOf := make([]int, len(l.Refs)) // access of each reference; -1 for those not Modelled
	var accs []PengAccess
	var index []traces.Linear
	var errs []error
	for i, r := range l.Refs {
		accOf[i] = -1
		if !r.Modelled() {
			continue
		}
		a, ix, err := pengAccess(l, cols, i, warps)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		accOf[i] = len(accs)
		accs, index = append(accs, a), append(index, ix)
	}
	if len(errs) > 0 {
		return PengResult{}, refErrors(errs)
	}

	trace, lanes, err := pengTrace(l, accOf, len(accs))
	if err != nil {
		return PengResult{}, err
	}
	for k := range accs {
		accs[k].Transactions = PengTransactions(lanes[k], accs[k].Width)
		if accs[k].DynamicStride {
			accs[k].Transactions = len(lanes[k])
		}
	}
	pengReuse(l, cols, &res, trace, index, accs)

	for i := range accs {
		a := &accs[i]
		a.Requests = a.Warps * a.Executions * int64(a.Transactions)
		if a.Executions > 0 {
			a.L1HitRatio = float64(a.L1Hits) / float64(a.Executions)
			if m := a.Executions - a.L1Hits; m > 0 {
				a.L2HitRatio = float64(a.L2Hits) / float64(m)
			}
		}
		var t PengTraffic
		if a.Op == traces.OpStore.String() {
			t = PengTraffic{WriteRequests: a.Requests, L2WriteHit: a.L2HitRatio}
			res.WriteRequests += a.Requests
		} else {
			t = PengTraffic{ReadRequests: a.Requests, L1ReadHit: a.L1HitRatio, L2ReadHit: a.L2HitRatio}
			res.ReadRequests += a.Requests
		}
		rd, wr, err := PengCost(w, t)
		if err != nil {
			panic(fmt.Sprintf("validate: %s: %s: %v", l.Kernel.Name, a.Text, err))
		}
		res.ReadCost += rd
		res.WriteCost += wr
		a.Cost = rd + wr
		a.CostVector = PengComplexityVector(a.Degree, len(a.Loops)).Scale(a.Cost)
		res.CostVector = res.CostVector.Add(a.CostVector)
	}
	res.Cost = res.ReadCost + res.WriteCost
	res.Accesses = accs
	return res, nil
}

// pengAccess is global reference i of l before its executions are
// counted, and its element index as an affine form of the columns.
func pengAccess(l *traces.Launch, cols []traces.AccessColumn, i int, warps int64) (PengAccess, traces.Linear, error) {
	r := &l.Refs[i]
	ba := jangArrayOf(l, r.Array)
	a := PengAccess{Ref: i, Text: r.Text, Array: r.Array, Op: r.Op.String(),
		FieldOffset: int64(r.Offset), ElemSize: int64(r.ElemSize), Width: int64(r.Width), Warps: warps, Loops: []string{}}
	addr, err := l.AddrForm(i)
	if err != nil {
		return a, traces.Linear{}, err
	}
	loops, err := l.EnclosingLoops(i)
	if err != nil {
		return a, traces.Linear{}, err
	}
	unknown, unknownConst, err := l.IndexUnknowns(i)
	if err != nil {
		return a, traces.Linear{}, err
	}
	a.Indirect = unknown != nil || unknownConst != nil
	for _, v := range loops {
		c := cols[v]
		if c.Thread {
			if c.Axis != kernel.AxisX {
				continue
			}
			if a.DynamicStride = dynamicStride(cols, unknown, v); !a.DynamicStride {
				a.Stride = max(addr.Coef[v]*c.Step, -addr.Coef[v]*c.Step)
			}
			continue
		}
		a.Loops = append(a.Loops, c.Var)
		if c.ProblemSize {
			a.Degree++
		}
	}
	return a, pengElementIndex(addr, ba.Base, a.FieldOffset, a.ElemSize), nil
}

// dynamicStride says the data decide a subscript's stride along tx,
// column x: its J14 matrix has a Z in x's column, or in the column of a
// data loop whose start varies along tx (V[COL[jj]] with jj from
// ROW[row], row from threadIdx.x). unknown is IndexUnknowns' (nil when
// nothing is Z).
func dynamicStride(cols []traces.AccessColumn, unknown [][]bool, x int) bool {
	for _, row := range unknown {
		for v, z := range row {
			if z && (v == x || cols[v].DataAlongX) {
				return true
			}
		}
	}
	return false
}

// PengIndirectAssumption is what the estimate assumes of an indirect
// access, as the estimate prints it.
const PengIndirectAssumption = "data-dependent subscript: its index difference to other accesses is unknown, so nothing is reused through it; where the data decide its stride along tx, every active lane is its own transaction (Peng's rule for a dynamic stride: larger than 128 B), else its transactions are warp 0's as for any access"

// PengTransactions counts the transactions of one warp access from the
// byte addresses of its active lanes (in lane order) and the bytes each
// lane reads, by Peng et al.'s table: a full warp with one stride s
// between adjacent lanes costs 1 for s = 0, 1 for s = ±4 when the lowest
// address is 128-B aligned, N for s = 4·N with 1 < N < 32 (N 128-byte
// transactions) and 32 for s ≥ 128; anything else (a partial warp, mixed
// strides as in a warp spanning two rows of a 2-D block, other strides)
// is the general case, the number of distinct 128-byte segments the lanes
// touch. No lanes, no transactions.
func PengTransactions(lanes []int64, width int64) int {
	if len(lanes) == 0 {
		return 0
	}
	if len(lanes) == traces.WarpSize {
		s, uniform := lanes[1]-lanes[0], true
		for i := 2; i < len(lanes) && uniform; i++ {
			uniform = lanes[i]-lanes[i-1] == s
		}
		s = max(s, -s)
		switch {
		case !uniform:
		case s == 0:
			return 1
		case s == 4 && min(lanes[0], lanes[len(lanes)-1])%PengSegment == 0:
			return 1
		case s%4 == 0 && s/4 > 1 && s/4 < 32:
			return int(s / 4)
		case s >= PengSegment:
			return traces.WarpSize
		}
	}
	segs := make([]int64, 0, 2*len(lanes))
	for _, a := range lanes {
		for _, s := range []int64{pengFloorDiv(a, PengSegment), pengFloorDiv(a+max(width, 1)-1, PengSegment)} {
			if !pengContains(segs, s) {
				segs = append(segs, s)
			}
		}
	}
	return len(segs)
}

func pengContains(s []int64, x int64) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func pengFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// pengElementIndex turns a byte-address form into the element-index form
// (address − base − field offset) / element size.
func pengElementIndex(addr traces.Linear, base uint64, fieldOffset, elemSize int64) traces.Linear {
	f := traces.Linear{Const: (addr.Const - int64(base) - fieldOffset) / elemSize, Coef: make([]int64, len(addr.Coef))}
	for v, c := range addr.Coef {
		f.Coef[v] = c / elemSize
	}
	return f
}

// pengActiveWarps counts the warps of the grid with at least one active
// lane (every warp of a per-thread kernel's grid). Blocks come in at most
// 8 kinds (full or the partial last block along each axis), so it counts
// one block of each kind.
func pengActiveWarps(l *traces.Launch) int64 {
	ext := l.ThreadExtents()
	b := [3]int64{int64(l.Block.X), int64(l.Block.Y), int64(l.Block.Z)}
	type part struct{ n, size int64 }
	var parts [3][]part
	for ax := range 3 {
		if full := ext[ax] / b[ax]; full > 0 {
			parts[ax] = append(parts[ax], part{full, b[ax]})
		}
		if r := ext[ax] % b[ax]; r > 0 {
			parts[ax] = append(parts[ax], part{1, r})
		}
	}
	threads := b[0] * b[1] * b[2]
	var total int64
	for _, px := range parts[0] {
		for _, py := range parts[1] {
			for _, pz := range parts[2] {
				var active int64
				for w := int64(0); w*traces.WarpSize < threads; w++ {
					for t := w * traces.WarpSize; t < min((w+1)*traces.WarpSize, threads); t++ {
						if t%b[0] < px.size && t/b[0]%b[1] < py.size && t/(b[0]*b[1]) < pz.size {
							active++
							break
						}
					}
				}
				total += px.n * py.n * pz.n * active
			}
		}
	}
	return total
}

// pengReuse applies the hit rule to every execution of thread 0's
// sequence and fills the accesses' executions, hits and last-execution
// reuse fields.
func pengReuse(l *traces.Launch, cols []traces.AccessColumn, res *PengResult, trace []pengStep, index []traces.Linear, accs []PengAccess) {
	n := len(trace)
	fen := make([]int64, n+1) // Fenwick tree: width at each address's last position
	add := func(i int, v int64) {
		for i++; i <= n; i += i & -i {
			fen[i] += v
		}
	}
	prefix := func(i int) int64 { // sum of positions < i
		var s int64
		for ; i > 0; i -= i & -i {
			s += fen[i]
		}
		return s
	}
	type lastUse struct {
		pos   int
		width int64
	}
	last := map[int64]lastUse{}
	base := make([]int64, len(accs))
	for i := range accs {
		base[i] = int64(jangArrayOf(l, accs[i].Array).Base) + accs[i].FieldOffset
	}
	prevAny := map[string]int{}
	prevLoad := map[string]int{}
	bs := arch.Bytes(l.Block.Threads())
	// unique bytes from position p to k inclusive, before k is recorded.
	unique := func(p, k int) arch.Bytes {
		u := prefix(k) - prefix(p)
		if q, ok := last[trace[k].addr]; !ok || q.pos < p {
			u += accs[trace[k].ref].Width
		}
		return arch.Bytes(u)
	}
	for k, s := range trace {
		a := &accs[s.ref]
		a.Executions++
		store := a.Op == traces.OpStore.String()
		a.Previous, a.IndexKnown, a.IndexDiff = "", false, 0
		a.L1Distance, a.L2Distance, a.L1Accordant, a.L2Accordant = 0, 0, false, false
		diff := func(p int) (int64, bool) {
			q := trace[p].ref
			if a.Indirect || accs[q].Indirect {
				return 0, false // PengIndirectAssumption: no reuse
			}
			for v, c := range cols {
				if c.Thread && index[q].Coef[v] != index[s.ref].Coef[v] {
					return 0, false
				}
			}
			eq := (trace[p].addr - base[q]) / accs[q].ElemSize
			ek := (s.addr - base[s.ref]) / a.ElemSize
			return ek - eq, true
		}
		hitL1 := false
		if p, ok := prevLoad[a.Array]; ok && !store {
			a.L1Distance = PengL1Distance(res.BlocksPerSM, int(bs), unique(p, k))
			d, known := diff(p)
			a.L1Accordant = known && res.L1Line > 0 && PengIndexAccordant(d, arch.Bytes(a.ElemSize), res.L1Line)
			hitL1 = res.L1Size > 0 && a.L1Distance <= res.L1Size && a.L1Accordant
		}
		if p, ok := prevAny[a.Array]; ok {
			a.Previous = accs[trace[p].ref].Text
			a.IndexDiff, a.IndexKnown = diff(p)
			a.L2Distance = PengL2Distance(l.Blocks(), int(bs), unique(p, k))
			a.L2Accordant = a.IndexKnown && res.L2Line > 0 && PengIndexAccordant(a.IndexDiff, arch.Bytes(a.ElemSize), res.L2Line)
			if !hitL1 && res.L2Size > 0 && a.L2Distance <= res.L2Size && a.L2Accordant {
				a.L2Hits++
			}
		}
		if hitL1 {
			a.L1Hits++
		}
		if q, ok := last[s.addr]; ok {
			add(q.pos, -q.width)
		}
		add(k, a.Width)
		last[s.addr] = lastUse{k, a.Width}
		prevAny[a.Array] = k
		if !store {
			prevLoad[a.Array] = k
		}
	}
}
