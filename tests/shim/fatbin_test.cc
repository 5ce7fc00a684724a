// Reading kernel resources from fat binaries that nvcc built
// (tests/cuda_programs/kernel_resources_{plain,zstd,lz4}), checked against
// ptxas's own report, and from damaged copies of them.
#include "shim/fatbin.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "../cuda_programs/ptxas_report.h"

namespace colo::shim {
namespace {

const std::string kPrograms =
    std::string(COLO_BINARY_DIR) + "/tests/cuda_programs/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fat binary containers in a host executable's .nv_fatbin section.
std::vector<std::string> Containers(const std::string& exe) {
  const std::string f = Slurp(exe);
  std::vector<std::string> out;
  if (f.size() < sizeof(Elf64_Ehdr)) return out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, f.data(), sizeof eh);
  auto section = [&](size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, f.data() + eh.e_shoff + i * sizeof s, sizeof s);
    return s;
  };
  const Elf64_Shdr names = section(eh.e_shstrndx);
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr s = section(i);
    if (std::strcmp(f.data() + names.sh_offset + s.sh_name, ".nv_fatbin") != 0)
      continue;
    const std::string sec = f.substr(s.sh_offset, s.sh_size);
    size_t at = 0;
    while (at + 16 <= sec.size()) {
      uint32_t magic;
      std::memcpy(&magic, sec.data() + at, 4);
      if (magic != 0xBA55ED50) {
        at += 8;  // containers are 8-byte aligned in the section.
        continue;
      }
      uint16_t header;
      uint64_t payload;
      std::memcpy(&header, sec.data() + at + 6, 2);
      std::memcpy(&payload, sec.data() + at + 8, 8);
      out.push_back(sec.substr(at, header + payload));
      at += header + payload;
    }
  }
  return out;
}

#define SKIP_WITHOUT_NVCC()                                              \
  if (access((kPrograms + "kernel_resources_plain").c_str(), R_OK) != 0) \
  GTEST_SKIP()                                                           \
      << "needs nvcc (tests/cuda_programs/kernel_resources_* not built)"

// The union over a program's containers (each translation unit has one).
std::map<std::string, KernelResources> All(const std::vector<std::string>& cs,
                                           int arch) {
  std::map<std::string, KernelResources> out;
  for (const std::string& c : cs) {
    auto r = ReadFatbinResources(c.data(), c.size(), arch);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) out.insert(r->begin(), r->end());
  }
  return out;
}

TEST(FatbinTest, ResourcesAreWhatPtxasReportedForTheChosenArchitecture) {
  SKIP_WITHOUT_NVCC();
  const auto ptxas =
      testing::ReadPtxasReport(kPrograms + "kernel_resources.ptxas.txt");
  for (const char* variant : {"plain", "zstd", "lz4"}) {
    SCOPED_TRACE(variant);
    const auto cs = Containers(kPrograms + "kernel_resources_" + variant);
    ASSERT_FALSE(cs.empty());
    // target 80 and 90 load sm_80; 75 loads sm_75; 70 has none old enough:
    // the oldest (sm_75).
    for (auto [target, arch] :
         {std::pair{80, 80}, {90, 80}, {75, 75}, {70, 75}}) {
      const auto got = All(cs, target);
      for (const char* kernel : {"_Z5heavyPdi", "_Z5lightPf"}) {
        ASSERT_TRUE(got.count(kernel)) << kernel << " target " << target;
        const auto k = ptxas.find({arch, kernel});
        ASSERT_NE(k, ptxas.end()) << kernel << " sm_" << arch;
        const auto [regs, shared] = k->second;
        EXPECT_EQ(got.at(kernel).registers_per_thread, regs)
            << kernel << " target " << target;
        EXPECT_EQ(got.at(kernel).static_shared_bytes, shared) << kernel;
        EXPECT_EQ(got.at(kernel).arch, arch) << kernel;
        EXPECT_EQ(got.at(kernel).max_threads_per_block, 0)
            << kernel;  // no bounds
      }
      ASSERT_TRUE(got.count("_Z7boundedPf"));
      EXPECT_EQ(got.at("_Z7boundedPf").max_threads_per_block, 192);
    }
  }
}

TEST(FatbinTest, ModuleImagesAreCopiedWholeAndRead) {
  SKIP_WITHOUT_NVCC();
  const auto ptxas =
      testing::ReadPtxasReport(kPrograms + "kernel_resources.ptxas.txt");
  for (const char* file :
       {"kernel_resources.sm_80.cubin", "kernel_resources.fatbin"}) {
    SCOPED_TRACE(file);
    const std::string image = Slurp(kPrograms + file);
    ASSERT_FALSE(image.empty());
    // The size comes from the image's own headers: the whole file, no more.
    Result<std::string> copy = CopyModuleImage(image.data());
    ASSERT_TRUE(copy.ok()) << copy.status().ToString();
    ASSERT_EQ(copy->size(), image.size());
    EXPECT_TRUE(*copy == image);
    auto r = ReadModuleResources(*copy, 80);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->count("_Z5heavyPdi"));
    EXPECT_EQ(r->at("_Z5heavyPdi").registers_per_thread,
              ptxas.at({80, "_Z5heavyPdi"}).registers);
    EXPECT_EQ(r->at("_Z5heavyPdi").static_shared_bytes,
              ptxas.at({80, "_Z5heavyPdi"}).static_shared_bytes);
  }
  // PTX text is copied up to its NUL (the interpreter and the JIT read it);
  // it holds no cubin, so no resources: not an error.
  const char ptx[] = "//\n.version 8.0\n.target sm_80\n";
  Result<std::string> text = CopyModuleImage(ptx);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, std::string(ptx));
  EXPECT_TRUE(ReadModuleResources(*text, 80)->empty());
}

