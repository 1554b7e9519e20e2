package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// readmeBlocks returns the fenced blocks of the given language in the
// README section that starts with heading.
func readmeBlocks(t *testing.T, heading, lang string) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var blocks []string
	for _, part := range strings.Split(section, "```"+lang+"\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, block)
	}
	if len(blocks) == 0 {
		t.Fatalf("README.md section %q has no %s block", heading, lang)
	}
	return blocks
}

// optional matches an optional flag written [-flag a|b] in the README.
var optional = regexp.MustCompile(`\[[^]]*\]`)

// The README's command block runs as written (optional flags left out),
// as cmd/benchstat's TestDoc runs its documentation.
func TestReadmeCommands(t *testing.T) {
	if raceEnabled {
		t.Skip("the README's simulations run in the plain pass; under the race detector they take minutes")
	}
	for _, line := range strings.Split(readmeBlocks(t, "## Commands", "sh")[0], "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(optional.ReplaceAllString(line, ""))
		if line == "" {
			continue
		}
		args := strings.Fields(line)
		if args[0] != "gpumemsim" {
			t.Fatalf("README command %q does not start with gpumemsim", line)
		}
		// The README's paths are the repository root's; the test runs in
		// cmd/gpumemsim.
		for i, a := range args {
			if _, err := os.Stat(filepath.Join("../..", a)); strings.Contains(a, "/") && err == nil {
				args[i] = filepath.Join("../..", a)
			}
		}
		var out bytes.Buffer
		if err := run(context.Background(), args[1:], &out, &out); err != nil {
			t.Errorf("README: %s: %v", line, err)
		}
	}
}

// The README's example config loads and its example kernel binds on it.
func TestReadmeFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my-fermi.yaml")
	if err := os.WriteFile(path, []byte(readmeBlocks(t, "## Devices", "yaml")[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	dev, err := configs.Load(path)
	if err != nil {
		t.Fatalf("README's device config: %v", err)
	}
	k, err := kernel.Parse("README.md", []byte(readmeBlocks(t, "## Kernels", "yaml")[0]))
	if err != nil {
		t.Fatalf("README's kernel file: %v", err)
	}
	if _, err := traces.Bind(k, nil, arch.Dim3{}, nil, dev); err != nil {
		t.Fatalf("README's kernel file does not bind on its device: %v", err)
	}
}
