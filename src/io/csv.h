// io/csv.h — a small RFC 4180 CSV reader that remembers where each cell
// came from, so that every importer can say "file:line: column 'X': expected a
// number, got 'abc'".
//
// Accepts LF and CRLF line endings, a missing final newline, a leading UTF-8
// byte-order mark, quoted cells with embedded commas, quotes ("") and
// newlines. Blank lines are skipped. By default every row must have as many
// fields as the header: a short row is what a truncated file ends with.
// Thread-compatible value types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"

namespace colo::io {

struct CsvRow {
  int line = 0;  // 1-based line where the row starts.
  std::vector<std::string> cells;
};

class CsvTable {
 public:
  std::string path;                 // for messages.
  std::vector<std::string> header;  // empty if read without a header.
  std::vector<CsvRow> rows;

  // Index of the header column `name` (exact match after trimming spaces).
  // InvalidArgument "<path>: missing column 'name' (have: a, b, c)".
  Result<int> Column(std::string_view name) const;

  // "<path>:<line>: <what>", the prefix of every message about a row.
  std::string Where(const CsvRow& row) const;

  // The cell of `row` in column `col`, or InvalidArgument naming the line if
  // the row is too short.
  Result<std::string_view> Cell(const CsvRow& row, int col) const;

  // The cell parsed as a finite double / integer. InvalidArgument names the
  // file, line and column and quotes the cell ("" for an empty one, NaN and
  // infinities are rejected).
  Result<double> Number(const CsvRow& row, int col) const;
  Result<int64_t> Integer(const CsvRow& row, int col) const;
};

struct CsvOptions {
  bool has_header = true;  // first non-blank row is the header. Default: true.
  char delimiter = ',';    // Default: ','.
  // Rows must have exactly the header's number of fields (InvalidArgument
  // "<path>:<line>: expected N fields like the header, found M"). Readers of
  // files with trailer lines (ncu's "==PROF==") turn it off and check rows
  // themselves. Default: true; ignored without a header.
  bool rows_as_wide_as_header = true;
};

// Parses `text`, naming it `path` in messages. InvalidArgument on an
// unterminated quote (with its line), a duplicate header column, or a row of
// the wrong width (see CsvOptions).
Result<CsvTable> ParseCsv(std::string_view text, std::string path,
                          const CsvOptions& options = {});

// InvalidArgument "<path>:<line>: expected N fields like the header, found
// M" for the first row of another width than the header (what ParseCsv
// checks unless told not to; for readers that drop trailer rows first).
Status CheckRowWidths(const CsvTable& table);

// InvalidArgument "<where>: column 'X' appears twice (fields 2 and 4)" for
// the first non-empty name in `names` that repeats: a header naming a column
// twice would otherwise let file order decide which one counts. Fields are
// numbered from 1 in `names`. (ParseCsv checks its header with it.)
Status CheckUniqueColumns(const std::vector<std::string>& names,
                          const std::string& where);

// Reads and parses a file. NotFound if it cannot be opened.
Result<CsvTable> ReadCsvFile(const std::string& path,
                             const CsvOptions& options = {});

// Reads a whole file into a string, without a leading UTF-8 byte-order mark.
// NotFound "<path>: cannot open (reason)"; InvalidArgument "<path>: is a
// directory, expected a file".
Result<std::string> ReadTextFile(const std::string& path);

// `s` without leading spaces/tabs and trailing spaces/tabs/carriage returns.
std::string_view TrimSpaces(std::string_view s);
inline std::string TrimmedCopy(std::string_view s) {
  return std::string(TrimSpaces(s));
}

// The whitespace-separated tokens of `line` (spaces, tabs, carriage returns),
// as the column-aligned logs of nvidia-smi and dcgmi are written.
std::vector<std::string> SplitWhitespace(std::string_view line);

// Parses a finite decimal double from the whole of `s` (surrounding spaces
// allowed). Returns false on anything else, including NaN/inf, hexadecimal
// and empty.
bool ParseFiniteDouble(std::string_view s, double* out);

// Parses an index (of a GPU, a device) from the whole of `s`: a whole number
// in [0, INT_MAX] ("3", surrounding spaces allowed). Returns false on anything
// else: "0.5" is not GPU 0, and "1e10" or "-1" is no GPU at all.
bool ParseIndex(std::string_view s, int* out);

// InvalidArgument "PATH: no sample of GPU G left (N found, the first K
// skipped, idle samples skipped, EXTRA)" (the parts that apply), for a log
// whose samples of the GPU were all absent or skipped.
Status NoSampleLeftError(const std::string& path, int gpu, size_t found,
                         int skip_first, bool skip_idle,
                         const std::string& extra = "");

// `s` without the UTF-8 byte-order mark it may start with.
std::string_view WithoutByteOrderMark(std::string_view s);

}  // namespace colo::io
