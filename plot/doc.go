// Package plot draws the simulator's results as SVG: a heat map of a
// metric over two categorical parameters (J14's Fig. 2 over block width
// and height), a scatter of static rank against simulated rank with ρ in
// the title, grouped bars, and line charts. It writes plain SVG 1.1 with
// the standard library, imports nothing of the project, and writes the
// same bytes for the same input: numbers are printed with a fixed number
// of decimals, nothing is iterated in map order, and text is XML-escaped.
package plot
