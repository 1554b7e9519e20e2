// Package truth turns a truth value into a number without a branch: the
// simulator's hot paths use it where a choice follows the simulated data
// and a branch on it would be mispredicted as often as not (docs/design.md,
// "Branches no instruction count weighs"), and the kernel languages use it
// for C's value of a comparison.
package truth
