package sim_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"gpumemsim/sim"
)

// goldenCase is one small launch whose complete Result is pinned.
type goldenCase struct {
	kernel, mapping, block string
	params                 map[string]int64
	// devices restricts the case to these devices; nil means all.
	devices []string
}

// goldenKernels cover both matmul mappings, stores with loads, strided and
// transposed access, dependent loads, streaming with L2 write-backs and
// L1 MSHR stalls, at sizes that run in milliseconds.
var goldenKernels = []goldenCase{
	{"matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 64, "N": 64, "P": 48}, nil},
	{"matmul", "i1=tx,i2=ty", "16x8", map[string]int64{"M": 48, "N": 64, "P": 40}, nil},
	{"matmul-naive", "", "", map[string]int64{"M": 32, "N": 32, "P": 16}, nil},
	{"transpose", "", "", map[string]int64{"N": 160}, nil},
	{"vecadd", "", "", map[string]int64{"N": 40000}, nil},
	{"stride", "", "", map[string]int64{"N": 20000, "S": 3, "O": 1}, nil},
	{"latency-probe", "", "", map[string]int64{"F": 65536, "S": 128, "R": 2}, nil},
	{"copy", "", "", map[string]int64{"N": 50000}, nil},
	{"copy-rowmajor", "", "", map[string]int64{"rows": 2048, "cols": 8}, nil},
	{"copy", "", "", map[string]int64{"N": 400000}, nil},
	{"stride", "", "", map[string]int64{"N": 8192, "S": 32, "O": 0}, nil},
	{"matmul", "i1=tx,i2=ty", "16x16", map[string]int64{"M": 128, "N": 128, "P": 64}, []string{"fermi", "fermi-l1-48k", "kepler", "maxwell"}},
}

var goldenDevices = []string{"g80", "gt200", "fermi", "fermi-l1-48k", "kepler", "maxwell"}

// goldenHashes are the SHA-256 of the JSON Result of every golden case,
// recorded before the engine's performance work and again when the
// scheduler's lookahead became the whole interconnect latency and blocks
// went to SMs in the order they finish in time (intended changes of
// results; docs/design.md). The engine must reproduce every
// cycle and counter exactly, so any change of a hash is a change of
// behaviour, not of speed.
var goldenHashes = map[string]string{
	"g80/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":            "a945da2c284b6fc412e1ccf63f7c968203fe00def1db4079a756cb02886a49d3",
	"g80/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":             "487b00f3770b31a38c848ea95f5009707493890d54d30a4a7ca1abe9b463af52",
	"g80/matmul-naive///map[M:32 N:32 P:16]":                      "08cc8e8316a1da06d782a5f9369219bf250c62cd95a6e1e180b7fd746f791e77",
	"g80/transpose///map[N:160]":                                  "0515a22352e51ffc9e9e8a00d561c36e9149b15f5eb3200fd159ba8b0ff8ec04",
	"g80/vecadd///map[N:40000]":                                   "19437a4b216bc4c114095180626015450d0ccd1a07eb6940c45cf24f5f55c9c6",
	"g80/stride///map[N:20000 O:1 S:3]":                           "074d726b4ee1730eddd6a42311ddcf2d50c6d4772896281eb51ad01e17cd520e",
	"g80/latency-probe///map[F:65536 R:2 S:128]":                  "cfa98a8b56e5ecc5eb0bb9dadb168f982bf03c1d30673845a824f8651d387294",
	"g80/copy///map[N:50000]":                                     "6695bddd3207977c44b2fd166497bfbd87e0fcf760bde4ded56fa4c3e80e205b",
	"g80/copy-rowmajor///map[cols:8 rows:2048]":                   "0a4fc860a592ddc62bfee7bc3707727cb420c149dc815c793c356788916e06e7",
	"g80/copy///map[N:400000]":                                    "6fcaf08cf0e3631e9d78c5243636709989df819b74baf2fb587d9149fecf8f95",
	"g80/stride///map[N:8192 O:0 S:32]":                           "d16117074ee92c4472284b35ea9f9d3969fa5baa0e6c08f5105150aaed14466e",
	"gt200/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":          "3a5368fc9e1d66d6a8755835a5c471111601b452458a896f74c49bd2cb973fa2",
	"gt200/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":           "7f06d4d2d16d7d5a9b43d89f75c38873c549256e17751f102ac0e88f5c23ba28",
	"gt200/matmul-naive///map[M:32 N:32 P:16]":                    "947c99b0223e9c39910c53637af771b45ee190ede9f915fcbd854119a3fb11e9",
	"gt200/transpose///map[N:160]":                                "f46d564144a49f223f5a24baa96d1e03b0bf794c499e25a59e6d39244fbd219a",
	"gt200/vecadd///map[N:40000]":                                 "4e17f9a00b2a5ea9b958182d1ed9f80c84cd2f6219cc699901f1de916dff9545",
	"gt200/stride///map[N:20000 O:1 S:3]":                         "8a43bb428bed01dc92bf927c17cf75ebefc52b0377a12a21b4b6a734db06880d",
	"gt200/latency-probe///map[F:65536 R:2 S:128]":                "6cfc3a75c708a6a6324daa6a540ee17de702f798d4ff5a723cc7e66fd7c30a01",
	"gt200/copy///map[N:50000]":                                   "57d5b9c1a0e710a77fd792622bc1eb10af54f567f296825f902dcf59424420ec",
	"gt200/copy-rowmajor///map[cols:8 rows:2048]":                 "691b70192f08e5d11f0d4ccbcfd7f13908b766fd352b289ee226607fec2965b6",
	"gt200/copy///map[N:400000]":                                  "2739adb15a8b7aa472009207a39825a48dbe13910083f530d8fe56e9f7df184a",
	"gt200/stride///map[N:8192 O:0 S:32]":                         "89fc90617b7e9037852cf4fe047da2bb7f0cb95a3d21b5d37ff5165722e37a01",
	"fermi/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":          "6222d6f0031b76729b880c298e3e827bc46556e366ba803a3d1437bae4a621d8",
	"fermi/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":           "866af4def4607d214d9ed625b4e943bf0ef9cd16f6b7309f657a6ee163fb75cb",
	"fermi/matmul-naive///map[M:32 N:32 P:16]":                    "ec949b8e32c1f54805f1f5b6cd896a99ab32b630952bb6bfbf2ef44f800e4c6a",
	"fermi/transpose///map[N:160]":                                "793ff30c7e59d336e464f3b5a5b6e64602c2e12e4db88993250b5f73b51ed746",
	"fermi/vecadd///map[N:40000]":                                 "590dfc6d98aafb93461f72aa24b3a0795b85140d0df96e75ff4d4addbbafad26",
	"fermi/stride///map[N:20000 O:1 S:3]":                         "9820cc77e1bb94f9fcd6750602a772b07352e5e5002dc8e9037a1fbb28baf754",
	"fermi/latency-probe///map[F:65536 R:2 S:128]":                "e7d55ec939b574ad816d2715d5b9f3d3fe22417296e37d74c331255987a21907",
	"fermi/copy///map[N:50000]":                                   "7b7941cb0f791a0d7323de5ecc9ecd1e3e68e9101373eca8f76d1478e51a9ee4",
	"fermi/copy-rowmajor///map[cols:8 rows:2048]":                 "86dcb26479931910b1441dc153df5dd1de3a14099c0c469bc7542fbfb59d49a3",
	"fermi/copy///map[N:400000]":                                  "38e1c443f9b2af73a2a43c333543ffe7c16bb0cbf39506a661c9e9e776bec937",
	"fermi/stride///map[N:8192 O:0 S:32]":                         "2bb37a9a6ec10016188414736af15fb853e9adbc00725324a8d9731b3a8b3e44",
	"fermi/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":        "56ea78ddd4ee3e7c1b9beafb7536b7fd9777c0b6e2524e4b5d17ea3cb179ef7c",
	"fermi-l1-48k/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":   "67c75d45967dbc1164599a3f69fdc37d2e2764ade4e882d390dce2db017bf66d",
	"fermi-l1-48k/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":    "d0fc20e069e48b84f2b6ba1d8c9d75cae049e1bbd3a08e7937ed36bceeb151c3",
	"fermi-l1-48k/matmul-naive///map[M:32 N:32 P:16]":             "a8563c4521859e0017cfebdc4f96679edddc587764d86a768a11d114c7a6bc6d",
	"fermi-l1-48k/transpose///map[N:160]":                         "617c4801e1dd39d36683583eb2a5251aa49d121252f0bd5e7968796069fa4bdf",
	"fermi-l1-48k/vecadd///map[N:40000]":                          "76e0870aec68d3560661ca3e62351338f7fe793dec47e0456fcd06b3a92f32c3",
	"fermi-l1-48k/stride///map[N:20000 O:1 S:3]":                  "a869b588e1ecfae5ba8cc24cd7920dc7f79bc851b06fbb06bc49a63c24b8a653",
	"fermi-l1-48k/latency-probe///map[F:65536 R:2 S:128]":         "b65048ceca3781694d5fcf17a58ea68dd3cb9d2cf1705acf55315e523fd7076f",
	"fermi-l1-48k/copy///map[N:50000]":                            "c30157788aa52312d1cf67e16eecdbd0b4d6191c64b0d80e9b20c8e1983c103d",
	"fermi-l1-48k/copy-rowmajor///map[cols:8 rows:2048]":          "8ee27ba5181a1f4a1ed7f647a9ac3ef5f716dec4a85f8698a8aa96e3294b8fbc",
	"fermi-l1-48k/copy///map[N:400000]":                           "68d610a55cbc2d83918dce77c807462c891d7e65b242e30f7f5b24ba1fdebc32",
	"fermi-l1-48k/stride///map[N:8192 O:0 S:32]":                  "0e605f90186b78f17424699134a003d1ca13d9dc0ab16a220828b0c0d0b66bfe",
	"fermi-l1-48k/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]": "20155c39eeb3d816b5863faee427ba8f1ae56d5f93a0a4ec0c42ed74f973a761",
	"kepler/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":         "80f52c14d492a95933cbb45d89ea34f7026b63f5e80c231a71158486cc05db3f",
	"kepler/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":          "9ec71858c769148fc9e2a0f273f95f90b8286cd713e457c0778c224de4a46774",
	"kepler/matmul-naive///map[M:32 N:32 P:16]":                   "863a1f6e2d6a7362d2c59fc3e92975cc822268a14634bac1c889f8ec3a3f863f",
	"kepler/transpose///map[N:160]":                               "585eb1a436595782495e378562104a0ea5a65c361ac720f9ae1bc73015eb8e1f",
	"kepler/vecadd///map[N:40000]":                                "8ab96eb31967ba4904b5bb005551ab4e08f5f3afe851c9ccd6a456016e8583b3",
	"kepler/stride///map[N:20000 O:1 S:3]":                        "d408746173ab5e4bf73ad0c465adebc3937c8cd6e1e77a0a00afcaa996ad0f16",
	"kepler/latency-probe///map[F:65536 R:2 S:128]":               "e5eed9e29f6b240b035e693069caa58d0445b65662fc963466d45b06eb41ea38",
	"kepler/copy///map[N:50000]":                                  "87b59cc81f620ebe8367e3a743c6f036f8df547b3cfc87ce630c7f0ec9b648bb",
	"kepler/copy-rowmajor///map[cols:8 rows:2048]":                "d53fc31320261395145ac10f06b408630ccfa0d700157039a87c8704f34a4558",
	"kepler/copy///map[N:400000]":                                 "f3dfa2fa6283c9005755b058ad88e89ceb3adf76aa5fe920454bbcd12f900c13",
	"kepler/stride///map[N:8192 O:0 S:32]":                        "031df334c9709a8d6d204891a8d1fc701d9c0ecbdf0b742390a261ff94acef46",
	"kepler/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":       "c1bb01d5d2b0ea1d049916e1c866bb89c2723d58dd094316bafc93ae83740c0c",
	"maxwell/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":        "ef6160dd9352de5929aa96fbef5deb2881d1d8769e1fa577b3236a8210c8f484",
	"maxwell/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":         "fbb1f859d15847b6f3f82da734011b4a900a5d26a8b748370ce2bd626da5979c",
	"maxwell/matmul-naive///map[M:32 N:32 P:16]":                  "bd2fa7fcaf253132547cbb979554caeb49e0ce83505018fab4b6ed43f1f19c91",
	"maxwell/transpose///map[N:160]":                              "5dbcf87759d963a79b3299dcdea1ab638b4eb88e5f7bacaf2abb85515c91ff4a",
	"maxwell/vecadd///map[N:40000]":                               "c1a6da18a22593d3e3da2fcfe9c1dcc3f929c0a4f3b5967dd121a75bc3affbfa",
	"maxwell/stride///map[N:20000 O:1 S:3]":                       "d5483ed9202f4092fc8bf9f64e5a140fabdc5f27c4e8b26bc906b7be70d08b13",
	"maxwell/latency-probe///map[F:65536 R:2 S:128]":              "0ec76747dbc21e09f83548156b87ca9bed1b25529b4ad31f774ae1d6b4cf4db5",
	"maxwell/copy///map[N:50000]":                                 "70f391857244e5984d7085cc117f5e15c5d659d0b61fdeceb4914e2de08f17b2",
	"maxwell/copy-rowmajor///map[cols:8 rows:2048]":               "7b653032dc580172a6e4d735d83842db7c92009ff0148282ff97914d66d6ffd0",
	"maxwell/copy///map[N:400000]":                                "a40558a8de8bee20ec654892e6c31c4d651cc9cda48b867a57a2f1d7a0c06baf",
	"maxwell/stride///map[N:8192 O:0 S:32]":                       "72ac93dc5efe3f9381e6dfcb12f6914ff2e622891b41cd8fbbe8e521432e073d",
	"maxwell/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":      "73548f2ffa4a56c1617165bd5a29938c30bbaf97447fc2e521d28b280f95f6d3",
}

func goldenName(device string, c goldenCase) string {
	return fmt.Sprintf("%s/%s/%s/%s/%v", device, c.kernel, c.mapping, c.block, c.params)
}

// The engine reproduces the recorded results bit for bit. Set
// GPUMEMSIM_GOLDEN_PRINT=1 to print the table of the current code.
func TestEngineGolden(t *testing.T) {
	print := os.Getenv("GPUMEMSIM_GOLDEN_PRINT") == "1"
	for _, device := range goldenDevices {
		for _, c := range goldenKernels {
			if c.devices != nil && !slices.Contains(c.devices, device) {
				continue
			}
			name := goldenName(device, c)
			dev, l := bind(t, device, c.kernel, c.mapping, c.block, c.params)
			r := run(t, dev, l, sim.Options{})
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			got := hex.EncodeToString(sum[:])
			if print {
				fmt.Printf("\t%q: %q,\n", name, got)
				continue
			}
			want, ok := goldenHashes[name]
			if !ok {
				t.Errorf("%s: no recorded hash", name)
				continue
			}
			if got != want {
				t.Errorf("%s: Result hash %s; want %s (cycles %d)", name, got, want, r.Cycles)
			}
		}
	}
}
