// Package yamldoc holds what the project's YAML readers (device configs,
// kernel files, sweep files) share beyond the YAML library: each of them
// reads one document, and a file that holds more is refused rather than
// read in part.
package yamldoc
