// PTX read from fat binaries that nvcc built from
// tests/cuda_programs/kernel_resources.cu (tests/shim/CMakeLists.txt:
// COLO_FATBIN_PTX_DIR holds <variant>.fatbin and nvcc --ptx's
// compute_<arch>.ptx), compared with nvcc's own PTX, chosen per device
// architecture as the driver's JIT would, and from damaged copies.
#include "shim/fatbin_ptx.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "shim/fatbin_container.h"

namespace colo::shim {
namespace {

const std::string kDir = COLO_FATBIN_PTX_DIR;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Fatbin(const std::string& variant) {
  std::string f = Slurp(kDir + "/" + variant + ".fatbin");
  EXPECT_FALSE(f.empty()) << variant;
  return f;
}

// PTX without its comments and with each run of blanks as one space: the
// fat binary's copy is nvcc's text with comments and indentation stripped.
std::string Normalized(std::string_view ptx) {
  std::string out;
  bool blank = false;
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx.substr(i, 2) == "//") {
      while (i < ptx.size() && ptx[i] != '\n') ++i;
      blank = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(ptx[i]))) {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += ptx[i];
  }
  return out;
}

std::string NvccPtx(const std::string& arch) {
  const std::string text = Slurp(kDir + "/compute_" + arch + ".ptx");
  EXPECT_NE(text.find(".entry"), std::string::npos) << arch;
  return Normalized(text);
}

// How each entry of `variant` is stored: kind 1 entries' flags.
std::vector<uint64_t> PtxFlags(const std::string& image) {
  auto entries = fatbin::Entries(
      reinterpret_cast<const unsigned char*>(image.data()), image.size());
  EXPECT_TRUE(entries.ok());
  std::vector<uint64_t> out;
  if (entries.ok())
    for (const fatbin::Entry& e : *entries)
      if (e.kind == fatbin::kKindPtx) out.push_back(e.flags);
  return out;
}

TEST(FatbinPtxTest, EachEntryIsNvccsPtxForItsArchitecture) {
  // `nvcc -fatbin` with code=[sm_75,compute_75] and [sm_80,compute_80]
  // embeds one PTX entry per virtual architecture, in that order, each
  // nvcc --ptx's text for it (comments aside).
  const std::string ptx75 = NvccPtx("75"), ptx80 = NvccPtx("80");
  ASSERT_NE(ptx75, ptx80);  // the .target lines differ at least
  for (const char* variant : {"plain", "default", "size", "lz4"}) {
    SCOPED_TRACE(variant);
    const std::string image = Fatbin(variant);
    auto entries = ReadFatbinPtxEntries(image.data(), image.size());
    ASSERT_TRUE(entries.ok()) << entries.status().ToString();
    ASSERT_EQ(entries->size(), 2u);
    EXPECT_EQ((*entries)[0].arch, 75);
    EXPECT_EQ((*entries)[1].arch, 80);
    for (const FatbinPtx& p : *entries) {
      EXPECT_EQ(p.target, PtxTargetKind::kGeneric);
      EXPECT_EQ(p.text.find('\0'), std::string::npos);
      EXPECT_EQ(Normalized(p.text), p.arch == 75 ? ptx75 : ptx80);
    }
  }
}

TEST(FatbinPtxTest, CompressedVariantsAreCompressedAsExpected) {
  // So that the test above read each decompressor: nvcc stores PTX plain
  // under --no-compress, zstd by default and under --compress-mode=size,
  // LZ4 under --compress-mode=speed with -compress-all.
  const std::pair<const char*, uint64_t> cases[] = {
      {"plain", 0},
      {"default", fatbin::kFlagZstd},
      {"size", fatbin::kFlagZstd},
      {"lz4", fatbin::kFlagLz4}};
  for (auto [variant, flag] : cases) {
    SCOPED_TRACE(variant);
    const std::vector<uint64_t> flags = PtxFlags(Fatbin(variant));
    ASSERT_EQ(flags.size(), 2u);
    for (uint64_t f : flags)
      EXPECT_EQ(f & (fatbin::kFlagZstd | fatbin::kFlagLz4), flag);
  }
}

TEST(FatbinPtxTest, ChoosesTheNewestPtxTheDeviceCanCompile) {
  // compute_75 and compute_80: a device takes the highest not above its
  // own architecture; sm_70 can take neither.
  const std::string image = Fatbin("size");
  for (auto [device, arch] :
       {std::pair{75, 75}, {80, 80}, {86, 80}, {90, 80}, {120, 80}}) {
    auto p = ReadFatbinPtx(image.data(), image.size(), device);
    ASSERT_TRUE(p.ok()) << device << ": " << p.status().ToString();
    EXPECT_EQ(p->arch, arch) << device;
    EXPECT_EQ(Normalized(p->text), NvccPtx(std::to_string(arch))) << device;
  }
  auto none = ReadFatbinPtx(image.data(), image.size(), 70);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("compute_75"), std::string::npos);
  EXPECT_NE(none.status().message().find("compute_80"), std::string::npos);
  EXPECT_NE(none.status().message().find("sm_70"), std::string::npos);
}

