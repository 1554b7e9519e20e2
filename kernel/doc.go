// Package kernel reads kernel files: a C-like loop nest as the papers
// print it, or a CUDA-style __global__ function (see Per-thread
// kernels), with its parameters, its arrays, the mapping of its loops to
// thread dimensions or its grid, and the block shape it is launched
// with. Both forms compile to one IR (Program). Package traces binds a
// Kernel to threads and turns it into warp instructions.
//
// # Kernel files
//
// A kernel file is YAML with the keys name, description, params (name →
// integer default), arrays (name → {type, dims, layout, align, base,
// space, data}),
// source, mapping (loop → tx|ty|tz), block ([x, y, z]), grid (per-thread
// kernels only), regs (registers per
// thread), smem (shared memory per block, e.g. 4KiB), dependent (true:
// every load waits for the previous load, for pointer-chase latency
// probes), launches (see Launch sequences) and matrix (see Index data).
// Unknown or duplicate keys
// and wrong types are errors at file:line:col. Shipped examples load by
// name (Examples); anything else is a path. A file without block gets 128
// threads.
//
// # Index data
//
// A per-thread kernel may read an integer array where it needs an
// integer: V[COL[j]], int start = ROW[i], if (COL[j] > 0), for (int j =
// ROW[i]; j < ROW[i+1]; j++). The simulator then needs the array's
// contents, which its data: key gives (package indexdata computes them):
//
//	COL: {type: i32, dims: [N], data: {gen: permutation, seed: 7}}     # a bijection of 0..N-1
//	IDX: {type: i32, dims: [N], data: {gen: uniform, lo: 0, hi: N, seed: 1}}  # lo ≤ x < hi
//	S:   {type: i32, dims: [N], data: {gen: strided, stride: 33}}       # i·33 mod N (mod: gives another)
//	P:   {type: i32, dims: [N], data: {file: perm.txt}}                 # integers, # comments
//	ROW: {type: i32, dims: ["M + 1"], data: {matrix: rowptr}}           # the matrix's row pointers
//	COL: {type: i32, dims: [NNZ], data: {matrix: col}}                  # its column indices
//
// A generator's integer arguments are expressions of params (the
// matrix's included); seed defaults to 1, lo to 0, mod to the array's
// element count. The contents must have exactly as many values as the
// array has elements, and fit its element type (checked when the launch
// binds). matrix: is the kernel's sparse matrix in CSR form, a Matrix
// Market file or a generator, and the params its sizes set, which are
// not params of the file and cannot be set:
//
//	matrix:
//	  mtx: data/west0479.mtx                   # or gen: banded, rows: R, width: 5
//	  params: {rows: M, cols: N, nnz: NNZ}     # or gen: powerlaw, rows: R, cols: C, avg: 8, exponent: 2.5, seed: 1
//	                                           # or gen: boxes, boxes1d: B (lavaMD's neighbour boxes)
//	                                           # or gen: rays, n: NV, width: W, height: H (a ray per row, its voxels)
//
// A symmetric (skew-symmetric, hermitian) .mtx file is mirrored into the
// whole matrix. Paths are relative to the kernel file; Load reads the
// files (Parse does not). SetData and SetMatrix do what the command's
// -data NAME=SPEC and -matrix SPEC do: SPEC is GEN:KEY=VALUE,...
// (permutation:seed=3, banded:rows=4096,width=5), file:PATH or
// matrix:rowptr|col for -data, a .mtx path for -matrix, with paths
// relative to the working directory. Only per-thread kernels take data:
// and matrix:, and only integer arrays data:.
//
// # Remaps
//
// An array of a per-thread kernel may be declared remapped, as
// Dymaxion's map_* kernels (CHE Ch. 5) lay it out before the kernel runs;
// the source keeps indexing it in the original, row-major index space,
// and the element of original index old (r·W + c for A[H][W]) lives at
// T(old):
//
//	A: {type: f32, dims: [H, W], remap: row2col}          # H·(old % W) + old / W = c·H + r
//	B: {type: f32, dims: [H, W], remap: col2row}          # old = c·H + r: W·(old % H) + old / H = r·W + c
//	S: {type: i32, dims: [N, N], remap: diagonal}         # N·(r + c) + r, (2N − 1)·N slots
//	T: {type: f32, dims: [H, W], remap: {tile: [16, 16]}} # tiles row-major, row-major inside
//	V: {type: f32, dims: [N], remap: {gather: COL}}       # V[COL[e]] reads V'[e]
//
// row2col, col2row, diagonal and tile remap 2-D arrays (diagonal a square one;
// a tile's sides, expressions of params, must divide the dims). A gather
// names an index array (one with data:) and every reference to the
// array must be V[COL[e]]: it reads V'[e] = V[COL[e]], an array of COL's
// length, and that read of COL is not made. AoS to SoA is not a remap:
// it is the struct layout soa (layouts:). Remapped arrays are declared
// as global arrays of scalars, not index arrays, not col-major (the
// command's -spaces may still move one to constant, texture or readonly
// memory: its addresses stay remapped); loop nests cannot be remapped
// (write the kernel as a __global__ function). SetRemap does what the
// command's -remap A=KIND does (KIND none, row2col, col2row, diagonal, tile:THxTW
// or gather:INDEX).
//
// Each read of index data is a memory reference of its own, issued
// before the one that needs its value (COL[j] before V[COL[j]]; a
// store's subscripts' reads before its value's); a condition's reads are
// If.Loads and While.Loads, issued at each test. A read that C performs
// for some threads only — after && or ||, in a branch of ?: — is refused
// (write nested ifs), as are reads of float arrays, of __shared__ arrays
// (whose values the kernel writes) and through tex2D. The loop nest
// still refuses indirect subscripts.
//
// # Launch sequences
//
// launches describes the host's loop of launches, run one after the
// other on one device (Needleman-Wunsch launches one kernel per
// anti-diagonal of blocks). It is a list of entries (HostLoop), each a
// single launch or a for loop of them:
//
//	launches:
//	  - for: {var: i, from: 1, to: N / 16}          # to is inclusive
//	    grid: [i]                                    # this entry's grid
//	    set: {I: i, PHASE: 1}                        # params per launch
//	  - for: {var: i, from: N / 16 - 1, to: 1, step: -1}
//	    grid: [i]
//	    set: {I: i, PHASE: 2}
//
// from and to are integer expressions of params, #defines and blockDim;
// step is a nonzero integer (default 1); the grid's extents and set's
// values may use the loop variable too. An entry without for is one
// launch; without grid it takes the file's grid, evaluated with the
// launch's params (a per-thread file must then have one); set names
// params of the file, which keep their defaults (or the caller's values)
// where no entry sets them. Every launch has the file's block. A file
// holds at most MaxHostLoops entries and a sequence at most MaxLaunches
// launches. A file without launches is one launch.
//
// Arrays have an element type (i8 u8 i16 u16 i32 u32 f32 i64 u64 f64),
// dims (extents, expressions of params, outermost first), a layout
// (row-major, the default, or col-major), an alignment of their base
// address (DefaultAlign unless align gives one), optionally a fixed
// base address, and a memory space: global (the default), constant,
// read through each SM's constant cache, texture, read through each
// SM's texture cache as through a texture reference bound to the array,
// or readonly, global memory whose every load goes through the read-only
// data cache (as __ldg; compute capability 3.5 and later). A[i] of a
// texture array is a texture fetch, and so is tex1Dfetch(A, i) in a
// per-thread kernel, which needs A to be a 1-D texture array (linear
// memory bound with cudaBindTexture); tex2D(A, x, y) reads A[y][x] of a
// 2-D texture array, which it makes a cudaArray (bound with
// cudaBindTextureToArray, laid out block-linear; see Fetch), so no other
// read of A may treat it as linear memory (tex1D and tex3D are refused).
// __ldg(&A[i]) and __ldg(A + i) read a global array through the
// read-only data cache, as do loads through a const __restrict__ pointer
// parameter on devices that have it (Program.ReadOnlyArg); a store
// through a const pointer is an error. A kernel only reads constant,
// texture and readonly memory: a store to
// such an array is an error at the store, and the constant arrays of a
// launch hold at most ConstantMemory (64 KB) together, which
// traces.Bind checks when the params size them. SetSpaces
// changes arrays' spaces after loading, as the command's -spaces flag
// does.
//
// Structs. The structs: key declares C structures, NAME: {FIELD: TYPE,
// ...}, fields of the element types in declaration order, each at the next
// multiple of its own size and the whole padded to a multiple of its
// largest field (Struct; NewStruct). An array whose type: names a struct
// holds such elements, and every reference to it names one field after
// its subscripts, P[i].x, in a loop nest and in a per-thread kernel alike
// (whose parameter is then [const] [struct] NAME *P). The layouts: key
// names layouts of the struct arrays, NAME: {ARRAY: GROUPING, ...}, a
// grouping being aos (one group), soa (one per field) or a list of
// groups of field names, every field in exactly one (DataLayout); a
// struct array a layout leaves out stays an array of structures. Each
// group is bound as its own array of structures of its fields, laid out
// anew in the group's order (traces.Bind names it A, A.f or A.{f,g}), so
// P[i].x reads x's group at its base + i·(group size) + (x's offset in
// the group). The first layout is the default; SelectLayout picks
// another, as -layout does. Nested structs, struct __shared__ and
// __constant__ declarations and struct textures are not supported.
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
//
// # Per-thread kernels
//
// A source with a __global__ function is a per-thread kernel (Form
// PerThread): what one thread of the launch runs. The source is #define
// lines, #include lines (ignored), __constant__ declarations and exactly
// one
//
//	__global__ void NAME(float *A, const float * __restrict__ B, int N, float alpha) { ... }
//
// Anything else outside the function is an error. Such a file has no
// mapping; grid gives its grid, one to three extents (x first), each an
// integer or an expression of params, #defines and blockDim.x, .y, .z,
// such as grid: ["(N + blockDim.x - 1) / blockDim.x"]. The file may
// leave grid out, for the launch to give.
//
// Every array under arrays: is a pointer parameter of the same name whose
// C type matches its element type: char i8, unsigned char u8, short i16,
// unsigned short u16, int i32, unsigned (int) u32, long and long long
// i64, unsigned long (long) and size_t u64, float f32, double f64; or it
// is declared before the function as CUDA declares constant memory,
//
//	__constant__ float c[NC];
//
// with its C type and one extent per dimension, expressions of constants,
// params and #defines that must equal its dims under arrays: when the
// launch binds (Program.Constants). The function reads such an array by
// its name, not through a parameter, and the declaration puts it in
// constant memory (a space: under arrays: other than constant is then an
// error). space: constant on a pointer parameter's array simulates the
// array in constant memory too, as -spaces does, without rewriting the
// source. An
// integer scalar parameter is the param of the same name (ExprParam); a
// float one is a float value (ExprFloat with its name). A param that is
// no parameter of the function is a constant of the launch, as a
// template argument or a -D define would be: it may size __shared__
// arrays and appear anywhere.
//
// Statements: declarations of locals (char, short, int, long, long long,
// each also unsigned, size_t and bool are int locals; float and double
// float locals; const allowed; several declarators; no pointers or local
// arrays); assignments to locals and array elements with = += -= *= /=
// %= <<= >>= &= |= ^=; x++, x--, ++x, --x; if (c) s [else s]; while (c)
// s; for (init; c; post) s, the init a declaration or assignments and the
// post assignments, separated by commas; { } blocks; __syncthreads();
// return; __shared__ arrays (__shared__ TYPE NAME[d]...[d];, with dims of
// constants and params, in any block); and #pragma unroll (full: #pragma
// unroll 1 means no unrolling, other counts are errors) right before a
// for loop that
// counts a local from a constant to a constant by a constant (constants
// and params). break, continue, goto, switch, do, extern __shared__ and
// __device__ functions are errors.
//
// Names follow C's scopes, with two restrictions that let the IR, which
// keeps no { } blocks, print back: a local must not shadow one in scope,
// and a name is declared at most once in a body (an if branch, a loop
// body or the function's body), its { } blocks included. Sibling loops
// may each declare i: each declaration is a Local of its own. __shared__
// array names are unique in the function.
//
// Expressions have C's operators, precedence and associativity (?: || &&
// | ^ & == != < <= > >= << >> + - * / % and unary - ! +), threadIdx,
// blockIdx, blockDim and gridDim .x .y .z (ExprSpecial), warpSize (32),
// true and false, casts to C's types and the builtins of the loop nest
// plus fminf, fmaxf, __fdividef, __expf, __logf, __sinf, __cosf, __powf,
// __mul24 and __umul24. A #define's value is an integer expression of
// literals and earlier #defines, one token or in parentheses; its uses
// are ExprConst nodes that carry its name (so are warpSize, true and
// false).
//
// Types. An integer expression is made of integer constants, params,
// special registers, int locals and reads of integer arrays (see Index
// data), and has C's type (IntType): threadIdx, blockIdx, blockDim and
// gridDim are unsigned int, as in CUDA; a local, a parameter and an
// index array's element have their declared types (long and long long
// 64 bits); a literal the type C11 6.4.4.1 gives it (5u unsigned, a
// decimal past 2^31 long, 0xffffffff unsigned int; 010 is octal, 8); a
// #define its expression's, computed as C computes it ((0u - 1) is
// 4294967295u); and a param that is no parameter of the function that
// of a decimal of its value. Operators follow C: the integer promotions and the usual
// arithmetic conversions (int - unsigned is unsigned, so threadIdx.x - 5
// < 10 is false for threads 0 to 4), unsigned arithmetic wraps, a
// conversion to a narrower type wraps (to bool: 0 or 1), a shift's count
// must be below the width of its promoted left operand, and a signed
// int shifted left gives its unsigned bits (C++14). A signed overflow,
// which C leaves undefined, keeps its 64-bit value. Subscripts and
// conditions (if, while, for, ?:) must be integer expressions, and so
// must the value assigned to an int local: a float (literal, local,
// parameter, float-valued call, read of a float array) there is an
// error. A cast to an integer type is an ExprCast (Type the type; of a
// float value, an error); a cast to float makes its operand a float,
// which the IR keeps alone.
// An array reference has one subscript per dimension, or one subscript,
// the element's offset from the base (C pointer arithmetic).
//
// The IR: a for loop is its init statements followed by a While whose
// Init counts them, Cond its condition, Post its increments and Body its
// body; a while loop is a While without Init or Post. x++ and ++x are x
// += 1, x-- and --x are x -= 1 (Value the constant 1). Locals are
// Program.Locals, each ExprScalar's Index naming its Local; __shared__
// arrays are Program.Shared (Space SpaceShared, aligned to their element
// size); the signature is Program.Args and the #defines Program.Defines.
//
// Instruction counts follow the loop nest's: a statement counts 1 per
// array reference, 1 per operator and call (casts are free), 1 for a
// compound assignment's operator, and at least 1 if it assigns a local.
// A reference whose innermost loop is unrolled costs no address
// arithmetic. An If counts its condition's operators and calls and 1 for
// the branch; so does each test of a While's condition, as does the
// increment in Post (k++ counts 1), so for (int k = 0; k < N; k++) costs 3
// per iteration like a loop of a loop nest. An unrolled loop counts none
// of that: its While.Compute and its Post's counts are 0. __syncthreads()
// is one instruction.
//
// Limits: MaxRefs, MaxStmts, MaxExprDepth apply as in a loop nest; a
// per-thread kernel has at most MaxLoops loops and MaxLocals locals, and
// its if, for, while and { } statements nest at most MaxNesting deep.
package kernel
