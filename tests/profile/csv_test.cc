// The CSV reader every importer uses: RFC 4180 quoting, LF and CRLF, a
// missing final newline, and messages that say "file:line: column 'X'".
#include "io/csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir.h"

namespace colo::profile {
namespace {

using ::testing::HasSubstr;

TEST(CsvTest, CrlfAndMissingFinalNewline) {
  // Two data rows, CRLF endings, no newline after the last row: the '\r'
  // must not end up in the last cell, and the last row must not be lost.
  auto t = io::ParseCsv("a,b\r\n1,2\r\n3,4", "x.csv");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->header, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].cells[1], "2");
  EXPECT_EQ(t->rows[1].cells[1], "4");
  EXPECT_EQ(t->rows[1].line, 3);
  EXPECT_EQ(*t->Number(t->rows[1], 1), 4.0);
}

TEST(CsvTest, QuotedCellsKeepCommasQuotesAndNewlines) {
  // Row 2 spans lines 2-3 (newline inside quotes); row 3 therefore starts on
  // line 4.
  auto t = io::ParseCsv("name,v\n\"a, \"\"b\"\"\nc\",1\nplain,2\n", "q.csv");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].cells[0], "a, \"b\"\nc");
  EXPECT_EQ(t->rows[0].line, 2);
  EXPECT_EQ(t->rows[1].line, 4);
}

TEST(CsvTest, UnterminatedQuoteNamesItsLine) {
  auto t = io::ParseCsv("a\n1\n\"open\n", "u.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("u.csv:3"));
}

TEST(CsvTest, RowsOfAnotherWidthThanTheHeaderAreErrorsAtTheirLine) {
  // A truncated file ends with a short row; a pasted one can hold a long one.
  for (const char* text : {"a,b,c\n1,2,3\n4,5\n", "a,b,c\n1,2,3\n4,5,6,7\n"}) {
    auto t = io::ParseCsv(text, "w.csv");
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(t.status().message(),
                HasSubstr("w.csv:3: expected 3 fields like the header"));
  }
}

TEST(CsvTest, DuplicateHeaderColumnIsAnError) {
  auto t = io::ParseCsv("a,b,a\n1,2,3\n", "d.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(),
              HasSubstr("d.csv:1: column 'a' appears twice"));
}

TEST(CsvTest, ALeadingByteOrderMarkIsNotPartOfTheFirstColumn) {
  auto t = io::ParseCsv("\xEF\xBB\xBFworkload,x\nw,1\n", "bom.csv");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->Column("workload").ok());
}

TEST(CsvTest, ADirectoryIsNotReadAsAnEmptyFile) {
  auto t = io::ReadTextFile("/tmp");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("/tmp: is a directory"));
}

TEST(CsvTest, ShortRowErrorNamesTheLine) {
  // Ragged rows allowed: line 3 has 2 fields; asking for the third (column
  // 'c') is an error there.
  io::CsvOptions ragged;
  ragged.rows_as_wide_as_header = false;
  auto t = io::ParseCsv("a,b,c\n1,2,3\n4,5\n", "short.csv", ragged);
  ASSERT_TRUE(t.ok());
  auto cell = t->Cell(t->rows[1], 2);
  ASSERT_FALSE(cell.ok());
  EXPECT_EQ(cell.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(cell.status().message(), HasSubstr("short.csv:3"));
  EXPECT_THAT(cell.status().message(), HasSubstr("'c'"));
}

TEST(CsvTest, NanInfinityAndEmptyAreNotNumbers) {
  // Rows on lines 2..7; the first four values are not finite numbers.
  auto t =
      io::ParseCsv("k,v\na,nan\nb,inf\nc,\nd,\"\"\ne,1e3\nf,2.5\n", "n.csv");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->rows.size(), 6u);
  for (int i = 0; i < 4; ++i) {
    auto v = t->Number(t->rows[i], 1);
    ASSERT_FALSE(v.ok()) << "row " << i;
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(v.status().message(),
                HasSubstr("n.csv:" + std::to_string(i + 2) + ": column 'v'"));
  }
  EXPECT_THAT(t->Number(t->rows[2], 1).status().message(), HasSubstr("got ''"));
  EXPECT_EQ(*t->Number(t->rows[4], 1), 1000.0);
  EXPECT_EQ(*t->Integer(t->rows[4], 1), 1000);
  // 2.5 is a number but not an integer.
  EXPECT_FALSE(t->Integer(t->rows[5], 1).ok());
}

TEST(CsvTest, MissingColumnListsTheHeader) {
  auto t = io::ParseCsv("a,b\n1,2\n", "m.csv");
  ASSERT_TRUE(t.ok());
  auto c = t->Column("Duration");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("missing column 'Duration'"));
  EXPECT_THAT(c.status().message(), HasSubstr("have: a, b"));
}

TEST(CsvTest, ReadFileNotFoundAndRoundTrip) {
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  auto missing = io::ReadCsvFile(dir.path() + "/nope.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  const std::string p = dir.Write("t.csv", "x,y\n1,2\n");
  auto t = io::ReadCsvFile(p);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->path, p);
  EXPECT_EQ(*t->Integer(t->rows[0], 1), 2);
}

}  // namespace
}  // namespace colo::profile
