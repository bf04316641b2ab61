// The audit's manifest (DATA/models/manifest.json, format "rbdref.manifest"; docs/formats.md).
#include "audit/audit.hpp"

#include <set>

namespace rbd::audit {

// Every field is checked for its type and range before the audit writes anything: unknown fields
// are refused, a name must be a safe file name (it names output files) and unique, a seed is an
// unsigned 64-bit integer, samples 1 to 100000.
std::vector<ManifestEntry> read_manifest(const std::string& path) {
  const json doc = read_json_file(path, kSmallInput);
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != "rbdref.manifest")
    throw InputError(path, "format", "expected \"rbdref.manifest\"");
  if (!doc.contains("version") || doc["version"] != 1) throw InputError(path, "version", "expected 1");
  if (!doc.contains("models") || !doc["models"].is_array()) throw InputError(path, "models", "expected an array");
  std::vector<ManifestEntry> out;
  std::set<std::string> names;
  for (size_t k = 0; k < doc["models"].size(); ++k) {
    const json& j = doc["models"][k];
    const std::string p = "models[" + std::to_string(k) + "]";
    if (!j.is_object()) throw InputError(path, p, "expected an object with name and file");
    known_fields(j, {"name", "file", "loops", "contacts", "floating_base", "samples", "seed", "description"}, path, p);
    ManifestEntry e;
    // The name names output files (golden/<name>.fixture.json, <engine>/<name>.report.json).
    if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty() ||
        j["name"].get<std::string>()[0] == '.' ||
        j["name"].get<std::string>().find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
            std::string::npos)
      throw InputError(path, p + ".name", "expected a name of letters, digits, '_', '-' and '.' not starting with '.'" +
                                              std::string(j.contains("name") ? ", got " + j["name"].dump() : ""));
    e.name = j["name"];
    if (!names.insert(e.name).second) throw InputError(path, p + ".name", "duplicate model name '" + e.name + "'");
    if (!j.contains("file") || !j["file"].is_string() || j["file"].get<std::string>().empty())
      throw InputError(path, p + ".file", "expected a file name (in the manifest's folder)");
    e.file = j["file"];
    if (j.contains("loops")) {
      if (!j["loops"].is_string() || j["loops"].get<std::string>().empty())
        throw InputError(path, p + ".loops", "expected the name of a loops file (in the manifest's folder)");
      e.loops = j["loops"];
    }
    if (j.contains("contacts")) {
      if (!j["contacts"].is_string() || j["contacts"].get<std::string>().empty())
        throw InputError(path, p + ".contacts", "expected the name of a contacts file (in the manifest's folder)");
      e.contacts = j["contacts"];
    }
    if (j.contains("floating_base")) {
      if (!j["floating_base"].is_boolean()) throw InputError(path, p + ".floating_base", "expected true or false");
      e.floating_base = j["floating_base"];
    }
    if (j.contains("samples")) {
      const json& s = j["samples"];
      if (!s.is_number_integer() || s.get<long long>() < 1 || s.get<long long>() > 100000)
        throw InputError(path, p + ".samples", "expected an integer from 1 to 100000, got " + s.dump());
      e.samples = s.get<int>();
    }
    if (j.contains("seed")) {
      if (!j["seed"].is_number_unsigned())
        throw InputError(path, p + ".seed", "expected an integer from 0 to 18446744073709551615, got " + j["seed"].dump());
      e.seed = j["seed"];
    }
    if (j.contains("description")) {
      if (!j["description"].is_string()) throw InputError(path, p + ".description", "expected a string");
      e.description = j["description"];
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace rbd::audit
