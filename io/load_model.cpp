// load_model: a model file of either kind (chosen by content) with its --loops and --contacts
// files attached, checked by building it; the inertia policy, model_layout and model warnings.
#include "io/model_io.hpp"

#include "io/files.hpp"
#include "io/gzip.hpp"
#include "io/json_read.hpp"
#include "io/sha256.hpp"
#include "reference/tree/model.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace rbd {

bool inertia_policy_from_name(const std::string& name, InertiaPolicy& out) {
  if (name == "accept") out = InertiaPolicy::Accept;
  else if (name == "strict") out = InertiaPolicy::Strict;
  else return false;
  return true;
}

const char* inertia_policy_name(InertiaPolicy p) { return p == InertiaPolicy::Strict ? "strict" : "accept"; }

std::vector<std::string> model_warnings(const ModelDesc& desc, const std::vector<ModelNote>& notes) {
  std::vector<std::string> out = desc.import_notes;
  for (const ModelNote& n : notes) out.push_back(std::string(note_kind_name(n.kind)) + ": " + n.field + ": " + n.message);
  return out;
}

namespace {

void to_double_range(Num& n) {
  if (!n.is_double && !std::isfinite(std::strtod(n.text.c_str(), nullptr))) n = Num::exact(1);
}
template <size_t N>
void to_double_range(std::array<Num, N>& a) {
  for (Num& n : a) to_double_range(n);
}

}  // namespace

Model<double> model_layout(const ModelDesc& desc) {
  ModelDesc d = desc;
  to_double_range(d.gravity);
  for (BodyDesc& b : d.bodies) {
    to_double_range(b.origin.xyz);
    to_double_range(b.origin.rpy);
    if (b.origin.quat) to_double_range(*b.origin.quat);
    to_double_range(b.joint.axis);
    to_double_range(b.joint.pitch);
    to_double_range(b.joint.armature);
    if (b.joint.plane_x) to_double_range(*b.joint.plane_x);
    to_double_range(b.inertial.mass);
    to_double_range(b.inertial.com);
    to_double_range(b.inertial.I);
    to_double_range(b.inertial.rpy);
  }
  for (LoopJointDesc& l : d.loop_joints) {
    for (LoopEndDesc* e : {&l.pred, &l.succ}) {
      to_double_range(e->origin.xyz);
      to_double_range(e->origin.rpy);
      if (e->origin.quat) to_double_range(*e->origin.quat);
    }
    to_double_range(l.joint.axis);
    to_double_range(l.joint.pitch);
    if (l.joint.plane_x) to_double_range(*l.joint.plane_x);
  }
  for (ContactDesc& c : d.contacts) {
    to_double_range(c.point);
    to_double_range(c.normal);
    if (c.surface) to_double_range(*c.surface);
    if (c.sphere) {
      to_double_range(c.sphere->center);
      to_double_range(c.sphere->radius);
    }
    for (std::optional<Num>* o : {&c.radius, &c.friction, &c.restitution, &c.stiffness, &c.damping, &c.tangential_stiffness, &c.tangential_damping})
      if (*o) to_double_range(**o);
  }
  return build_model<double>(d);
}

std::vector<std::string> LoadedModel::warnings() const { return model_warnings(desc, notes); }

namespace {

// A model whose every joint is fixed: suggest --floating-base when the root looks free-floating
// (a URDF root with mass, or any massive link), which is the common reason.
std::string no_dof_message(const LoadedModel& lm, const LoadOptions& opt) {
  std::string msg = "expected at least one moving joint (the model has no degrees of freedom";
  msg += lm.desc.bodies.empty() ? ")" : ": every joint is fixed)";
  if (lm.kind == "urdf" && !opt.floating_base)
    msg += "; if the robot is free-floating (a legged robot, a humanoid, a drone, a free object), load it with --floating-base, "
           "which puts the root link on a free joint";
  return msg;
}

}  // namespace

std::string xml_root_name(const std::string& text) {
  size_t k = 0;
  while ((k = text.find('<', k)) != std::string::npos) {
    if (text.compare(k, 4, "<!--") == 0) {
      k = text.find("-->", k);
      if (k == std::string::npos) return "";
      continue;
    }
    if (k + 1 < text.size() && (text[k + 1] == '?' || text[k + 1] == '!')) {
      ++k;
      continue;
    }
    size_t e = k + 1;
    while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_' || text[e] == ':' || text[e] == '-')) ++e;
    return text.substr(k + 1, e - k - 1);
  }
  return "";
}

