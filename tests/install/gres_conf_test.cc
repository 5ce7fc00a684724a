// `colo gres-conf` (tools/cmd_gres_conf.cc): gres.conf lines for a node's
// GPUs, from --fake N or from nvidia<N> device files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "install/shell_run.h"

namespace colo::test {
namespace {

namespace fs = std::filesystem;

const std::string kColo = std::string(COLO_BINARY_DIR) + "/colo";

fs::path Scratch(const std::string& name) {
  const fs::path dir = fs::path(COLO_BINARY_DIR) / "tests" / "gres-conf" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The lines of `text` that are not comments.
std::string Lines(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (!line.empty() && line[0] != '#') out += line + "\n";
    start = end + 1;
  }
  return out;
}

TEST(GresConfTest, FakeGpusWithShards) {
  // 2 GPUs and 4 shards per GPU: one gpu line and one shard line (Count=4)
  // per device file; slurm.conf's hint totals gpu:2 and shard:8.
  const fs::path dir = Scratch("fake");
  const ShellResult r = Shell(
      Quote(kColo) + " gres-conf --fake 2 --shards-per-gpu 4 --node n1", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            "AutoDetect=off\n"
            "NodeName=n1 Name=gpu File=/dev/nvidia0\n"
            "NodeName=n1 Name=gpu File=/dev/nvidia1\n"
            "NodeName=n1 Name=shard Count=4 File=/dev/nvidia0\n"
            "NodeName=n1 Name=shard Count=4 File=/dev/nvidia1\n");
  EXPECT_NE(r.out.find("Gres=gpu:2,shard:8"), std::string::npos) << r.out;
}

TEST(GresConfTest, TypedGpusEachHaveTheirOwnType) {
  // --typed: the i-th GPU is type g<i> on its gpu and its shard line, so
  // that gres:shard:g1:2 means shards of GPU 1 only; slurm.conf's Gres=
  // then lists each type: gpu:g0:1,gpu:g1:1 and shard:g0:4,shard:g1:4.
  const fs::path dir = Scratch("typed");
  const ShellResult r = Shell(
      Quote(kColo) + " gres-conf --fake 2 --shards-per-gpu 4 --typed", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            "AutoDetect=off\n"
            "Name=gpu Type=g0 File=/dev/nvidia0\n"
            "Name=gpu Type=g1 File=/dev/nvidia1\n"
            "Name=shard Type=g0 Count=4 File=/dev/nvidia0\n"
            "Name=shard Type=g1 Count=4 File=/dev/nvidia1\n");
  EXPECT_NE(r.out.find("Gres=gpu:g0:1,gpu:g1:1,shard:g0:4,shard:g1:4\n"),
            std::string::npos)
      << r.out;
  // The type is the GPU's position, not its device number: nvidia3 is the
  // second GPU here, g1 (colo serve's local index 1).
  const fs::path dev = dir / "dev";
  fs::create_directories(dev);
  for (const char* n : {"nvidia0", "nvidia3"}) std::ofstream(dev / n) << "";
  const ShellResult d = Shell(
      Quote(kColo) + " gres-conf --typed --dev-dir " + Quote(dev.string()),
      dir);
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(Lines(d.out),
            "AutoDetect=off\n"
            "Name=gpu Type=g0 File=/dev/nvidia0\n"
            "Name=gpu Type=g1 File=/dev/nvidia3\n");
  EXPECT_NE(d.out.find("Gres=gpu:g0:1,gpu:g1:1\n"), std::string::npos) << d.out;
}

TEST(GresConfTest, DeviceFilesInNumericOrder) {
  // nvidia0, nvidia10 and nvidia3 are GPUs (sorted as numbers: 0, 3, 10);
  // nvidiactl and nvidia-uvm are not.
  const fs::path dir = Scratch("devices");
  const fs::path dev = dir / "dev";
  fs::create_directories(dev);
  for (const char* n :
       {"nvidia0", "nvidia10", "nvidia3", "nvidiactl", "nvidia-uvm"})
    std::ofstream(dev / n) << "";
  const ShellResult r =
      Shell(Quote(kColo) + " gres-conf --dev-dir " + Quote(dev.string()), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out),
            "AutoDetect=off\n"
            "Name=gpu File=/dev/nvidia0\n"
            "Name=gpu File=/dev/nvidia3\n"
            "Name=gpu File=/dev/nvidia10\n");
}

TEST(GresConfTest, NoGpusIsAnErrorAndBadFlagsExitTwo) {
  const fs::path dir = Scratch("none");
  fs::create_directories(dir / "empty");
  const ShellResult r = Shell(
      Quote(kColo) + " gres-conf --dev-dir " + Quote((dir / "empty").string()),
      dir);
  if (Shell("command -v nvidia-smi", dir).exit_code == 0) {
    // A machine with the NVIDIA tools answers from nvidia-smi -L instead.
    EXPECT_NE(r.out.find("nvidia-smi -L"), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no GPUs"), std::string::npos) << r.err;
  }
  EXPECT_EQ(
      Shell(Quote(kColo) + " gres-conf --fake 2 --node 'a b'", dir).exit_code,
      2);
  EXPECT_EQ(Shell(Quote(kColo) + " gres-conf --fake 2 --shards-per-gpu -1", dir)
                .exit_code,
            2);
}

}  // namespace
}  // namespace colo::test
