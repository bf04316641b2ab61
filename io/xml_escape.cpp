#include "io/xml_escape.hpp"

#include "io/input_error.hpp"

#include <algorithm>
#include <cstdint>

namespace rbd {

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default: out += static_cast<unsigned char>(ch) < 0x20 ? '?' : ch;
    }
  }
  return out;
}

namespace {

// XML 1.0 §2.2, production [2] Char.
bool xml_char(std::uint64_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

}  // namespace

void check_xml_characters(const std::string& text, const std::string& file) {
  long line = 1;
  auto fail = [&](const std::string& what) { throw InputError(file, "line " + std::to_string(line), what); };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '\0') fail("expected no NUL byte (XML cannot hold one)");
    if (c != '&' || i + 2 >= text.size() || text[i + 1] != '#') continue;
    const bool hex = text[i + 2] == 'x';
    size_t j = i + (hex ? 3 : 2);
    std::uint64_t v = 0;
    bool digits = false;
    for (; j < text.size(); ++j) {
      const char d = text[j];
      int k = -1;
      if (d >= '0' && d <= '9') k = d - '0';
      else if (hex && d >= 'a' && d <= 'f') k = d - 'a' + 10;
      else if (hex && d >= 'A' && d <= 'F') k = d - 'A' + 10;
      if (k < 0) break;
      digits = true;
      v = v * (hex ? 16 : 10) + static_cast<std::uint64_t>(k);
      if (v > 0x10FFFF) v = 0x110000;  // beyond Unicode; keeps v bounded however long the digits run
    }
    if (!digits || j >= text.size() || text[j] != ';') continue;  // not a character reference: the parser judges it
    if (!xml_char(v))
      fail("expected a character reference to a character XML allows (" + text.substr(i, std::min<size_t>(j + 1 - i, 24)) +
           " is not: XML 1.0 has no NUL, C0 control other than tab, newline and carriage return, surrogate or code point "
           "beyond U+10FFFF)");
    i = j;
  }
}

}  // namespace rbd
