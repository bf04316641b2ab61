#include "io/xml_escape.hpp"

#include "io/input_error.hpp"

#include "io/utf8.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>

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

namespace {

// Where byte `at` of an XML text is, for a message: "<mass> value" inside an attribute value,
// "<mass>" elsewhere in a start tag, "the text of <mass>" between tags, "a comment" in one. A scan
// back to the last '<' (the document is not parsed yet; good enough to point at the element).
std::string xml_context(const std::string& text, size_t at) {
  const size_t lt = text.rfind('<', at);
  if (lt == std::string::npos) return "the text before the root element";
  if (text.compare(lt, 4, "<!--") == 0 && text.find("-->", lt) > at) return "a comment";
  size_t k = lt + 1;
  if (k < text.size() && text[k] == '/') ++k;
  size_t e = k;
  while (e < text.size() && e < at && !std::isspace(static_cast<unsigned char>(text[e])) && text[e] != '>' && text[e] != '/') ++e;
  const std::string tag = "<" + text.substr(k, e - k) + ">";
  const size_t gt = text.find('>', lt);
  if (gt != std::string::npos && gt < at) return "the text of " + tag;  // after the tag ends (approximately: '>' may sit in a value)
  // Inside the tag: the attribute whose value holds `at` is the name before the last '=' before it.
  const size_t eq = text.rfind('=', at);
  if (eq == std::string::npos || eq < e) return tag;
  size_t ne = eq;
  while (ne > e && std::isspace(static_cast<unsigned char>(text[ne - 1]))) --ne;
  size_t nb = ne;
  while (nb > e && !std::isspace(static_cast<unsigned char>(text[nb - 1]))) --nb;
  return nb < ne ? tag + " " + text.substr(nb, ne - nb) : tag;
}

}  // namespace

void check_xml_characters(const std::string& text, const std::string& file) {
  long line = 1;
  auto fail = [&](size_t at, const std::string& what) {
    throw InputError(file, "line " + std::to_string(line) + ", " + xml_context(text, at), what);
  };
  // Markup (a tag from '<' to '>', quoted values included) is where names and numbers are: it must
  // be UTF-8, since names reach the JSON outputs. Comments and text between elements are not read.
  bool in_tag = false, in_comment = false;
  char quote = 0;
  size_t tag_start = 0;
  long tag_line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '\0') fail(i, "expected no NUL byte (XML cannot hold one)");
    if (in_comment) {
      if (c == '-' && text.compare(i, 3, "-->") == 0) in_comment = false, i += 2;
      continue;
    }
    if (!in_tag && c == '<') {
      if (text.compare(i, 4, "<!--") == 0) {
        in_comment = true, i += 3;
        continue;
      }
      in_tag = true, quote = 0, tag_start = i, tag_line = line;
    } else if (in_tag) {
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        in_tag = false;
        const size_t bad = first_invalid_utf8(text.substr(tag_start, i + 1 - tag_start));
        if (bad != std::string::npos) {
          const size_t at = tag_start + bad;
          line = tag_line + static_cast<long>(std::count(text.begin() + static_cast<std::ptrdiff_t>(tag_start),
                                                          text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[at]));
          fail(at, std::string("expected UTF-8 (byte ") + hex +
                       " is not; names and values reach the JSON outputs, which are UTF-8): save the file as UTF-8");
        }
      }
    }
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
      fail(i, "expected a character reference to a character XML allows (" + text.substr(i, std::min<size_t>(j + 1 - i, 24)) +
                  " is not: XML 1.0 has no NUL, C0 control other than tab, newline and carriage return, surrogate or code point "
                  "beyond U+10FFFF)");
    i = j;
  }
}

}  // namespace rbd
