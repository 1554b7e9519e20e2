package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// docs/slurm-sweep.sh is valid bash, and its sweep's flags are accepted
// (with -max-work 1 every row is refused at once, so nothing simulates:
// the error is the failed rows' summary, not a flag's).
func TestSlurmScript(t *testing.T) {
	data, err := os.ReadFile("../../docs/slurm-sweep.sh")
	if err != nil {
		t.Fatal(err)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		if out, err := exec.Command(bash, "-n", "../../docs/slurm-sweep.sh").CombinedOutput(); err != nil {
			t.Errorf("bash -n docs/slurm-sweep.sh: %v\n%s", err, out)
		}
	} else {
		t.Log("no bash: the syntax check is skipped")
	}
	m := regexp.MustCompile(`(?m)^SWEEP=\((.*)\)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("docs/slurm-sweep.sh has no SWEEP=(...) line")
	}
	checkSweepFlags(t, "docs/slurm-sweep.sh", strings.Fields(string(m[1])))
	if !bytes.Contains(data, []byte("#SBATCH --array=0-")) || !bytes.Contains(data, []byte("gpumemsim merge")) {
		t.Error("docs/slurm-sweep.sh: want an #SBATCH --array=0-N line and a gpumemsim merge")
	}
}

// docs/k8s-sweep.yaml parses; its Indexed Job runs -shards equal to its
// completions, its sweep's flags are accepted, and the merge Job names
// every shard's file.
func TestKubernetesManifest(t *testing.T) {
	f, err := os.Open("../../docs/k8s-sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var shardCmd, mergeCmd string
	completions := 0
	for {
		var doc struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct {
				CompletionMode string `yaml:"completionMode"`
				Completions    int
				Template       struct {
					Spec struct {
						Containers []struct{ Command []string }
					}
				}
			}
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("docs/k8s-sweep.yaml: %v", err)
		}
		if doc.Kind != "Job" {
			continue
		}
		cmd := strings.Join(doc.Spec.Template.Spec.Containers[0].Command, " ")
		if doc.Spec.CompletionMode == "Indexed" {
			shardCmd, completions = cmd, doc.Spec.Completions
		} else {
			mergeCmd = cmd
		}
	}
	if completions < 1 || !strings.Contains(shardCmd, "-shards "+strconv.Itoa(completions)) {
		t.Fatalf("the Indexed Job: completions %d, command %q; want -shards equal to the completions", completions, shardCmd)
	}
	for i := range completions {
		if !strings.Contains(mergeCmd, "shard-"+strconv.Itoa(i)+".csv") {
			t.Errorf("the merge Job's command %q does not name shard-%d.csv", mergeCmd, i)
		}
	}
	_, flags, _ := strings.Cut(shardCmd, "gpumemsim sweep ")
	flags, _, _ = strings.Cut(flags, " -shards")
	checkSweepFlags(t, "docs/k8s-sweep.yaml", strings.Fields(strings.ReplaceAll(flags, `\`, "")))
}

// checkSweepFlags runs sweep with flags and -max-work 1: every row is
// refused before simulating, and the error must be that, not a flag's.
func checkSweepFlags(t *testing.T, where string, flags []string) {
	t.Helper()
	_, stderr, err := runCmd(t, append(append([]string{"sweep"}, flags...), "-max-work", "1")...)
	if err == nil || !strings.Contains(err.Error(), "rows failed") || !strings.Contains(stderr, "more than the cap of 1 (-max-work)") {
		t.Errorf("%s: sweep %s: %v\n%s; want every row refused by -max-work and no other error", where, strings.Join(flags, " "), err, stderr)
	}
}
