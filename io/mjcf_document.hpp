// Private to the MJCF reader (io/mjcf*.cpp): the document as MuJoCo's parser sees it, the main
// file with every <include file="..."/> replaced by the children of the included file's <mujoco>
// root. Paths are relative to the main model's folder; each file is included at most once (a
// cycle or a fan-out is refused at the second inclusion), and the bytes of all files together are
// bounded like one model file. Includes are expanded as the reader reaches them (children()), so
// an <include> in an element the reader skips is not read.
#pragma once

#include <tinyxml2.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rbd::mjcf_detail {

using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;

struct Doc {
  std::vector<std::unique_ptr<XMLDocument>> docs;
  std::map<const XMLDocument*, std::string> file_of;
  std::string main_file;
  // Every file read, by its canonical path: the <include> that brought it in (null: the main file).
  // MuJoCo includes a file at most once, so a cycle (through the top level, a <default>, a body or
  // a frame) and a fan-out (a file included twice by two files) are both refused at the second
  // inclusion; the bytes of all files together are bounded like one model file.
  std::map<std::string, const XMLElement*> included;
  std::size_t total_bytes = 0;
  std::map<const XMLElement*, std::vector<const XMLElement*>> expanded;  // children(), once per element
  std::string file(const XMLElement* e) const {
    auto it = file_of.find(e->GetDocument());
    return it == file_of.end() ? main_file : it->second;
  }
};

// The path as the file system resolves it (the path itself when it cannot).
std::string canonical_file(const std::string& path);
// "what (line N)": how the reader names an element in its messages.
std::string where_of(const XMLElement* e, const std::string& what);
// The folder of a path, with its trailing '/' ("" for a bare file name).
std::string folder(const std::string& path);
// The text parsed as one of the document's files (its characters checked first); InputError
// naming the line when it is not well-formed XML.
XMLDocument* parse_xml(Doc& doc, const std::string& text, const std::string& file);
// The children of e, includes expanded (each element's list made once).
std::vector<const XMLElement*> children(Doc& doc, const XMLElement* e);

}  // namespace rbd::mjcf_detail
