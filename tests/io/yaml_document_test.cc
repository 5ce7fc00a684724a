// ParseSingleYamlDocument on a stream that yaml-cpp 0.7 (Debian 12) never
// finishes reading: after this malformed text its LoadAll reports empty
// document after empty document at one place, for ever, growing without
// bound. The reader stops where the parser stops moving and says so; were
// it to loop, ctest's timeout for this test fails it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/yaml_value.h"

namespace colo::io {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(YamlDocumentTest, AStreamTheParserCannotGetPastIsAnErrorNotALoop) {
  const std::string path =
      std::string(COLO_SOURCE_DIR) + "/tests/io/testdata/yaml_parser_loop.yaml";
  const std::string text = Read(path);
  ASSERT_FALSE(text.empty()) << path;
  Result<YAML::Node> got = ParseSingleYamlDocument(text, "loop.yaml", "one");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(got.status().message().rfind("loop.yaml:", 0), 0u)
      << got.status().message();
}

TEST(YamlDocumentTest, OneDocumentAndATrailingSeparatorStillRead) {
  Result<YAML::Node> one = ParseSingleYamlDocument("a: 1\n---\n", "f", "one");
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ((*one)["a"].as<int>(), 1);
  Result<YAML::Node> two =
      ParseSingleYamlDocument("a: 1\n---\nb: 2\n", "f", "one config per file");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("f:3: a second YAML document"),
            std::string::npos)
      << two.status().message();
}

// How `colo sim` tells scenario kinds apart: a top-level key of the one
// document's root mapping, never a nested one; anything unreadable is no.
TEST(YamlDocumentTest, ATopLevelKeyIsFoundOnlyAtTheTop) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  };
  const std::string top = write("top.yaml", "gpu: A100\ncluster:\n  gpus: 4\n");
  EXPECT_TRUE(YamlFileHasTopLevelKey(top, "cluster"));
  EXPECT_FALSE(YamlFileHasTopLevelKey(top, "gpus"));  // nested
  EXPECT_FALSE(YamlFileHasTopLevelKey(top, "clust"));
  EXPECT_FALSE(
      YamlFileHasTopLevelKey(write("list.yaml", "- cluster\n"), "cluster"));
  EXPECT_FALSE(YamlFileHasTopLevelKey(
      write("two.yaml", "cluster: 1\n---\nhost: 2\n"), "cluster"));
  EXPECT_FALSE(YamlFileHasTopLevelKey(write("bad.yaml", "cluster: [unclosed\n"),
                                      "cluster"));
  EXPECT_FALSE(YamlFileHasTopLevelKey(
      write("deep.yaml", std::string(100000, '[')), "cluster"));
  EXPECT_FALSE(YamlFileHasTopLevelKey(dir + "/missing.yaml", "cluster"));
}

}  // namespace
}  // namespace colo::io
