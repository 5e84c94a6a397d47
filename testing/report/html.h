// The HTML of reports: escaping, tables and a self-contained page (inline
// CSS with light and dark colours, no scripts, nothing fetched), so a report
// opens from disk offline and reads as text, headings and tables.
//
// Guarantees: Escape makes any text safe inside element content and inside
// double- or single-quoted attribute values (& < > " ' escaped; other control
// characters but tab and newline become spaces).
//
// Tested by testing/report/html_test.cc.
#ifndef REPROKIT_TESTING_REPORT_HTML_H_
#define REPROKIT_TESTING_REPORT_HTML_H_

#include <string>
#include <string_view>
#include <vector>

namespace rk::report {

std::string Escape(std::string_view text);

// A table; `rows` hold HTML (escape text with Escape first).
std::string Table(const std::vector<std::string>& headers,
                  const std::vector<std::vector<std::string>>& rows, const std::string& caption = "");

// <pre><code> of escaped text.
std::string Code(std::string_view text);

// A page: a title (the <title> and the <h1>), then sections, each an
// <section id="..."> with an <h2>.
class HtmlPage {
 public:
  // `kind` goes into <body data-report="..."> (bundle, dump, campaign).
  HtmlPage(std::string title, std::string kind);
  // Opens a section; the next Section call closes it.
  void Section(const std::string& id, const std::string& heading);
  void Add(std::string html) { body_ += html; }
  void Paragraph(std::string_view text);
  std::string Finish() const;

 private:
  std::string title_, kind_, body_;
  bool in_section_ = false;
};

}  // namespace rk::report

#endif  // REPROKIT_TESTING_REPORT_HTML_H_
