// Text that rbdref writes into XML or HTML (the MJCF it hands to MuJoCo, JUnit reports, the HTML
// report): one escaper for every such place, valid in element text and in attribute values alike.
//
//   & < > " '          as &amp; &lt; &gt; &quot; &#39; (&#39;: valid in XML and in every HTML)
//   tab, newline, CR   as &#9; &#10; &#13;, which an attribute value keeps (a parser normalizes
//                      a literal one to a space there); in element text they read back the same
//   other C0 controls  as '?': XML 1.0 cannot represent them, not even as references
//
// Everything else (UTF-8 included) is copied as it is.
//
// check_xml_characters is the reading side, applied to an XML file before it is parsed: a NUL byte
// (which ends a C string: the parser would see a shorter document) and a character reference to
// a code point outside XML 1.0's Char production (&#0;, &#x1;, &#xD800;, &#x110000;: "not
// well-formed", though tinyxml2 substitutes them) are refused, and so is a byte of markup that is
// not UTF-8 (a name with a Latin-1 byte: names reach the JSON outputs); each with the line and the
// element (and attribute) it is in. Comments and text between elements are not checked for UTF-8
// (neither reader uses them).
#pragma once

#include <string>

namespace rbd {

std::string xml_escape(const std::string& s);

// Throws InputError(file, "line N, <tag> attribute", ...) at the first NUL byte, illegal character
// reference, or byte of markup (tag names, attribute values) that is not UTF-8.
void check_xml_characters(const std::string& text, const std::string& file);

}  // namespace rbd
