// Text that rbdref writes into XML or HTML (the MJCF it hands to MuJoCo, JUnit reports, the HTML
// report): one escaper for every such place, valid in element text and in attribute values alike.
//
//   & < > " '          as &amp; &lt; &gt; &quot; &#39; (&#39;: valid in XML and in every HTML)
//   tab, newline, CR   as &#9; &#10; &#13;, which an attribute value keeps (a parser normalizes
//                      a literal one to a space there); in element text they read back the same
//   other C0 controls  as '?': XML 1.0 cannot represent them, not even as references
//
// Everything else (UTF-8 included) is copied as it is.
#pragma once

#include <string>

namespace rbd {

std::string xml_escape(const std::string& s);

}  // namespace rbd
