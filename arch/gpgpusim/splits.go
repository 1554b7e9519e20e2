package gpgpusim

import (
	"fmt"

	"gpumemsim/arch"
)

// splitOptions are the options of GPGPU-Sim's per-kernel L1/shared
// splits (shader.cc picks them by the kernel's cudaFuncCache): the shared
// memory and the L1 string of prefer-L1 and of prefer-shared.
var splitOptions = []string{"-gpgpu_shmem_size_PrefL1", "-gpgpu_cache:dl1PrefL1", "-gpgpu_shmem_size_PrefShared", "-gpgpu_cache:dl1PrefShared"}

// splits translates the four split options into l1_shared when all four
// are given: its total is a split's shared memory plus its L1, the same
// for both; each split keeps its L1's ways (the sets follow from the
// size, as in arch.Split); the per-block limit is the compute
// capability's, from the base. The line, sectors and set index are the
// -gpgpu_cache:dl1 string's in every split, as arch.L1Shared has them.
func (im *importer) splits(perBlock arch.Bytes) {
	for _, n := range splitOptions {
		if _, ok := im.opts.Last(n); !ok {
			return // listed as ignored, with the reason
		}
	}
	l1Size, ol1, ok1 := im.count(splitOptions[0])
	sharedSize, osh, ok2 := im.count(splitOptions[2])
	l1, _, ok3 := im.cacheOption("", splitOptions[1])
	shared, _, ok4 := im.cacheOption("", splitOptions[3])
	delete(im.from, ".size") // cacheOption's notes for the path ""
	for _, f := range cacheFields {
		delete(im.from, "."+f)
	}
	if !(ok1 && ok2 && ok3 && ok4) || !l1.Present() || !shared.Present() {
		return
	}
	total := arch.Bytes(sharedSize) + shared.Size
	if arch.Bytes(l1Size)+l1.Size != total {
		im.fail(ol1, "shared memory %v + the -gpgpu_cache:dl1PrefL1 L1 %v = %v, but prefer-shared's %v + %v = %v: both splits divide one memory",
			arch.Bytes(l1Size), l1.Size, arch.Bytes(l1Size)+l1.Size, arch.Bytes(sharedSize), shared.Size, total)
		return
	}
	im.d.L1Shared = arch.L1Shared{
		Size:                    total,
		MaxSharedMemoryPerBlock: perBlock,
		PreferShared:            arch.Split{SharedMemory: arch.Bytes(sharedSize), L1Associativity: shared.Associativity},
		PreferL1:                arch.Split{SharedMemory: arch.Bytes(l1Size), L1Associativity: l1.Associativity},
	}
	dl1L1, dl1Shared := im.last(splitOptions[1]), im.last(splitOptions[3])
	im.note(fmt.Sprintf("%s + the %v L1 of %s (line %d)", written(osh), shared.Size, dl1Shared.Name, dl1Shared.Line), "l1_shared.size")
	im.note(written(osh), "l1_shared.prefer_shared.shared_memory")
	im.note(written(dl1Shared), "l1_shared.prefer_shared.l1_associativity")
	im.note(written(ol1), "l1_shared.prefer_l1.shared_memory")
	im.note(written(dl1L1), "l1_shared.prefer_l1.l1_associativity")
	im.note(fmt.Sprintf("the compute capability's limit (base), %v", perBlock), "l1_shared.max_shared_memory_per_block")
}
