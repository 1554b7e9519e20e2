// Package kernel reads kernel files: a C-like loop nest as the papers
// print it, with its parameters, its arrays, the mapping of its loops to
// thread dimensions and the block shape it is launched with. Package
// traces binds a Kernel to threads and turns it into warp instructions.
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
// Arrays have an element type (i8 u8 i16 u16 i32 u32 f32 i64 u64 f64),
// dims (extents, expressions of params, outermost first), a layout
// (row-major, the default, or col-major), an alignment of their base
// address (DefaultAlign unless align gives one) and optionally a fixed
// base address.
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
// Each statement counts its non-memory instructions (Stmt.Compute):
//
//   - 1 per array reference (address arithmetic; affine addresses are
//     strength-reduced to one add or multiply-add per reference),
//   - 1 per arithmetic operator (+ - * / % and unary minus) and per call,
//   - 1 for the operator of a compound assignment (+= etc.),
//   - a scalar statement that would count 0 (acc = 0, x = y) counts 1, a
//     register move.
//
// Index expressions themselves cost nothing beyond the 1 per reference.
// An iteration of a loop that runs inside a thread costs 3 instructions
// of loop control (increment, compare, branch); a loop mapped to threads
// costs nothing. So matmul's i3 iteration is 2 loads and 7 instructions
// (2 addresses, *, +=, 3 loop control).
//
// # Limits
//
// A kernel file has at most MaxFileSize bytes (1 MiB), MaxRefs array
// references (128), MaxStmts statements (1024) and MaxLoops loops (64,
// so loops nest at most 64 deep), and expressions nest at most
// MaxExprDepth (256) deep. The caps bound the memory of every warp
// cursor of a launch; each is an error at the position of the first
// thing past it.
//
// # Mapping
//
// A Mapping names, for some loops, the thread dimension (tx, ty, tz) that
// runs them; the others run inside each thread. A mapped loop's bounds
// depend on params only, and each thread dimension takes at most one loop.
package kernel
