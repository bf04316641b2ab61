// A body's mass properties by MuJoCo's rules (mjcf_inertia.hpp): the <inertial>, the geoms'
// solids, the compiler's bounds and total mass.
#include "io/mjcf_inertia.hpp"

#include "io/input_error.hpp"

#include <cstdlib>

namespace rbd::mjcf_detail {

namespace {

// R diag(d) Rᵀ for the unit quaternion q, as the six entries.
std::array<X, 6> rotated_diag(const Q4& q, const V3& d) {
  if (q[1].zero() && q[2].zero() && q[3].zero()) return {d[0], d[1], d[2], X::of(0), X::of(0), X::of(0)};
  const std::array<X, 9> R = qmat(q);
  auto e = [&](int i, int j) { return R[3 * i] * R[3 * j] * d[0] + R[3 * i + 1] * R[3 * j + 1] * d[1] + R[3 * i + 2] * R[3 * j + 2] * d[2]; };
  return {e(0, 0), e(1, 1), e(2, 2), e(0, 1), e(0, 2), e(1, 2)};
}

// Σ parts about their common COM (the parallel-axis theorem): parts given as mass, COM and
// inertia about their own COM, all in the same axes.
MassProps combine(const std::vector<MassProps>& parts) {
  if (parts.size() == 1) return parts[0];
  MassProps out;
  for (const MassProps& p : parts) out.m = out.m + p.m;
  V3 mc = zero3();
  for (const MassProps& p : parts) mc = add(mc, scale(p.c, p.m));
  out.c = scale(mc, X::of(1) / out.m);
  for (const MassProps& p : parts) {
    // I += I_p + m_p (|d|² 1 − d dᵀ), d = c_p − c: each diagonal entry as m_p's two other squares
    // (a sum of positives), the products m_p d_k d_l shared between the entries.
    const V3 d = sub(p.c, out.c), md = scale(d, p.m);
    const V3 sq{md[0] * d[0], md[1] * d[1], md[2] * d[2]};
    out.I[0] = out.I[0] + (p.I[0] + (sq[1] + sq[2]));
    out.I[1] = out.I[1] + (p.I[1] + (sq[0] + sq[2]));
    out.I[2] = out.I[2] + (p.I[2] + (sq[0] + sq[1]));
    out.I[3] = out.I[3] + (p.I[3] - md[0] * d[1]);
    out.I[4] = out.I[4] + (p.I[4] - md[0] * d[2]);
    out.I[5] = out.I[5] + (p.I[5] - md[1] * d[2]);
  }
  return out;
}

// ---- The <inertial> ----------------------------------------------------------------------------

// The <inertial> `ie` as written: mass, pos, and diaginertia (turned by the inertial frame's
// orientation) or fullinertia (taken exactly, in that frame).
MassProps inertial_mass(const Ctx& c, const XMLElement* inertial, const El& ie) {
  const std::string& file = ie.file;
  MassProps mp;
  if (!inertial->Attribute("pos")) throw InputError(file, ie.what, "missing attribute pos");
  if (!inertial->Attribute("mass")) throw InputError(file, ie.what, "missing attribute mass");
  mp.m = scalar(ie, "mass", 0);
  mp.c = vec<3>(ie, "pos", {0, 0, 0});
  const Q4 q = orientation(c, ie);
  const bool diag = inertial->Attribute("diaginertia"), full = inertial->Attribute("fullinertia");
  if (diag == full) throw InputError(file, ie.what, "expected exactly one of diaginertia and fullinertia");
  if (diag) {
    mp.I = rotated_diag(q, vec<3>(ie, "diaginertia", {0, 0, 0}));
    return mp;
  }
  // Taken exactly, in the inertial frame (pos, and the orientation if one is given).
  const std::array<X, 6> f = vec<6>(ie, "fullinertia", {0, 0, 0, 0, 0, 0});
  if (q[1].zero() && q[2].zero() && q[3].zero()) {
    mp.I = f;
    return mp;
  }
  const std::array<X, 9> R = qmat(q);
  const std::array<X, 9> F{f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]};
  auto e2 = [&](int i, int j) {
    X s = X::of(0);
    for (int a = 0; a < 3; ++a)
      for (int k2 = 0; k2 < 3; ++k2) s = s + R[3 * i + a] * F[3 * a + k2] * R[3 * j + k2];
    return s;
  };
  mp.I = {e2(0, 0), e2(1, 1), e2(2, 2), e2(0, 1), e2(0, 2), e2(1, 2)};
  return mp;
}

// ---- A geom's solid ----------------------------------------------------------------------------

// A geom's placement in its body's frame (before the <frame>s around it) and its sizes: from
// fromto (the centre, the z axis along the segment, the half-length as the last size) or from
// pos, the orientation and size; InputError unless the type's sizes are there and positive.
struct GeomShape {
  Pose pose;
  std::vector<X> sz;
};
GeomShape geom_shape(const Ctx& c, const El& g, const std::string& type) {
  GeomShape out;
  std::vector<Num> size = numbers(g, "size", 0, 3);
  std::vector<X>& sz = out.sz;
  for (const Num& n : size) sz.push_back(X(n));
  Pose& pose = out.pose;
  const std::vector<Num> ft = numbers(g, "fromto", 6, 6);
  const bool long_axis = type == "capsule" || type == "cylinder";
  if (!ft.empty()) {
    if (type == "sphere") throw InputError(g.file, g.what + " fromto", "fromto applies to capsule, cylinder, box and ellipsoid geoms");
    const V3 a{X(ft[0]), X(ft[1]), X(ft[2])}, b{X(ft[3]), X(ft[4]), X(ft[5])};
    const V3 d = sub(b, a);
    if (!(dot(d, d).approx() > 0)) throw InputError(g.file, g.what + " fromto", "the two points coincide (a zero-length geom)");
    pose.p = scale(add(a, b), X::of(1) / X::of(2));
    pose.q = z_to_quat(d);
    const X half = xsqrt(dot(d, d)) / X::of(2);
    const size_t need = long_axis ? 1 : 2;
    if (sz.size() < need)
      throw InputError(g.file, g.what + " size", "expected at least " + std::to_string(need) + " size numbers for a " + type + " with fromto");
    sz.resize(need);
    sz.push_back(half);  // size[1] of a capsule or cylinder, size[2] of a box or ellipsoid
  } else {
    pose.p = vec<3>(g, "pos", {0, 0, 0});
    pose.q = orientation(c, g);
  }
  const size_t need = type == "sphere" ? 1 : long_axis ? 2 : 3;
  if (sz.size() < need)
    throw InputError(g.file, g.what + " size", "expected " + std::to_string(need) + " size numbers for a " + type + " geom");
  for (size_t k = 0; k < need; ++k)
    if (!(sz[k].approx() > 0)) throw InputError(g.file, g.what + " size", "expected positive sizes for a " + type + " geom's inertia");
  return out;
}

// The solid's volume (mjCGeom::GetVolume).
X solid_volume(const std::string& type, const std::vector<X>& sz) {
  const X pi = xpi(), two = X::of(2), three = X::of(3), four = X::of(4), eight = X::of(8);
  if (type == "sphere") return four / three * pi * sz[0] * sz[0] * sz[0];
  if (type == "capsule") return pi * sz[0] * sz[0] * two * sz[1] + four / three * pi * sz[0] * sz[0] * sz[0];
  if (type == "cylinder") return pi * sz[0] * sz[0] * two * sz[1];
  if (type == "ellipsoid") return four / three * pi * sz[0] * sz[1] * sz[2];
  return eight * sz[0] * sz[1] * sz[2];
}

// The solid's principal moments about its centre, in its own axes (mjCGeom::SetInertia), of mass
// m and density rho (the capsule's cylinder and hemispheres each have their own mass).
V3 principal_inertia(const std::string& type, const std::vector<X>& sz, const X& m, const X& rho) {
  const X pi = xpi(), two = X::of(2), three = X::of(3), four = X::of(4), five = X::of(5), eight = X::of(8),
          twelve = X::of(12);
  if (type == "sphere") {
    const X i = two / five * m * sz[0] * sz[0];
    return {i, i, i};
  }
  if (type == "capsule") {
    const X r = sz[0], h = two * sz[1];
    const X mc = rho * pi * r * r * h, ms = rho * four / three * pi * r * r * r;
    const X perp = mc * (three * r * r + h * h) / twelve + ms * (two * r * r / five + h * h / four + three * h * r / eight);
    return {perp, perp, mc * r * r / two + ms * two * r * r / five};
  }
  if (type == "cylinder") {
    const X r = sz[0], h = two * sz[1];
    const X perp = m * (three * r * r + h * h) / twelve;
    return {perp, perp, m * r * r / two};
  }
  if (type == "ellipsoid")
    return {m * (sz[1] * sz[1] + sz[2] * sz[2]) / five, m * (sz[0] * sz[0] + sz[2] * sz[2]) / five,
            m * (sz[0] * sz[0] + sz[1] * sz[1]) / five};
  return {m * (sz[1] * sz[1] + sz[2] * sz[2]) / three, m * (sz[0] * sz[0] + sz[2] * sz[2]) / three,
          m * (sz[0] * sz[0] + sz[1] * sz[1]) / three};
}

// A geom's mass properties in its body's frame (`frame`: the <frame>s around it); nullopt when it
// has no mass (density or mass 0, or outside inertiagrouprange). A mesh, plane, height field or
// SDF geom with mass, or a shell inertia: `refusal` says why its inertia cannot be computed here.
std::optional<MassProps> geom_mass(const Ctx& c, const Compiler& comp, const El& g, const Pose& frame, std::string& refusal) {
  const std::string type = word(g, "type", "sphere", {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"});
  const std::vector<Num> grp = numbers(g, "group", 1, 1);
  const double group = grp.empty() ? 0 : std::strtod(grp[0].text.c_str(), nullptr);
  if (group < comp.group_lo || group > comp.group_hi) return std::nullopt;
  const std::vector<Num> mass_w = numbers(g, "mass", 1, 1);
  const X density = scalar(g, "density", 1000);
  if (mass_w.empty() ? density.zero() : mass_w[0].is_zero()) return std::nullopt;
  if (type == "mesh" || type == "plane" || type == "hfield" || type == "sdf") {
    refusal = g.what + " (type " + type + ")";
    return std::nullopt;
  }
  if (const char* sh = g.get("shellinertia"); sh && std::string(sh) == "true") {
    refusal = g.what + " (shellinertia=\"true\")";
    return std::nullopt;
  }
  const GeomShape shape = geom_shape(c, g, type);
  const X V = solid_volume(type, shape.sz);
  const X rho = mass_w.empty() ? density : X(mass_w[0]) / V;
  MassProps mp;
  mp.m = mass_w.empty() ? density * V : X(mass_w[0]);
  const V3 d = principal_inertia(type, shape.sz, mp.m, rho);
  const Pose pose = compose(frame, shape.pose);  // a <frame> around the geom
  mp.c = pose.p;
  mp.I = rotated_diag(pose.q, d);
  return mp;
}

// The geoms' mass properties combined (inertiafromgeom); a geom whose inertia is not computed
// here is an InputError naming the body.
MassProps geoms_mass(const Ctx& c, const Compiler& comp, const std::vector<std::pair<El, Pose>>& geoms, const std::string& file,
                     const std::string& what, const std::function<void()>& check_size) {
  std::vector<MassProps> parts;
  for (const auto& [g, gframe] : geoms) {
    if (parts.size() % 1024 == 1023) check_size();
    std::string refusal;
    std::optional<MassProps> gm = geom_mass(c, comp, g, gframe, refusal);
    if (!refusal.empty())
      throw InputError(file, what,
                       "its inertia would come from " + refusal + ", whose inertia rbdref does not compute; give the body an <inertial> "
                       "(MuJoCo's compiled value: load the model in MuJoCo and read body_mass, body_ipos, body_iquat, "
                       "body_inertia), or put the geom outside inertiagrouprange or at density 0 if it is visual");
    if (gm) parts.push_back(*gm);
  }
  if (parts.empty()) return MassProps();
  return combine(parts);
}

}  // namespace

MassProps body_mass(Ctx& c, const Compiler& comp, const XMLElement* inertial, const std::vector<std::pair<El, Pose>>& geoms,
                    const std::string& file, const std::string& body_name, const std::string& what, std::string& inertial_where,
                    const std::function<void()>& check_size) {
  const bool from_geoms = comp.inertiafromgeom == "true" || (comp.inertiafromgeom == "auto" && !inertial);
  if (!from_geoms && inertial) {
    const El ie{inertial, nullptr, file, where_of(inertial, "body '" + body_name + "' <inertial>")};
    inertial_where = ie.what;
    return inertial_mass(c, inertial, ie);
  }
  if (from_geoms) {
    inertial_where = what + " (inertia from its geoms)";
    return geoms_mass(c, comp, geoms, file, what, check_size);
  }
  inertial_where = what + " (no <inertial>, inertiafromgeom=\"false\": massless)";
  return MassProps();
}

void apply_compiler_bounds(ModelDesc& d, const Compiler& comp, const std::string& file, std::vector<std::string>& notes) {
  if (!(comp.boundmass || comp.boundinertia || comp.settotalmass)) return;
  X total = X::of(0);
  for (BodyDesc& b : d.bodies) {
    if (comp.boundmass && X(b.inertial.mass).approx() < X(*comp.boundmass).approx()) {
      b.inertial.mass = *comp.boundmass;
      notes.push_back(b.where + ": mass raised to boundmass " + comp.boundmass->str());
    }
    if (comp.boundinertia && !b.inertial_where.empty() && b.inertial_where.find("massless frame") == std::string::npos) {
      const bool diagonal = b.inertial.I[3].is_zero() && b.inertial.I[4].is_zero() && b.inertial.I[5].is_zero();
      const double bi = X(*comp.boundinertia).approx();
      for (int k = 0; k < 3; ++k)
        if (X(b.inertial.I[static_cast<size_t>(k)]).approx() < bi) {
          if (!diagonal)
            throw InputError(file, b.inertial_where,
                             "boundinertia would raise a principal moment of a non-diagonal inertia, which rbdref does not do "
                             "exactly; give the inertia in its principal frame (diaginertia + quat)");
          b.inertial.I[static_cast<size_t>(k)] = *comp.boundinertia;
          notes.push_back(b.inertial_where + ": a principal moment raised to boundinertia " + comp.boundinertia->str());
        }
    }
    total = total + X(b.inertial.mass);
  }
  if (comp.settotalmass && comp.settotalmass->str() != "-1" && X(*comp.settotalmass).approx() > 0) {
    if (!(total.approx() > 0)) throw InputError(file, "<compiler> settotalmass", "the model has no mass to scale");
    const X f = X(*comp.settotalmass) / total;
    for (BodyDesc& b : d.bodies) {
      b.inertial.mass = (X(b.inertial.mass) * f).num();
      for (Num& n : b.inertial.I) n = (X(n) * f).num();
    }
    notes.push_back("<compiler settotalmass=\"" + comp.settotalmass->str() + "\">: every mass and inertia scaled so the total is " +
                    comp.settotalmass->str());
  }
}

}  // namespace rbd::mjcf_detail
