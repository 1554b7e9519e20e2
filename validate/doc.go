// Package validate holds the static cost models of the literature — Jang et
// al.'s access-pattern classification and work-group search (J14), Peng et
// al.'s layout cost estimate (PEN), exact transaction counts — computed from
// the same kernels the simulator runs, and their comparison with simulation
// (rank correlations, relative errors, top-1 agreement and regret).
//
// The work-group search is split in two: JangShapes, JangSearch and RankJang
// enumerate, check and rank candidate work groups given each candidate's
// cost and gain, which the classification of the kernel's references
// supplies. Peng's arithmetic (weights per device, blocks per SM,
// instruction distances, index accordance, cost vectors, struct layouts)
// likewise takes its counts as inputs.
//
// Compare measures agreement where lower is better on both sides. Its
// statistics are float64 with NaN for "undefined here" (a constant series,
// a zero best time); the reason is in Warnings, and Comparison's JSON
// encoding writes NaN as null because JSON has no NaN.
package validate
