// Package svgtest parses an SVG document with encoding/xml into a tree
// that tests query by element and class, for the tests of package plot
// and of the plot command.
package svgtest
