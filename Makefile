# gpumemsim — build, test and run targets. `make test` is what CI runs.
GO        ?= go
# Packages cheap enough to run under the race detector on every test run.
RACE_PKGS ?= ./arch/... ./configs/... ./cmd/... ./traces/accelsim/...
FUZZTIME  ?= 20s
# Minimizing a new input may not eat a target's whole budget.
FUZZMINTIME ?= 10s
BENCHTIME ?= 1s

.PHONY: all build test check fmt-check vet tidy-check bench fuzz run clean papers pgo pgo-check against against-bench stages estimate-error fit-rates

all: build

build:
	$(GO) build ./...

## test: vet, all tests, and the race detector where it is affordable.
## Vet and tests without the command's profile (-pgo=off): it changes
## speed, not what they check, and would build the command's packages a
## second time (25 to 54 s more on a cold cache).
test: vet
	$(GO) test -pgo=off -count=1 ./...
	$(GO) test -pgo=off -count=1 -race $(RACE_PKGS)

vet:
	$(GO) vet -pgo=off ./...

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

tidy-check:
	$(GO) mod tidy -diff

## check: formatting, vet, module tidiness, tests
check: fmt-check tidy-check test

## bench: benchmarks in domain units (compare runs with benchstat)
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) ./...

## fuzz: each fuzz target for FUZZTIME
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINTIME) $$pkg || exit 1; \
	  done; \
	done

## pgo: the CPU profile go build and go run optimize the command with
## (profile-guided optimization: cmd/gpumemsim/default.pgo, which -pgo=auto
## picks up), from one run of BenchmarkRun's cases on a build without it.
## Retake it after changes to the simulator's hot paths; an old profile
## only optimizes less. A profile is a sample: two retakes differ, so
## commit one only where make pgo-check shows no case losing.
pgo:
	cd sim && $(GO) test -pgo=off -run='^$$' -bench='^BenchmarkRun$$' -benchtime=10x -cpuprofile=../cmd/gpumemsim/default.pgo -o /dev/null . >/dev/null

## pgo-check: the profile committed at HEAD against the working tree's,
## in instructions under cachegrind on every path, reports compared
## (scripts/pgo-check.sh; needs valgrind)
pgo-check:
	sh scripts/pgo-check.sh

## run: the main job on embedded defaults: J14's two thread mappings of the
## serial matmul on the GTX 480, simulated
RUN_SIZE ?= M=384,N=384,P=384
run:
	$(GO) run ./cmd/gpumemsim run -device fermi -kernel matmul -map i1=ty,i2=tx -set $(RUN_SIZE)
	@echo
	$(GO) run ./cmd/gpumemsim run -device fermi -kernel matmul -map i1=tx,i2=ty -set $(RUN_SIZE)

clean:
	$(GO) clean ./...

## against: issue 10's delivery 1, the command at AGAINST (489b94e) and
## now, side by side in one sitting: wall seconds, speed-ups, and whether
## the metrics they share are identical (scripts/against.sh)
against:
	sh scripts/against.sh

## against-bench: the same three paths in BenchmarkRun, the test binaries
## of AGAINST and now run in turn, compared with benchstat
## (BENCH=1 scripts/against.sh)
against-bench:
	BENCH=1 sh scripts/against.sh

## stages: the same three runs at smaller sizes, counted in instructions
## by stage under cachegrind, against AGAINST and now, with what each
## target leaves for the whole run (STAGES=1 scripts/against.sh)
stages:
	STAGES=1 sh scripts/against.sh

## estimate-error: the time run estimates before it starts against the
## time it takes, every per-thread example on every device
## (scripts/estimate-error.sh; docs/design.md, "Work and limits")
estimate-error:
	sh scripts/estimate-error.sh

## fit-rates: fit the estimate's rates (cmd/gpumemsim/rates.go) to this
## machine: every example timed on every device, each class's rates
## fitted, the error they leave printed (scripts/fit-rates.sh)
fit-rates:
	sh scripts/fit-rates.sh

## papers: the papers' experiments at their own sizes, sampled, each timed
## (issue 10's delivery 3; docs/design.md lists the times measured)
PAPERS_BIN ?= /tmp/gpumemsim-papers
papers:
	$(GO) build -o $(PAPERS_BIN) ./cmd/gpumemsim
	@echo "== J14 Fig. 1: matmul 1024^3 on gt200, both mappings"
	time $(PAPERS_BIN) validate -device gt200 -kernel matmul -maps all -blocks 16x16 -set M=1024,N=1024,P=1024 -sample -max-work 1e11
	@echo "== J14 Table 2: vecadd 2^25 on gt200, six blocks"
	time $(PAPERS_BIN) validate -device gt200 -kernel vecadd -blocks 512,256,128,64,32,16 -set N=33554432 -sample
	@echo "== validate -maps all: matmul 1024^3 on fermi"
	time $(PAPERS_BIN) validate -device fermi -kernel matmul -maps all -set M=1024,N=1024,P=1024 -sample -max-work 1e11
	@echo "== Ryoo: serial matmul 4096^2 on g80"
	time $(PAPERS_BIN) run -device g80 -kernel matmul -set M=4096,N=4096,P=4096 -sample -max-work 1e11
	@echo "== Che: k-means distances, 1,310,720 points x 16 features on fermi"
	time $(PAPERS_BIN) run -device fermi -kernel kmeans -sample
	@echo "== J14 Table 1: the tiled matmul 1024^3 on gt200, twelve work-group shapes"
	time $(PAPERS_BIN) validate -device gt200 -kernel matmul-tiled -set M=1024,N=1024,P=1024 -blocks 256x2,128x4,64x8,32x16,16x32,128x2,64x4,32x8,16x16,64x2,32x4,16x8 -sample -max-work 4e9
	@echo "== Ryoo: the four matmul versions at W=1024 on g80 (GFLOPS = 2 W^3 / time)"
	for v in a b c d; do time $(PAPERS_BIN) run -device g80 -kernel matmul-ryoo-$$v -set W=1024 -sample; done
