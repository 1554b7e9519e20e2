// Package traces turns kernel files — a C-like loop nest as the papers
// print it, a mapping of loops to thread dimensions and a block shape —
// into a lazy stream of warp instructions with per-lane addresses.
//
// # Kernel files
//
// A kernel file is YAML with the keys name, description, params (name →
// integer default), arrays (name → {type, dims, layout, align, base}),
// source, mapping (loop → tx|ty|tz), block ([x, y, z]), regs (registers per
// thread), smem (shared memory per block, e.g. 4KiB) and dependent (true:
// every load waits for the previous load, for pointer-chase latency
// probes). Unknown or duplicate keys and wrong types are errors at
// file:line:col. Shipped examples load by name (Examples); anything else
// is a path. A file without block gets 128 threads.
//
// Arrays are placed in declaration order from DefaultBase (0x10000000),
// each base rounded up to its align (DefaultAlign, 256 bytes); an array
// with base keeps it, later arrays go after the highest end so far, and
// overlapping arrays are an error. Addresses are not checked against the
// array bounds.
//
// # The source subset
//
// for loops (for (v = lo; v < hi; v++), also <=, ++v and v += c with c a
// positive expression of params) with bounds affine in params and outer
// loop variables, bodies with or without braces; scalar declarations
// (float acc = 0;) and assignments, which live in registers; array
// statements with =, +=, -=, *=, /=; expressions with + - * / %, unary
// minus, parentheses and calls (min, max, fmin, fmax, pow, sqrt, rsqrt,
// fabs, abs, exp, log, sin, cos, floor, ceil); comments // and /* */.
// Subscripts are affine in the loop variables, with coefficients that are
// expressions of params. Every loop has its own variable name.
//
// # Semantics and instruction counts
//
// Per iteration, statements run in order. Within a statement the array
// reads happen left to right, then the write; X[..] op= e reads X first.
// Each statement counts its non-memory instructions:
//
//   - 1 per array reference (address arithmetic; affine addresses are
//     strength-reduced to one add or multiply-add per reference),
//   - 1 per arithmetic operator (+ - * / % and unary minus) and per call,
//   - 1 for the operator of a compound assignment (+= etc.),
//   - a scalar statement that would count 0 (acc = 0, x = y) counts 1, a
//     register move.
//
// Index expressions themselves cost nothing beyond the 1 per reference.
// Loop control costs 3 instructions (increment, compare, branch) per
// iteration a warp executes of a loop that runs inside the thread; it is
// added to the next OpCompute the warp emits, and what is left at the end
// of a warp becomes one final OpCompute. Mapped loops cost nothing.
// So matmul's i3 iteration is load A, load B, compute 7 (2 addresses, *,
// +=, 3 loop control).
//
// # Mapping and the warp stream
//
// Bind maps loops to thread axes. A mapped loop's bounds depend on params
// only; its extent E gives the grid ceil(E/block) along its axis, and the
// thread with global coordinate g runs the iteration lower + g·step. An
// axis without a mapped loop has extent 1. Threads past an extent are
// inactive lanes. Mapped loops vanish from the thread's program (their
// bodies run once per thread, in place); the other loops run inside the
// thread in source order. An in-thread loop whose bounds depend on a
// mapped variable is divergent: each lane runs to its own bound and is
// masked off after it (SIMT), and the warp runs the loop while any lane
// does.
//
// Warps are 32 consecutive linear thread ids of a block (x fastest);
// blocks are numbered linearly (x fastest). Each statement execution
// yields its loads in order, then an OpCompute with the statement's count
// plus pending loop control (when non-zero), then its store. A warp whose
// lanes are all inactive yields nothing at all. Inactive lanes' addresses
// are 0; an OpCompute's addresses are unspecified (left from the previous
// instruction, as clearing them would cost as much as filling them).
//
// Addresses come from the reference's affine byte form (Ref.Addr),
// computed once at Bind: the part that depends on thread coordinates is
// tabulated once per launch for every lane position of a block, and each
// reference keeps its uniform offset as the loop variables step, so each
// instruction costs one add per lane. The stream holds one cursor's state
// and never the trace.
//
// # Extension points
//
// The IR is built for CUDA-style kernels, structs and indirect indices to
// join without redesign: Array.Space names the memory space (shared and
// constant join SpaceGlobal), ExprKind gains thread- and block-index terms
// (which become mapped terms of the address form), an ExprLoad inside a
// subscript is an indirect index (its refGen term kind reads the index
// array), a barrier becomes a Node kind and an Op, and struct fields add a
// byte offset and element stride to a reference.
package traces
