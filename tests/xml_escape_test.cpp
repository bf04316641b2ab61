// The one escaper of text rbdref writes into XML and HTML (io/xml_escape.hpp), read back by a real
// XML parser (tinyxml2, the one MuJoCo uses) as an attribute value and as element text: every
// name a URDF or JSON model may carry comes back as it was, and no document breaks.
#include "io/xml_escape.hpp"

#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <string>
#include <vector>

namespace rbd {
namespace {

const std::vector<std::string> kNames = {
    "plain", "dp\"q", "it's", "a<b>c", "fish & chips", "x; rm -rf $(pwd)", "`tick`",
    "two\nlines", "tab\there", "cr\rlf", "ünïcødé 関節", "&amp; already", "]]> end", "\"'<>&"};

std::string parse_attribute(const std::string& doc_text) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(doc_text.c_str()) != tinyxml2::XML_SUCCESS) return "<parse error: " + std::string(doc.ErrorStr()) + ">";
  const char* v = doc.RootElement()->Attribute("name");
  return v ? v : "<no attribute>";
}

std::string parse_text(const std::string& doc_text) {
  tinyxml2::XMLDocument doc(true, tinyxml2::PRESERVE_WHITESPACE);
  if (doc.Parse(doc_text.c_str()) != tinyxml2::XML_SUCCESS) return "<parse error: " + std::string(doc.ErrorStr()) + ">";
  const char* v = doc.RootElement()->GetText();
  return v ? v : "";
}

TEST(XmlEscape, EveryNameReadsBackAsAttributeAndAsText) {
  for (const std::string& name : kNames) {
    const std::string e = xml_escape(name);
    EXPECT_EQ(parse_attribute("<body name=\"" + e + "\"/>"), name) << e;
    EXPECT_EQ(parse_text("<failure>" + e + "</failure>"), name) << e;
  }
}

TEST(XmlEscape, ControlCharactersXmlCannotHoldBecomeQuestionMarks) {
  const std::string name = std::string("a") + '\x01' + "b" + '\x1f';
  EXPECT_EQ(xml_escape(name), "a?b?");
  EXPECT_EQ(parse_attribute("<body name=\"" + xml_escape(name) + "\"/>"), "a?b?");
}

TEST(XmlEscape, HtmlSpecialCharactersAreReferences) {
  // The HTML report puts the same text in elements and attributes: no character that could open a
  // tag, end an attribute of either quote or start an entity survives.
  const std::string e = xml_escape("<script>alert('x')</script> \"q\" &");
  for (char c : {'<', '>', '"', '\''}) EXPECT_EQ(e.find(c), std::string::npos) << c;
  EXPECT_EQ(e, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &quot;q&quot; &amp;");
}

}  // namespace
}  // namespace rbd
