// Package traces binds a kernel (package kernel) to a mapping of its
// loops to thread dimensions, a block shape and parameter values, and
// turns the bound kernel into a lazy stream of warp instructions with
// per-lane addresses: the Source the simulator reads.
//
// # Binding
//
// Bind substitutes the parameters, evaluates the arrays' extents and
// places the arrays in declaration order from DefaultBase (0x10000000),
// each base rounded up to its align; an array with base keeps it, later
// arrays go after the highest end so far, and overlapping arrays are an
// error. Every loop bound and subscript becomes an affine form of the
// loop variables (Linear), and each reference's byte address one more
// (Ref.Addr).
//
// A kernel file with launches describes a host loop of launches:
// BindSequence evaluates it with the params and binds each launch in
// order, with its own grid and params; Bind refuses such a file
// (ErrSequence).
//
// # Mapping to threads
//
// A mapped loop's extent E gives the grid ceil(E/block) along its axis,
// and the thread with global coordinate g runs the iteration lower +
// g·step. An axis without a mapped loop has extent 1. Threads past an
// extent are inactive lanes. Mapped loops vanish from the thread's
// program (their bodies run once per thread, in place); the other loops
// run inside the thread in source order. An in-thread loop whose bounds
// depend on a mapped variable is divergent: each lane runs to its own
// bound and is masked off after it (SIMT), and the warp runs the loop
// while any lane does.
//
// # The warp stream
//
// Warps are 32 consecutive linear thread ids of a block (x fastest);
// blocks are numbered linearly (x fastest). Each statement execution
// yields its loads in order, then an OpCompute with the statement's count
// plus pending loop control (when non-zero), then its store. Loop
// control (3 per iteration a warp executes of an in-thread loop) is
// added to the next OpCompute the warp emits, and what is left at the
// end of a warp becomes one final OpCompute. A warp whose lanes are all
// inactive yields nothing at all. Inactive lanes' addresses are 0; an
// OpCompute's addresses are unspecified (left from the previous
// instruction, as clearing them would cost as much as filling them).
//
// The part of an address that depends on thread coordinates is tabulated
// once per launch for every lane position of a block, and each reference
// keeps its uniform offset as the loop variables step, so each
// instruction costs one add per lane. The stream holds one cursor's state
// and never the trace.
//
// # Checks and work
//
// Bind refuses what cannot run as written: a block of more than
// MaxBlockThreads threads or one the device cannot run, a grid of more
// than 2^31-1 blocks, a kernel without a mapping, a subscript outside its
// dimension anywhere the reference runs, and loop bounds beyond ±2^60.
// Ranges come from eliminating loop variables innermost first: exact for
// loops with constant bounds, sound otherwise. Errors in what the kernel
// file gives name its file, line and column.
//
// WarpInstructions and MemoryInstructions count a launch's work in closed
// form, in time independent of its iterations, so that a caller can
// refuse a launch too large to simulate before streaming any of it.
//
// # Index data
//
// A per-thread kernel's reads of integer arrays may give integers
// (V[COL[j]], j < ROW[i+1]); Bind builds the contents of the arrays that
// have them (kernel.Data: a generator, a file, a part of the kernel's
// matrix, whose sizes become params of the launch) and checks their
// length and range. The SIMT cursor keeps, for each such read, each
// lane's element and value (indexdata.Contents.At), which the
// expressions that use it read; an index outside its array names the
// element and the value it came from. Such reads stay off the loop
// nest's affine path. A canonical loop (trip.go) has its trip counts
// computed as a warp enters it, so a loop that never ends, overflows or
// passes the warp's cap (LimitWork) is an error at once. The static
// models see a data-dependent address as J14's Z entries of the affine
// view (IndexUnknowns, affine.go).
//
// # C's integer types
//
// A per-thread kernel's integer expressions compile (xcompile.go) to
// postfix programs the cursor runs once on scalars, or on the 32 lanes
// of a warp where they may differ (lanes.go; its operators, laneops.go;
// subscripts and values linear in lanes read in place, linear.go).
// They follow C's integer types (ctypes.go): each value is an int64 in
// its type's form, and a range analysis of the launch (thread indices
// below their extents, locals' assignments, loop counters) keeps the
// conversions C asks for to the places where a value can leave its
// type, which no shipped kernel has.
//
// # Extension points
//
// The subset's limits are structural, not slots waiting to be filled.
// Everything after parsing a loop nest assumes every address is an
// affine form of loop variables (Linear): the lane tables, the
// per-iteration offset steps, the halves shape and the estimators in
// validate all rest on it. An indirect index in a loop nest would lower
// to the per-thread form, whose cursor reads index data; struct fields
// need an element layout in kernel.Array and a byte offset in the
// address form. Each of them changes kernel, traces and sim together.
package traces
