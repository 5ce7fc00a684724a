#include "io/csv.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace colo::io {
namespace {

bool RowIsBlank(const CsvRow& r) {
  return r.cells.size() == 1 && TrimSpaces(r.cells[0]).empty();
}

}  // namespace

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string> SplitWhitespace(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (i < line.size()) {
    while (i < line.size() && space(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !space(line[j])) ++j;
    if (j > i) out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool ParseFiniteDouble(std::string_view s, double* out) {
  s = TrimSpaces(s);
  // strtod also reads hexadecimal ("0x10" = 16); no profiler or log writes
  // that, and reading it would make a typo a number.
  if (s.empty() || s.find_first_of("xX") != std::string_view::npos)
    return false;
  std::string buf(s);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size() || errno == ERANGE || !std::isfinite(v))
    return false;
  *out = v;
  return true;
}

bool ParseIndex(std::string_view s, int* out) {
  double v = 0;
  if (!ParseFiniteDouble(s, &v) || v < 0 || v != std::floor(v) ||
      v > std::numeric_limits<int>::max()) {
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

std::string_view WithoutByteOrderMark(std::string_view s) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (s.substr(0, kBom.size()) == kBom) s.remove_prefix(kBom.size());
  return s;
}

Result<int> CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (TrimSpaces(header[i]) == name) return static_cast<int>(i);
  }
  std::string have;
  for (const auto& h : header)
    have += (have.empty() ? "" : ", ") + std::string(TrimSpaces(h));
  return InvalidArgumentError(path + ": missing column '" + std::string(name) +
                              "' (have: " + have + ")");
}

std::string CsvTable::Where(const CsvRow& row) const {
  return path + ":" + std::to_string(row.line);
}

Result<std::string_view> CsvTable::Cell(const CsvRow& row, int col) const {
  if (col < 0 || static_cast<size_t>(col) >= row.cells.size()) {
    const std::string name = static_cast<size_t>(col) < header.size()
                                 ? " ('" + header[col] + "')"
                                 : "";
    return InvalidArgumentError(
        Where(row) + ": expected at least " + std::to_string(col + 1) +
        " fields, found " + std::to_string(row.cells.size()) + " (no column " +
        std::to_string(col + 1) + name + ")");
  }
  return std::string_view(row.cells[col]);
}

Result<double> CsvTable::Number(const CsvRow& row, int col) const {
  COLO_ASSIGN_OR_RETURN(std::string_view cell, Cell(row, col));
  double v = 0;
  if (!ParseFiniteDouble(cell, &v)) {
    const std::string name =
        static_cast<size_t>(col) < header.size()
            ? "column '" + std::string(TrimSpaces(header[col])) + "'"
            : "column " + std::to_string(col + 1);
    return InvalidArgumentError(Where(row) + ": " + name +
                                ": expected a finite number, got '" +
                                std::string(cell) + "'");
  }
  return v;
}

Result<int64_t> CsvTable::Integer(const CsvRow& row, int col) const {
  COLO_ASSIGN_OR_RETURN(double v, Number(row, col));
  if (v != std::floor(v) || std::fabs(v) > 9e15) {
    const std::string name =
        static_cast<size_t>(col) < header.size()
            ? "column '" + std::string(TrimSpaces(header[col])) + "'"
            : "column " + std::to_string(col + 1);
    return InvalidArgumentError(
        Where(row) + ": " + name + ": expected an integer" +
        (v == std::floor(v) ? " of magnitude at most 9e15" : "") + ", got '" +
        std::string(row.cells[col]) + "'");
  }
  return static_cast<int64_t>(v);
}

Result<CsvTable> ParseCsv(std::string_view text, std::string path,
                          const CsvOptions& options) {
  CsvTable table;
  table.path = std::move(path);
  text = WithoutByteOrderMark(text);
  std::vector<CsvRow> rows;
  CsvRow row;
  std::string cell;
  int line = 1;
  row.line = 1;
  bool in_quotes = false;
  int quote_line = 0;
  auto end_row = [&] {
    row.cells.push_back(std::move(cell));
    cell.clear();
    if (!RowIsBlank(row)) rows.push_back(std::move(row));
    row = CsvRow{};
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"' && TrimSpaces(cell).empty()) {
      cell.clear();
      in_quotes = true;
      quote_line = line;
    } else if (c == options.delimiter) {
      row.cells.push_back(std::move(cell));
      cell.clear();
    } else if (c == '\n') {
      end_row();
      ++line;
      row.line = line;
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (in_quotes) {
    return InvalidArgumentError(table.path + ":" + std::to_string(quote_line) +
                                ": unterminated quoted field");
  }
  if (!cell.empty() || !row.cells.empty()) end_row();
  size_t first = 0;
  if (options.has_header) {
    if (rows.empty())
      return InvalidArgumentError(table.path +
                                  ": empty file, expected a header line");
    table.header = rows[0].cells;
    for (auto& h : table.header) h = std::string(TrimSpaces(h));
    COLO_RETURN_IF_ERROR(
        CheckUniqueColumns(table.header, table.Where(rows[0])));
    first = 1;
  }
  table.rows.assign(std::make_move_iterator(rows.begin() + first),
                    std::make_move_iterator(rows.end()));
  if (options.has_header && options.rows_as_wide_as_header) {
    COLO_RETURN_IF_ERROR(CheckRowWidths(table));
  }
  return table;
}

Status CheckUniqueColumns(const std::vector<std::string>& names,
                          const std::string& where) {
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (!names[i].empty() && names[i] == names[j]) {
        return InvalidArgumentError(
            where + ": column '" + names[i] + "' appears twice (fields " +
            std::to_string(j + 1) + " and " + std::to_string(i + 1) + ")");
      }
    }
  }
  return OkStatus();
}

Status CheckRowWidths(const CsvTable& table) {
  for (const CsvRow& r : table.rows) {
    if (r.cells.size() != table.header.size()) {
      return InvalidArgumentError(
          table.Where(r) + ": expected " + std::to_string(table.header.size()) +
          " fields like the header, found " + std::to_string(r.cells.size()) +
          (r.cells.size() < table.header.size()
               ? " (a truncated or hand-edited file?)"
               : ""));
    }
  }
  return OkStatus();
}

Result<std::string> ReadTextFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgumentError(path + ": is a directory, expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return NotFoundError(path + ": cannot open (" + std::strerror(errno) + ")");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const size_t bom = text.size() - WithoutByteOrderMark(text).size();
  text.erase(0, bom);
  return text;
}

Result<CsvTable> ReadCsvFile(const std::string& path,
                             const CsvOptions& options) {
  COLO_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseCsv(text, path, options);
}

Status NoSampleLeftError(const std::string& path, int gpu, size_t found,
                         int skip_first, bool skip_idle,
                         const std::string& extra) {
  return InvalidArgumentError(
      path + ": no sample of GPU " + std::to_string(gpu) + " left (" +
      std::to_string(found) + " found" +
      (skip_first > 0 ? ", the first " + std::to_string(skip_first) + " skipped"
                      : "") +
      (skip_idle ? ", idle samples skipped" : "") +
      (extra.empty() ? "" : ", " + extra) + ")");
}

}  // namespace colo::io
