"""The helpers of the malformed-input corpus's generator (generate.py): where the corpus lives, a
case file written and a case recorded for manifest.json, a valid document edited, the fixture
checksum, and the valid support documents every case is made from (a robot as model JSON and as
URDF, states, the fixture rbdref makes, an engine output holding that fixture's values).
"""
import copy
import hashlib
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

# The cases (exit status 2) and the accepted edge cases (exit 0), in the order they are recorded.
cases, accepted = [], []


def write(rel, data):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    return rel


def sub(text, old, new):
    assert old in text, old
    return text.replace(old, new, 1)


def line_of(text, needle, after=None):
    i = text.index(needle, text.index(after) if after else 0)
    return text.count("\n", 0, i) + 1


def case(id, document, args, message, file=None, exit=2, also=None, options=None, setup=None, note=None, outputs=None, env=None,
         stdout=None):
    c = {"id": id, "document": document}
    if file:
        c["file"] = file
    c["args"] = args
    c["exit"] = exit
    if exit != 0:
        c["message"] = message
    if options:
        c["options"] = options
    if also is not None:
        c["also"] = also
    if setup:
        c["setup"] = setup
    if env:
        c["env"] = env
    if stdout:
        c["stdout"] = stdout
    if outputs:
        c["outputs"] = outputs
    if note:
        c["note"] = note
    (accepted if exit == 0 else cases).append(c)


def base(rel):
    return os.path.basename(rel)


EVAL_OUT = ["--out", "{scratch}/out.json"]


def dumps(doc):
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def edited(doc, edit):
    """A deep copy of `doc` after edit(copy)."""
    d = copy.deepcopy(doc)
    edit(d)
    return d


def case_file(folder, id, doc_or_text, ext=".json"):
    """Writes a case's input, folder/ID.EXT (a document as dumps() writes it), and returns its path."""
    return write(folder + "/" + id + ext, doc_or_text if isinstance(doc_or_text, str) else dumps(doc_or_text))


def checksum(doc):
    d = {k: v for k, v in doc.items() if k != "checksum"}
    text = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def reseal(doc):
    doc["checksum"] = checksum(doc)
    return doc


# ---- support: a valid robot (free base + two revolute joints), states, fixture, engine output ----

ROBOT = {
    "format": "rbdref.model", "version": 1, "name": "malformed_corpus_robot",
    "bodies": [
        {"name": "trunk", "parent": None, "joint": {"name": "base_free", "type": "free"},
         "inertial": {"mass": "5", "com": [0, 0, 0],
                      "I": {"ixx": "0.1", "iyy": "0.2", "izz": "0.25", "ixy": 0, "ixz": 0, "iyz": 0}}},
        {"name": "upper", "parent": "trunk", "joint": {"name": "shoulder", "type": "revolute", "axis": [0, 1, 0]},
         "origin": {"xyz": [0, 0, "0.2"]},
         "inertial": {"mass": "1", "com": [0, 0, "-0.15"],
                      "I": {"ixx": "0.01", "iyy": "0.01", "izz": "0.001", "ixy": 0, "ixz": 0, "iyz": 0}}},
        {"name": "lower", "parent": "upper", "joint": {"name": "elbow", "type": "revolute", "axis": [0, 1, 0]},
         "origin": {"xyz": [0, 0, "-0.3"]},
         "inertial": {"mass": "0.8", "com": [0, 0, "-0.12"],
                      "I": {"ixx": "0.008", "iyy": "0.008", "izz": "0.0008", "ixy": 0, "ixz": 0, "iyz": 0}}},
    ]}
STATE = {"q": {"base_free": [1, 0, 0, 0, 0, 0, 0.5], "shoulder": "0.3", "elbow": -0.7},
         "qd": [0, 0, 0, 0.1, 0, 0, 1, 2]}


def urdf_link(name, com_z, mass, ixx, izz):
    return ('  <link name="%s">\n    <inertial>\n      <origin xyz="0 0 %s" rpy="0 0 0"/>\n      <mass value="%s"/>\n'
            '      <inertia ixx="%s" iyy="%s" izz="%s" ixy="0" ixz="0" iyz="0"/>\n    </inertial>\n  </link>\n'
            % (name, com_z, mass, ixx, ixx, izz))


def urdf_joint(name, type, parent, child, xyz, axis=None):
    return ('  <joint name="%s" type="%s">\n    <parent link="%s"/>\n    <child link="%s"/>\n'
            '    <origin xyz="%s" rpy="0 0 0"/>\n%s  </joint>\n'
            % (name, type, parent, child, xyz, '    <axis xyz="%s"/>\n' % axis if axis else ""))


# A fixed-base arm as a URDF: two links on revolute joints about y, and a hand on a fixed joint
# (merged into the forearm). Cases edit its text.
URDF = ('<?xml version="1.0"?>\n<robot name="malformed_corpus_arm">\n  <link name="base"/>\n'
        + urdf_link("upper", "0.15", "1.2", "0.012", "0.0015")
        + urdf_link("forearm", "0.12", "0.8", "0.006", "0.0009")
        + '  <link name="hand"/>\n'
        + urdf_joint("shoulder", "revolute", "base", "upper", "0 0 0.1", "0 1 0")
        + urdf_joint("elbow", "revolute", "upper", "forearm", "0 0 0.3", "0 1 0")
        + urdf_joint("wrist", "fixed", "forearm", "hand", "0 0 0.25")
        + "</robot>\n")


def write_support(rbdref):
    """Writes support/: the robot, its states, the fixture `rbdref fixture` makes of the double
    pendulum (the fixture and engine-output cases start from it) and an engine output holding the
    fixture's values rounded to double. Returns the fixture and the engine output."""
    write("support/robot.json", json.dumps(ROBOT, indent=1) + "\n")
    write("support/state.json", json.dumps(STATE) + "\n")
    write("support/robot.urdf", URDF)
    write("support/arm_state.json", json.dumps({"q": {"shoulder": 0.1, "elbow": -0.2}}) + "\n")
    # Made once and kept (a version-2 fixture, as the cases were written against): a fixture made
    # by a newer rbdref would be another version and change every case derived from it.
    fix = os.path.join(HERE, "support", "good.fixture.json")
    if not os.path.exists(fix):
        subprocess.run([rbdref, "fixture", os.path.join(ROOT, "fixtures", "models", "double_pendulum.urdf"), "--samples", "2",
                        "--seed", "3", "--out", fix], check=True, stderr=subprocess.DEVNULL)
    good_fx = json.load(open(fix))
    assert checksum(good_fx) == good_fx["checksum"], "the checksum rule of fixtures changed: update checksum() here"
    engine = {"format": "rbdref.engine_output", "version": 1,
              "engine": {"name": "handwritten", "version": "1.0", "scalar": "double",
                         "import_path": "the fixture's reference values rounded to double"},
              "model": {"name": good_fx["model"]["name"], "sha256": good_fx["model"]["sha256"]},
              "fixture": "good.fixture.json", "conventions": {"name": "rbdref"}, "dofs": good_fx["dofs"], "samples": []}
    for s in good_fx["samples"]:
        es = {"id": s["id"], "inputs": s["inputs"]}
        for q in ("H", "C", "tau", "qdd"):
            v = s["outputs"][q]
            es[q] = [[float(x) for x in r] for r in v] if isinstance(v[0], list) else [float(x) for x in v]
        es["raw"] = {"H": es["H"]}
        engine["samples"].append(es)
    write("support/good.engine.json", json.dumps(engine, indent=1) + "\n")
    return good_fx, engine
