module gpumemsim

go 1.25

require (
	github.com/hashicorp/golang-lru/v2 v2.0.7
	go.yaml.in/yaml/v3 v3.0.6
	gonum.org/v1/gonum v0.17.0
)
