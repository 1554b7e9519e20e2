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
// recorded from the engine before its performance work. The engine must
// reproduce every cycle and counter exactly, so any change of a hash is a
// change of behaviour, not of speed.
var goldenHashes = map[string]string{
	"g80/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":            "4a4ac13a05f53ecb672d9d058c6a926628e873ec1482d257f19e765b999d1249",
	"g80/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":             "b75762719ceaf3e9b91ace3c9e6d0b4f933a1bc045e5e3f3035280e39e9ccda3",
	"g80/matmul-naive///map[M:32 N:32 P:16]":                      "cb553aecfb1fda10ab5921c48f64393608381f31d7c9e3041885518e52dfcbbe",
	"g80/transpose///map[N:160]":                                  "65c9169e00a0ecb38e973c9b16f1d680f7be867e97440da46c465493d0113629",
	"g80/vecadd///map[N:40000]":                                   "e7ed0ecaa173b81fe26464a9cfc435e404e4f15afe5af1d91c7cdb616de8d314",
	"g80/stride///map[N:20000 O:1 S:3]":                           "95b8e8bf898c13f6c749602b2a086adfbf459709d8fc94c31943f895fd7a7545",
	"g80/latency-probe///map[F:65536 R:2 S:128]":                  "cfa98a8b56e5ecc5eb0bb9dadb168f982bf03c1d30673845a824f8651d387294",
	"g80/copy///map[N:50000]":                                     "f17785da32846c9e48351b35c0687886be4192cbc5129362100312741fcb13d1",
	"g80/copy-rowmajor///map[cols:8 rows:2048]":                   "894ca4846b76b1fd46d592cf91415567f089420f9f2bbaeb333c2d2fb21f2d53",
	"g80/copy///map[N:400000]":                                    "bf30a5901c6a4d1017c96a78018006abff454284445a5fa7e6b85784c6357181",
	"g80/stride///map[N:8192 O:0 S:32]":                           "a0cba52fabff9ac5b5320676b9cb7cf4680e039e6181d7a33c3cdf2400a6f07c",
	"gt200/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":          "008a51d864d9222875fb41b9c08cfd5116a67a718fe1ae4662737c2f677e451b",
	"gt200/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":           "c5132d3b0b9c155268e77593ba496dfa37ea6f4f260bcd7f1b164b070cd3698a",
	"gt200/matmul-naive///map[M:32 N:32 P:16]":                    "4dfb8dae5312e37f67c4727f32fe45364a1dcbffe4ab0147dc125a4a11f44c93",
	"gt200/transpose///map[N:160]":                                "40dfd780efc36a61006e05bb1d1a83096d38be3f35fe4eec2149a35fa036f346",
	"gt200/vecadd///map[N:40000]":                                 "160d208807cd851bfa19457a8c6d3257c4c8d159fab5532ea586e3d7b350a379",
	"gt200/stride///map[N:20000 O:1 S:3]":                         "3e66b7abc71aa3f8522c6f357176a0fd38d2915a5fc1a73205ee0b5896f2a932",
	"gt200/latency-probe///map[F:65536 R:2 S:128]":                "6cfc3a75c708a6a6324daa6a540ee17de702f798d4ff5a723cc7e66fd7c30a01",
	"gt200/copy///map[N:50000]":                                   "4ce36f41c9aa8bc775bf8e29aaa2357e3d3eadd37cb377068c9f512686ff6f92",
	"gt200/copy-rowmajor///map[cols:8 rows:2048]":                 "bf615685dd39ceaa0f14cdc9add26969c87883089c3664cd90a860970bed0e82",
	"gt200/copy///map[N:400000]":                                  "878d2af40fcc236c4a0c4e943e966bd7e32cc5c71ff6893a15aa83e027d70e5e",
	"gt200/stride///map[N:8192 O:0 S:32]":                         "89fc90617b7e9037852cf4fe047da2bb7f0cb95a3d21b5d37ff5165722e37a01",
	"fermi/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":          "b8c460f8609c71de14df006785f0247f52ce3fdc478e190148fdf5c097062fa6",
	"fermi/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":           "c99abbe702ed60cb80c1d6e96cd6cf864ee9ba0c1785757026a5b2a8a8cb7ffa",
	"fermi/matmul-naive///map[M:32 N:32 P:16]":                    "43d60f42f7dab368c7ca28497d623d6658973f16fe521f7b0edd25e944576a36",
	"fermi/transpose///map[N:160]":                                "bad5157eb0d7032327b655e62173b0911713aa8ef4414b70f5ba4149703db775",
	"fermi/vecadd///map[N:40000]":                                 "c968cfed361c9c078dbca30b402c785e60f1584dd1f35c174c64fc1c19a457f7",
	"fermi/stride///map[N:20000 O:1 S:3]":                         "ce7081f18aacbd999b4616f31e307186ae00fec209a6dd6c83ac139d018eec15",
	"fermi/latency-probe///map[F:65536 R:2 S:128]":                "e7d55ec939b574ad816d2715d5b9f3d3fe22417296e37d74c331255987a21907",
	"fermi/copy///map[N:50000]":                                   "cd0c9b652896ee1b17ff82e5b963ea0339240917fb08497355f518ee0703e52d",
	"fermi/copy-rowmajor///map[cols:8 rows:2048]":                 "8856ebd662811d80bd94c216196cbad680d245248f3466439be4152b0142b1f5",
	"fermi/copy///map[N:400000]":                                  "3406cc54f8442735e17f74bd01dda719f0fce0e302cc43b8957c11603514f723",
	"fermi/stride///map[N:8192 O:0 S:32]":                         "2bb37a9a6ec10016188414736af15fb853e9adbc00725324a8d9731b3a8b3e44",
	"fermi/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":        "b01bcb3b138a41bbb0ab29c840d1dacebeb4fabc8f8316cb3e59b17b2ec03be0",
	"fermi-l1-48k/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":   "c5d8f31e22cf73fad862dba372d694f9ecea91fdf1e48e4de98d48abe155d142",
	"fermi-l1-48k/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":    "58cb8e0c1048b51aacddef3baa6be52e1d11c9c738c9d028e70ed123c7eea708",
	"fermi-l1-48k/matmul-naive///map[M:32 N:32 P:16]":             "4671e3a18ac813bbed51bcd5071596ec076c45088fbb75f063b20ca8368bf5b4",
	"fermi-l1-48k/transpose///map[N:160]":                         "2c120ea77308fee033a5970c3ce0bf5fa3d7e8f8986b312b16703c5b6fbaea60",
	"fermi-l1-48k/vecadd///map[N:40000]":                          "906b371c8d05a9b0aa744ee99678e659497f3e0a32c2f0b8424e7455773f916c",
	"fermi-l1-48k/stride///map[N:20000 O:1 S:3]":                  "50653387ee167f815ee4507a6be6e9abfc123edef0aaa2db62fecb7217db52e1",
	"fermi-l1-48k/latency-probe///map[F:65536 R:2 S:128]":         "b65048ceca3781694d5fcf17a58ea68dd3cb9d2cf1705acf55315e523fd7076f",
	"fermi-l1-48k/copy///map[N:50000]":                            "841db7385b1273c3cde3e9ea42b8663a98e6b46c822960228be538eae3c553bb",
	"fermi-l1-48k/copy-rowmajor///map[cols:8 rows:2048]":          "6c60a87004aab1c499825c266107d2a903c0ef504921419cecd9d9eee38f88e0",
	"fermi-l1-48k/copy///map[N:400000]":                           "df29a7dbc99a89c637a4eb552e7f301d4331bb63b8aaba802ac53157db1c19f3",
	"fermi-l1-48k/stride///map[N:8192 O:0 S:32]":                  "0e605f90186b78f17424699134a003d1ca13d9dc0ab16a220828b0c0d0b66bfe",
	"fermi-l1-48k/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]": "5dd23ab905d0568956835562ed5313b05c10f9e356bcb45d14a2f25b0747e76d",
	"kepler/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":         "c0edf007e340f4023145a44fbc9f9b92856d33626ad5e464c3bdfafce3600b3c",
	"kepler/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":          "921ce17347ade66cbf5f84340aaa035bdbc8b630c2165bd677531ac43d24745c",
	"kepler/matmul-naive///map[M:32 N:32 P:16]":                   "08a52fc44774eef79010da4e02c7337ca3f10ad11afe8a72fa229bc3c09c9701",
	"kepler/transpose///map[N:160]":                               "b6998212b1c6f0c69c0c4a9e0de31ffe4678d9b2a9dbac82f7025d364f665166",
	"kepler/vecadd///map[N:40000]":                                "e855839e7eabf9891727188fcf597e15de014400805cc0ff643e147377ed5e90",
	"kepler/stride///map[N:20000 O:1 S:3]":                        "206732bc28c77ef1f632a5601611028121e37416e2f86bc8adc21fe15b884c60",
	"kepler/latency-probe///map[F:65536 R:2 S:128]":               "e5eed9e29f6b240b035e693069caa58d0445b65662fc963466d45b06eb41ea38",
	"kepler/copy///map[N:50000]":                                  "320f2320434a2106ee9ee5b93e6041a9d9f9de660a364881981195e2b87b6dac",
	"kepler/copy-rowmajor///map[cols:8 rows:2048]":                "b6db2263ab430810374e463322cb6305ba44238c20e90b872a277a9970b68a69",
	"kepler/copy///map[N:400000]":                                 "92e3ce568084c171eadeb38dc27363e2bdd4cf7ae166a0fccd232679b523ba6d",
	"kepler/stride///map[N:8192 O:0 S:32]":                        "1656215a261c16cb37b1fb63c17c756b910c73b76d869e044ca0025cda0167da",
	"kepler/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":       "2b0afc70078688e5ac8756a799e2bba79072f06270751487807260e1d4a00dc1",
	"maxwell/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":        "39c5b0cd7dd61887833d49fed382af141f3da64a14f0003f8275b20e7f06395b",
	"maxwell/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":         "1bc9063556161d0432f5ce1d9d0a0278a64612c0ac1daf110e4dd8a69e0a0785",
	"maxwell/matmul-naive///map[M:32 N:32 P:16]":                  "8e659973744a344e73397630192f6a76217de2f0314cd47d65239cd01b324799",
	"maxwell/transpose///map[N:160]":                              "23151b8326b85dfb02c0567aa5bafb03e0a2e0068989e530c5b2600c9d9a33be",
	"maxwell/vecadd///map[N:40000]":                               "a9cff71c0e8827cdd64ae7d0cd1c169a25179f0dbe5096a7a35a60292be0415b",
	"maxwell/stride///map[N:20000 O:1 S:3]":                       "6fa9f58e239678050ba9f02c3f14d19345af3ea86660678b2c0cc0fbb1398448",
	"maxwell/latency-probe///map[F:65536 R:2 S:128]":              "0ec76747dbc21e09f83548156b87ca9bed1b25529b4ad31f774ae1d6b4cf4db5",
	"maxwell/copy///map[N:50000]":                                 "dcd299d630f7bfaa4f0c657f804659ef76b5066084cdc0d1b9d00e8d017d49f2",
	"maxwell/copy-rowmajor///map[cols:8 rows:2048]":               "e17709aed2a33d7dbe8ac9ea13ba27f628b9422db7e61dbca3a7922a3ee6e54e",
	"maxwell/copy///map[N:400000]":                                "4def7eec12b588207756597efd09c922bd8c0c2f49b5090f61460d380136531a",
	"maxwell/stride///map[N:8192 O:0 S:32]":                       "3fcde3b7c33b4d81dcef9883746f36e45d39e5b60a64f6a103955d6621ceb81f",
	"maxwell/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":      "177059c23b47d7a06437c8fa47145176bb4c025be2fc699b8c2a02706d7ec2c4",
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
