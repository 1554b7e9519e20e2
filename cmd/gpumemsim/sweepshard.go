package main

import (
	"fmt"
	"strconv"
	"strings"
)

// shard is the part of a sweep one process runs: the rows whose index,
// counted from 0, is I modulo N. Shards are numbered from 0, as Slurm's
// array task IDs (--array=0-N-1) and Kubernetes' completion indexes are;
// the whole sweep is shard 0/1.
type shard struct{ I, N int }

// has says row index belongs to the shard.
func (s shard) has(index int) bool { return index%s.N == s.I }

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// The environment variables a shard is read from.
const (
	envSlurmID    = "SLURM_ARRAY_TASK_ID"
	envSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	envSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	envSlurmStep  = "SLURM_ARRAY_TASK_STEP"
	envK8sIndex   = "JOB_COMPLETION_INDEX"
)

// resolveShard decides the shard: -shard i/n if given, else a Slurm
// array task (SLURM_ARRAY_TASK_ID, counted from SLURM_ARRAY_TASK_MIN in
// steps of SLURM_ARRAY_TASK_STEP, of SLURM_ARRAY_TASK_COUNT or -shards),
// else a Kubernetes Indexed Job's JOB_COMPLETION_INDEX of -shards, else
// the whole sweep. shards is -shards, 0 when not given.
func resolveShard(flagShard string, shards int, getenv func(string) string) (shard, error) {
	if shards < 0 {
		return shard{}, fmt.Errorf("-shards: want the number of shards, 1 or more; got %d", shards)
	}
	if flagShard != "" {
		if shards != 0 {
			return shard{}, fmt.Errorf("-shard %s and -shards %d exclude each other; hint: -shard i/n gives the count itself", flagShard, shards)
		}
		return parseShard(flagShard)
	}
	if id := getenv(envSlurmID); id != "" {
		return slurmShard(id, shards, getenv)
	}
	if idx := getenv(envK8sIndex); idx != "" {
		i, err := envInt(envK8sIndex, idx)
		if err != nil {
			return shard{}, err
		}
		if shards == 0 {
			return shard{}, fmt.Errorf("%s=%s is set but not -shards; hint: give -shards N, the Indexed Job's completions", envK8sIndex, idx)
		}
		return checkShard(shard{i, shards}, envK8sIndex+"="+idx)
	}
	if shards != 0 {
		return shard{}, fmt.Errorf("-shards %d: neither %s nor %s is set to say which shard this is; hint: run one shard by hand with -shard i/%d", shards, envSlurmID, envK8sIndex, shards)
	}
	return shard{0, 1}, nil
}

// parseShard reads -shard i/n.
func parseShard(s string) (shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil {
		return shard{}, fmt.Errorf("-shard: want i/n, shard i of n counted from 0, such as 0/3; got %q", s)
	}
	return checkShard(shard{i, n}, "-shard "+s)
}

func checkShard(s shard, from string) (shard, error) {
	if s.N < 1 || s.I < 0 || s.I >= s.N {
		return shard{}, fmt.Errorf("%s: shard %d of %d: want 0 ≤ i < n, shards counted from 0", from, s.I, s.N)
	}
	return s, nil
}

// slurmShard is the shard of a Slurm array task.
func slurmShard(id string, shards int, getenv func(string) string) (shard, error) {
	task, err := envInt(envSlurmID, id)
	if err != nil {
		return shard{}, err
	}
	first, step := 0, 1
	if v := getenv(envSlurmMin); v != "" {
		if first, err = envInt(envSlurmMin, v); err != nil {
			return shard{}, err
		}
	}
	if v := getenv(envSlurmStep); v != "" {
		if step, err = envInt(envSlurmStep, v); err != nil {
			return shard{}, err
		}
		if step == 0 {
			return shard{}, fmt.Errorf("%s=0: want a step of 1 or more", envSlurmStep)
		}
	}
	if (task-first)%step != 0 || task < first {
		return shard{}, fmt.Errorf("%s=%d is not %s=%d plus a multiple of %s=%d", envSlurmID, task, envSlurmMin, first, envSlurmStep, step)
	}
	n := shards
	from := fmt.Sprintf("%s=%d of -shards %d", envSlurmID, task, shards)
	if n == 0 {
		v := getenv(envSlurmCount)
		if v == "" {
			return shard{}, fmt.Errorf("%s=%s is set but not %s; hint: give -shards N, the array's size", envSlurmID, id, envSlurmCount)
		}
		if n, err = envInt(envSlurmCount, v); err != nil {
			return shard{}, err
		}
		from = fmt.Sprintf("%s=%d of %s=%d", envSlurmID, task, envSlurmCount, n)
	}
	return checkShard(shard{(task - first) / step, n}, from)
}

// envInt reads a non-negative integer from environment variable name.
func envInt(name, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("environment variable %s=%q: want a non-negative integer", name, v)
	}
	return n, nil
}
