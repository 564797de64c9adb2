//===- SearchReport.h - What a search weighed, for people -------*- C++ -*-===//
//
// mirage-superoptimize{report=FILE}: per searched subprogram, the program
// and every ranked candidate with its kernel structure, estimated (and,
// with timings, measured) time and verdict, and why candidates were turned
// away, as a table on stderr and as one HTML page with a bar chart of the
// times.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEARCH_SEARCHREPORT_H
#define MIRAGE_SEARCH_SEARCHREPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mirage::search {

struct ReportRow {
  /// "program" for the subprogram as written, "#<rank>" for a candidate.
  std::string label;
  /// Operators and kernels in one line (summarizeMuGraph), and the whole
  /// µGraph (printMuGraph): maps, wiring and threads included.
  std::string structure, fullForm;
  double estimatedUs = 0;
  std::optional<double> measuredUs;
  /// "proven", "tested", "rejected: <why>", "not checked (top-k reached)",
  /// or for the program "as written".
  std::string verdict;
  bool chosen = false;
};

struct SubprogramReport {
  /// "@f subprogram #1 (3 ops)".
  std::string title;
  /// The search's statistics in one line.
  std::string summary;
  /// The program first, then the candidates in rank order.
  std::vector<ReportRow> rows;
  /// Candidates the float64 screen or the IR verifier turned away during
  /// the search (they never ranked): how many, and the first reasons.
  unsigned turnedAway = 0;
  std::vector<std::string> turnedAwayReasons;
};

/// The table for one subprogram, as printed on stderr.
void printReportTable(llvm::raw_ostream &os, const SubprogramReport &report);

/// One self-contained HTML page for all subprograms: a table and an SVG bar
/// chart of estimated (and measured) times per subprogram.
void writeReportHtml(llvm::raw_ostream &os,
                     llvm::ArrayRef<SubprogramReport> reports);

} // namespace mirage::search

#endif // MIRAGE_SEARCH_SEARCHREPORT_H
