#include "testing/report/html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rk::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(HtmlTest, EscapesMarkupQuotesAndControlCharacters) {
  EXPECT_EQ(Escape("%<script>alert(\"x\")</script> & 'y'"),
            "%&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;");
  EXPECT_EQ(Escape(std::string("a\x01" "b\tc\n", 6)), "a b\tc\n");
}

TEST(HtmlTest, TableHasHeadersAndCaption) {
  const std::string t = Table({"a<b", "c"}, {{"1", "2"}}, "cap & more");
  EXPECT_THAT(t, HasSubstr("<caption>cap &amp; more</caption>"));
  EXPECT_THAT(t, HasSubstr("<th scope=\"col\">a&lt;b</th>"));
  EXPECT_THAT(t, HasSubstr("<tr><td>1</td><td>2</td></tr>"));
}

TEST(HtmlTest, PageIsSelfContainedWithSectionsAndDarkStyles) {
  HtmlPage page("t <1>", "bundle");
  page.Section("first", "First & only");
  page.Paragraph("<b>not bold</b>");
  page.Section("second", "Second");
  const std::string html = page.Finish();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_THAT(html, HasSubstr("<title>t &lt;1&gt;</title>"));
  EXPECT_THAT(html, HasSubstr("<h1>t &lt;1&gt;</h1>"));
  EXPECT_THAT(html, HasSubstr("<body data-report=\"bundle\">"));
  EXPECT_THAT(html, HasSubstr("<section id=\"first\" aria-labelledby=\"first-h\">\n"
                              "<h2 id=\"first-h\">First &amp; only</h2>"));
  EXPECT_THAT(html, HasSubstr("<p>&lt;b&gt;not bold&lt;/b&gt;</p>\n</section>\n<section id=\"second\""));
  EXPECT_THAT(html, HasSubstr("@media (prefers-color-scheme: dark)"));
  EXPECT_THAT(html, HasSubstr("default-src 'none'"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("http://")));  // nothing to fetch
  EXPECT_THAT(html, Not(HasSubstr("https://")));
  // Every section is closed once.
  size_t open = 0, close = 0;
  for (size_t p = html.find("<section"); p != std::string::npos; p = html.find("<section", p + 1)) ++open;
  for (size_t p = html.find("</section>"); p != std::string::npos; p = html.find("</section>", p + 1)) ++close;
  EXPECT_EQ(open, 2u);
  EXPECT_EQ(close, 2u);
}

}  // namespace
}  // namespace rk::report
