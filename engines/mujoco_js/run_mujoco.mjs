// Runs MuJoCo 3 (the official WebAssembly build, npm package mujoco-js) for rbdref's mujoco-js
// adapter (mujoco_js_adapter.hpp): node run_mujoco.mjs IN.json OUT.json
//
// IN:  {"mjcf": text | "urdf": text, "files": {path: text} (included MJCF files, beside the model),
//       "disable_constraints": bool, "qpos0_view": bool (the echo's arrays at qpos0),
//       "samples": [{"qpos", "qvel", "qfrc_applied", "qacc"}]}  (MuJoCo's order)
// OUT: {"version", "nq", "nv", "nbody", "njnt", "neq", "gravity", the model arrays the echo reads
//       (body_names, body_mass, body_ipos, body_iquat, body_inertia, body_pos, body_quat,
//       jnt_names, jnt_axis, jnt_dofadr, jnt_qposadr), the sparse layout of qM and qLD
//       (M_rownnz, M_rowadr, M_colind), and per sample: H (mj_fullM, row-major), qfrc_bias, qacc
//       and qLD after mj_forward with qfrc_applied; qfrc_inverse after mj_inverse at qacc}
// Numbers cross as JSON: JavaScript writes the shortest text that reads back as the same double.
// On failure: {"error": message} and exit status 1. Nothing here converts conventions: the C++
// adapter does, as for MuJoCo 2.2.2.
import loadMujoco from 'mujoco-js';
import { readFileSync, writeFileSync } from 'node:fs';

const [inFile, outFile] = process.argv.slice(2);
let mj;
// The text of a C++ exception MuJoCo threw. The WebAssembly build exports neither its heap nor
// UTF8ToString, and its errors (mjXError, mjCError) are not std::exceptions, so getExceptionMessage
// gives only the type. Their first member is the message (char[]): read it through the heap buffer
// behind a typed-array view of a small model's arrays.
function message(e) {
  if (mj && e && typeof e === 'object' && 'excPtr' in e) {
    let type = 'C++ exception';
    try { type = mj.getExceptionMessage(e)[0]; } catch (_) { /* keep the generic name */ }
    try {
      mj.FS.writeFile('/rbdref_probe.xml', '<mujoco><worldbody><body><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/><joint/></body></worldbody></mujoco>');
      const probe = mj.MjModel.loadFromXML('/rbdref_probe.xml');
      const heap = new Uint8Array(probe.body_mass.buffer);
      let end = e.excPtr;
      while (end < heap.length && end < e.excPtr + 1000 && heap[end] !== 0) ++end;
      const text = new TextDecoder().decode(heap.subarray(e.excPtr, end));
      probe.delete();
      if (text.length) return type + ': ' + text;
    } catch (_) { /* fall through */ }
    return type;
  }
  return String(e && e.message ? e.message : e);
}
try {
  const input = JSON.parse(readFileSync(inFile, 'utf8'));
  mj = await loadMujoco();
  if (input.version_only) {
    writeFileSync(outFile, JSON.stringify({ version: mj.mj_versionString() }));
    process.exit(0);
  }
  // An MJCF rbdref wrote, or the user's URDF (MuJoCo's own URDF import), written into the
  // module's file system.
  const file = input.urdf !== undefined ? '/model.urdf' : '/model.xml';
  for (const [path, text] of Object.entries(input.files ?? {})) {
    const dir = ('/' + path).replace(/\/[^/]*$/, '');
    if (dir) mj.FS.mkdirTree(dir);
    mj.FS.writeFile('/' + path, text);
  }
  mj.FS.writeFile(file, input.urdf !== undefined ? input.urdf : input.mjcf);
  let m;
  try {
    m = mj.MjModel.loadFromXML(file);
  } catch (e) {
    throw new Error((input.urdf !== undefined ? "MuJoCo's URDF import rejected the URDF: " : 'MuJoCo rejected the model: ') + message(e));
  }
  // A URDF may switch on limits, friction loss and damping, which the reference does not model.
  if (input.disable_constraints) {
    const D = mj.mjtDisableBit;
    m.opt.disableflags = m.opt.disableflags | D.mjDSBL_CONSTRAINT.value | D.mjDSBL_CONTACT.value | D.mjDSBL_SPRING.value |
                         D.mjDSBL_DAMPER.value | D.mjDSBL_ACTUATION.value;
  }
  const d = new mj.MjData(m);
  const names = (adr, n) => {
    const out = [];
    for (let i = 0; i < n; ++i) out.push(mj.mj_id2name(m, adr, i) ?? '');
    return out;
  };
  const arr = (x) => Array.from(x);
  const out = {
    version: mj.mj_versionString(), nq: m.nq, nv: m.nv, nbody: m.nbody, njnt: m.njnt, neq: m.neq,
    // The gravity MuJoCo applies: 0 when the model's <flag gravity="disable"> switches it off.
    gravity: (m.opt.disableflags & mj.mjtDisableBit.mjDSBL_GRAVITY.value) ? [0, 0, 0] : arr(m.opt.gravity),
    body_names: names(mj.mjtObj.mjOBJ_BODY.value, m.nbody),
    body_mass: arr(m.body_mass), body_ipos: arr(m.body_ipos), body_iquat: arr(m.body_iquat),
    body_inertia: arr(m.body_inertia), body_pos: arr(m.body_pos), body_quat: arr(m.body_quat),
    jnt_names: names(mj.mjtObj.mjOBJ_JOINT.value, m.njnt), jnt_axis: arr(m.jnt_axis),
    jnt_dofadr: arr(m.jnt_dofadr), jnt_qposadr: arr(m.jnt_qposadr),
    M_rownnz: arr(m.M_rownnz), M_rowadr: arr(m.M_rowadr), M_colind: arr(m.M_colind),
    samples: [],
  };
  if (input.qpos0_view) {
    mj.mj_resetData(m, d);
    mj.mj_forward(m, d);
    Object.assign(out, {
      body_weldid: arr(m.body_weldid), jnt_type: arr(m.jnt_type), jnt_bodyid: arr(m.jnt_bodyid), dof_armature: arr(m.dof_armature),
      qpos0: arr(m.qpos0), xipos: arr(d.xipos), ximat: arr(d.ximat), xanchor: arr(d.xanchor), xaxis: arr(d.xaxis),
    });
  }
  const nv = m.nv;
  const full = new mj.DoubleBuffer(nv * nv);
  for (const s of input.samples) {
    mj.mj_resetData(m, d);
    d.qpos.set(s.qpos);
    d.qvel.set(s.qvel);
    d.qfrc_applied.set(s.qfrc_applied);
    mj.mj_forward(m, d);
    mj.mj_fullM(m, full, d.qM);
    const r = { H: arr(full.GetView()), qfrc_bias: arr(d.qfrc_bias), qacc: arr(d.qacc), qLD: arr(d.qLD) };
    d.qacc.set(s.qacc);
    d.qfrc_applied.set(new Array(nv).fill(0));
    mj.mj_inverse(m, d);
    r.qfrc_inverse = arr(d.qfrc_inverse);
    out.samples.push(r);
  }
  full.delete();
  d.delete();
  m.delete();
  writeFileSync(outFile, JSON.stringify(out));
} catch (e) {
  try { writeFileSync(outFile, JSON.stringify({ error: message(e) })); } catch (_) { /* nothing to add */ }
  process.stderr.write('run_mujoco.mjs: ' + message(e) + '\n');
  process.exit(1);
}
