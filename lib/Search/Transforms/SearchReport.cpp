//===- SearchReport.cpp - What a search weighed, for people ---------------===//

#include "mirage/Search/SearchReport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mirage::search;

namespace {

std::string formatUs(std::optional<double> us) {
  return us ? llvm::formatv("{0:f1}", *us).str() : std::string("-");
}

std::string padRight(llvm::StringRef text, size_t width) {
  return text.str() +
         std::string(width > text.size() ? width - text.size() : 0, ' ');
}

std::string escapeHtml(llvm::StringRef text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '&':
      escaped += "&amp;";
      break;
    case '"':
      escaped += "&quot;";
      break;
    default:
      escaped += c;
    }
  }
  return escaped;
}

/// Horizontal bars, one per row: estimated time, and measured time below it
/// when there is one.
void writeChart(llvm::raw_ostream &os, const SubprogramReport &report) {
  double longest = 0;
  for (const ReportRow &row : report.rows)
    longest = std::max({longest, row.estimatedUs, row.measuredUs.value_or(0)});
  if (longest <= 0)
    return;
  constexpr int labelWidth = 90, barWidth = 520, rowHeight = 22;
  int height = rowHeight * static_cast<int>(report.rows.size()) + 24;
  os << llvm::formatv("<svg width=\"{0}\" height=\"{1}\" role=\"img\" "
                      "aria-label=\"estimated time per candidate\">\n",
                      labelWidth + barWidth + 80, height);
  for (size_t index = 0; index < report.rows.size(); ++index) {
    const ReportRow &row = report.rows[index];
    int y = static_cast<int>(index) * rowHeight;
    auto bar = [&](double us, int offset, int thickness, const char *color,
                   const char *what) {
      int width = static_cast<int>(barWidth * us / longest);
      os << llvm::formatv(
          "<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
          "fill=\"{4}\"><title>{5} {6}: {7:f2} us</title></rect>\n",
          labelWidth, y + offset, std::max(width, 1), thickness, color,
          escapeHtml(row.label), what, us);
    };
    const char *color = row.chosen ? "#2a9d3f"
                        : llvm::StringRef(row.verdict).starts_with("rejected")
                            ? "#c0392b"
                        : row.label == "program" ? "#555"
                                                 : "#3b6fb6";
    bar(row.estimatedUs, 2, row.measuredUs ? 9 : 16, color, "estimated");
    if (row.measuredUs)
      bar(*row.measuredUs, 11, 8, "#e39b2d", "measured");
    os << llvm::formatv("<text x=\"0\" y=\"{0}\" font-size=\"12\">{1}</text>\n",
                        y + 15, escapeHtml(row.label));
    os << llvm::formatv(
        "<text x=\"{0}\" y=\"{1}\" font-size=\"11\">{2:f1} "
        "us</text>\n",
        labelWidth +
            std::max(static_cast<int>(barWidth * row.estimatedUs / longest),
                     1) +
            4,
        y + 15, row.estimatedUs);
  }
  os << llvm::formatv(
      "<text x=\"{0}\" y=\"{1}\" font-size=\"11\">"
      "bars: estimated us{2}; green: chosen, red: rejected"
      "</text>\n",
      labelWidth, height - 6,
      llvm::any_of(report.rows,
                   [](const ReportRow &r) { return r.measuredUs.has_value(); })
          ? " (orange: measured)"
          : "");
  os << "</svg>\n";
}

} // namespace

void mirage::search::printReportTable(llvm::raw_ostream &os,
                                      const SubprogramReport &report) {
  os << "search report: " << report.title << "\n  " << report.summary << "\n";
  // Structures are printed whole (a clipped one hides what tells two
  // candidates apart); one that repeats an earlier row's says so, since its
  // kernels then differ only where the one-line form does not look.
  size_t labelWidth = 7, structureWidth = 9;
  for (const ReportRow &row : report.rows) {
    labelWidth = std::max(labelWidth, row.label.size() + 1);
    structureWidth = std::max(structureWidth, row.structure.size());
  }
  auto sameAs = [&](size_t index) -> std::string {
    const ReportRow &row = report.rows[index];
    for (size_t earlier = 0; earlier < index; ++earlier) {
      const ReportRow &other = report.rows[earlier];
      if (other.structure != row.structure)
        continue;
      if (other.fullForm == row.fullForm)
        return " (the same µGraph as " + other.label + ")";
      return " (as " + other.label +
             " in this form; they differ in dimension maps, wiring or "
             "threads: the HTML report shows both whole)";
    }
    return "";
  };
  auto clip = [](llvm::StringRef text, size_t width) {
    return text.size() <= width ? text.str()
                                : text.take_front(width - 3).str() + "...";
  };
  os << llvm::formatv(
      "  {0} {1} {2,9} {3,9}  verdict\n", padRight("", labelWidth),
      padRight("structure", structureWidth), "est. us", "meas. us");
  for (auto [index, row] : llvm::enumerate(report.rows))
    os << llvm::formatv(
        "  {0} {1} {2,9} {3,9}  {4}{5}{6}\n",
        padRight((row.chosen ? "*" : "") + row.label, labelWidth),
        padRight(row.structure, structureWidth), formatUs(row.estimatedUs),
        formatUs(row.measuredUs), clip(row.verdict, 100),
        row.chosen ? " (chosen)" : "", sameAs(index));
  if (report.turnedAway > 0) {
    os << "  turned away during the search: " << report.turnedAway;
    if (!report.turnedAwayReasons.empty())
      os << " (first: " << clip(report.turnedAwayReasons.front(), 120) << ")";
    os << "\n";
  }
}

void mirage::search::writeReportHtml(llvm::raw_ostream &os,
                                     llvm::ArrayRef<SubprogramReport> reports) {
  os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        "<title>mirage-superoptimize report</title>\n<style>"
        "body{font-family:sans-serif;margin:2em}"
        "table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
        "vertical-align:top}td.num{text-align:right}"
        "tr.chosen{background:#e6f4ea}code{font-size:90%}"
        "</style></head><body>\n<h1>mirage-superoptimize report</h1>\n";
  for (const SubprogramReport &report : reports) {
    os << "<h2>" << escapeHtml(report.title) << "</h2>\n<p>"
       << escapeHtml(report.summary) << "</p>\n";
    writeChart(os, report);
    os << "<table><tr><th></th><th>structure (click for the whole "
          "µGraph)</th><th>estimated us</th><th>measured us</th>"
          "<th>verdict</th></tr>\n";
    for (const ReportRow &row : report.rows)
      os << (row.chosen ? "<tr class=\"chosen\">" : "<tr>") << "<td>"
         << escapeHtml(row.label) << (row.chosen ? " (chosen)" : "")
         << "</td><td><details><summary><code>" << escapeHtml(row.structure)
         << "</code></summary><pre>" << escapeHtml(row.fullForm)
         << "</pre></details></td><td class=\"num\">"
         << formatUs(row.estimatedUs) << "</td><td class=\"num\">"
         << formatUs(row.measuredUs) << "</td><td>" << escapeHtml(row.verdict)
         << "</td></tr>\n";
    os << "</table>\n";
    if (report.turnedAway > 0) {
      os << "<p>Turned away during the search (never ranked): "
         << report.turnedAway << ".</p>\n<ul>\n";
      for (const std::string &reason : report.turnedAwayReasons)
        os << "<li>" << escapeHtml(reason) << "</li>\n";
      os << "</ul>\n";
    }
  }
  os << "</body></html>\n";
}
