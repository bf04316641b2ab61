// The MJCF document and its includes (mjcf_document.hpp), and mjcf_includes (model_io.hpp): the
// files a model includes, listed for the model's hash and for engines that need the files.
//
// mjcf_includes walks the files a second time, on purpose, rather than reporting what read_mjcf's
// expansion read: the two answer different questions. read_mjcf expands the includes it reaches
// (children()), takes a text (a gunzipped one, say) and refuses a cycle; mjcf_includes takes the
// path, lists every <include> anywhere in the files (in <asset> or <actuator> too, which the reader
// skips) by the name written, leaves out absolute paths and files it cannot read or parse, and
// stops 20 levels down. Its list keys fixture caches (load_model's hash) and is the set of files
// the MuJoCo-js adapter ships; reporting read_mjcf's set instead would change both.
#include "io/mjcf_document.hpp"

#include "io/files.hpp"
#include "io/input_error.hpp"
#include "io/model_io.hpp"
#include "io/xml_escape.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>

namespace rbd {

namespace mjcf_detail {

std::string canonical_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path c = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : c.string();
}

std::string where_of(const XMLElement* e, const std::string& what) {
  return what + " (line " + std::to_string(e->GetLineNum()) + ")";
}

std::string folder(const std::string& path) {
  const size_t s = path.find_last_of('/');
  return s == std::string::npos ? "" : path.substr(0, s + 1);
}

XMLDocument* parse_xml(Doc& doc, const std::string& text, const std::string& file) {
  check_xml_characters(text, file);
  auto d = std::make_unique<XMLDocument>();
  if (d->Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
    if (d->ErrorID() == tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED)
      throw InputError(file, "line " + std::to_string(d->ErrorLineNum()),
                       "expected elements nested at most " + std::to_string(TINYXML2_MAX_ELEMENT_DEPTH) +
                           " deep (the XML parser's limit, which MuJoCo's own loader shares: a chain of more than about " +
                           std::to_string(TINYXML2_MAX_ELEMENT_DEPTH - 3) + " nested bodies loads in neither)");
    throw InputError(file, "line " + std::to_string(d->ErrorLineNum()), std::string("expected well-formed XML (") + d->ErrorStr() + ")");
  }
  XMLDocument* raw = d.get();
  doc.file_of[raw] = file;
  doc.docs.push_back(std::move(d));
  return raw;
}

namespace {

// The root of the file an <include> names, read and parsed as part of the document: refused when
// the file is already part of it, unreadable, past the model's input limit or not MJCF.
const XMLElement* included_root(Doc& doc, const XMLElement* c) {
  const std::string file = doc.file(c);
  const char* f = c->Attribute("file");
  if (!f || !*f) throw InputError(file, where_of(c, "<include>"), "missing attribute file");
  const std::string where = where_of(c, "<include file=\"" + std::string(f) + "\">");
  const std::string path = std::string(f).front() == '/' ? std::string(f) : folder(doc.main_file) + f;
  const std::string key = canonical_file(path);
  if (auto it = doc.included.find(key); it != doc.included.end())
    throw InputError(file, where,
                     "the file is already part of the model (" +
                         (it->second ? "included by " + doc.file(it->second) + " line " + std::to_string(it->second->GetLineNum())
                                     : std::string("it is the main file")) +
                         "); MuJoCo includes a file at most once, so an include cycle or a file included twice is refused");
  doc.included.emplace(key, c);
  std::string text;
  try {
    text = read_text_file(path, kModelInput);
  } catch (const InputError& err) {
    throw InputError(file, where, std::string("cannot read the included file: ") + err.what());
  }
  doc.total_bytes += text.size();
  if (doc.total_bytes > max_input_bytes(kModelInput))
    throw InputError(file, where,
                     "the model's files together pass the input limit of " + std::to_string(max_input_bytes(kModelInput)) +
                         " bytes for a model (RBDREF_MAX_INPUT_BYTES raises it; docs/formats.md)");
  const XMLDocument* inc = parse_xml(doc, text, path);
  const XMLElement* root = inc->RootElement();
  if (!root || std::string(root->Name()) != "mujoco")
    throw InputError(path, "<mujoco>", "expected an included MJCF file with a <mujoco> root element");
  return root;
}

}  // namespace

std::vector<const XMLElement*> children(Doc& doc, const XMLElement* e) {
  if (auto it = doc.expanded.find(e); it != doc.expanded.end()) return it->second;
  std::vector<const XMLElement*> out;
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::string(c->Name()) != "include") {
      out.push_back(c);
      continue;
    }
    for (const XMLElement* k : children(doc, included_root(doc, c))) out.push_back(k);
  }
  doc.expanded.emplace(e, out);
  return out;
}

}  // namespace mjcf_detail

std::vector<std::string> mjcf_includes(const std::string& path) {
  using mjcf_detail::folder;
  std::vector<std::string> out;
  std::function<void(const std::string&, int)> visit = [&](const std::string& file, int depth) {
    if (depth > 20) return;
    tinyxml2::XMLDocument doc;
    std::string text;
    try {
      text = read_text_file(file, kModelInput);
    } catch (const InputError&) {
      return;
    }
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) return;
    std::function<void(const tinyxml2::XMLElement*)> walk = [&](const tinyxml2::XMLElement* e) {
      for (const tinyxml2::XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
        if (std::string(c->Name()) == "include" && c->Attribute("file")) {
          const std::string f = c->Attribute("file");
          if (f.empty() || f.front() == '/' || std::find(out.begin(), out.end(), f) != out.end()) continue;
          out.push_back(f);
          visit(folder(path) + f, depth + 1);
        } else {
          walk(c);
        }
      }
    };
    if (doc.RootElement()) walk(doc.RootElement());
  };
  visit(path, 0);
  return out;
}

}  // namespace rbd