LoadedModel load_model(const std::string& path, const LoadOptions& opt) {
  LoadedModel lm;
  lm.file = path;
  lm.inertia = opt.inertia;
  std::string text = read_text_file(path, kModelInput);
  // A gzip-compressed model (JSON or URDF) is read as its text, which the hash identifies.
  if (is_gzip(text)) text = gunzip(text, path, kModelInput);
  lm.sha256 = sha256_hex(text);
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // UTF-8 byte-order mark
  if (text.compare(0, 2, "\xFF\xFE") == 0 || text.compare(0, 2, "\xFE\xFF") == 0)
    throw InputError(path, "", "expected UTF-8 text, got a UTF-16 byte-order mark (convert the file to UTF-8)");
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError(path, "", "expected a URDF (XML) or an rbdref.model JSON document, got an empty file");
  if (text[first] == '<' && xml_root_name(text) == "mujoco") {
    lm.kind = "mjcf";
    if (opt.floating_base)
      throw InputError("--floating-base", "", "applies to URDF models only; an MJCF model states its free joints (<freejoint/>)");
    lm.desc = read_mjcf(text, path);
    // The files it includes are part of the model: the hash (which keys fixture caches) covers them.
    std::string all = lm.sha256;
    for (const std::string& inc : mjcf_includes(path)) {
      const size_t s = path.find_last_of('/');
      all += "\n" + inc + "\n" + sha256_hex(read_text_file((s == std::string::npos ? "" : path.substr(0, s + 1)) + inc, kModelInput));
    }
    if (all != lm.sha256) lm.sha256 = sha256_hex(all);
  } else if (text[first] == '<') {
    lm.kind = "urdf";
    lm.desc = read_urdf(text, path, opt);
  } else {
    lm.kind = "json";
    if (opt.floating_base)
      throw InputError("--floating-base", "", "applies to URDF models only; a JSON model states its root joint (type \"free\")");
    lm.desc = read_model_json(parse_json_text(text, path), path);
  }
  if (lm.desc.name.empty()) lm.desc.name = path;
  lm.desc.file = path;
  if (!opt.loops_file.empty()) {
    lm.loops_file = opt.loops_file;
    std::vector<LoopJointDesc> more = read_loops_file(opt.loops_file, lm.desc);
    lm.desc.loop_joints.insert(lm.desc.loop_joints.end(), more.begin(), more.end());
  }
  if (!opt.contacts_file.empty()) {
    lm.contacts_file = opt.contacts_file;
    std::vector<ContactDesc> more = read_contacts_file(opt.contacts_file, lm.desc);
    lm.desc.contacts.insert(lm.desc.contacts.end(), more.begin(), more.end());
  }
  // Refused here, for every command alike (convert would otherwise write a model the others refuse).
  if (!lm.desc.loop_joints.empty() && !lm.desc.contacts.empty())
    throw InputError(lm.contacts_file.empty() ? path : lm.contacts_file, "contacts",
                     "contacts on a model with loop joints are not supported (the contact LCP over the loop-constrained "
                     "dynamics is not built); give the contacts with a tree model");
  // Physics checks (inertia, axes), reported against this file. In long double: its range
  // (1e±4932) holds numbers a model meant for extended precision may carry (1e400), and its 18
  // digits are more than the checks need.
  try {
    const Model<long double> m = build_model<long double>(lm.desc);
    lm.notes = m.notes;
    if (m.nv == 0) throw InputError(path, "", no_dof_message(lm, opt));
  } catch (const ModelError& e) {
    // A loop joint of the --loops file is reported against that file.
    std::string file = path;
    for (const LoopJointDesc& l : lm.desc.loop_joints)
      if (!l.file.empty() && e.field().rfind(l.where, 0) == 0) file = l.file;
    for (const ContactDesc& c : lm.desc.contacts)
      if (!c.file.empty() && e.field().rfind(c.where, 0) == 0) file = c.file;
    throw InputError(file, e.field(), e.message());
  }
  if (opt.inertia == InertiaPolicy::Strict)
    for (const ModelNote& n : lm.notes)
      if (n.kind == ModelNote::NonPhysical)
        throw InputError(path, n.field,
                         n.message + " (--inertia strict; --inertia accept computes with the inertia as given and reports it)");
  return lm;
}

}  // namespace rbd