TEST(FatbinPtxTest, ArchitectureSpecificAndFamilyPtxOnlyWhereTheyRun) {
  // compute_90 (generic), compute_90a (sm_90 alone), compute_100f (sm_100
  // and sm_103, not sm_110): sm_90 takes 90a over 90 (same architecture,
  // more specific); sm_100 and sm_103 take 100f; sm_110 and sm_120 fall
  // back to generic compute_90; sm_89 has none.
  const std::string image = Fatbin("special");
  auto entries = ReadFatbinPtxEntries(image.data(), image.size());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 3u);
  std::vector<std::string> names;
  for (const FatbinPtx& p : *entries) names.push_back(PtxArchName(p));
  EXPECT_EQ(names, (std::vector<std::string>{"compute_90", "compute_90a",
                                             "compute_100f"}));
  const std::pair<int, std::string> cases[] = {
      {90, "90a"}, {100, "100f"}, {103, "100f"}, {110, "90"}, {120, "90"}};
  for (const auto& [device, want] : cases) {
    auto p = ReadFatbinPtx(image.data(), image.size(), device);
    ASSERT_TRUE(p.ok()) << device << ": " << p.status().ToString();
    EXPECT_EQ(PtxArchName(*p), "compute_" + want) << device;
    EXPECT_EQ(Normalized(p->text), NvccPtx(want)) << device;
    // The text's own .target agrees with the entry's header.
    auto target = ReadPtxTarget(p->text);
    ASSERT_TRUE(target.ok());
    EXPECT_EQ(target->arch, p->arch);
    EXPECT_EQ(target->target, p->target);
  }
  auto none = ReadFatbinPtx(image.data(), image.size(), 89);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
}

TEST(FatbinPtxTest, CubinsOnlyIsNotFoundWithItsReason) {
  const std::string image = Fatbin("cubins");
  auto entries = ReadFatbinPtxEntries(image.data(), image.size());
  ASSERT_TRUE(entries.ok());
  EXPECT_TRUE(entries->empty());
  auto p = ReadFatbinPtx(image.data(), image.size(), 80);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound);
  EXPECT_NE(p.status().message().find("no PTX"), std::string::npos);
}

// nvcc's wrapper of a container, as __cudaRegisterFatBinary receives it.
struct Wrapper {
  uint32_t magic = 0x466243B1;
  uint32_t version = 1;
  const void* container = nullptr;
  const void* unused = nullptr;
};

TEST(FatbinPtxTest, RegisteredWrapperAndModuleImages) {
  const std::string image = Fatbin("lz4");
  Wrapper w;
  w.container = image.data();
  auto via_wrapper = ReadRegisteredPtx(&w, 80);
  ASSERT_TRUE(via_wrapper.ok()) << via_wrapper.status().ToString();
  EXPECT_EQ(Normalized(via_wrapper->text), NvccPtx("80"));
  EXPECT_FALSE(ReadRegisteredPtx(nullptr, 80).ok());
  const uint32_t not_a_wrapper[4] = {1, 2, 3, 4};
  EXPECT_FALSE(ReadRegisteredPtx(not_a_wrapper, 80).ok());

  // cuModuleLoadData's images: a container, PTX text, a cubin.
  auto from_container = ReadModuleImagePtx(image, 75);
  ASSERT_TRUE(from_container.ok());
  EXPECT_EQ(from_container->arch, 75);
  const std::string text = Slurp(kDir + "/compute_80.ptx");
  auto from_text = ReadModuleImagePtx(text, 86);
  ASSERT_TRUE(from_text.ok()) << from_text.status().ToString();
  EXPECT_EQ(from_text->arch, 80);
  EXPECT_EQ(from_text->text, text);
  auto too_new = ReadModuleImagePtx(Slurp(kDir + "/compute_100f.ptx"), 90);
  ASSERT_FALSE(too_new.ok());
  EXPECT_EQ(too_new.status().code(), StatusCode::kNotFound);
  const std::string cubins = Fatbin("cubins");
  auto entries = fatbin::Entries(
      reinterpret_cast<const unsigned char*>(cubins.data()), cubins.size());
  ASSERT_TRUE(entries.ok() && !entries->empty());
  auto elf = fatbin::Payload(entries->front());
  ASSERT_TRUE(elf.ok());
  auto from_cubin = ReadModuleImagePtx(*elf, 80);
  ASSERT_FALSE(from_cubin.ok());
  EXPECT_EQ(from_cubin.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadModuleImagePtx("no directives here", 80).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(FatbinPtxTest, TargetLineIsReadOnlyWhereItIsADirective) {
  auto t =
      ReadPtxTarget("// .target sm_99\n.version 9.0\n  .target sm_86, debug\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->arch, 86);
  EXPECT_EQ(t->target, PtxTargetKind::kGeneric);
  EXPECT_FALSE(ReadPtxTarget(".version 9.0\n// .target sm_80\n").ok());
  EXPECT_FALSE(ReadPtxTarget(".target compute_80\n").ok());
}

TEST(FatbinPtxTest, DamagedContainersAreErrorsNotCrashes) {
  for (const char* variant : {"plain", "size", "lz4"}) {
    SCOPED_TRACE(variant);
    const std::string image = Fatbin(variant);
    ASSERT_TRUE(ReadFatbinPtx(image.data(), image.size(), 80).ok());
    // Every cut-off copy is refused: its header's sizes no longer fit.
    for (size_t n = 0; n < image.size(); n += 7) {
      const std::string cut = image.substr(0, n);
      auto r = ReadFatbinPtx(cut.data(), cut.size(), 80);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << n;
    }
    // Any byte changed: an answer or an error, never a read outside the
    // copy (the sanitizer build checks that); changes in the headers are
    // refused.
    int refused = 0;
    for (size_t i = 0; i < image.size(); i += 3) {
      std::string bad = image;
      bad[i] = static_cast<char>(bad[i] ^ 0x5A);
      refused += !ReadFatbinPtxEntries(bad.data(), bad.size()).ok();
    }
    EXPECT_GT(refused, 0);
  }
}

}  // namespace
}  // namespace colo::shim
