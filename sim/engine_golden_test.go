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
	"g80/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":            "f095a3e50b55ee9bd0e33fc4e1eacab1d505a78acd0d96246e5b177a2e0cda33",
	"g80/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":             "2d654640cb345d8257ff26c1721fffd0a17a16520a515178dde2cd1e8b8bcc92",
	"g80/matmul-naive///map[M:32 N:32 P:16]":                      "72260225e19f025a1a6fe97f220c3567283a59f921309d9763f8c132fa7de0f4",
	"g80/transpose///map[N:160]":                                  "53a69296cf3d49428f5591e3508f2d971cbe7a9bb1aa5d449bf625b51aceaab6",
	"g80/vecadd///map[N:40000]":                                   "f4c9b869f70b9f6eee8096be5c47d20a4a7ecd50fab1611b86503676c0c1a4f3",
	"g80/stride///map[N:20000 O:1 S:3]":                           "97d6653a3b406c11429a64a0b2b3191e4dae3fc2473a052bc97df3ec26821f47",
	"g80/latency-probe///map[F:65536 R:2 S:128]":                  "c1195f2aec8f3978c9998f3f4f779781f1f42fd62a439892bac641a396fca743",
	"g80/copy///map[N:50000]":                                     "4605ffe31a5cbcaa313da84d3d36174cc22ab3c1192c94bb4506d246775db38a",
	"g80/copy-rowmajor///map[cols:8 rows:2048]":                   "6bbc7d5fe21ad8b39a23d44eb2ba0b275d4f424d4a6f4dbc33916059b7c5c089",
	"g80/copy///map[N:400000]":                                    "b16495d13db8a0a67cc224e27d473690a93bed110507febdbdb7a04ceb836438",
	"g80/stride///map[N:8192 O:0 S:32]":                           "c9f070ab382358933b4c46487bbbcbcd49143be4e387ca82c6af4dab07cdd4c1",
	"gt200/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":          "41c1c923370102ce74fc20c956a3ab3cba31c8b153a10a1241bc899e25c006cc",
	"gt200/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":           "e969fb762555a29317e263537024a0ec7398c9187c7921eb0b86459e423baeb6",
	"gt200/matmul-naive///map[M:32 N:32 P:16]":                    "2d3e4ec20267c814239be3e0129251029a938362e49080d0bbd18a0dc219177e",
	"gt200/transpose///map[N:160]":                                "e95813b1facf58ef4d69826edc2c62a5ecb385227672b81ee539e2493af16853",
	"gt200/vecadd///map[N:40000]":                                 "037912391691759fbe11d7715a6b85d36bebf5447cc72fa6e5b9a683ff7a72be",
	"gt200/stride///map[N:20000 O:1 S:3]":                         "88d9b43fc906816e582370123ed31652094e61364daae22b4c8dea3fea6d450b",
	"gt200/latency-probe///map[F:65536 R:2 S:128]":                "22e15ab4409d4e2dcfcfa62bcdc3fbdb08aa521b75d0735642522ef515fb6d42",
	"gt200/copy///map[N:50000]":                                   "f1b52046d0cb905fb0d57b204e8ae96b212b12b28dd3139628172fd59d50dbb0",
	"gt200/copy-rowmajor///map[cols:8 rows:2048]":                 "eb4027d99899f85447c2056e8eee268ba6201a5a305048af1cbed886ca228882",
	"gt200/copy///map[N:400000]":                                  "f62f74d39b64465e0694ae4ec184a0b956768c9ed7e18335b414ee2e8c2deefd",
	"gt200/stride///map[N:8192 O:0 S:32]":                         "f9b4f9379a2d3d926f9f993305db7fc71c228c1f4f69abf53cdc0b3b88f666cf",
	"fermi/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":          "e6b281122267c7c217d0774b3ff69ae05f95b2c0d9da4a56b83b00ddfa27fe7e",
	"fermi/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":           "abf0c9819cfdd524c82b02b328178b7e47cf4c581e3075d921485956a26a91a5",
	"fermi/matmul-naive///map[M:32 N:32 P:16]":                    "8c12b2a55cba73af7c0a9cd9fe54622a9c43e991a83d400c35e07c36effce7be",
	"fermi/transpose///map[N:160]":                                "7075f27035691f74f9f8d82e62ad97a07b8463e8f1ac144dd702c70f823d9f15",
	"fermi/vecadd///map[N:40000]":                                 "9f3e9ea8e73b5c3ff1551796d776d036bb23c3423d790f674cf6ef24dffe905d",
	"fermi/stride///map[N:20000 O:1 S:3]":                         "77d034f429d6c5de541281a6bfc46ae261f6a19da2483350c64d5adc0e5767d4",
	"fermi/latency-probe///map[F:65536 R:2 S:128]":                "1fe7a2a90887a3be285317bb6d2263569344d3f0d356038e024e63f1ecb1edcf",
	"fermi/copy///map[N:50000]":                                   "4affb06ef53d4b7ab8a85c5831e96953fcc75d514f7c0c2a1390ce9f17b94a5c",
	"fermi/copy-rowmajor///map[cols:8 rows:2048]":                 "c0d8900a60e19c821ac11551edf16da3cd58f5c315a67e9e5f0d6cdd12658da9",
	"fermi/copy///map[N:400000]":                                  "598f30a6ae78934c956d48e287d8cf31de536002fe4b3c391908c62d5f21ea8d",
	"fermi/stride///map[N:8192 O:0 S:32]":                         "1ebeb37d649f84fc790d90a566bb7dd0612dacc648f3926613ec32e64d3d0918",
	"fermi/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":        "954ac17552aee758901b02c43e6b343db67fe70487339d08ab843f6806f065ef",
	"fermi-l1-48k/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":   "2d31182a2f9c456d77b1b9932e0ec007f949558ca9744a2b3c032bfc144e4092",
	"fermi-l1-48k/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":    "2d838d5db3e5f233e97209d7c19c6380474811bf298546e856180dbfbcb34772",
	"fermi-l1-48k/matmul-naive///map[M:32 N:32 P:16]":             "5d132d4c2e381e20c60d86a5a1d87a48396e1a0a15e4b76c02a48ea40ffbd79e",
	"fermi-l1-48k/transpose///map[N:160]":                         "2c340a9811b53c9c6960615c3ef6109cb6dd52e5118b890ddb051c0a23efbc32",
	"fermi-l1-48k/vecadd///map[N:40000]":                          "ff094cdc1de50267069a9270dcff8f3622aada733afe80d0ceb7a5ac7501e511",
	"fermi-l1-48k/stride///map[N:20000 O:1 S:3]":                  "bb125cc875a09bd7bf797aad00bae1b0248c425683c5c0ef5a82e3b463025e71",
	"fermi-l1-48k/latency-probe///map[F:65536 R:2 S:128]":         "009c7d57394d0b99a461282ca3fcd7ebcc65fadb9656effbcd54b5c1ac1023ba",
	"fermi-l1-48k/copy///map[N:50000]":                            "083e2a6d229e43bfa85d693b6ba339c5bc2963b59c76218d9ad56eb69cf912ec",
	"fermi-l1-48k/copy-rowmajor///map[cols:8 rows:2048]":          "e5e630cca9983e88673dfec21f01aa3fa31a05b5929dd80ce87dd4ecf84d716c",
	"fermi-l1-48k/copy///map[N:400000]":                           "518241043916b025f13eaf670aafeb7cb5278aa9dcf6a4350b4f246f17b0dab7",
	"fermi-l1-48k/stride///map[N:8192 O:0 S:32]":                  "4d96a10df365ea9c04c1dbace5320910497db9b9e86243f43b36ecb615c49ad9",
	"fermi-l1-48k/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]": "751133556a11af41995bb904607edc32137b20afe2f6a5ac1c89a4bee936a908",
	"kepler/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":         "8d11a33805bd272965a2e8d29b7c9b07a184b25d9bdceae476ab619d12677c9d",
	"kepler/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":          "ec9ac440d27e9560d1ae23bd60f7cf317fdd5b0f79a9f5d26cd1a995ad9409ef",
	"kepler/matmul-naive///map[M:32 N:32 P:16]":                   "8d6556f36980319c101bb6b73a927df6ce8e0714097898ca87c22f306da3552c",
	"kepler/transpose///map[N:160]":                               "45f2b043d0f9f9259185953788b1be8992ba9778653b93a2225a308160513657",
	"kepler/vecadd///map[N:40000]":                                "fc90218dc2a14c60a43f613590e22d55afced296a7ecff91103fdb4c8b983716",
	"kepler/stride///map[N:20000 O:1 S:3]":                        "b0a50491dac35b519af02b738e8490be53a535888ae3a56a8400070070ae6b82",
	"kepler/latency-probe///map[F:65536 R:2 S:128]":               "ccf14db29f406407d6bb42eb138bca1aca4547f345012dd8e33352be030838df",
	"kepler/copy///map[N:50000]":                                  "9f569b3941d09ef98056e5ee49bbd4bc90c39283c7628a61d91c61be84f6cd40",
	"kepler/copy-rowmajor///map[cols:8 rows:2048]":                "bce7b835c6a4fb09386a09117be6570ba32c3f46b75b5ad1eb51b3d0af710113",
	"kepler/copy///map[N:400000]":                                 "a399106dfd0a5df36b2288a4db9674842d2506b265b7012fbfe2131a929ebf16",
	"kepler/stride///map[N:8192 O:0 S:32]":                        "4f60e5a24e61185f61433aae6849ff4699a70f897159ce3364bb9d22f5a512d6",
	"kepler/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":       "faace60274819fdc0722d3cc28e80e03f26e3996e4e6f1ace8282ada1160fdf8",
	"maxwell/matmul/i1=ty,i2=tx/16x16/map[M:64 N:64 P:48]":        "dc16ac34214a08250e2e3b7ad6f1281c6cb95833a2cd6febe75941a15c174c7c",
	"maxwell/matmul/i1=tx,i2=ty/16x8/map[M:48 N:64 P:40]":         "5eef506eea9002f4d7efd71739ac70ca6099bab711d25c0f55601d38a2c99b1e",
	"maxwell/matmul-naive///map[M:32 N:32 P:16]":                  "f76b3d62b19e2833440de9a556a9488d4159cb19829bc64fd845a7015b3f1fc2",
	"maxwell/transpose///map[N:160]":                              "2a4280db85105f446ebbbdcac40482177d18f4bb427c2d9424588eec63e36125",
	"maxwell/vecadd///map[N:40000]":                               "eaa228509eb248ec5b14c6650913705e4a2edc2ff3c3b1a3357dd9af21c9cbb6",
	"maxwell/stride///map[N:20000 O:1 S:3]":                       "e0d16acf6b82f6117b8ec1080c037d7a1b1ccf0accd21799426489be7e53cb68",
	"maxwell/latency-probe///map[F:65536 R:2 S:128]":              "c9ea3ddf2cf76b898b975adf423be5a623460b6e02237ce914a3b206b6d6550a",
	"maxwell/copy///map[N:50000]":                                 "2c031dc911b67e00ec4ce48119214a17cace1411dbbb7f468a4d3cbf09945dc0",
	"maxwell/copy-rowmajor///map[cols:8 rows:2048]":               "2b8ad17afd17fcc685ef80edfdd1e89c9fcc0fed2b119d629c1b2421616811c7",
	"maxwell/copy///map[N:400000]":                                "b3c0829058062a1dbc6144ddd9487b4dc6610af051708f77061e732e60ac0fd5",
	"maxwell/stride///map[N:8192 O:0 S:32]":                       "3e6be5791f23967ad9e4d1aa483a262c925a3d3ca0d62b2f14d7904caaf41638",
	"maxwell/matmul/i1=tx,i2=ty/16x16/map[M:128 N:128 P:64]":      "fb9c1f9e63361e5fee45bcb00e2b82bc5941f67064dc86e4c95dc77c5ad0ec6e",
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
