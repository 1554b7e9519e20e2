// Package gpgpusim reads GPGPU-Sim option files (gpgpusim.config) and
// translates the options gpumemsim models into an arch.Device.
//
// The reader follows GPGPU-Sim's OptionParser (src/option_parser.cc,
// ParseFile and ParseStringStream): everything from a # to the end of its
// line is a comment; the rest of the file is one stream of
// whitespace-separated tokens; a token that starts with a double quote
// runs on, over spaces and lines, to the first later token that ends with
// one, and the pieces are joined with single spaces; each option name is
// followed by its value; an option given twice takes the later value.
// Unlike GPGPU-Sim, which knows every option it registered, the reader
// does not know the type of an option it does not translate: a name
// followed directly by another name is a bare flag (GPGPU-Sim reads a
// boolean option so, as 1).
//
// Import translates the options that have an arch.Device field (see
// translate.go for the list and the units of each); every other option is
// reported as ignored, with the reason. Fields that no GPGPU-Sim option
// sets (the compute capability's per-block limits, bank width, the
// texture and constant hit latencies, the interconnect latency) come from
// a base device, a shipped config chosen by compute capability.
package gpgpusim
