// fuzz/io_fuzzer.cc — the shared readers of src/io that every importer and
// loader stands on. Input: one byte of options, then the text.
//   bit 0 clear: CSV (io::ParseCsv; bit 1 no header, bit 2 ';' as the
//     delimiter, bit 3 rows need not be as wide as the header), then every
//     cell through Cell, Number, Integer, ParseFiniteDouble, ParseIndex and
//     IsValidUtf8, and each line through SplitWhitespace;
//   bit 0 set: YAML (io::ParseSingleYamlDocument), then every node of the
//     document through YamlValue's typed accessors (String, Name, Number,
//     Integer, Time in each unit, Bool, Sequence, Map with its own keys and
//     with none allowed; at most kMaxNodes nodes, aliases counted again).
// An error is the contract for bad input; the fuzzer fails on a crash, a
// sanitizer report, a hang, or a number accepted that is not finite.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_util.h"
#include "io/csv.h"
#include "io/utf8.h"
#include "io/yaml_value.h"

namespace {

using colo::io::YamlValue;

void FuzzCsv(std::string_view text, uint8_t o) {
  using namespace colo;
  io::CsvOptions options;
  options.has_header = (o & 2) == 0;
  options.delimiter = (o & 4) != 0 ? ';' : ',';
  options.rows_as_wide_as_header = (o & 8) == 0;
  auto table = io::ParseCsv(text, "fuzz.csv", options);
  if (!table.ok()) return;
  (void)io::CheckRowWidths(*table);
  for (const std::string& name : table->header) (void)table->Column(name);
  for (const io::CsvRow& row : table->rows) {
    for (int col = 0; col <= static_cast<int>(row.cells.size()); ++col) {
      auto cell = table->Cell(row, col);
      if (!cell.ok()) continue;
      auto n = table->Number(row, col);
      if (n.ok()) fuzz::Check(fuzz::Finite(*n), "Number: not finite");
      (void)table->Integer(row, col);
      double d = 0;
      if (io::ParseFiniteDouble(*cell, &d))
        fuzz::Check(fuzz::Finite(d), "ParseFiniteDouble: not finite");
      int index = 0;
      if (io::ParseIndex(*cell, &index))
        fuzz::Check(index >= 0, "ParseIndex: negative");
      (void)io::IsValidUtf8(*cell);
    }
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    (void)io::SplitWhitespace(text.substr(start, end - start));
    start = end + 1;
  }
}

// Aliases can make a small document a huge (or, through an alias to an
// enclosing node, endless) tree: the walk stops after this many nodes.
constexpr int kMaxNodes = 20000;

void Walk(const YamlValue& v, int& budget) {
  using namespace colo;
  if (--budget < 0) return;
  (void)v.Where();
  (void)v.Describe();
  (void)v.String();
  (void)v.Name("name");
  auto n = v.Number("a number");
  if (n.ok()) fuzz::Check(fuzz::Finite(*n), "Number: not finite");
  (void)v.Integer("an integer");
  for (auto unit : {io::TimeUnit::kSeconds, io::TimeUnit::kMilliseconds,
                    io::TimeUnit::kMicroseconds}) {
    (void)v.Time(unit, true);
    (void)v.TimeAtLeast(unit, Microseconds(100), "why");
  }
  (void)v.Bool();
  if (auto items = v.Sequence("a sequence"); items.ok()) {
    for (const YamlValue& item : *items) Walk(item, budget);
  }
  if (v.node().IsMap()) {
    (void)v.Map("a mapping", {});
    std::vector<std::string> keys;
    for (auto it = v.node().begin(); it != v.node().end(); ++it) {
      if (it->first.IsScalar()) keys.push_back(it->first.Scalar());
    }
    if (auto map = v.Map("a mapping", keys); map.ok()) {
      for (const std::string& key : map->Keys()) {
        (void)map->Require(key, "a value");
        if (auto value = map->Get(key)) Walk(*value, budget);
      }
    }
  }
}

void FuzzYaml(std::string_view text) {
  using namespace colo;
  static const std::string file = "fuzz.yaml";
  auto root =
      io::ParseSingleYamlDocument(std::string(text), file, "one document");
  if (!root.ok()) return;
  int budget = kMaxNodes;
  Walk(YamlValue(&file, *root, "", 1), budget);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view text = colo::fuzz::AsText(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    FuzzCsv(text, data[0]);
  } else {
    FuzzYaml(text);
  }
  return 0;
}
