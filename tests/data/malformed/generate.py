#!/usr/bin/env python3
"""Writes the malformed-input corpus: the case files under this folder and manifest.json.

Run from anywhere: python3 tests/data/malformed/generate.py [path/to/rbdref]
The rbdref binary (default build/cli/rbdref) makes support/good.fixture.json, the valid fixture the
fixture and engine-output cases are edited from; everything else is written here, the cases by kind
of document below, the support documents and the helpers by corpus.py beside it. The files are
committed: the test (tests/malformed_test.cpp) reads them, it does not run this script.

Placeholders in the command lines of manifest.json (substituted by the test):
  {file}     the case's input file, copied into the scratch folder under its own name
  {support}  support/, copied into the scratch folder (robot.json, robot.urdf, states, fixture, engine output)
  {scratch}  the scratch folder: outputs go there, and nothing may appear or change in it
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the corpus folder (every file there is a case's)
from corpus import (ROBOT, ROOT, STATE, URDF, EVAL_OUT, accepted, base, case, case_file, cases, dumps, edited, line_of, reseal,
                    sub, write, write_support)

RBDREF = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "cli", "rbdref")
GOOD_FX, ENGINE = write_support(RBDREF)

# ---- URDF ----------------------------------------------------------------------------------------

def urdf_case(id, text, message, options=None, note=None, also=None, names_file=True):
    rel = case_file("urdf", id, text, ".urdf")
    case("urdf-" + id, "urdf", ["eval", "{file}"] + (options or []) + ["--state", "{support}/arm_state.json"] + EVAL_OUT,
         ([base(rel)] if names_file else []) + message, file=rel, options=options, note=note, also=also)


urdf_case("truncated", URDF[:URDF.index("<joint name=\"elbow\"") + 40], ["line", "expected well-formed XML"])
urdf_case("empty", "", ["got an empty file"])
urdf_case("no_robot", URDF.replace("<robot ", "<model ").replace("</robot>", "</model>"),
          ["<robot>", "expected a <robot> root element"])
t = sub(URDF, '<link name="hand"/>', '<link name="forearm"/>')
urdf_case("duplicate_link", t, ["link 'forearm' (line %d)" % line_of(t, '<link name="forearm"/>'), "duplicate link name"])
t = sub(URDF, '<joint name="wrist" type="fixed">', '<joint name="elbow" type="fixed">')
urdf_case("duplicate_joint", t, ["joint 'elbow' (line %d)" % line_of(t, '<joint name="elbow" type="fixed">'), "duplicate joint name"])
t = """<robot name="screw">
  <link name="base"/>
  <joint name="j" type="screw"><parent link="base"/><child link="a"/></joint>
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>
"""
urdf_case("unknown_joint_type", t, ["joint 'j' (line 3) type", "got 'screw'"])
t = sub(URDF, '<mass value="0.8"/>', '<mass value="eight tenths"/>')
urdf_case("mass_not_a_number", t, ["link 'forearm' <inertial> (line %d) <mass> value" % line_of(t, "<inertial>", '<link name="forearm">'),
                                   "expected a decimal number"])
t = sub(URDF, '<mass value="0.8"/>', '<mass value="NaN"/>')
urdf_case("mass_nan", t, ["<mass> value", "got \"NaN\""])
t = sub(URDF, '<mass value="0.8"/>', '<mass value="1e400"/>')
urdf_case("mass_1e400", t, ["<mass> value", "within the range of a double", "1e400"])
t = sub(URDF, '<origin xyz="0 0 0.3" rpy="0 0 0"/>', '<origin xyz="0 0 0.3" rpy="0 -3.141e-3201592653589793 0"/>')
urdf_case("rpy_below_double", t, ["joint 'elbow' (line %d) <origin> rpy" % line_of(t, '<joint name="elbow"'), "within the range of a double",
                                  "nonzero and below it"], note="found by fuzz_urdf: 0 in a double, nonzero at bin50")
t = sub(URDF, '<origin xyz="0 0 0.3" rpy="0 0 0"/>', '<origin xyz="0 0 0.3" rpy="0 ${pi/2} 0"/>')
urdf_case("xacro_expression", t, ["joint 'elbow' (line %d) <origin> rpy" % line_of(t, '<joint name="elbow"'), "xacro", "expand it first"])
t = sub(URDF, '<link name="hand"/>', '<xacro:gripper prefix="left_" parent="forearm"/>\n  <link name="hand"/>')
urdf_case("xacro_macro_call", t, ["<xacro:gripper> (line %d)" % line_of(t, "<xacro:gripper"), "unexpanded xacro macro call"])
t = sub(URDF, '<link name="hand"/>', '<link name="hand"/>\n  <link name="camera"/>')
urdf_case("two_roots", t, ["<robot>", "exactly one root link", "found 2"])
t = sub(URDF, "</robot>", '  <joint name="back" type="fixed">\n    <parent link="hand"/>\n    <child link="base"/>\n  </joint>\n</robot>')
urdf_case("cycle", t, ["exactly one root link", "found 0", "cycle"])
t = sub(URDF, "</robot>", '  <link name="tool"/>\n  <joint name="tool_a" type="fixed">\n    <parent link="hand"/>\n    <child link="tool"/>\n  </joint>\n'
                 '  <joint name="tool_b" type="fixed">\n    <parent link="upper"/>\n    <child link="tool"/>\n  </joint>\n</robot>')
urdf_case("two_parents", t, ["joint 'tool_b' (line %d) <child>" % line_of(t, '<joint name="tool_b"'), "already the child of another joint"])
t = sub(URDF, '<child link="forearm"/>', '<child link="forarm"/>')
urdf_case("unknown_link", t, ["joint 'elbow' (line %d) <child>" % line_of(t, '<joint name="elbow"'), "unknown link 'forarm'"])
t = sub(URDF, '      <inertia ixx="0.006" iyy="0.006" izz="0.0009" ixy="0" ixz="0" iyz="0"/>\n', "")
urdf_case("missing_inertia", t, ["link 'forearm' <inertial>", "missing <inertia>"])
t = sub(URDF, 'ixx="0.006" iyy="0.006" izz="0.0009" ixy="0" ixz="0" iyz="0"', 'ixx="0.006" iyy="0.006" izz="0.0009" ixz="0" iyz="0"')
urdf_case("missing_ixy", t, ["link 'forearm' <inertial>", "<inertia>", "missing attribute ixy"])
t = sub(URDF, '<mass value="0.8"/>', '<mass value="-0.8"/>')
urdf_case("negative_mass", t, ["link 'forearm' <inertial> (line %d) <mass>" % line_of(t, "<inertial>", '<link name="forearm">'), "negative mass"])
t = sub(URDF, '<origin xyz="0 0 0.3" rpy="0 0 0"/>\n    <axis xyz="0 1 0"/>', '<origin xyz="0 0 0.3" rpy="0 0 0"/>\n    <axis xyz="0 0 0"/>')
urdf_case("zero_axis", t, ["joint 'elbow' (line %d) <axis>" % line_of(t, '<joint name="elbow"'), "zero axis"])
t = sub(URDF, '<origin xyz="0 0 0.3" rpy="0 0 0"/>\n    <axis xyz="0 1 0"/>', '<origin xyz="0 0 0.3" rpy="0 0 0"/>\n    <axis xyz="0 1"/>')
urdf_case("axis_two_numbers", t, ["joint 'elbow' (line %d) <axis> xyz" % line_of(t, '<joint name="elbow"'), "expected 3 decimal numbers", "\"0 1\""])
t = sub(URDF, '<origin xyz="0 0 0.3" rpy="0 0 0"/>', '<origin xyz="0,0,0.3" rpy="0 0 0"/>')
urdf_case("comma_separated", t, ["<origin> xyz", "expected 3 decimal numbers", "\"0,0,0.3\""])
t = sub(URDF, '<joint name="wrist" type="fixed">', '<joint name="wrist">')
urdf_case("missing_joint_type", t, ["joint 'wrist' (line %d)" % line_of(t, '<joint name="wrist">'), "missing attribute type"])
t = sub(URDF, "</robot>", '  <link name="x"/>\n  <link name="y"/>\n  <joint name="xy" type="fixed">\n    <parent link="x"/>\n    <child link="y"/>\n  </joint>\n'
                 '  <joint name="yx" type="fixed">\n    <parent link="y"/>\n    <child link="x"/>\n  </joint>\n</robot>')
urdf_case("unreachable_links", t, ["<robot>", "reachable from the root link 'base'"])
latin1 = URDF.replace('<link name="hand"/>', '<link name="h\u00e4nd"/>').replace('<child link="hand"/>', '<child link="h\u00e4nd"/>')
rel = write("urdf/latin1_name.urdf", latin1.encode("latin-1"))
case("urdf-latin1_name", "urdf", ["eval", "{file}", "--state", "{support}/arm_state.json"] + EVAL_OUT,
     [base(rel), "line %d, <link> name" % line_of(latin1, "h\u00e4nd"), "expected UTF-8", "0xE4"], file=rel,
     note="a Latin-1 link name used to reach the JSON writer: internal error, exit 3")
rel = write("urdf/utf16.urdf", b"\xff\xfe" + URDF.encode("utf-16-le"))
case("urdf-utf16", "urdf", ["eval", "{file}", "--state", "{support}/arm_state.json"] + EVAL_OUT, [base(rel), "UTF-16"], file=rel)
t = URDF.replace('type="revolute"', 'type="fixed"')
urdf_case("only_fixed_joints", t, ["expected at least one moving joint", "every joint is fixed", "--floating-base"])
t = sub(URDF, 'ixx="0.012" iyy="0.012" izz="0.0015"', 'ixx="0.00400" iyy="0.00500" izz="0.01200"')
urdf_case("nonphysical_strict", t, ["link 'upper' <inertial> (line %d)" % line_of(t, "<inertial>"), "triangle inequality",
                                    "--inertia strict"], options=["--inertia", "strict"])
urdf_case("nested_1000_deep", sub(URDF, '<link name="hand"/>', '<link name="hand"/>\n  ' + "<group>" * 1000 + "</group>" * 1000),
          ["expected well-formed XML", "nesting is too deep"], note="deep nesting: tinyxml2's depth limit, no stack overflow")
urdf_case("inertia_policy_bogus", URDF, ["--inertia", "expected accept or strict", "got 'lax'"], options=["--inertia", "lax"],
          names_file=False)

# ---- model JSON ----------------------------------------------------------------------------------

def model_case(id, text, message, options=None, note=None, also=None):
    rel = case_file("model", id, text)
    case("model-" + id, "model", ["eval", "{file}"] + (options or []) + ["--state", "{support}/state.json"] + EVAL_OUT,
         ([base(rel)] if not options else []) + message, file=rel, options=options, note=note, also=also)


def robot(edit):
    return dumps(edited(ROBOT, edit))


text = dumps(ROBOT)
model_case("truncated", text[:text.index('"upper"') + 20], ["expected valid JSON", "unexpected end of input"])
model_case("empty", "", ["got an empty file"])
model_case("wrong_format", robot(lambda d: d.update(format="rbdref.modle")), ["format", "expected \"rbdref.model\""])
model_case("version_3", robot(lambda d: d.update(version=3)), ["version", "expected 1 (a tree) or 2", "got 3"])
model_case("version_2_without_loops", robot(lambda d: d.update(version=2)), ["loop_joints", "missing field"])
model_case("missing_bodies", robot(lambda d: d.pop("bodies")), ["bodies", "missing field"])
model_case("mass_word", robot(lambda d: d["bodies"][0]["inertial"].update(mass="five")),
           ["bodies[0].inertial.mass", "expected a finite decimal number", "\"five\""])
model_case("mass_boolean", robot(lambda d: d["bodies"][0]["inertial"].update(mass=True)),
           ["bodies[0].inertial.mass", "expected a number or a decimal string, got boolean"])
# A decimal string beyond a double's range is read at the precisions that hold it (an accepted case
# below runs it at mpfr:30); one beyond long double's range (in which models are validated) is not.
model_case("mass_1e5000_string", robot(lambda d: d["bodies"][1]["inertial"].update(mass="1e5000")),
           ["bodies[1]", "out of range for long double", "'1e5000'"])
# A nonzero number that rounds to 0 in long double (in which models are checked) would pass the
# checks with a sign it does not have at bin50 or in MPFR: refused when read.
model_case("mass_minus_1e6000_string", robot(lambda d: d["bodies"][1]["inertial"].update(mass="-1e-6000")),
           ["bodies[1].inertial.mass", "below the range of long double", "\"-1e-6000\""],
           note="found by fuzz_model_json (as -1e-400, when models were checked at double): exit 3, internal error")
model_case("com_1e6000_string", robot(lambda d: d["bodies"][1]["inertial"]["com"].__setitem__(0, "1e-6000")),
           ["bodies[1].inertial.com[0]", "below the range of long double"])
model_case("mass_minus_1e400_string", robot(lambda d: d["bodies"][1]["inertial"].update(mass="-1e-400")),
           ["bodies[1].inertial.mass", "negative mass"])
model_case("com_bare_1e400", sub(robot(lambda d: d["bodies"][1]["inertial"]["com"].__setitem__(2, "@")), '"@"', '-1e400'),
           ["bodies[1].inertial.com[2]", "within the range of a double", "1e400"])
model_case("ixx_bare_nan", sub(robot(lambda d: d["bodies"][1]["inertial"]["I"].update(ixx="@")), '"@"', 'NaN'), ["bodies[1].inertial.I.ixx", "expected valid JSON", "invalid literal"])
model_case("xyz_bare_infinity", sub(robot(lambda d: d["bodies"][1]["origin"]["xyz"].__setitem__(2, "@")), '"@"', 'Infinity'),
           ["bodies[1].origin.xyz[2]", "expected valid JSON", "invalid literal"])
model_case("mass_nan_string", robot(lambda d: d["bodies"][2]["inertial"].update(mass="NaN")),
           ["bodies[2].inertial.mass", "expected a finite decimal number", "\"NaN\""])
model_case("izz_infinity_string", robot(lambda d: d["bodies"][2]["inertial"]["I"].update(izz="Infinity")),
           ["bodies[2].inertial.I.izz", "expected a finite decimal number", "\"Infinity\""])
model_case("decimal_with_spaces", robot(lambda d: d["bodies"][1]["origin"].update(xyz=[0, 0, " 0.2 "])),
           ["bodies[1].origin.xyz[2]", "expected a finite decimal number", "\" 0.2 \""])
model_case("duplicate_body", robot(lambda d: d["bodies"][2].update(name="upper")), ["bodies[2].name", "duplicate body name 'upper'"])
model_case("duplicate_joint", robot(lambda d: d["bodies"][2]["joint"].update(name="shoulder")),
           ["bodies[2].joint.name", "duplicate joint name 'shoulder'"])
model_case("duplicate_key", sub(text, '"mass": "1",', '"mass": "1",\n    "mass": "1.5",'),
           ["bodies[1].inertial.mass", "key given twice"])
model_case("parent_after_child", robot(lambda d: d["bodies"][1].update(parent="lower")),
           ["bodies[1].parent", "earlier body", "'lower'"])
model_case("unknown_joint_type", robot(lambda d: d["bodies"][1]["joint"].update(type="hinge")),
           ["bodies[1].joint.type", "expected one of revolute"])
model_case("quaternion_not_unit", robot(lambda d: d["bodies"][1].update(origin={"xyz": [0, 0, "0.2"], "quat": [1, 1, 0, 0]})),
           ["bodies[1].origin.quat", "unit quaternion", "1.4142135623730951e+00"])
model_case("quaternion_tiny", robot(lambda d: d["bodies"][1].update(origin={"xyz": [0, 0, "0.2"], "quat": ["1e-200", 0, 0, "1e-200"]})),
           ["bodies[1].origin.quat", "unit quaternion", "1.4142135623730950e-200"])
model_case("zero_axis", robot(lambda d: d["bodies"][2]["joint"].update(axis=[0, 0, 0])), ["bodies[2].joint.axis", "zero axis"])
model_case("misspelt_origin", robot(lambda d: d["bodies"][1].update(orign=d["bodies"][1].pop("origin"))),
           ["bodies[1].orign", "unknown field", "origin"], note="a misspelt field used to be ignored: the origin silently zero")
model_case("root_array", "[" + text + "]", ["expected a JSON object"])
model_case("missing_iyz", robot(lambda d: d["bodies"][0]["inertial"]["I"].pop("iyz")), ["bodies[0].inertial.I.iyz", "missing field"])
model_case("helical_without_pitch", robot(lambda d: d["bodies"][2]["joint"].update(type="helical")),
           ["bodies[2].joint.pitch", "missing field"])
model_case("all_fixed", robot(lambda d: [b["joint"].update(type="fixed") for b in d["bodies"]]),
           ["expected at least one moving joint", "every joint is fixed"])
ROBOT_V2 = edited(ROBOT, lambda d: d.update(version=2, loop_joints=[{"name": "closure", "type": "spherical",
                                                                      "predecessor": {"body": "trunk", "xyz": [0, 0, "-0.4"]},
                                                                      "successor": {"body": "lower", "xyz": [0, 0, "-0.2"]}}]))


def robot2(edit):
    return dumps(edited(ROBOT_V2, edit))


model_case("loop_unknown_body", robot2(lambda d: d["loop_joints"][0]["successor"].update(body="lowr")),
           ["loop_joints[0].successor.body", "unknown body 'lowr'"])
model_case("loop_same_body", robot2(lambda d: d["loop_joints"][0]["successor"].update(body="trunk")),
           ["loop_joints[0]", "same body"])
model_case("loop_revolute_without_axis", robot2(lambda d: d["loop_joints"][0].update(type="revolute")),
           ["loop_joints[0].axis", "missing field"])
model_case("loop_joints_in_version_1", robot2(lambda d: d.update(version=1)), ["loop_joints", "unknown field"])
model_case("floating_base_on_json", dumps(ROBOT), ["--floating-base", "applies to URDF models only"], options=["--floating-base"])

# ---- state JSON (eval only) ----------------------------------------------------------------------

def state_case(id, text, message, note=None, model="{support}/robot.json"):
    rel = case_file("state", id, text)
    case("state-" + id, "state", ["eval", model, "--state", "{file}"] + EVAL_OUT, [base(rel)] + message, file=rel, note=note)


def state(edit):
    return json.dumps(edited(STATE, edit)) + "\n"


Q = '{"q": {"base_free": [1, 0, 0, 0, 0, 0, 0.5], "shoulder": "0.3", "elbow": %s}}\n'
state_case("truncated", json.dumps(STATE)[:40], ["q.base_free", "expected valid JSON", "unexpected end of input"])
state_case("empty", "", ["expected valid JSON"])
state_case("missing_q", state(lambda d: d.pop("q")), ["q", "missing field"])
state_case("missing_joint", state(lambda d: d["q"].pop("elbow")), ["q.elbow", "missing joint"])
state_case("unknown_joint", state(lambda d: d["q"].update(wrist=0.1)), ["q.wrist", "unknown joint name", "base_free, shoulder, elbow"])
state_case("wrong_length", state(lambda d: d.update(qd=[0, 0, 0])), ["qd", "expected 8 entries", "got 3"])
state_case("word", Q % '"minus seven tenths"', ["q.elbow", "expected a finite decimal number"])
state_case("bare_nan", Q % "NaN", ["q.elbow", "expected valid JSON", "invalid literal"])
state_case("bare_infinity", '{"q": [1, 0, 0, 0, 0, 0, 0, 0.3, -0.7], "qd": [0, 0, 0, -Infinity, 0, 0, 0, 0]}\n',
           ["qd[3]", "expected valid JSON"])
state_case("bare_1e400", '{"q": [1, 0, 0, 0, 0, 0, 0, 0.3, -0.7], "tau": [1e400, 0, 0, 0, 0, 0, 0, 0]}\n',
           ["tau[0]", "within the range of a double", "1e400"])
state_case("nan_string", Q % '"NaN"', ["q.elbow", "expected a finite decimal number", "\"NaN\""])
state_case("infinity_string", Q % '"-Infinity"', ["q.elbow", "expected a finite decimal number", "\"-Infinity\""])
state_case("1e400_string", Q % '"1e400"', ["q.elbow", "within the range of a double", "\"1e400\""])
state_case("decimal_with_spaces", Q % '" -0.7"', ["q.elbow", "expected a finite decimal number", "\" -0.7\""])
state_case("hex_float_string", Q % '"0x1.6p-1"', ["q.elbow", "expected a finite decimal number"])
state_case("boolean", Q % "true", ["q.elbow", "got boolean"])
state_case("duplicate_key", Q % '-0.7, "elbow": 0.7', ["q.elbow", "key given twice"])
state_case("quaternion_not_unit", state(lambda d: d["q"].update(base_free=[2, 0, 0, 0, 0, 0, 0])),
           ["q.base_free", "unit quaternion", "2.0000000000000000e+00"])
state_case("quaternion_tiny", state(lambda d: d["q"].update(base_free=[1e-200, 1e-200, 0, 0, 0, 0, 0])),
           ["q.base_free", "unit quaternion", "1.4142135623730950e-200"])
state_case("quaternion_zero", state(lambda d: d["q"].update(base_free=[0, 0, 0, 0, 0, 0, 0])),
           ["q.base_free", "unit quaternion", "0.0000000000000000e+00"])
state_case("angle_1e300", state(lambda d: d["q"].update(elbow=1e300)),
           ["q.elbow", "expected an angle below", "modulo 2π"])
state_case("angle_1e300_string", state(lambda d: d["q"].update(elbow="-1e300")), ["q.elbow", "modulo 2π", "-1e300"])
state_case("misspelt_qd", state(lambda d: d.update(qdot=d.pop("qd"))), ["qdot", "unknown field", "q, qd, qdd, tau"],
           note="a misspelt field used to be ignored: qd silently zero")
state_case("root_array", "[1, 0, 0, 0, 0, 0, 0, 0.3, -0.7]\n", ["expected a JSON object with q, qd, qdd, tau"])
state_case("free_joint_scalar", state(lambda d: d["q"].update(base_free=1)), ["q.base_free", "expected an array of 7 numbers"])
state_case("urdf_fixed_joint_named", json.dumps({"q": {"shoulder": 0.1, "elbow": 0.2, "wrist": 0}}) + "\n",
           ["q.wrist", "unknown joint name", "moving joints: shoulder, elbow"], model="{support}/robot.urdf")
state_case("nested_10000_deep", '{"q": ' + "[" * 10000 + "]" * 10000 + "}\n", ["byte 262", "nested at most 256 levels deep"],
           note="deep nesting: no stack overflow")
case("state-folder", "state", ["eval", "{support}/robot.json", "--state", "{support}"] + EVAL_OUT,
     ["support", "expected a file, got a folder"])

# ---- fixture (compare reads it) ------------------------------------------------------------------

def fixture_case(id, doc_or_text, message, note=None, also=None):
    rel = case_file("fixture", id, doc_or_text)
    case("fixture-" + id, "fixture", ["compare", "{file}", "{support}/good.engine.json", "--report", "{scratch}/report.json"],
         [base(rel)] + message, file=rel, note=note, also=also)


def fx(edit, seal=True):
    d = edited(GOOD_FX, edit)
    return reseal(d) if seal else d


ftext = dumps(GOOD_FX)
fixture_case("truncated", ftext[: len(ftext) // 2], ["expected valid JSON"])
fixture_case("empty", "", ["expected valid JSON"])
fixture_case("edited_without_checksum", fx(lambda d: d["samples"][0]["inputs"]["q"].__setitem__(0, 0.25), seal=False),
             ["checksum", "does not match the document"])
fixture_case("condition_number_word", fx(lambda d: d["samples"][1].update(condition_number="large")),
             ["samples[1].condition_number", "expected a decimal number ≥ 1", "\"large\""])
fixture_case("condition_number_below_1", fx(lambda d: d["samples"][1].update(condition_number="0.5")),
             ["samples[1].condition_number", "≥ 1"])
fixture_case("normwise_digits_too_many", fx(lambda d: d["samples"][0]["normwise_certified_digits"].update(H=51)),
             ["samples[0].normwise_certified_digits.H", "from 0 to 50"])
fixture_case("certified_digits_huge", fx(lambda d: d["samples"][0]["certified_digits"]["C"].__setitem__(0, 99999999999)),
             ["samples[0].certified_digits.C[0]", "99999999999"], note="used to be reported as 1215752191 (wrapped to int)")
fixture_case("digits_wrap_around", fx(lambda d: d["generator"].update(digits=4294967346)),
             ["generator.digits", "4294967346"], note="4294967346 used to wrap to 50 and pass")
fixture_case("seed_negative", fx(lambda d: d["generator"].update(seed=-5)),
             ["generator.seed", "from 0 to 18446744073709551615", "-5"], note="used to wrap to 2^64-5 and pass")
fixture_case("model_edited", fx(lambda d: d["model"]["canonical"]["bodies"][0]["inertial"].update(mass="1.5")),
             ["model.sha256", "does not match the embedded model"])
fixture_case("model_mass_word", fx(lambda d: d["model"]["canonical"]["bodies"][1]["inertial"].update(mass="one")),
             ["model.canonical.bodies[1].inertial.mass", "expected a finite decimal number"])
# The good fixture here (support/) is version 2; versions 1 to 4 are read.
fixture_case("version_5", fx(lambda d: d.update(version=5)), ["version", "expected 1, 2, 3 or 4"])
fixture_case("duplicate_sample_id", fx(lambda d: d["samples"][1].update(id=d["samples"][0]["id"])),
             ["samples[1].id", "duplicate sample id"])
fixture_case("input_bare_1e400", sub(ftext, '"qd": [', '"qd": [1e400, '),
             ["samples[0].inputs.qd[0]", "within the range of a double"])
fixture_case("output_nan_string", fx(lambda d: d["samples"][0]["outputs"]["H"][0].__setitem__(0, "NaN")),
             ["samples[0].outputs.H[0][0]", "expected a finite decimal string"])
fixture_case("duplicate_key", sub(ftext, '"kind": "home"', '"kind": "home", "kind": "random"'),
             ["samples[0].kind", "key given twice"])
fixture_case("missing_output", fx(lambda d: d["samples"][1]["outputs"].pop("C")), ["samples[1].outputs.C", "missing field"])
fixture_case("wrong_dofs", fx(lambda d: d.update(dofs=["elbow", "shoulder"])), ["dofs", "expected the model's dof names"])
fixture_case("inputs_as_strings", fx(lambda d: d["samples"][0]["inputs"]["q"].__setitem__(0, "0.1")),
             ["samples[0].inputs.q[0]", "expected a number (inputs are exact binary doubles)"])
fixture_case("not_a_fixture", dumps(ENGINE), ["format", "expected \"rbdref.fixture\""])

# ---- engine output (compare and check read it) ---------------------------------------------------

def engine_case(id, doc_or_text, message, note=None, also=None):
    rel = case_file("engine", id, doc_or_text)
    case("engine-" + id, "engine_output", ["compare", "{support}/good.fixture.json", "{file}", "--report", "{scratch}/report.json"],
         [base(rel)] + message, file=rel, note=note, also=also)


def eo(edit):
    return edited(ENGINE, edit)


etext = dumps(ENGINE)
engine_case("truncated", etext[: len(etext) // 3], ["expected valid JSON"])
engine_case("empty", "", ["expected valid JSON"])
engine_case("wrong_format", eo(lambda d: d.update(format="rbdref.engine-output")), ["format", "expected \"rbdref.engine_output\""])
engine_case("scalar_unknown", eo(lambda d: d["engine"].update(scalar="quad")), ["engine.scalar", "got 'quad'"])
engine_case("scalar_mpfr_garbage", eo(lambda d: d["engine"].update(scalar="mpfr:7x")), ["engine.scalar", "got 'mpfr:7x'"],
            note="atoi used to read mpfr:7x as mpfr:7")
engine_case("echo_status_number", eo(lambda d: d.update(model_echo={"status": 5})), ["model_echo.status", "expected \"match\" or \"differs\""],
            note="used to end as internal error (exit 3)")
engine_case("echo_string", eo(lambda d: d.update(model_echo="match")), ["model_echo", "expected an object or null"])
engine_case("H_ragged", eo(lambda d: d["samples"][0]["H"].__setitem__(1, [1.0])), ["samples[0].H[1]", "expected an array of 2 numbers"])
engine_case("H_nan_string", eo(lambda d: d["samples"][0]["H"][1].__setitem__(0, "nan")), ["samples[0].H[1][0]", "\"nan\""])
engine_case("C_bare_infinity", sub(etext, '"C": [', '"C": [Infinity, '), ["samples[0].C[0]", "expected valid JSON"])
engine_case("duplicate_sample_id", eo(lambda d: d["samples"][1].update(id=d["samples"][0]["id"])), ["samples[1].id", "duplicate sample id"])
engine_case("no_values", eo(lambda d: [d["samples"][0].pop(k) for k in ("H", "C", "tau", "qdd")]),
            ["samples[0]", "expected at least one of H, C, tau, qdd, L, D"])
engine_case("missing_qd", eo(lambda d: d["samples"][0]["inputs"].pop("qd")), ["samples[0].inputs.qd", "missing field"])
engine_case("dofs_not_strings", eo(lambda d: d.update(dofs=[0, 1])), ["dofs[0]", "expected a string"])
engine_case("empty_samples", eo(lambda d: d.update(samples=[])), ["samples", "expected a non-empty array"])
engine_case("duplicate_key", sub(etext, '"scalar": "double"', '"scalar": "double", "scalar": "float"'),
            ["engine.scalar", "key given twice"])
engine_case("model_sha256_mismatch", eo(lambda d: d["model"].update(sha256="0" * 64)), ["model.sha256", "does not match the fixture's"],
            also=[])
engine_case("dofs_reordered", eo(lambda d: d.update(dofs=["elbow", "shoulder"])), ["dofs", "expected the fixture's dofs"], also=[])
engine_case("unknown_sample_id", eo(lambda d: d["samples"][0].update(id="s999")), ["samples[0].id", "is not a sample of the fixture"],
            also=[])
engine_case("not_an_engine_output", ftext, ["format", "expected \"rbdref.engine_output\""])
engine_case("contact_lambda_not_an_array", eo(lambda d: d["samples"][0].update(contact_lambda=5)),
            ["samples[0].contact_lambda", "expected an array of numbers (one per rigid contact)"])
engine_case("model_values_not_an_object", eo(lambda d: d["samples"][0].update(model_values=[1, 2])),
            ["samples[0].model_values", "expected an object of quantities"])
engine_case("model_values_unknown_quantity", eo(lambda d: d["samples"][0].update(model_values={"qddot": [1, 2]})),
            ["samples[0].model_values.qddot", "expected one of the engine quantities"])
engine_case("model_values_ragged", eo(lambda d: d["samples"][0].update(model_values={"H": [[1, 2], [3]]})),
            ["samples[0].model_values.H[1]", "expected an array of 2 numbers"])
engine_case("contact_qdd_without_contacts", eo(lambda d: d["samples"][0].update(contact_qdd=[0.5, 0.25])),
            ["samples[0].contact_qdd", "the fixture's model has no contacts"], also=[])

# ---- audit manifest ------------------------------------------------------------------------------

PEND = open(os.path.join(ROOT, "fixtures", "models", "double_pendulum.urdf")).read()
write("support/pendulum.urdf", PEND)


def manifest_case(id, doc_or_text, message, extra_setup=None, note=None, names_manifest=True):
    rel = case_file("manifest", id, doc_or_text)
    setup = [{"path": "data/models/manifest.json", "from": rel}, {"path": "data/models/pendulum.urdf", "from": "support/pendulum.urdf"},
             {"path": "data/golden", "dir": True}] + (extra_setup or [])
    case("manifest-" + id, "manifest", ["audit", "--data", "{scratch}/data", "--out", "{scratch}/audit-out"],
         (["models/manifest.json"] if names_manifest else []) + message,
         file=rel, setup=setup, note=note)


GOOD_MAN = {"format": "rbdref.manifest", "version": 1,
            "models": [{"name": "pend", "file": "pendulum.urdf", "samples": 2, "seed": 1, "description": "double pendulum"}]}


def man(edit):
    return edited(GOOD_MAN, edit)


manifest_case("format_number", man(lambda d: d.update(format=5)), ["format", "expected \"rbdref.manifest\""], note="used to be internal error (exit 3)")
manifest_case("version_string", man(lambda d: d.update(version="1")), ["version", "expected 1"], note="used to be internal error (exit 3)")
manifest_case("samples_string", man(lambda d: d["models"][0].update(samples="2")), ["models[0].samples", "from 1 to 100000", "\"2\""],
              note="used to be internal error (exit 3)")
manifest_case("samples_negative", man(lambda d: d["models"][0].update(samples=-2)), ["models[0].samples", "-2"],
              note="used to be blamed on --samples, after the output folder was made")
manifest_case("samples_fraction", man(lambda d: d["models"][0].update(samples=2.5)), ["models[0].samples", "2.5"],
              note="used to be truncated to 2")
manifest_case("seed_negative", man(lambda d: d["models"][0].update(seed=-1)), ["models[0].seed", "-1"], note="used to wrap to 2^64-1")
manifest_case("floating_base_string", man(lambda d: d["models"][0].update(floating_base="yes")), ["models[0].floating_base", "true or false"],
              note="used to be internal error (exit 3)")
manifest_case("description_number", man(lambda d: d["models"][0].update(description=5)), ["models[0].description", "expected a string"],
              note="used to be internal error (exit 3)")
manifest_case("name_with_slash", man(lambda d: d["models"][0].update(name="../../escape")), ["models[0].name", "\"../../escape\""],
              note="used to write escape.* two folders above the engine's output folder")
manifest_case("duplicate_name", man(lambda d: d["models"].append(dict(d["models"][0]))), ["models[1].name", "duplicate model name 'pend'"],
              note="the second used to overwrite the first one's outputs")
manifest_case("unknown_field", man(lambda d: d["models"][0].update(floatingbase=True)), ["models[0].floatingbase", "unknown field"])
manifest_case("models_object", man(lambda d: d.update(models={"pend": "pendulum.urdf"})), ["models", "expected an array"])
manifest_case("truncated", dumps(GOOD_MAN)[:60], ["expected valid JSON"])
manifest_case("missing_model_file", man(lambda d: d["models"][0].update(file="missing.urdf")), ["missing.urdf", "cannot open the file"],
              note="the output folder used to be made first", names_manifest=False)
manifest_case("bad_second_model", man(lambda d: d["models"].append({"name": "broken", "file": "broken.urdf"})),
              ["broken.urdf", "expected at least one moving joint"],
              extra_setup=[{"path": "data/models/broken.urdf", "content": "<robot name=\"broken\"><link name=\"only\"/></robot>\n"}],
              note="the first model's fixture, engine output and report used to be written before the second failed", names_manifest=False)
manifest_case("contacts_number", man(lambda d: d["models"][0].update(contacts=3)), ["models[0].contacts", "expected the name of a contacts file"])
manifest_case("contacts_missing_file", man(lambda d: d["models"][0].update(contacts="nowhere.contacts.json")),
              ["nowhere.contacts.json", "cannot open the file"], names_manifest=False)
manifest_case("loops_number", man(lambda d: d["models"][0].update(loops=3)), ["models[0].loops", "expected the name of a loops file"])
manifest_case("loops_missing_file", man(lambda d: d["models"][0].update(loops="nowhere.loops.json")),
              ["nowhere.loops.json", "cannot open the file"], names_manifest=False)
manifest_case("damaged_golden", GOOD_MAN, ["golden/pend.fixture.json", "expected valid JSON"],
              extra_setup=[{"path": "data/golden/pend.fixture.json", "content": ftext[:300]}],
              note="the output folder used to be made before the golden fixture was read", names_manifest=False)

# ---- loops files (--loops, RBDA ch. 8) -----------------------------------------------------------------

GOOD_LOOP = {"name": "closure", "type": "revolute", "axis": [0, 1, 0],
             "predecessor": {"link": "base", "xyz": [0, 0, "0.4"], "rpy": [0, 0, 0]},
             "successor": {"link": "forearm", "xyz": [0, 0, "0.3"], "rpy": [0, 0, 0]}}


def loops_case(id, text, message, note=None, command="eval"):
    rel = case_file("loops", id, text)
    args = {"eval": ["eval", "{support}/robot.urdf", "--loops", "{file}", "--state", "{support}/arm_state.json"] + EVAL_OUT,
            "convert": ["convert", "{support}/robot.urdf", "--loops", "{file}", "--out", "{scratch}/out.json"],
            "fixture": ["fixture", "{support}/robot.urdf", "--loops", "{file}", "--samples", "2", "--out", "{scratch}/f.json"]}[command]
    case("loops-" + id, "loops", args, [base(rel)] + message, file=rel, also=[], note=note)


def loop(edit):
    return json.dumps([edited(GOOD_LOOP, edit)], indent=1) + "\n"


loops_case("unknown_link", loop(lambda d: d["successor"].update(link="forarm")), ["[0].successor.link", "unknown link 'forarm'", "'base' (the fixed base)"])
loops_case("same_link", loop(lambda d: d["predecessor"].update(link="forearm")), ["[0]", "predecessor and successor are the same body"])
loops_case("welded_links", loop(lambda d: d["predecessor"].update(link="hand")),
           ["[0]", "rigidly attached", "merged into the same body 'forearm'"], command="convert")
loops_case("missing_type", loop(lambda d: d.pop("type")), ["[0].type", "missing field"])
loops_case("zero_axis", loop(lambda d: d.update(axis=[0, 0, 0])), ["[0].axis", "zero axis"])
loops_case("rpy_word", loop(lambda d: d["predecessor"].update(rpy=[0, "half", 0])), ["[0].predecessor.rpy[1]", "expected a finite decimal number"])
loops_case("link_and_body", loop(lambda d: d["successor"].update(body="forearm")), ["[0].successor", "give link or body, not both"])
loops_case("name_of_a_tree_joint", loop(lambda d: d.update(name="elbow")), ["[0].name", "duplicate joint name 'elbow'"])
loops_case("active_weld", loop(lambda d: d.update(active=True, type="fixed")), ["[0].active", "no DoF to carry an active force"])
loops_case("universal", loop(lambda d: d.update(type="universal")), ["[0].type", "universal loop joint is not supported"])
loops_case("misspelt_key", loop(lambda d: d.update(axes=[0, 1, 0])), ["[0].axes", "unknown field"])
loops_case("object_without_loops", json.dumps({"loop": [GOOD_LOOP]}) + "\n", ["loop", "unknown field", "loops"])
loops_case("not_json", "[{\"name\": \"closure\",", ["expected valid JSON"], command="convert")
loops_case("fixture_of_an_unclosable_loop", loop(lambda d: d["predecessor"].update(xyz=[0, 0, "40"])),
           ["loop_joints", "no sample start among 50 closed every loop"], command="fixture",
           note="the pin 40 m above the base, out of the arm's reach: assembly never converges")

# ---- contacts files (--contacts, RBDA ch. 11) ------------------------------------------------------------

GOOD_CONTACT = {"name": "tip", "link": "forearm", "point": [0, 0, "0.3"], "normal": [0, 0, 1]}


def contacts_case(id, text, message, note=None, command="eval"):
    rel = case_file("contacts", id, text)
    args = {"eval": ["eval", "{support}/robot.urdf", "--contacts", "{file}", "--state", "{support}/arm_state.json"] + EVAL_OUT,
            "convert": ["convert", "{support}/robot.urdf", "--contacts", "{file}", "--out", "{scratch}/out.json"]}[command]
    case("contacts-" + id, "contacts", args, [base(rel)] + message, file=rel, also=[], note=note)


def contact(edit):
    return json.dumps([edited(GOOD_CONTACT, edit)], indent=1) + "\n"


contacts_case("unknown_link", contact(lambda d: d.update(link="forarm")), ["[0].link", "unknown link 'forarm'", "'base' (the fixed base)"])
contacts_case("base_link", contact(lambda d: d.update(link="base")), ["[0].link", "names the fixed base"])
contacts_case("zero_normal", contact(lambda d: d.update(normal=[0, "0.0", 0])), ["[0].normal", "expected a non-zero vector"])
contacts_case("negative_friction", contact(lambda d: d.update(friction="-0.5")), ["[0].friction", "expected a friction coefficient μ ≥ 0"])
contacts_case("restitution_above_one", contact(lambda d: d.update(restitution=1.5)), ["[0].restitution", "in [0, 1]"])
contacts_case("negative_stiffness", contact(lambda d: d.update(stiffness=-1)), ["[0].stiffness", "≥ 0"])
contacts_case("missing_point", contact(lambda d: d.pop("point")), ["[0].point", "missing field"])
contacts_case("point_of_two", contact(lambda d: d.update(point=[0, 1])), ["[0].point", "expected an array of 3 numbers"])
contacts_case("normal_word", contact(lambda d: d.update(normal=[0, 0, "up"])), ["[0].normal[2]", "expected a finite decimal number"])
contacts_case("link_and_bodies", contact(lambda d: d.update(bodies=["upper", "forearm"])), ["[0]", "not both"])
contacts_case("no_body", contact(lambda d: d.pop("link")), ["[0]", "missing field", "bodies"])
contacts_case("same_bodies", contact(lambda d: (d.pop("link"), d.update(bodies=["forearm", "forearm"]))), ["[0].bodies", "the same link"])
contacts_case("welded_bodies", contact(lambda d: (d.pop("link"), d.update(bodies=["forearm", "hand"]))),
              ["[0]", "rigidly attached"], command="convert")
SPHERE = {"center": [0, 0, "-0.2"], "radius": "0.4"}
contacts_case("sphere_and_normal", contact(lambda d: d.update(radius="0.1", surface_sphere=dict(SPHERE, side="inside"))),
              ["[0]", "surface_sphere", "not both"])
contacts_case("sphere_without_radius", contact(lambda d: (d.pop("normal"), d.update(surface_sphere={"center": [0, 0, 0]}))),
              ["[0].surface_sphere.radius", "missing field"])
contacts_case("sphere_side_word", contact(lambda d: (d.pop("normal"), d.update(surface_sphere=dict(SPHERE, side="above")))),
              ["[0].surface_sphere.side", "expected \"outside\""])
contacts_case("sphere_inside_too_small", contact(lambda d: (d.pop("normal"), d.update(radius="0.5", surface_sphere=dict(SPHERE, side="inside")))),
              ["[0].surface_sphere.radius", "R greater than B's radius"])
contacts_case("negative_radius", contact(lambda d: d.update(radius=-1)), ["[0].radius", "\u2265 0"])
contacts_case("world_successor", contact(lambda d: (d.pop("link"), d.update(bodies=["forearm", None]))), ["[0].bodies[1]", "not the world"])
contacts_case("duplicate_name", json.dumps([GOOD_CONTACT, GOOD_CONTACT]) + "\n", ["[1].name", "duplicate contact name 'tip'"])
contacts_case("misspelt_key", contact(lambda d: d.update(frictoin=0.5)), ["[0].frictoin", "unknown field"])
contacts_case("object_without_contacts", json.dumps({"contact": [GOOD_CONTACT]}) + "\n", ["contact", "unknown field", "contacts"])
contacts_case("soft_without_damping", contact(lambda d: d.update(stiffness=1000)), ["[0].damping", "a soft contact needs damping D > 0"])
contacts_case("soft_zero_damping", contact(lambda d: d.update(stiffness=1000, damping=0)), ["[0].damping", "D > 0"])
contacts_case("tangential_without_soft", contact(lambda d: d.update(tangential_damping=5)), ["[0]", "belong to a soft contact"])
contacts_case("point_and_points", contact(lambda d: d.update(points=[[0, 0, 0]])), ["[0]", "give point (a point contact) or points"])
contacts_case("empty_points", contact(lambda d: (d.pop("point"), d.update(points=[]))), ["[0].points", "expected a non-empty array"])
contacts_case("points_of_two", contact(lambda d: (d.pop("point"), d.update(points=[[0, 0, 0], [0, 1]]))), ["[0].points[1]", "expected an array of 3 numbers"])
contacts_case("not_json", "[{\"name\": \"tip\",", ["expected valid JSON"], command="convert")

write("support/soft.contacts.json", json.dumps([{"name": "pad", "link": "forearm", "point": [0, 0, "0.3"], "normal": [0, 0, 1],
                                               "stiffness": 1000, "damping": 20, "friction": "0.5"},
                                              {"name": "tip", "link": "forearm", "point": [0, 0, "0.3"], "normal": [1, 0, 0]}]) + "\n")


def soft_state_case(id, contact_state, message):
    rel = case_file("state", id, json.dumps({"q": {"shoulder": 0.1, "elbow": -0.2}, "contact_state": contact_state}) + "\n")
    case("state-" + id, "state", ["eval", "{support}/robot.urdf", "--contacts", "{support}/soft.contacts.json", "--state", "{file}"] + EVAL_OUT,
         [base(rel)] + message, file=rel)


soft_state_case("contact_state_unknown_contact", {"padd": {"z": 0}}, ["contact_state.padd", "no contact of this name", "pad"])
soft_state_case("contact_state_rigid_contact", {"tip": {"z": 0}}, ["contact_state.tip", "not a soft contact"])
soft_state_case("contact_state_positive_z", {"pad": {"z": "0.01"}}, ["contact_state.pad.z", "expected z ≤ 0"])
soft_state_case("contact_state_x_of_three", {"pad": {"x": [0, 0, 0]}}, ["contact_state.pad.x", "expected an array of 2 numbers"])
soft_state_case("contact_state_misspelt", {"pad": {"zz": 0}}, ["contact_state.pad.zz", "unknown field"])

# ---- command-line options and output paths ---------------------------------------------------------

PEND_ARGS = ["{support}/pendulum.urdf"]


def opt_case(id, args, message, setup=None, note=None):
    case("cli-" + id, "options", args, message, setup=setup, note=note)


opt_case("seed_negative", ["fixture"] + PEND_ARGS + ["--samples", "2", "--seed", "-1", "--out", "{scratch}/f.json"], ["--seed", "got '-1'"])
opt_case("seed_too_big", ["fixture"] + PEND_ARGS + ["--samples", "2", "--seed", "99999999999999999999999", "--out", "{scratch}/f.json"],
         ["--seed", "from 0 to 18446744073709551615", "99999999999999999999999"])
opt_case("samples_word", ["fixture"] + PEND_ARGS + ["--samples", "two", "--out", "{scratch}/f.json"], ["--samples", "from 1 to 100000", "'two'"],
         note="CLI11's 'Could not convert' used to be the whole message")
opt_case("samples_zero", ["fixture"] + PEND_ARGS + ["--samples", "0", "--out", "{scratch}/f.json"], ["--samples", "'0'"])
opt_case("precision_bogus_eval", ["eval"] + PEND_ARGS + ["--state", "{support}/arm_state.json", "--precision", "bogus"] + EVAL_OUT,
         ["--precision", "got 'bogus'"])
opt_case("precision_bogus_fixture", ["fixture"] + PEND_ARGS + ["--samples", "2", "--precision", "bogus", "--out", "{scratch}/f.json"],
         ["--precision", "got 'bogus'"])
opt_case("precision_mpfr_too_few", ["eval"] + PEND_ARGS + ["--state", "{support}/arm_state.json", "--precision", "mpfr:5"] + EVAL_OUT,
         ["--precision", "got 'mpfr:5'"])
opt_case("out_dev_full_eval", ["eval"] + PEND_ARGS + ["--state", "{support}/arm_state.json", "--out", "/dev/full"],
         ["/dev/full", "a device, FIFO or socket"])
opt_case("out_dev_full_convert", ["convert"] + PEND_ARGS + ["--out", "/dev/full"], ["/dev/full", "a device"])
opt_case("report_dev_full_check", ["check", "{support}/good.engine.json", "--report", "/dev/full"], ["/dev/full", "a device"])
opt_case("out_is_the_model", ["eval", "{support}/robot.json", "--state", "{support}/state.json", "--out", "{support}/robot.json"],
         ["--out", "is also an input", "refusing to overwrite"])
opt_case("out_is_the_state", ["eval", "{support}/robot.json", "--state", "{support}/state.json", "--out", "{support}/state.json"],
         ["--out", "is also an input"])
opt_case("out_is_the_model_convert", ["convert", "{support}/robot.urdf", "--out", "{support}/../support/robot.urdf"],
         ["--out", "is also an input"])
opt_case("out_is_the_model_fixture", ["fixture"] + PEND_ARGS + ["--samples", "2", "--out", "{support}/pendulum.urdf"],
         ["--out", "is also an input"])
opt_case("report_is_the_engine_output", ["check", "{support}/good.engine.json", "--report", "{support}/good.engine.json"],
         ["--report", "is also an input"])
opt_case("report_is_the_fixture", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "{support}/good.fixture.json"],
         ["--report", "is also an input"])
opt_case("report_and_junit_same", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "{scratch}/x",
                                   "--junit", "{scratch}/x"], ["--junit", "is also --report"])
opt_case("out_missing_folder_eval", ["eval"] + PEND_ARGS + ["--state", "{support}/arm_state.json", "--out", "{scratch}/missing/out.json"],
         ["missing/out.json", "does not exist"])
opt_case("out_missing_folder_convert", ["convert"] + PEND_ARGS + ["--out", "{scratch}/missing/model.json"], ["missing/model.json", "does not exist"])
opt_case("out_missing_folder_fixture", ["fixture"] + PEND_ARGS + ["--samples", "2", "--out", "{scratch}/missing/f.json"],
         ["missing/f.json", "does not exist"])
opt_case("report_missing_folder_compare", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report",
                                           "{scratch}/missing/r.json"], ["missing/r.json", "does not exist"])
opt_case("junit_missing_folder_compare", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report",
                                          "{scratch}/r.json", "--junit", "{scratch}/missing/j.xml"], ["missing/j.xml", "does not exist"],
         note="the report must not be written either")
opt_case("report_missing_folder_check", ["check", "{support}/good.engine.json", "--report", "{scratch}/missing/r.json"],
         ["missing/r.json", "does not exist"])
RO = [{"path": "readonly.json", "content": "{\"keep\": true}\n", "mode": "0444"}]
opt_case("out_read_only_eval", ["eval"] + PEND_ARGS + ["--state", "{support}/arm_state.json", "--out", "{scratch}/readonly.json"],
         ["readonly.json", "read-only", "does not replace it"], setup=RO, note="as root, access() used to allow replacing it")
opt_case("out_read_only_convert", ["convert"] + PEND_ARGS + ["--out", "{scratch}/readonly.json"], ["readonly.json", "read-only"], setup=RO)
opt_case("out_read_only_fixture", ["fixture"] + PEND_ARGS + ["--samples", "2", "--out", "{scratch}/readonly.json"], ["readonly.json", "read-only"],
         setup=RO)
opt_case("report_read_only_compare", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "{scratch}/readonly.json"],
         ["readonly.json", "read-only"], setup=RO)
opt_case("report_read_only_check", ["check", "{support}/good.engine.json", "--report", "{scratch}/readonly.json"], ["readonly.json", "read-only"],
         setup=RO)
opt_case("audit_json_read_only", ["audit", "--models", "double_pendulum", "--out", "{scratch}/audit-out"],
         ["audit-out/audit.json", "read-only"], setup=[{"path": "audit-out/audit.json", "content": "{}\n", "mode": "0444"}],
         note="used to be found only after every fixture, engine output and report was written")
opt_case("out_is_a_folder", ["convert"] + PEND_ARGS + ["--out", "{scratch}/folder"], ["folder", "is a folder"],
         setup=[{"path": "folder", "dir": True}])
opt_case("out_is_a_symlink", ["convert"] + PEND_ARGS + ["--out", "{scratch}/link.json"], ["link.json", "symbolic link"],
         setup=[{"path": "target.json", "content": "{}\n"}, {"path": "link.json", "symlink": "target.json"}])
opt_case("out_empty_eval", ["eval"] + PEND_ARGS + ["--state", "{support}/arm_state.json", "--out", ""], ["--out", "empty string"],
         note="used to print to standard output, exit 0")
opt_case("out_empty_convert", ["convert"] + PEND_ARGS + ["--out", ""], ["--out", "empty string"])
opt_case("report_empty_check", ["check", "{support}/good.engine.json", "--report", ""], ["--report", "empty string"],
         note="used to skip the report, exit 0")
opt_case("junit_empty_compare", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "{scratch}/r.json",
                                 "--junit", ""], ["--junit", "empty string"])
opt_case("audit_out_empty", ["audit", "--models", "double_pendulum", "--out", ""], ["--out", "empty string"],
         note="used to write /fixtures, /mujoco and /audit.json at the filesystem root")
opt_case("audit_out_dev_full", ["audit", "--models", "double_pendulum", "--out", "/dev/full"], ["/dev/full", "is not a folder"])
opt_case("audit_engines_empty", ["audit", "--engines", "", "--out", "{scratch}/audit-out"], ["--engines", "got nothing"])
opt_case("audit_models_empty", ["audit", "--models", "", "--out", "{scratch}/audit-out"], ["--models", "got nothing"])
opt_case("audit_engines_commas", ["audit", "--engines", ",,", "--out", "{scratch}/audit-out"], ["--engines", "got nothing"])
opt_case("audit_engine_not_built", ["audit", "--engines", "pinocchio", "--out", "{scratch}/audit-out"], ["--engines", "no adapter for pinocchio"],
         note="was dart, then kdl, until their adapters were built; Pinocchio is a known engine without an adapter (no Debian package)")
opt_case("audit_engine_unknown", ["audit", "--engines", "physx", "--out", "{scratch}/audit-out"], ["--engines", "unknown engine 'physx'"])
opt_case("audit_model_unknown", ["audit", "--models", "double_pendulum,nosuch", "--out", "{scratch}/audit-out"],
         ["--models", "unknown model 'nosuch'"])
opt_case("audit_tol_bogus", ["audit", "--models", "double_pendulum", "--tol", "H=abc", "--out", "{scratch}/audit-out"],
         ["--tol", "positive relative tolerance", "'abc'"])
opt_case("audit_tol_infinite", ["audit", "--models", "double_pendulum", "--tol", "H=inf", "--out", "{scratch}/audit-out"],
         ["--tol", "positive relative tolerance", "'inf'"])
opt_case("audit_data_missing", ["audit", "--data", "{scratch}/nowhere", "--out", "{scratch}/audit-out"], ["nowhere/models/manifest.json", "cannot open"])
opt_case("compare_tol_negative", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "{scratch}/r.json",
                                  "--tol", "H=-1"], ["--tol", "positive relative tolerance", "'-1'"])
opt_case("compare_tol_unknown_quantity", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report",
                                          "{scratch}/r.json", "--tol", "M=1e-9"], ["--tol", "'M=1e-9'"])
opt_case("model_missing", ["convert", "{scratch}/nosuch.urdf", "--out", "{scratch}/m.json"], ["nosuch.urdf", "cannot open the file"])
opt_case("model_is_a_folder", ["fixture", "{support}", "--samples", "2", "--out", "{scratch}/f.json"], ["support", "expected a file, got a folder"])
opt_case("fixture_is_a_folder", ["compare", "{support}", "{support}/good.engine.json", "--report", "{scratch}/r.json"],
         ["support", "expected a file, got a folder"])
opt_case("engine_output_missing", ["check", "{scratch}/nosuch.json"], ["nosuch.json", "cannot open the file"])
opt_case("unknown_option", ["convert"] + PEND_ARGS + ["--frobnicate"], ["--frobnicate"], note="CLI11's message now carries the rbdref: error: prefix")
opt_case("no_command", [], ["subcommand is required"])
opt_case("unknown_command", ["simulat"] + PEND_ARGS, ["unknown command 'simulat'"], note="used to say 'A subcommand is required'")
opt_case("eval_without_state", ["eval"] + PEND_ARGS + EVAL_OUT, ["--state is required"])

# ---- round two: special files, bounded reads, NUL, markup in names, standard output, leftovers --------

# Inputs are regular files: a FIFO with no writer is refused at once (it used to hang forever), a
# device too. The FIFO is made by the test (setup "fifo").
FIFO = lambda name: [{"path": name, "fifo": True}]
opt_case("fifo_model", ["convert", "{scratch}/p.urdf", "--out", "{scratch}/o.json"], ["p.urdf", "expected a regular file, got a FIFO"],
         setup=FIFO("p.urdf"), note="used to hang forever")
opt_case("fifo_state", ["eval", "{support}/robot.json", "--state", "{scratch}/p.json"] + EVAL_OUT, ["p.json", "got a FIFO"],
         setup=FIFO("p.json"), note="used to hang forever")
opt_case("fifo_fixture", ["compare", "{scratch}/p.json", "{support}/good.engine.json", "--report", "{scratch}/r.json"], ["p.json", "got a FIFO"],
         setup=FIFO("p.json"))
opt_case("fifo_engine_output", ["check", "{scratch}/p.json"], ["p.json", "got a FIFO"], setup=FIFO("p.json"))
opt_case("fifo_loops", ["eval", "{support}/robot.urdf", "--loops", "{scratch}/p.json", "--state", "{support}/arm_state.json"] + EVAL_OUT,
         ["p.json", "got a FIFO"], setup=FIFO("p.json"))
opt_case("fifo_contacts", ["convert", "{support}/robot.urdf", "--contacts", "{scratch}/p.json", "--out", "{scratch}/o.json"],
         ["p.json", "got a FIFO"], setup=FIFO("p.json"))
opt_case("fifo_manifest", ["audit", "--data", "{scratch}/data", "--out", "{scratch}/audit-out"], ["manifest.json", "got a FIFO"],
         setup=[{"path": "data/models/manifest.json", "fifo": True}])
opt_case("fifo_baseline", ["audit", "--models", "double_pendulum", "--baseline", "{scratch}/p.json", "--out", "{scratch}/audit-out"],
         ["p.json", "got a FIFO"], setup=FIFO("p.json"))
opt_case("fifo_audit_json", ["html", "{scratch}/p.json", "--out", "{scratch}/r.html"], ["p.json", "got a FIFO"], setup=FIFO("p.json"))
opt_case("dev_zero_model", ["convert", "/dev/zero", "--out", "{scratch}/o.json"], ["/dev/zero", "expected a regular file, got a device"],
         note="used to read 2 GB in a few seconds")
opt_case("dev_urandom_state", ["eval", "{support}/robot.json", "--state", "/dev/urandom"] + EVAL_OUT, ["/dev/urandom", "got a device"])

# Reads are bounded (RBDREF_MAX_INPUT_BYTES here, to keep the files small), gzip as it inflates.
LIMIT = {"RBDREF_MAX_INPUT_BYTES": "100000"}
case("bounded-model_over_the_limit", "model", ["convert", "{support}/robot.json", "--out", "{scratch}/o.json"],
     ["robot.json", "more than the input limit of 500", "RBDREF_MAX_INPUT_BYTES"], also=[], env={"RBDREF_MAX_INPUT_BYTES": "500"})
import gzip as _gzip
bomb = write("bounded/zeros.json.gz", _gzip.compress(b"\0" * 1000000, 9, mtime=0))
case("bounded-gzip_bomb_model", "model", ["convert", "{file}", "--out", "{scratch}/o.json"],
     ["zeros.json.gz", "gzip content larger than the input limit of 100000"], file=bomb, also=[], env=LIMIT,
     note="a 1 MB gzip inflating to 1 GiB used to take 2.1 GB")
# JSON documents are parsed as they inflate: NULs are refused at byte 1, before the bound (round three).
case("bounded-gzip_bomb_state", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT,
     ["zeros.json.gz", "byte 1:", "NUL byte"], file=bomb, also=[], env=LIMIT)
case("bounded-gzip_bomb_fixture", "fixture", ["compare", "{file}", "{support}/good.engine.json", "--report", "{scratch}/r.json"],
     ["zeros.json.gz", "byte 1:", "NUL byte"], file=bomb, also=[], env=LIMIT)
# Without the environment, each kind has its own bound: a state past 16 MiB, a model past 64 MiB.
rel = write("bounded/state_17MiB.json.gz", _gzip.compress(b" " * (17 << 20), 9, mtime=0))
case("bounded-state_kind_bound", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT,
     ["state_17MiB.json.gz", "larger than the input limit of 16777216"], file=rel, also=[])
rel = write("bounded/model_65MiB.json.gz", _gzip.compress(b" " * (65 << 20), 9, mtime=0))
case("bounded-model_kind_bound", "model", ["convert", "{file}", "--out", "{scratch}/o.json"],
     ["model_65MiB.json.gz", "larger than the input limit of 67108864"], file=rel, also=[])
case("bounded-limit_not_a_number", "options", ["convert", "{support}/robot.json", "--out", "{scratch}/o.json"],
     ["RBDREF_MAX_INPUT_BYTES"], also=[], env={"RBDREF_MAX_INPUT_BYTES": "lots"})
rel = write("bounded/robot.json.gz", _gzip.compress(dumps(ROBOT).encode(), 9, mtime=0))
case("accepted-gzip_model_json", "model", ["eval", "{file}", "--state", "{support}/state.json"] + EVAL_OUT, None, file=rel, exit=0,
     outputs=["out.json"], note="a gzip-compressed model used to be refused by every command, though every JSON document is read through gzip")

# The memory guard: a model refused before anything is allocated (a 10^4-body chain used to pass
# 4 GB in 3 s and be killed), with the estimate, the limit and what to do.
case("memory-over_max_memory", "model", ["eval", "{support}/robot.json", "--state", "{support}/state.json", "--max-memory", "1M"] + EVAL_OUT,
     ["robot.json", "needs about", "more than the memory limit of", "--max-memory 1M", "--precision double"], also=[])
case("memory-env_limit_fixture", "model", ["fixture", "{support}/robot.json", "--samples", "2", "--out", "{scratch}/f.json"],
     ["robot.json", "RBDREF_MAX_MEMORY=2M", "samples at once"], also=[], env={"RBDREF_MAX_MEMORY": "2M"})
case("memory-max_memory_malformed", "options", ["eval", "{support}/robot.json", "--state", "{support}/state.json", "--max-memory", "8X"] + EVAL_OUT,
     ["--max-memory", "'8X'"], also=[])
case("memory-audit_model", "options", ["audit", "--model", "{support}/robot.json", "--max-memory", "1M", "--out", "{scratch}/audit-out"],
     ["robot.json", "needs about"], also=[])

# NUL and characters XML does not allow: an error naming the field or line, not a shorter value.
t = sub(URDF, '<mass value="0.8"/>', '<mass value="0.8&#0;junk"/>')
urdf_case("char_ref_nul", t, ["line %d" % line_of(t, "&#0;"), "&#0;", "character reference"], note="used to be read as mass 0.8")
t = sub(URDF, '<link name="upper">', '<link name="up&#x1;per">')
urdf_case("char_ref_control", t, ["line %d" % line_of(t, "&#x1;"), "&#x1;"])
t = sub(URDF, '<link name="hand"/>', '<link name="hand"/>\n  <!-- \0 -->')
urdf_case("raw_nul", t, ["line %d" % line_of(t, "\0"), "NUL byte"])
urdf_case("second_root", URDF + '<robot name="again"/>\n', ["line %d" % (URDF.count("\n") + 1), "expected one root element", "<robot>"],
          note="the second root used to be ignored")
model_case("nul_in_name", robot(lambda d: d["bodies"][1].update(name="upper\u0000junk")), ["bodies[1].name", "U+0000"])
state_case("nul_in_key", json.dumps({"q": {"base_free": [1, 0, 0, 0, 0, 0, 0.5], "shoulder\u0000": 0.3, "elbow": -0.7}}) + "\n",
           ["q.shoulder\\u0000", "U+0000"])
manifest_case("nul_in_file", man(lambda d: d["models"][0].update(file="pendulum.urdf\u0000junk")), ["models[0].file", "U+0000"],
              note="used to load pendulum.urdf")
engine_case("nul_in_engine", eo(lambda d: d.update(engine="mujoco\u0000")), ["engine", "U+0000"])
loops_case("nul_in_name", loop(lambda d: d.update(name="clo\u0000sure")), ["[0].name", "U+0000"])

# Fields the readers used to take on trust.
fixture_case("generator_samples_word", fx(lambda d: d["generator"].update(samples="abc")), ["generator.samples", "expected the number of samples"])
fixture_case("generator_samples_negative", fx(lambda d: d["generator"].update(samples=-1)), ["generator.samples", "-1"])
fixture_case("generator_samples_fraction", fx(lambda d: d["generator"].update(samples=1.5)), ["generator.samples", "1.5"])
fixture_case("generator_samples_beyond_32_bits", fx(lambda d: d["generator"].update(samples=4294967297)), ["generator.samples", "4294967297"])
fixture_case("generator_samples_disagree", fx(lambda d: d["generator"].update(samples=len(d["samples"]) + 1)),
             ["generator.samples", "expected the number of samples in the file, %d" % len(GOOD_FX["samples"])])
fixture_case("sample_kind_unknown", fx(lambda d: d["samples"][0].update(kind="lucky")), ["samples[0].kind", "\"lucky\""])
fixture_case("qdd_beside_not_positive_definite", fx(lambda d: d["samples"][0].update(positive_definite=False)),
             ["samples[0].outputs.qdd", "positive_definite: false"])

GOOD_AUDIT = {"format": "rbdref.audit", "version": 1, "passed": True,
              "runs": [{"engine": "mujoco", "model": "m", "status": "passed", "report_index": 0}],
              "models": [{"name": "m", "samples": [{"id": "s000", "kind": "home", "kappa": 12.5}, {"id": "s001", "kind": "near_singular", "kappa": "inf"}]}],
              "reports": [{"engine": {"name": "mujoco"}, "model": {"name": "m"}, "quantities": [], "samples": []}]}


def audit_json_case(id, doc, message):
    rel = case_file("audit_json", id, doc)
    case("audit_json-" + id, "audit", ["html", "{file}", "--out", "{scratch}/r.html"], [base(rel)] + message, file=rel, also=[])


def aud(edit):
    return edited(GOOD_AUDIT, edit)


audit_json_case("version_0", aud(lambda d: d.update(version=0)), ["version", "expected 1, got 0"])
audit_json_case("version_99", aud(lambda d: d.update(version=99)), ["version", "got 99"])
audit_json_case("version_missing", aud(lambda d: d.pop("version")), ["version", "missing field"])
audit_json_case("models_missing", aud(lambda d: d.pop("models")), ["models", "expected an array"])
audit_json_case("kappa_word", aud(lambda d: d["models"][0]["samples"][0].update(kappa="abc")), ["models[0].samples[0].kappa", "\"abc\""])
audit_json_case("kappa_null", aud(lambda d: d["models"][0]["samples"][0].update(kappa=None)), ["models[0].samples[0].kappa", "null"])
audit_json_case("report_index_negative", aud(lambda d: d["runs"][0].update(report_index=-1)), ["runs[0].report_index", "-1"])
audit_json_case("report_index_word", aud(lambda d: d["runs"][0].update(report_index="abc")), ["runs[0].report_index", "\"abc\""])
audit_json_case("report_index_2_64", aud(lambda d: d["runs"][0].update(report_index=18446744073709551616)), ["runs[0].report_index"])
audit_json_case("report_index_past_the_end", aud(lambda d: d["runs"][0].update(report_index=1)), ["runs[0].report_index", "got 1"])
audit_json_case("status_unknown", aud(lambda d: d["runs"][0].update(status="great")), ["runs[0].status", "\"great\""])
rel = case_file("audit_json", "accepted_minimal", GOOD_AUDIT)
case("accepted-audit_json_minimal", "audit", ["html", "{file}", "--out", "{scratch}/r.html"], None, file=rel, exit=0, outputs=["r.html"])

# Standard output that fails (a full disk, a closed descriptor) is exit 2 with the output named.
for cmd, args in [("eval", ["eval", "{support}/robot.json", "--state", "{support}/state.json", "--out", "-"]),
                  ("convert", ["convert", "{support}/robot.urdf", "--out", "-"]),
                  ("fixture", ["fixture", "{support}/pendulum.urdf", "--samples", "1", "--out", "-"]),
                  ("check", ["check", "{support}/good.engine.json", "--report", "-"]),
                  ("compare", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "-"]),
                  ("upgrade", ["upgrade", "{support}/good.fixture.json", "--out", "-"])]:
    for to in ("full", "closed"):
        case("stdout-%s_%s" % (to, cmd), "options", args, ["standard output", "the output is lost"], also=[], stdout=to,
             note="used to exit 0 with the output lost" if cmd in ("eval", "convert") else None)
# '-' is standard output for every output (a file named '-' used to be made).
opt_case_ok0 = lambda id, args: case("accepted-" + id, "options", args, None, exit=0, outputs=[])
opt_case_ok0("fixture_out_dash", ["fixture", "{support}/pendulum.urdf", "--samples", "1", "--out", "-"])
opt_case_ok0("upgrade_out_dash", ["upgrade", "{support}/good.fixture.json", "--out", "-"])
opt_case_ok0("compare_report_dash", ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "-"])
opt_case_ok0("check_report_dash", ["check", "{support}/good.engine.json", "--report", "-"])

# Outputs left behind on exit 2: every output path checked before anything is written, and a
# multi-file result staged and moved into place whole (io/staging.hpp).
# MuJoCo: the engine every build has (the sanitized one has no KDL or DART).
AUD = ["audit", "--models", "double_pendulum", "--engines", "mujoco", "--out", "{scratch}/audit-out"]
opt_case("audit_write_baseline_missing_folder", AUD + ["--write-baseline", "{scratch}/nodir/b.json"], ["nodir/b.json", "does not exist"],
         note="audit.json, junit.xml and report.html used to be written before the exit 2")
opt_case("audit_write_baseline_trailing_slash", AUD + ["--write-baseline", "{scratch}/b/"], ["b/", "ends in '/'"])
opt_case("audit_write_baseline_long_name", AUD + ["--write-baseline", "{scratch}/" + "b" * 300 + ".json"], ["the file name has 305 bytes"])
opt_case("audit_out_dash", ["audit", "--models", "double_pendulum", "--out", "-"], ["--out", "expected a folder", "'-'"],
         note="used to write a folder named '-'")
opt_case("hunt_out_dash", ["hunt", "--engine", "mujoco", "--budget", "1", "--out", "-"], ["--out", "expected a folder"])
opt_case("hunt_out_a_file", ["hunt", "--engine", "mujoco", "--budget", "1", "--out", "{support}/robot.json"], ["robot.json", "is not a folder"])
opt_case("convert_out_long_name", ["convert", "{support}/robot.urdf", "--out", "{scratch}/" + "m" * 250 + ".json"], ["the file name has 255 bytes"])
opt_case("audit_model_that_cannot_be_sampled", ["audit", "--model", "{scratch}/loop.json", "--engines", "mujoco", "--no-cache", "--out",
                                                "{scratch}/out/audit"],
         ["loop.json", "no sample start among 50 closed every loop"], setup=[{"path": "loop.json", "from": "accepted/loop_model_v2.json"}],
         note="the output folders used to be left behind, empty")
opt_case("convert_loops_and_contacts", ["convert", "{support}/robot.urdf", "--loops", "{scratch}/l.json", "--contacts", "{scratch}/c.json",
                                        "--out", "{scratch}/o.json"],
         ["c.json", "contacts on a model with loop joints are not supported"],
         setup=[{"path": "l.json", "content": loop(lambda d: None)},
                {"path": "c.json", "content": json.dumps([GOOD_CONTACT]) + "\n"}],
         note="used to write a version-2 model that eval then refused")

# Names that are markup, shell or neither in every format rbdref writes them into: MJCF for MuJoCo,
# JUnit, HTML, file names. The audit runs MuJoCo on them and must pass (MuJoCo's echo matches);
# MuJoCo-js, built where Node.js is, in tests/outputs_test.cpp.
HOSTILE = {"base": "b\"a'se", "upper": "up<per>& ; $(touch pwned)", "forearm": "fore\u00e4rm \u95a2\u7bc0\ntwo lines",
           "hand": "hand`x`", "shoulder": "sh\"oulder;\nrm", "elbow": "el'bow </failure>"}


def attr(name):  # as a URDF attribute value writes it
    return name.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "&#10;")


t = URDF.replace('<robot name="malformed_corpus_arm">', '<robot name="%s">' % attr('arm "q" <b> & $(id)'))
for old, new in HOSTILE.items():
    for pattern in ('link="%s"', '<link name="%s"', 'joint name="%s"'):
        t = t.replace(pattern % old, pattern % attr(new))
rel = write("accepted/markup_names.urdf", t)
case("accepted-markup_names_convert", "urdf", ["convert", "{file}", "--out", "{scratch}/model.json"], None, file=rel, exit=0, outputs=["model.json"])
case("accepted-markup_names_audit", "urdf", ["audit", "--model", "{file}", "--engines", "mujoco", "--samples", "2", "--no-cache",
                                              "--out", "{scratch}/audit-out"], None, file=rel, exit=0, outputs=["audit-out"],
     note="a double quote in a name used to break the MJCF written for MuJoCo")

# ---- round three: merge and proofs ----------------------------------------------------------------

# Hunt summaries (hunt --shard K/N) whose counts sum past 2^64 - 1: refused naming the file that
# tips the sum over and the field, never wrapped around (two summaries of 2^64 - 1 trials used to
# merge to 2^64 - 2). The first shard is made by setup, the second is the case's file.
U64_MAX = 2 ** 64 - 1


def hunt_summary(index, trials, skipped=0):
    return json.dumps({"format": "rbdref.hunt", "version": 1, "engine": "mujoco", "engine_version": "2.2.2", "seed": 1, "budget_s": 60,
                       "trials": trials, "skipped": skipped, "findings": [], "shard": {"index": index, "count": 2}}, indent=1) + "\n"


def merge_case(id, first, second, message, exit=2, note=None):
    rel = case_file("merge", id, second)
    case(("accepted-" if exit == 0 else "merge-") + id, "options", ["merge", "{scratch}/hunt1.json", "{file}", "--out", "{scratch}/hunt.json"],
         message, file=rel, exit=exit, also=[], setup=[{"path": "hunt1.json", "content": first}], note=note,
         outputs=["hunt.json"] if exit == 0 else None)


merge_case("hunt_trials_sum_overflows", hunt_summary(1, U64_MAX), hunt_summary(2, U64_MAX),
           ["hunt_trials_sum_overflows.json", "trials", "the sum over the shards exceeds 2^64 - 1"],
           note="two summaries of 2^64 - 1 trials used to merge to 2^64 - 2 (wrapped around)")
merge_case("hunt_skipped_sum_overflows", hunt_summary(1, 5, 2 ** 63), hunt_summary(2, 5, 2 ** 63),
           ["hunt_skipped_sum_overflows.json", "skipped", "the sum over the shards exceeds 2^64 - 1"])
merge_case("hunt_trials_sum_is_2_64_minus_1", hunt_summary(1, U64_MAX - 1), hunt_summary(2, 1), None, exit=0,
           note="the largest sum the count holds")

# The memory guard with --prove: the estimate includes the proof (its interval matrices), and the
# message says so and what the run needs without it.
case("memory-prove_eval", "model", ["eval", "{support}/robot.json", "--state", "{support}/state.json", "--prove", "--max-memory", "1M"] + EVAL_OUT,
     ["robot.json", "needs about", "proven on intervals at", "(--prove)", "Without --prove it needs about", "--max-memory 1M"], also=[],
     note="the estimate used to ignore --prove: a 1000-body chain admitted at 520 MiB peaked at 690 MB")
case("memory-prove_fixture", "model", ["fixture", "{support}/robot.json", "--samples", "1", "--prove", "--out", "{scratch}/f.json"],
     ["robot.json", "proven on intervals at", "RBDREF_MAX_MEMORY=2M", "Without --prove it needs about"], also=[],
     env={"RBDREF_MAX_MEMORY": "2M"})

# ---- round three: MJCF includes and names, refusals that name their file, outputs on failure --------

MJCF = ('<mujoco model="arm">\n  <worldbody>\n    <body name="upper" pos="0 0 1">\n      <joint name="shoulder" axis="0 1 0"/>\n'
        '      <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.04"/>\n      <body name="lower" pos="0 0 -0.3">\n'
        '        <joint name="elbow" axis="0 1 0"/>\n        <geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.03"/>\n'
        '      </body>\n    </body>\n  </worldbody>\n</mujoco>\n')


def mjcf_case(id, text, message, setup=None, note=None, also=None, names_file=True):
    rel = write("mjcf/" + id + ".xml", text)
    case("mjcf-" + id, "mjcf", ["convert", "{file}", "--out", "{scratch}/o.json"], ([base(rel)] if names_file else []) + message, file=rel,
         setup=setup, note=note, also=also)


# MuJoCo includes a file at most once: a cycle through a body or a frame (the include depth used to
# restart inside each, and the reader to recurse until SIGSEGV), a file included twice, and a
# fan-out of files each including the next twice (2^18 inclusions used to pass 2 GB) are refused at
# the second inclusion (the fan-out's first file included twice is the deepest's, f18, as the
# includes are expanded depth first).
MAIN_INC = '<mujoco>\n  <worldbody>\n    <include file="b.xml"/>\n  </worldbody>\n</mujoco>\n'
B_BODY = ('<mujoco>\n  <body name="b">\n    <joint axis="0 1 0"/>\n    <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>\n'
          '    <include file="b.xml"/>\n  </body>\n</mujoco>\n')
mjcf_case("include_cycle_body", MAIN_INC, ["b.xml", "<include file=\"b.xml\"> (line 5)", "already part of the model",
                                           "include_cycle_body.xml line 3", "at most once"],
          setup=[{"path": "b.xml", "content": B_BODY}], note="used to crash (SIGSEGV) in 0.3 s")
mjcf_case("include_cycle_frame", MAIN_INC, ["b.xml", "(line 6)", "already part of the model"],
          setup=[{"path": "b.xml", "content": B_BODY.replace('    <include file="b.xml"/>\n', '    <frame pos="0 0 1">\n      <include file="b.xml"/>\n    </frame>\n')}],
          note="used to crash (SIGSEGV)")
mjcf_case("include_self", MJCF.replace("<worldbody>", '<include file="include_self.xml"/>\n  <worldbody>'),
          ["<include file=\"include_self.xml\"> (line 2)", "it is the main file"])
mjcf_case("include_twice", MJCF.replace("</worldbody>", '</worldbody>\n  <include file="part.xml"/>\n  <include file="part.xml"/>'),
          ["<include file=\"part.xml\"> (line 13)", "included by", "line 12"],
          setup=[{"path": "part.xml", "content": "<mujoco>\n  <option gravity=\"0 0 -9.81\"/>\n</mujoco>\n"}])
FAN = [{"path": "f%d.xml" % k, "content": '<mujoco>\n  <include file="f%d.xml"/>\n  <include file="f%d.xml"/>\n</mujoco>\n' % (k + 1, k + 1)}
       for k in range(1, 18)] + [{"path": "f18.xml", "content": "<mujoco>\n  <option/>\n</mujoco>\n"}]
mjcf_case("include_fan_out", MJCF.replace("</worldbody>", '</worldbody>\n  <include file="f1.xml"/>'),
          ["f17.xml: <include file=\"f18.xml\"> (line 3)", "already part of the model", "included by", "f17.xml line 2"], setup=FAN,
          names_file=False,
          note="18 files each including the next twice used to pass 2 GB in 11 s")
# The model's files together are bounded like one model file.
mjcf_case("include_total_bound", MJCF.replace("</worldbody>", '</worldbody>\n  <include file="p1.xml"/>\n  <include file="p2.xml"/>'),
          ["<include file=\"p2.xml\">", "the model's files together pass the input limit of 1500"],
          setup=[{"path": "p%d.xml" % k, "content": "<mujoco>\n" + "  <!--" + "x" * 600 + "-->\n</mujoco>\n"} for k in (1, 2)])
cases[-1]["env"] = {"RBDREF_MAX_INPUT_BYTES": "1500"}

# The expressions a body's geoms derive are bounded by the memory limit: 4000 geoms (~24 expression
# nodes each, counted at 256 bytes) under a limit of 16 MiB (65,536 nodes) are refused naming the
# body, as a 64 MiB file of geoms would be before taking ~20 GB.
mjcf_case("geoms_past_the_memory_limit", MJCF.replace('<geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.03"/>',
                                                      "\n".join('<geom size="0.01" pos="0 0 %d"/>' % k for k in range(4000))),
          ["body 'lower' (line 6)", "the numbers derived from the model's elements so far", "RBDREF_MAX_MEMORY=16M"],
          note="a body of 10^5 geoms used to take 614 MB and crash; a 64 MiB file of geoms would take ~20 GB")
cases[-1]["env"] = {"RBDREF_MAX_MEMORY": "16M"}

# Every name (and any other markup) must be UTF-8, as it reaches the JSON outputs: a body or joint
# name with a Latin-1 byte used to be an internal error (exit 3) once written.
rel = write("mjcf/body_name_latin1.xml", MJCF.encode().replace(b'name="lower"', b'name="l\xe9g"'))
case("mjcf-body_name_latin1", "mjcf", ["convert", "{file}", "--out", "{scratch}/o.json"],
     ["body_name_latin1.xml", "line 6, <body> name", "expected UTF-8", "0xE9"], file=rel, note="used to be exit 3 (internal error)")
rel = write("mjcf/joint_name_latin1.xml", MJCF.encode().replace(b'name="elbow"', b'name="coud\xe9"'))
case("mjcf-joint_name_latin1", "mjcf", ["convert", "{file}", "--out", "{scratch}/o.json"],
     ["joint_name_latin1.xml", "line 7, <joint> name", "expected UTF-8"], file=rel, note="used to be exit 3 (internal error)")
rel = write("mjcf/class_latin1.xml", MJCF.encode().replace(b"<worldbody>", b'<default>\n    <default class="b\xe4se"/>\n  </default>\n  <worldbody>'))
case("mjcf-class_latin1", "mjcf", ["convert", "{file}", "--out", "{scratch}/o.json"],
     ["class_latin1.xml", "line 3, <default> class", "expected UTF-8"], file=rel)
# Comments are not read: a Latin-1 comment is accepted.
rel = write("accepted/mjcf_latin1_comment.xml", MJCF.encode().replace(b"<worldbody>", b"<!-- caf\xe9 -->\n  <worldbody>"))
case("accepted-mjcf_latin1_comment", "mjcf", ["convert", "{file}", "--out", "{scratch}/o.json"], None, file=rel, exit=0, outputs=["o.json"])

# A character reference XML does not allow names its element and attribute, not only its line.
t = sub(URDF, '<mass value="1.2"/>', '<mass value="5&#0;junk"/>')
urdf_case("char_ref_nul_names_element", t, ["line %d, <mass> value" % line_of(t, "&#0;"), "character reference"])

# A model whose numbers overflow a double past the loader (a density of 1e308: finite in the
# loader's long double) is refused naming its file, as every other refusal.
mjcf_case("density_1e308_fixture", MJCF.replace('size="0.03"/>', 'size="0.03" density="1e308"/>'),
          ["body 'lower' (line 6)", "not finite"], also=[])
cases[-1]["args"] = ["fixture", "{file}", "--samples", "1", "--out", "{scratch}/f.json"]

# Standard output that fails leaves no file output either: every file waits for the end of the
# command (io/files.hpp, OutputCommit).
case("stdout-full_compare_junit_leaves_no_report", "options",
     ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "{scratch}/r.json", "--junit", "-"],
     ["standard output", "the output is lost"], also=[], stdout="full", note="r.json used to be left behind")
case("stdout-full_compare_summary_leaves_no_outputs", "options",
     ["compare", "{support}/good.fixture.json", "{support}/good.engine.json", "--report", "{scratch}/r.json", "--junit", "{scratch}/r.xml"],
     ["standard output", "the output is lost"], also=[], stdout="full")
case("stdout-closed_audit_baseline_leaves_no_folder", "options", AUD + ["--write-baseline", "-"],
     ["standard output", "the output is lost"], also=[], stdout="closed",
     note="audit.json, junit.xml and report.html used to be left behind")
case("stdout-full_check_summary_leaves_no_report", "options", ["check", "{support}/good.engine.json", "--report", "{scratch}/r.json"],
     ["standard output", "the output is lost"], also=[], stdout="full", note="r.json used to be left behind")
# A previous audit's document as --baseline: its fields checked as html checks them (a check's
# `passed` as a string used to be an internal error, exit 3).
PREV = {"format": "rbdref.audit", "version": 1, "passed": True,
        "runs": [{"engine": "mujoco", "model": "double_pendulum", "status": "passed", "report_index": 0}],
        "models": [{"name": "double_pendulum"}],
        "reports": [{"engine": {"name": "mujoco"}, "model": {"name": "double_pendulum"}, "quantities": [],
                     "checks": [{"name": "H.symmetric_raw", "passed": True}]}]}
for id, edit, message in [
        ("check_passed_string", lambda d: d["reports"][0]["checks"][0].update(passed="yes"),
         ["reports[0].checks[0].passed", "expected true or false", "\"yes\""]),
        ("engine_name_number", lambda d: d["reports"][0]["engine"].update(name=5), ["reports[0].engine.name", "expected a string"]),
        ("echo_status_number", lambda d: d["reports"][0].update(model_echo={"status": 1}),
         ["reports[0].model_echo.status", "expected a string"])]:
    rel = case_file("audit_json", "as_baseline_" + id, edited(PREV, edit))
    case("baseline-audit_" + id, "options", AUD + ["--baseline", "{file}"], [base(rel)] + message, file=rel, also=[],
         note="used to be an internal error (exit 3)" if id == "check_passed_string" else None)

# The audit's --out folder is replaced as a whole: a folder holding files rbdref did not write is
# refused before any work, and so is the current folder.
opt_case("audit_out_foreign_folder", AUD[:-1] + ["{scratch}/mine"], ["mine", "not replaced", "notes.txt", "new or empty folder"],
         setup=[{"path": "mine/notes.txt", "content": "keep me\n"}])
opt_case("audit_out_current_folder", AUD[:-1] + ["."], ["not the current folder"])

# ---- round three: fields ---------------------------------------------------------------------------

# Every field a reader takes is checked for type and range where it is read, and the error names the
# file, the field and what was expected. audit.json for `html` (reports/html_report.cpp): the runs'
# names (a model the document's own models list does not have, or none, used to be drawn as a row of
# nothing), the verdict, the baseline, the models' samples (κ₂(H) is a number ≥ 1, or "inf", as
# audit/run.cpp writes a singular H's: JSON has no infinity), and every report's field the page shows.
def fields_audit_case(id, edit, message, note=None, doc=None):
    audit_json_case(id, edited(doc or GOOD_AUDIT, edit), message)
    if note:
        cases[-1]["note"] = note


QSCORE = {"quantity": "H", "samples": 2, "missing": 0, "min_digits": 15.4, "cap": 50, "max_abs_err": 1.1e-16, "max_rel_err": 4.4e-16,
          "worst": {"sample": "s001", "entry": [0, 1]}, "tolerance": 2.2e-13, "rule": "1e3 ε", "passed": True, "cap_kind": "estimated"}
QNONE = {"quantity": "lambda", "samples": 0, "missing": 2, "min_digits": None, "cap": None, "max_abs_err": None, "max_rel_err": None,
         "worst": None, "tolerance": None, "rule": "1e4 ε κ(H)", "passed": True}
SSCORE = {"sample": "s001", "quantity": "H", "abs_err": 1.1e-16, "rel_err": 4.4e-16, "scale": 1.6, "digits": 15.4, "cap": 50,
          "tolerance": 2.2e-13, "worst_entry": [0, 1], "reference": "3.0660151063837426e-01", "engine": "3.0660151063837431e-01",
          "passed": True, "cap_kind": "estimated"}
CHECK = {"sample": "s001", "name": "H.symmetric_raw", "passed": True, "residual": 0, "tolerance": 2.2e-15, "digits": 16, "detail": "max|H - Hᵀ|"}
FULL_AUDIT = edited(GOOD_AUDIT, lambda d: (
    d.update(baseline={"file": "baseline.json", "margin_digits": 0.5, "regressed": False}),
    d["runs"][0].update(diagnosis="none", baseline={"status": "matches", "regressions": [], "known": [], "improvements": [], "findings": []}),
    d["runs"].append({"engine": "dart", "model": "m", "status": "unsupported", "reason": "a helical joint"}),
    d["reports"][0].update(engine={"name": "mujoco", "version": "2.2.2", "scalar": "double", "epsilon": 2.2e-16, "import_path": "MJCF"},
                           model={"name": "m", "sha256": "b6ef2b22795673888c85b156dd5835b68e97f0dbe6c2cab93ed3c5dab35b5510"},
                           model_echo={"max": {"mass_rel_err": 0.0, "com_abs_err_m": 1e-17}, "tolerance": {"relative": 1.4e-14, "rule": "64 ε"},
                                       "status": "match"},
                           quantities=[QSCORE, QNONE], samples=[SSCORE], checks=[CHECK], notes=["a note"], passed=True)))
rel = case_file("audit_json", "accepted_full", FULL_AUDIT)
case("accepted-audit_json_full", "audit", ["html", "{file}", "--out", "{scratch}/r.html"], None, file=rel, exit=0, outputs=["r.html"],
     note="every field the page reads, as the audit writes it: the field cases below edit this one")


fields_audit_case("run_model_empty", lambda d: d["runs"][0].update(model=""), ["runs[0].model", "a non-empty string", 'got ""'],
                  note="used to be accepted: a heatmap row of no model")
fields_audit_case("run_model_unknown", lambda d: d["runs"][0].update(model="n"),
                  ["runs[0].model", "expected one of the models listed in models (m)", 'got "n"'],
                  note="used to be accepted: a run of a model the document does not have")
fields_audit_case("run_model_number", lambda d: d["runs"][0].update(model=5), ["runs[0].model", "expected a string"])
fields_audit_case("run_engine_empty", lambda d: d["runs"][0].update(engine=""), ["runs[0].engine", "a non-empty string"])
fields_audit_case("run_twice", lambda d: d["runs"].append(dict(d["runs"][0])), ["runs[1]", "a second run of mujoco × m"])
fields_audit_case("run_reason_number", lambda d: d["runs"][0].update(reason=5), ["runs[0].reason", "expected a string", "got 5"])
fields_audit_case("run_diagnosis_object", lambda d: d["runs"][0].update(diagnosis={}), ["runs[0].diagnosis", "expected a string"])
fields_audit_case("run_report_of_another_engine",
                  lambda d: (d["reports"].append(edited(d["reports"][0], lambda r: r["engine"].update(name="dart"))),
                             d["runs"][0].update(report_index=1)),
                  ["runs[0].report_index", "a report of mujoco", "(a report of dart)"])
fields_audit_case("run_baseline_status_unknown", lambda d: d["runs"][0].update(baseline={"status": "great"}),
                  ["runs[0].baseline.status", "\"matches\", \"known\", \"regressed\" or \"not in baseline\"", '"great"'])
fields_audit_case("run_baseline_known_number", lambda d: d["runs"][0].update(baseline={"status": "known", "known": [5]}),
                  ["runs[0].baseline.known[0]", "expected a string"])
fields_audit_case("run_baseline_reason_number", lambda d: d["runs"][0].update(baseline={"status": "known", "reason": 5}),
                  ["runs[0].baseline.reason", "expected a string"])
fields_audit_case("passed_missing", lambda d: d.pop("passed"), ["passed", "expected true or false (missing field)"],
                  note="used to read as failed")
fields_audit_case("passed_string", lambda d: d.update(passed="yes"), ["passed", "expected true or false", '"yes"'])
fields_audit_case("baseline_margin_word", lambda d: d.update(baseline={"file": "b.json", "margin_digits": "half", "regressed": False}),
                  ["baseline.margin_digits", "from 0 to 100", '"half"'])
fields_audit_case("baseline_file_number", lambda d: d.update(baseline={"file": 5, "margin_digits": 0.5, "regressed": False}),
                  ["baseline.file", "expected the baseline's file, a string"])
fields_audit_case("model_name_empty", lambda d: d["models"][0].update(name=""), ["models[0].name", "a non-empty string"])
fields_audit_case("model_twice", lambda d: d["models"].append(dict(d["models"][0])), ["models[1].name", "one entry per model", '"m"'])
fields_audit_case("sample_id_empty", lambda d: d["models"][0]["samples"][0].update(id=""), ["models[0].samples[0].id", "a non-empty string"])
fields_audit_case("sample_id_twice", lambda d: d["models"][0]["samples"][1].update(id="s000"),
                  ["models[0].samples[1].id", "each sample once", '"s000"'])
fields_audit_case("sample_kind_unknown", lambda d: d["models"][0]["samples"][0].update(kind="lucky"),
                  ["models[0].samples[0].kind", "\"home\", \"near_singular\"", '"lucky"'])
fields_audit_case("sample_kind_missing", lambda d: d["models"][0]["samples"][0].pop("kind"), ["models[0].samples[0].kind", "missing field"])
fields_audit_case("kappa_infinity_word", lambda d: d["models"][0]["samples"][1].update(kappa="Infinity"),
                  ["models[0].samples[1].kappa", "a number ≥ 1, or \"inf\"", '"Infinity"'])
fields_audit_case("kappa_number_as_string", lambda d: d["models"][0]["samples"][0].update(kappa="12.5"),
                  ["models[0].samples[0].kappa", '"12.5"'])
fields_audit_case("kappa_below_1", lambda d: d["models"][0]["samples"][0].update(kappa=0.5), ["models[0].samples[0].kappa", "0.5"])
fields_audit_case("kappa_missing", lambda d: d["models"][0]["samples"][0].pop("kappa"), ["models[0].samples[0].kappa", "got null"])
fields_audit_case("report_engine_missing", lambda d: d["reports"][0].pop("engine"), ["reports[0].engine", "missing field"])
fields_audit_case("report_engine_name_number", lambda d: d["reports"][0].update(engine={"name": 5}), ["reports[0].engine.name", "got 5"])
fields_audit_case("report_engine_version_number", lambda d: d["reports"][0]["engine"].update(version=2.2),
                  ["reports[0].engine.version", "expected a string"], doc=FULL_AUDIT)
fields_audit_case("report_model_sha256_short", lambda d: d["reports"][0]["model"].update(sha256="b6ef"),
                  ["reports[0].model.sha256", "64 lowercase hexadecimal digits", '"b6ef"'], doc=FULL_AUDIT)
fields_audit_case("report_echo_string", lambda d: d["reports"][0].update(model_echo="match"),
                  ["reports[0].model_echo", "an object", '"match"'])
fields_audit_case("report_echo_status_unknown", lambda d: d["reports"][0]["model_echo"].update(status="close"),
                  ["reports[0].model_echo.status", "\"match\" or \"differs\"", '"close"'], doc=FULL_AUDIT)
fields_audit_case("report_echo_max_word", lambda d: d["reports"][0]["model_echo"]["max"].update(mass_rel_err="tiny"),
                  ["reports[0].model_echo.max.mass_rel_err", "an error ≥ 0 or null", '"tiny"'], doc=FULL_AUDIT)
Q0, S0, C0 = "reports[0].quantities[0]", "reports[0].samples[0]", "reports[0].checks[0]"
for id, edit, message in [
        ("quantity_name_number", lambda q: q.update(quantity=5), [Q0 + ".quantity", "got 5"]),
        ("quantity_samples_negative", lambda q: q.update(samples=-2), [Q0 + ".samples", "an integer ≥ 0", "got -2"]),
        ("quantity_samples_fraction", lambda q: q.update(samples=1.5), [Q0 + ".samples", "got 1.5"]),
        ("quantity_min_digits_word", lambda q: q.update(min_digits="many"), [Q0 + ".min_digits", "digits ≥ 0, or null", '"many"']),
        ("quantity_min_digits_negative", lambda q: q.update(min_digits=-3), [Q0 + ".min_digits", "got -3"]),
        ("quantity_max_rel_err_negative", lambda q: q.update(max_rel_err=-1e-16), [Q0 + ".max_rel_err", "≥ 0"]),
        ("quantity_tolerance_word", lambda q: q.update(tolerance="tight"), [Q0 + ".tolerance", '"tight"']),
        ("quantity_rule_missing", lambda q: q.pop("rule"), [Q0 + ".rule", "missing field"]),
        ("quantity_passed_string", lambda q: q.update(passed="yes"), [Q0 + ".passed", "expected true or false"]),
        ("quantity_cap_kind_unknown", lambda q: q.update(cap_kind="guessed"), [Q0 + ".cap_kind", '"guessed"']),
        ("quantity_worst_sample_number", lambda q: q.update(worst={"sample": 1}), [Q0 + ".worst.sample", "got 1"]),
        ("quantity_convention_number", lambda q: q.update(convention=1), [Q0 + ".convention", "expected a string"])]:
    fields_audit_case(id, lambda d, edit=edit: edit(d["reports"][0]["quantities"][0]), message, doc=FULL_AUDIT)
for id, edit, message in [
        ("sample_score_digits_word", lambda s: s.update(digits="15"), [S0 + ".digits", '"15"']),
        ("sample_score_rel_err_negative", lambda s: s.update(rel_err=-1), [S0 + ".rel_err", "≥ 0"]),
        ("sample_score_worst_entry_three", lambda s: s.update(worst_entry=[0, 1, 2]), [S0 + ".worst_entry", "two integers ≥ 0"]),
        ("sample_score_reference_number", lambda s: s.update(reference=0.3), [S0 + ".reference", "a decimal string"]),
        ("sample_score_passed_missing", lambda s: s.pop("passed"), [S0 + ".passed", "missing field"]),
        ("sample_score_sample_empty", lambda s: s.update(sample=""), [S0 + ".sample", "a non-empty string"])]:
    fields_audit_case(id, lambda d, edit=edit: edit(d["reports"][0]["samples"][0]), message, doc=FULL_AUDIT)
fields_audit_case("checks_object", lambda d: d["reports"][0].update(checks={"H": 1}), ["reports[0].checks", "an array of checks"],
                  note="an object used to be iterated as if it were the array", doc=FULL_AUDIT)
fields_audit_case("check_passed_string", lambda d: d["reports"][0]["checks"][0].update(passed="no"), [C0 + ".passed", '"no"'], doc=FULL_AUDIT)
fields_audit_case("check_residual_word", lambda d: d["reports"][0]["checks"][0].update(residual="small"), [C0 + ".residual", '"small"'],
                  doc=FULL_AUDIT)
fields_audit_case("check_name_empty", lambda d: d["reports"][0]["checks"][0].update(name=""), [C0 + ".name", "a non-empty string"],
                  doc=FULL_AUDIT)
fields_audit_case("notes_number", lambda d: d["reports"][0].update(notes=["a", 5]), ["reports[0].notes[1]", "expected a string"], doc=FULL_AUDIT)

# Fixtures (compare, and check --fixture): the model's name (written, never read: a number passed),
# its source, the sample ids, κ₂(H) beside a singular H, and the inputs' quaternions.
fixture_case("model_name_number", fx(lambda d: d["model"].update(name=5)), ["model.name", "expected a string"],
             note="used to be accepted by compare and check (model.name was not read)")
rel = cases[-1]["file"]
case("fixture-model_name_number_check", "fixture", ["check", "{support}/good.engine.json", "--fixture", "{file}", "--report",
                                                     "{scratch}/r.json"], [base(rel), "model.name", "expected a string"], file=rel, also=[],
     note="used to be accepted")
fixture_case("model_name_not_the_models", fx(lambda d: d["model"].update(name="arm")),
             ["model.name", "expected the embedded model's name \"double_pendulum\" (model.canonical.name)", '"arm"'])
fixture_case("source_kind_unknown", fx(lambda d: d["model"]["source"].update(kind="xacro")),
             ["model.source.kind", "\"urdf\", \"json\" or \"mjcf\"", '"xacro"'])
fixture_case("source_sha256_short", fx(lambda d: d["model"]["source"].update(sha256="9067b5")),
             ["model.source.sha256", "64 lowercase hexadecimal digits", '"9067b5"'])
fixture_case("sample_id_empty", fx(lambda d: d["samples"][0].update(id="")), ["samples[0].id", "a non-empty string"])


def singular(d):
    s = d["samples"][0]
    s["positive_definite"] = False
    for part in ("outputs", "certified_digits", "normwise_certified_digits"):
        for q in ("qdd", "L", "D"):
            s[part].pop(q)


fixture_case("condition_number_beside_singular_H", fx(singular),
             ["samples[0].condition_number", "expected \"inf\" beside positive_definite: false", '"%s"' % GOOD_FX["samples"][0]["condition_number"]])
EVERY_JOINT = json.load(open(os.path.join(ROOT, "fuzz", "corpus", "fixture", "every_joint_double.fixture.json")))
fixture_case("quaternion_not_unit", edited(EVERY_JOINT, lambda d: d["samples"][0]["inputs"]["q"].__setitem__(7, 2.0)),
             ["samples[0].inputs.q[7]", "unit quaternion (qw qx qy qz) of joint 'ball'", "|q| = 2.0000000000000000e+00"],
             note="version 1 (no checksum): read field by field")

# Engine outputs (compare and check): the model's hash, the names, the sample ids, an error without a
# reason, the engine's messages and the conventions compare reads (check used to take any).
engine_case("model_name_number", eo(lambda d: d["model"].update(name=5)), ["model.name", "expected a string"])
engine_case("model_sha256_short", eo(lambda d: d["model"].update(sha256="abc")),
            ["model.sha256", "64 lowercase hexadecimal digits", '"abc"'], note="check used to accept it")
engine_case("engine_name_empty", eo(lambda d: d["engine"].update(name="")), ["engine.name", "a non-empty string"])
engine_case("dofs_empty_name", eo(lambda d: d["dofs"].__setitem__(1, "")), ["dofs[1]", "expected a string: a dof name, non-empty"])
engine_case("dofs_twice", eo(lambda d: d["dofs"].__setitem__(1, d["dofs"][0])), ["dofs[1]", "duplicate dof name 'shoulder'"])
engine_case("sample_id_empty", eo(lambda d: d["samples"][0].update(id="")), ["samples[0].id", "a non-empty string"])
engine_case("error_empty", eo(lambda d: d["samples"][0].update(error="")), ["samples[0].error", "why the engine failed"],
            note="an empty error used to read as no error")
engine_case("engine_messages_string", eo(lambda d: d["samples"][0]["raw"].update(engine_messages="warned")),
            ["samples[0].raw.engine_messages", "expected an array of strings"], note="used to be ignored")
engine_case("engine_messages_number", eo(lambda d: d["samples"][0]["raw"].update(engine_messages=["ok", 5])),
            ["samples[0].raw.engine_messages[1]", "expected a string (an engine message), got number"], note="used to be ignored")
engine_case("contact_model_number", eo(lambda d: d["conventions"].update(contact_model=5)),
            ["conventions.contact_model", "a non-empty string", "got number"],
            note="compare refused it on a model with contacts only, check never")
engine_case("soft_loop_constraints_empty", eo(lambda d: d["conventions"].update(soft_loop_constraints="")),
            ["conventions.soft_loop_constraints", "a non-empty string", 'got ""'])

# ---- accepted edge cases (exit 0) ------------------------------------------------------------------

BOM = b"\xef\xbb\xbf"
rel = write("accepted/bom_model.json", BOM + dumps(ROBOT).encode())
case("accepted-bom_model", "model", ["eval", "{file}", "--state", "{support}/state.json"] + EVAL_OUT, None, file=rel, exit=0,
     outputs=["out.json"])
rel = write("accepted/bom_state.json", BOM + json.dumps(STATE).encode())
case("accepted-bom_state", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT, None, file=rel, exit=0, outputs=["out.json"])
rel = write("accepted/bom_urdf.urdf", BOM + URDF.encode())
case("accepted-bom_urdf", "urdf", ["convert", "{file}", "--out", "{scratch}/model.json"], None, file=rel, exit=0, outputs=["model.json"])
rel = write("accepted/bom_fixture.json", BOM + ftext.encode())
case("accepted-bom_fixture", "fixture", ["compare", "{file}", "{support}/good.engine.json", "--report", "{scratch}/report.json"], None,
     file=rel, exit=0, outputs=["report.json"])
rel = write("accepted/bom_engine_output.json", BOM + etext.encode())
case("accepted-bom_engine_output", "engine_output", ["check", "{file}", "--report", "{scratch}/report.json"], None, file=rel, exit=0,
     outputs=["report.json"])
rel = write("accepted/bom_manifest.json", BOM + dumps(GOOD_MAN).encode())
case("accepted-bom_manifest", "manifest", ["audit", "--data", "{scratch}/data", "--engines", "mujoco", "--out", "{scratch}/audit-out"], None, file=rel, exit=0,
     setup=[{"path": "data/models/manifest.json", "from": rel}, {"path": "data/models/pendulum.urdf", "from": "support/pendulum.urdf"},
            {"path": "data/golden", "dir": True}], outputs=["audit-out"])
v1 = edited(GOOD_FX, lambda d: (d.pop("checksum"), d.update(version=1)))
rel = write("accepted/fixture_version_1.json", dumps(v1))
case("accepted-fixture_version_1", "fixture", ["compare", "{file}", "{support}/good.engine.json", "--report", "{scratch}/report.json"], None,
     file=rel, exit=0, outputs=["report.json"], note="version 1 has no checksum; its fields are validated all the same")
rel = write("accepted/model_mass_1e400_string.json", robot(lambda d: d["bodies"][1]["inertial"].update(mass="1e400")))
case("accepted-model_mass_1e400_string", "model", ["eval", "{file}", "--state", "{support}/state.json", "--precision", "mpfr:30"] + EVAL_OUT,
     None, file=rel, exit=0, outputs=["out.json"])
rel = write("accepted/state_only_q.json", json.dumps({"q": [1, 0, 0, 0, 0, 0, 0, "3e-1", "-7E-1"]}) + "\n")
rel_loop = write("accepted/loop_model_v2.json", dumps(ROBOT_V2))
case("accepted-loop_model_v2", "model", ["eval", "{file}", "--state", "{support}/state.json"] + EVAL_OUT, None, file=rel_loop, exit=0,
     outputs=["out.json"], note="a state off the closure manifold is data (loops.consistent = false), not an error")
case("accepted-state_only_q", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT, None, file=rel, exit=0,
     outputs=["out.json"], note="qd, qdd, tau default to zero and are listed in state.defaulted_to_zero; exponents in decimal strings")
rel = write("accepted/state_one_element_array.json", state(lambda d: d["q"].update(elbow=[-0.7])))
case("accepted-state_one_element_array", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT, None, file=rel, exit=0,
     outputs=["out.json"], note="a 1-DoF joint given as an array of one")
rel = write("accepted/state_quaternion_within_1e-6.json", state(lambda d: d["q"].update(base_free=[1.0000005, 0, 0, 0, 0, 0, 0])))
case("accepted-state_quaternion_within_1e-6", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT, None, file=rel,
     exit=0, outputs=["out.json"])
t = sub(URDF, '<mass value="0.8"/>', '<mass value="0.8"/>\n      <mass value="8"/>')
rel = write("accepted/urdf_repeated_mass.urdf", t)
case("accepted-urdf_repeated_mass", "urdf", ["convert", "{file}", "--out", "{scratch}/model.json"], None, file=rel, exit=0,
     outputs=["model.json"], note="the first <mass> is read, as urdfdom does, and the second is noted")
rel = write("accepted/engine_raw_H_not_a_matrix.json", dumps(eo(lambda d: d["samples"][0].update(raw={"H": "see log"}))))
case("accepted-engine_raw_H_not_a_matrix", "engine_output", ["check", "{file}", "--report", "{scratch}/report.json"], None, file=rel, exit=0,
     outputs=["report.json"], note="raw is free-form: the symmetry check falls back to the converted H and says why")
t = sub(URDF, "<robot ", "<!-- Gelenkarm f\u00fcr Tests, Ma\u00dfe in Metern -->\n<robot ")
rel = write("accepted/urdf_latin1_comment.urdf", t.encode("latin-1"))
case("accepted-urdf_latin1_comment", "urdf", ["convert", "{file}", "--out", "{scratch}/model.json"], None, file=rel, exit=0,
     outputs=["model.json"], note="bytes that are not UTF-8 in a comment: not read, not refused")
opt_case_ok = lambda id, args, outputs, note=None: case("accepted-" + id, "options", args, None, exit=0, outputs=outputs, note=note)
opt_case_ok("seed_max", ["fixture"] + PEND_ARGS + ["--samples", "1", "--seed", "18446744073709551615", "--out", "{scratch}/f.json"], ["f.json"])
opt_case_ok("out_dash_is_stdout", ["convert"] + PEND_ARGS + ["--out", "-"], [])

# ---- round three: gzip bombs ---------------------------------------------------------------------

# A JSON document is parsed as it is read and inflated (io/json_read.cpp, JsonText): a NUL byte is
# refused at its byte (it is never part of JSON text), whitespace is not stored, and the inflated
# bytes stay bounded. A gzip of 1 GiB of NULs, or of 300 MB of spaces, used to be inflated whole
# (1 GB of memory) before the refusal; tests/input_memory_test.cpp measures that with the real
# sizes, these files are small.
NUL_BYTE = ["byte 1:", "NUL byte"]
case("gzip-nuls_engine_output", "engine_output", ["check", "{file}"], ["zeros.json.gz"] + NUL_BYTE, file=bomb,
     note="a gzip of 1 GiB of NULs used to be inflated whole (1 GB) before it was refused")
case("gzip-nuls_audit_json", "audit", ["html", "{file}", "--out", "{scratch}/r.html"], ["zeros.json.gz"] + NUL_BYTE, file=bomb, also=[])
case("gzip-nuls_loops", "loops", ["eval", "{support}/robot.urdf", "--loops", "{file}", "--state", "{support}/arm_state.json"] + EVAL_OUT,
     ["zeros.json.gz"] + NUL_BYTE, file=bomb, also=[])
case("gzip-nuls_merge", "options", ["merge", "{file}", "{support}/good.fixture.json", "--out", "{scratch}/m.json"],
     ["zeros.json.gz"] + NUL_BYTE, file=bomb, also=[], note="merge used to inflate every shard whole, twice")
spaces = write("bounded/spaces.json.gz", _gzip.compress(b" " * 1000000, 9, mtime=0))
for kind, args in [("fixture", ["compare", "{file}", "{support}/good.engine.json", "--report", "{scratch}/r.json"]),
                   ("engine_output", ["check", "{file}"]), ("state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT),
                   ("audit", ["html", "{file}", "--out", "{scratch}/r.html"])]:
    case("gzip-spaces_" + kind, kind, args, ["spaces.json.gz", "gzip content larger than the input limit of 100000"], file=spaces,
         also=[], env=LIMIT, note="whitespace is not stored: 300 MB of spaces used to be held twice (the text, the parser's copy)")
# A NUL after a valid document: nlohmann takes a NUL for the end of the input, so the document used
# to be read and whatever followed the NUL ignored.
stext = json.dumps(STATE) + "\n"
state_case("trailing_nul", stext + "\0{\"q\": \"ignored\"}\n", ["byte %d:" % (len(stext) + 1), "NUL byte"],
           note="used to be read as the document before the NUL")
rel = write("gzip/fixture_trailing_nul.json.gz", _gzip.compress((ftext + "\0junk").encode(), 9, mtime=0))
case("gzip-fixture_trailing_nul", "fixture", ["compare", "{file}", "{support}/good.engine.json", "--report", "{scratch}/r.json"],
     ["fixture_trailing_nul.json.gz", "byte %d:" % (len(ftext.encode()) + 1), "NUL byte"], file=rel,
     note="used to be accepted: the fixture before the NUL")
# Positions are the file's, after whitespace the parser was not given, and across 64 KiB chunks.
t = '{"q":\n' + " " * 200000 + "\n   x}\n"
rel = write("gzip/state_after_spaces.json.gz", _gzip.compress(t.encode(), 9, mtime=0))
case("gzip-state_after_spaces", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT,
     ["state_after_spaces.json.gz", "q", "expected valid JSON", "at line 3, column 4:", "invalid literal"], file=rel)
t = '{"q": [1, 0, 0, 0, 0, 0, 0,' + "\t" * 5000 + "\n" * 3 + "  0.3 -0.7]}\n"
state_case("after_tabs_and_newlines", t, ["q[8]", "at line 4, column 10:", "expected ']'"])
t = '{"q": ' + " " * 1000 + "[" * 300 + "]" * 300 + "}\n"
state_case("nested_after_spaces", t, ["byte %d:" % (t.index("[") + 256), "nested at most 256 levels deep"])
# The gzip stream itself: cut short, or followed by more data.
gz = _gzip.compress(stext.encode(), 9, mtime=0)
rel = write("gzip/state_truncated.json.gz", gz[: len(gz) // 2])
case("gzip-state_truncated", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT,
     ["state_truncated.json.gz", "expected a complete gzip file"], file=rel, also=[])
rel = write("gzip/state_data_after.json.gz", gz + b"{}")
case("gzip-state_data_after", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT,
     ["state_data_after.json.gz", "expected a complete gzip file"], file=rel, also=[])
rel = write("state/utf16.json", ("\ufeff" + stext).encode("utf-16-le"))
case("state-utf16", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT, ["utf16.json", "UTF-16 byte-order mark"],
     file=rel, note="used to be 'invalid literal' at byte 1; its NULs would now be refused first")
# Accepted: whitespace in runs longer than what the parser is given, a byte-order mark, gzip.
t = json.dumps(STATE, indent=1).replace("\n", "\n" + " " * 70000, 3).replace(",", ",\r\n\t" + " " * 300)
rel = write("accepted/gzip_state_spaced.json.gz", _gzip.compress(BOM + t.encode(), 9, mtime=0))
case("accepted-gzip_state_spaced", "state", ["eval", "{support}/robot.json", "--state", "{file}"] + EVAL_OUT, None, file=rel, exit=0,
     outputs=["out.json"])
rel = write("accepted/gzip_fixture.json.gz", _gzip.compress(ftext.encode(), 9, mtime=0))
case("accepted-gzip_fixture", "fixture", ["compare", "{file}", "{support}/good.engine.json", "--report", "{scratch}/report.json"], None,
     file=rel, exit=0, outputs=["report.json"])

manifest = {
    "format": "rbdref.malformed_corpus", "version": 1,
    "placeholders": {"{file}": "the case's file, copied into the scratch folder under its own name",
                     "{support}": "support/, copied into the scratch folder",
                     "{scratch}": "the scratch folder (outputs go there; nothing may appear or change in it on exit 2)"},
    "also": {"urdf": ["eval", "convert", "fixture"], "mjcf": ["convert", "fixture"], "model": ["eval", "convert", "fixture"], "state": [],
             "fixture": ["compare-fixture"], "engine_output": ["compare-engine", "check"], "manifest": [], "options": [],
             "loops": [], "audit": []},
    "cases": cases,
    "accepted": accepted,
}
write("manifest.json", json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
print("%d cases, %d accepted" % (len(cases), len(accepted)))
