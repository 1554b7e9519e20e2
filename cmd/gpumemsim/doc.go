// Command gpumemsim is a cycle-approximate GPU memory-hierarchy simulator.
//
// Usage:
//
//	gpumemsim devices [-format text|json]
//	gpumemsim devices show NAME|FILE [-format yaml|json]
//	gpumemsim devices import FILE [-o device.yaml] [-name NAME] [-base NAME]
//	gpumemsim occupancy -device D -block 16x16 [-regs N] [-smem BYTES] [-cache-config C] [-format text|json]
//	gpumemsim trace -device D -kernel K [-map ...] [-block ...] [-grid ...] [-set K=V,...] [-spaces A=constant,...] [-layout L] [-remap A=KIND,...] [-data NAME=SPEC] [-matrix SPEC] [-launch N] [-cache-config C] [-warps N] [-format text|json]
//	gpumemsim run -device D -trace FILE [-regs N] [-cache-config C] [-sample [-sample-warmup WAVES]] [-format text|json|csv] [-metrics nvprof|ncu|gpgpusim]
//	gpumemsim run -device D -kernel K [-map ...] [-block ...] [-grid ...] [-set ...] [-spaces ...|jang] [-layout L] [-remap A=KIND,...] [-data ...] [-matrix ...] [-show-kernel] [-regs N] [-cache-config C] [-sample [-sample-warmup WAVES]] [-waves FILE.csv] [-remap-cost exclude|include] [-format text|json|csv] [-metrics nvprof|ncu|gpgpusim]
//	gpumemsim estimate -device D -kernel K [-map ...] [-block ...] [-set ...] [-spaces ...] [-layout L] [-remap A=KIND,...] [-data ...] [-matrix ...] [-cache-config C] [-format text|json]
//	gpumemsim validate -device D -kernel K [-map ...|-maps all] [-blocks jang|LIST] [-layouts all|LIST] [-set ...] [-spaces ...] [-layout L] [-remap A=KIND,...] [-data ...] [-matrix ...] [-cache-config C] [-sample [-sample-warmup WAVES]] [-format text|json|csv] [-plot FILE.svg]
//	gpumemsim sweep [-device D1,D2] [-kernel K1,K2] [-map 'M1;M2'] [-blocks B1,B2] [-set N=V1,V2 ...] [-layout L1,L2] [-spaces 'S1;S2'] | -f SWEEP.yaml [-cache-config C] [-remap ...] [-data ...] [-matrix ...] [-metrics nvprof|ncu|gpgpusim] [-max-work N] [-j N] [-shard i/n | -shards n] [-resume FILE] [-format csv|json] [-o FILE] [-plot FILE.svg [-plot-metric M]]
//	gpumemsim merge [-format csv|json] [-o FILE] FILE...
//	gpumemsim plot -i FILE.json -o FILE.svg [-kind auto|heatmap|rank|bars|curve] [-metric NAME[,NAME...]] [-x PARAM]
//
// Devices are named by an embedded config (g80, gt200, fermi, fermi-m2050,
// fermi-l1-48k, kepler, maxwell, a100) or by the path of a YAML file, which may
// start from an embedded config with "base: fermi". Kernels are named by a
// shipped example or by the path of a kernel file. Errors are printed as
// "gpumemsim: ..." and exit with status 1.
//
// devices import translates a GPGPU-Sim option file (gpgpusim.config: -name
// value lines, # comments, quoted values over lines) into a device YAML on
// stdout, or with -o written to a temporary file and renamed: the options
// gpumemsim models (clusters × cores, clocks, SM limits, schedulers, the
// dl1/dl2/texture/constant cache strings, shared memory, coalescing, L1
// skip, latencies, partitions and sub-partitions, DRAM bus, burst, ratio,
// timing string, scheduler, queues, address mapping, L1/shared splits),
// each field commented with the option and line it came from. Fields no
// option sets come from -base, by default the shipped config of the file's
// compute capability (fermi for 2.x, kepler for 3.x, maxwell for 5.x and
// later), commented "base". Every option that set nothing is listed on
// stderr and at the top of the YAML, with the reason; a malformed value of
// a translated option is an error at its file:line:col. -name defaults to
// the directory of a gpgpusim.config, else the file's name. The result
// runs as -device FILE. See docs/design.md, GPGPU-Sim config import.
//
// -cache-config C picks the L1/shared split a kernel would ask for with
// cudaFuncSetCacheConfig, on devices that have one (Fermi: prefer-shared,
// the default 48 KiB shared memory + 16 KiB L1, or prefer-l1, 16 + 48;
// Kepler also prefer-equal, 32 + 32; A100 prefer-shared, 164 KiB + 28 KiB,
// or prefer-l1, 8 + 184, the ends of its carveouts): occupancy, the
// per-block shared memory limit and the simulated L1 follow it, and the
// output names it.
//
// run -waves FILE.csv writes, after the run and whole, a row per whole
// wave of blocks finished (the blocks resident at once over the device,
// the sampler's wave; none for a grid shorter than a wave): the cycle,
// the counts so far (instructions, finished warps' resident cycles, L1
// and L2 hits and misses, DRAM requests sent, accepted and completed, row
// hits, turnarounds, busy bus slots), the DRAM requests in flight and the
// L1s' and L2's free lines. A sampled run's rows go on after its skip,
// with the skipped blocks counted in blocks and skipped_blocks, and the
// first column names each wave's part: warm-up, window (the waves whose
// rates stand for the skipped ones, as many as the JSON's
// sampling.window_waves) or tail. It takes a single launch (not a
// sequence or a trace replay).
//
// run -trace FILE replays an Accel-Sim trace of a real GPU run (SASS
// recorded with NVBit): FILE is the kernelslist.g of the traced program
// (MemcpyHtoD lines are reported, not simulated; kernel files are
// relative to its directory) or one kernel's .traceg (tracer versions 3
// to 5, post-processed; .xz and raw .trace files are refused with a
// hint). Each kernel runs with the trace's grid, block, registers and
// shared memory (-regs overrides the registers), its warps' instructions
// in their recorded order; several kernels run one after the other as a
// sequence does. The output is run's: the metrics, the references (a
// memory instruction's PC and opcode, "LDG.E @0x00a0"; "2: ..." for the
// second kernel of several) and, above them, the trace's own counts: its
// blocks, warps and instructions, and the global requests and distinct
// 32-byte sectors its addresses give, to set beside the simulated ones.
// -trace is exclusive with -kernel and the flags of a kernel file's
// launch (-map, -block, -grid, -set, -spaces, ...). An error in a trace
// names its file and line. See docs/design.md, "Accel-Sim trace replay",
// for how opcodes map to memory spaces and what is not modelled.
//
// -layout L lays the kernel's struct arrays out as its file's layout L
// (one of those under layouts:; the first by default). validate -layouts
// all (or a list) binds the kernel under each layout at one mapping and
// block, estimates each with Peng et al.'s cost model, simulates each,
// and ranks them by Peng's cost vector against simulated cycles; its Sim
// cost column is Peng's formula on the simulated counts.
//
// -spaces A=constant,x=global puts the kernel file's arrays in other
// memory spaces (global, constant, texture or readonly) without editing
// the file; constant arrays are read through each SM's constant cache,
// one pass per distinct address of a warp (a half-warp on CC 1.x), and
// must not be stored to nor exceed 64 KB together; texture arrays are
// read through each SM's texture cache, one lookup per distinct 32-byte
// line of a warp, and must not be stored to; readonly arrays are global
// memory whose every load goes through the read-only data cache (LDG, as
// __ldg), which is the texture cache on compute capability 3.5 and later
// and absent before (an error). -spaces jang (on run, trace and
// validate) rewrites a loop nest as the __global__ kernel J14's Algorithm
// 1 selects (validate.ApplyJang: texture, constant, and shared tiles
// strip-mined with SL between barriers) and simulates that; run
// -show-kernel prints the kernel file that would be simulated and exits;
// validate -spaces jang simulates the rewrite at each candidate. A kernel
// with constant references gets sim_const_* metrics, one with texture or
// readonly references
// tex_cache_transactions, tex_cache_hit_rate and sim_tex_*, and run's
// reference table a Space column and a Const hit or Tex hit column.
//
// -data NAME=SPEC gives an index array its contents instead of the
// kernel file's data: (once per array): SPEC is a seeded generator,
// GEN:KEY=VALUE,... (permutation:seed=3, uniform:lo=0,hi=N,seed=1,
// strided:stride=33), a text file of integers, file:PATH, or a part of
// the kernel's matrix, matrix:rowptr|col. -matrix SPEC replaces the
// kernel file's matrix: by a Matrix Market file (PATH.mtx) or a
// generator (banded:rows=R,width=W, powerlaw:rows=R,cols=C,avg=A,
// exponent=E,seed=S, boxes:boxes1d=B: lavaMD's neighbour boxes of a
// B×B×B grid, rays:n=N,width=W,height=H, a cone beam's voxel lists);
// the params it sets (its rows, columns, nonzeros)
// follow. Paths are relative to the working directory; errors name the
// flag and the column of SPEC at fault. See kernel/doc.go, Index data.
// A per-thread kernel's work is counted on sample blocks within
// -max-work (more of them where they differ, up to the whole grid),
// and a warp that would issue more than -max-work
// instructions is an error. -max-work bounds the DRAM traffic too: a
// simulation whose warp instructions plus 32-B DRAM sectors pass it, or
// whose first 1/64 (and 2^20 warp instructions) is on course past twice
// it, stops with an error that says how far it got (sim.WorkError).
//
// estimate and validate take per-thread (__global__) kernels too: the
// static models read their global references as affine forms of the
// thread indices and loop variables (see traces.AccessColumns). A
// subscript that reads index data has J14's Z entries (true or false
// random; Algorithm 1 sends a read-only one to texture, where it costs
// nothing), and Peng's estimate assumes each active lane of such an
// access its own transaction and no reuse, printing its stride as ?
// and the assumption under the table; a reference that is otherwise not
// affine is an error naming it. validate -blocks
// binds such a kernel again at each shape, with the grid of its file;
// -maps all needs a loop nest, and the exact counts apply to loop nests
// only.
//
// A kernel file with launches describes a host loop of launches
// (Needleman-Wunsch's one launch per anti-diagonal). run simulates them
// one after the other on one device (the L2 and DRAM keep their state,
// the L1s start empty) and prints a line per launch (its grid, the params
// its entry sets, cycles, load and store transactions, L1 and L2 hit
// rates, DRAM sectors) and the total's metrics and references; -format
// json has the launches' metrics under "launches" and the total's under
// "metrics", and -format csv is nvprof's with one invocation per launch
// (minimum, maximum and mean). trace shows one launch of the sequence,
// -launch N; the other commands take one launch and refuse a sequence.
//
// Arrays a kernel file declares with remap: (Dymaxion's row2col, its
// inverse col2row, diagonal, tile or gather; kernel/doc.go, Remaps) are simulated where
// the remap puts their elements. -remap A=KIND,... remaps arrays instead
// of the file (KIND none, row2col, col2row, diagonal, tile:THxTW or
// gather:INDEX; checked as the file's would be): -remap V=gather:COL
// makes spmv-csr spmv-csr-dymaxion, -remap S=none,ref=none makes
// nw-dymaxion nw-rowmajor. run -remap-cost exclude (the default)
// leaves the remap kernels out, as Che overlaps them with the PCIe
// transfer; -remap-cost include simulates each remapped array's remap
// kernel (one thread per element: read src[t], write dst[T(t)]; the
// gather reads COL[t] and V[COL[t]] and writes V'[t]) before the kernel,
// in one sequence: a line "remap A" per remap kernel, then the kernel's
// launches and the total, whose reference table lists the remap
// kernels' references first; -format csv summarises each kernel. A
// kernel without a remap is refused with include. estimate and validate
// read a remapped array where the remap puts it (a gather's V'[e] at its
// index's subscript, leaving out the index read the kernel does not
// make), and refuse a tiled array's references by name, a tile's place
// not being affine.
//
// sweep simulates the cartesian product of its lists, one row per run:
// -device, -kernel, -blocks and -layout are comma lists; -map and -spaces
// lists are separated by semicolons (a mapping or a spaces assignment
// has commas of its own), an empty item standing for the kernel file's
// own; -set N=1024,4096 gives one parameter its values, and -set
// repeated multiplies parameters (-set N=1024,4096 -set M=64,128: four
// sets, N slowest). -f FILE gives the same axes in YAML (devices,
// kernels, maps, blocks, set: {N: [1024, 4096]}, layouts, spaces; strict
// keys, errors at FILE:LINE:COL), instead of the axis flags. Rows are
// nested devices › kernels › maps › blocks › set › layouts › spaces, the
// device slowest, and bound as run binds its flags (a sequence of
// launches is refused for its row). They run through sim.RunAll on -j
// goroutines (default: the cores), with a progress bar and ETA on a
// terminal; the output does not depend on -j. A row that cannot run (a
// bind error, a block too large for the device, more than -max-work,
// which applies per row) has its error in the error column and no
// metrics; the others run, the failures are listed on stderr and the
// exit status is 1. Output is CSV (default) or JSON (-format json: an
// array of objects, one a line) to stdout or to -o FILE, which is
// written whole (a temporary file renamed) or not at all. The columns
// are sweep (an ID of the sweep's flags and rows), row (from 0), rows
// (the sweep's), device, kernel, map, block, set, layout, spaces (as
// given; empty: the kernel file's), error, then the metrics of -metrics
// sorted by name, a row's cell empty where its device has no such
// metric. -resume FILE keeps the rows of a previous output of the same
// sweep (matched by their parameter columns; rows with an error run
// again) and simulates the rest; an interrupted sweep (Ctrl-C, SIGTERM)
// writes the rows it finished, for -resume to go on from. -plot FILE.svg
// also draws a heat map of -plot-metric (default sim_cycles) over the
// sweep's two varying axes, a 2-D block's width and height counting as
// two (J14's Fig. 2 from a sweep of block shapes); a sweep with more than
// two varying axes is refused before simulating.
//
// -shard i/n runs the rows whose index is i modulo n, shards counted
// from 0. Without -shard, a Slurm array task's shard is (SLURM_ARRAY_TASK_ID
// - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP of SLURM_ARRAY_TASK_COUNT
// (or of -shards), and a Kubernetes Indexed Job pod's JOB_COMPLETION_INDEX
// of -shards; flags win over the environment, and a malformed variable is
// an error naming it. merge joins shard outputs (CSV or JSON, in any
// order) into the bytes of the unsharded sweep, in the first file's
// format unless -format says; it refuses rows of different sweeps, a row
// given twice and missing rows. docs/slurm-sweep.sh and
// docs/k8s-sweep.yaml run a sweep this way.
//
// validate -plot FILE.svg also draws the result as SVG: over block shapes
// of one mapping, a heat map of simulated cycles over block width ×
// height beside the scatter of static against simulated rank (Spearman ρ
// in its title); with -maps all or 3-D blocks the scatter alone; with
// -layouts bars of each layout's gld and gst transactions beside the
// scatter. The file is written whole (a temporary file renamed) and its
// path checked before simulating. plot draws what validate or run wrote
// with -format json, without simulating: -kind auto draws what validate
// -plot draws (the same bytes), or a run's references as bars, or several
// runs as a curve; heatmap takes validate's rows (-metric, default
// sim_cycles); rank the static and simulated ranks; bars a comma list of
// -metric per row or reference (run: requests,transactions; layouts:
// gld_transactions,gst_transactions); curve several run documents,
// concatenated or in an array, over the kernel parameter -x (default:
// the one that varies), one line per device and other varying parameter,
// -metric default sim_cycles/inst_executed_global_loads (the latency
// probe's cycles per load). A metric is a numeric field of the rows or
// references, a profiler metric, a per-reference rate
// (transactions_per_request, l1_hit_rate, l2_hit_rate, tex_hit_rate,
// const_hit_rate; 0 where nothing was accessed), or A/B of two (0/0 is
// 0). A flag the chosen plot would not use (-x off a curve, -metric on
// the rank scatter) is an error. -i - reads
// standard input and -o - writes standard output. See docs/design.md,
// Plots.
package main