TEST(FatbinTest, DamagedImagesAreErrorsNotCrashes) {
  SKIP_WITHOUT_NVCC();
  for (const char* variant : {"plain", "zstd", "lz4"}) {
    SCOPED_TRACE(variant);
    std::string image;
    for (const std::string& c :
         Containers(kPrograms + "kernel_resources_" + variant)) {
      auto r = ReadFatbinResources(c.data(), c.size(), 80);
      if (r.ok() && r->count("_Z5heavyPdi")) image = c;
    }
    ASSERT_FALSE(image.empty());
    // Every cut-off copy is refused (the sizes no longer fit).
    for (size_t n = 0; n < image.size(); n += 3) {
      const std::string cut = image.substr(0, n);
      EXPECT_FALSE(ReadFatbinResources(cut.data(), cut.size(), 80).ok()) << n;
    }
    // Any byte changed: an answer or an error, never a read outside the copy
    // (the sanitizer build checks that).
    int refused = 0;
    for (size_t i = 0; i < image.size(); i += 5) {
      std::string bad = image;
      bad[i] = static_cast<char>(bad[i] ^ 0xA5);
      refused += !ReadFatbinResources(bad.data(), bad.size(), 80).ok();
    }
    EXPECT_GT(refused, 0);
  }
  EXPECT_FALSE(ReadCubinResources(
                   "not an ELF file at all, just text......................."
                   "................................................",
                   80)
                   .ok());
  EXPECT_FALSE(ReadRegisteredFatbin(nullptr, 80).ok());
  const uint32_t not_a_wrapper[4] = {1, 2, 3, 4};
  EXPECT_FALSE(ReadRegisteredFatbin(not_a_wrapper, 80).ok());
}

// nvcc's wrapper of a container, as __cudaRegisterFatBinary receives it.
struct Wrapper {
  uint32_t magic = 0x466243B1;
  uint32_t version = 1;
  const void* container = nullptr;
  const void* unused = nullptr;
};

TEST(FatbinTest, InitialValuesOfDeviceVariablesComeFromTheCubin) {
  // tests/cuda_programs/managed_vars.cu: `__managed__ int seeded[4] = {5,
  // 6, 7, 8}` and `__managed__ long plain[256]` (no initializer: zeros, not
  // listed).
  SKIP_WITHOUT_NVCC();
  std::map<std::string, std::string> values;
  for (const std::string& c : Containers(kPrograms + "managed_vars")) {
    Wrapper w;
    w.container = c.data();
    auto r = ReadRegisteredInitialValues(&w);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    values.insert(r->begin(), r->end());
  }
  ASSERT_EQ(values.count("seeded"), 1u);
  const int32_t expected[4] = {5, 6, 7, 8};
  EXPECT_EQ(
      values["seeded"],
      std::string(reinterpret_cast<const char*>(expected), sizeof expected));
  EXPECT_EQ(values.count("plain"), 0u);
  EXPECT_FALSE(ReadRegisteredInitialValues(nullptr).ok());
  const uint32_t not_a_wrapper[4] = {1, 2, 3, 4};
  EXPECT_FALSE(ReadRegisteredInitialValues(not_a_wrapper).ok());
  EXPECT_FALSE(ReadCubinInitialValues("plain text, not an ELF image").ok());
}

TEST(FatbinTest, DamagedImagesGiveInitialValuesOrErrorsNotCrashes) {
  // Every cut-off copy of the container is refused; every byte changed in
  // turn gives an answer or an error, never a read outside the copy (the
  // sanitizer build checks that).
  SKIP_WITHOUT_NVCC();
  int containers = 0;
  for (const std::string& c : Containers(kPrograms + "managed_vars")) {
    ++containers;
    ASSERT_TRUE(ReadFatbinInitialValues(c.data(), c.size()).ok());
    for (size_t n = 0; n < c.size(); n += 3) {
      const std::string cut = c.substr(0, n);
      EXPECT_FALSE(ReadFatbinInitialValues(cut.data(), cut.size()).ok()) << n;
    }
    int refused = 0;
    for (size_t i = 0; i < c.size(); i += 5) {
      std::string bad = c;
      bad[i] = static_cast<char>(bad[i] ^ 0x5A);
      refused += !ReadFatbinInitialValues(bad.data(), bad.size()).ok();
    }
    EXPECT_GT(refused, 0);
  }
  EXPECT_GT(containers, 0);
}

}  // namespace
}  // namespace colo::shim
