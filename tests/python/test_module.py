"""The Python module against the library and the command line: engines written in Python audited
clean and with planted errors, reference values with their digits, bad input, shards."""
import decimal
import gzip
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import rbdref
from numpy_engine import Engine


def audit(fx, plant=None, engine="numpy-engine"):
    eng = Engine(fx.model, plant)
    out = rbdref.EngineOutput(fx, engine=engine, version="test")
    for s in fx.samples:
        out.add(s.id, **eng.run(s))
    return out


# --- an engine written in Python ---------------------------------------------------------------

@pytest.mark.parametrize("model", ["panda", "arm7", "double_pendulum", "tiny_inertia"])
def test_python_engine_passes_on_golden_fixture(src, model):
    fx = rbdref.Fixture(src("fixtures/golden", model + ".fixture.json"))
    rep = rbdref.compare(fx, audit(fx))
    assert rep.passed, rep.summary
    for q in ("H", "C", "tau", "qdd", "L", "D"):
        assert rep.quantities[q]["samples"] == len(fx.samples)
    # an independent double-precision engine: H and C to about 14 digits or more
    assert rep.digits["H"] >= 13.5 and rep.digits["C"] >= 12, rep.digits


def test_planted_error_is_caught_and_located(src):
    fx = rbdref.Fixture(src("fixtures/golden/panda.fixture.json"))
    rep = rbdref.compare(fx, audit(fx, plant="gyroscopic"))
    assert not rep.passed
    assert rep.quantities["H"]["passed"], "H does not depend on the planted term"
    for q in ("C", "tau", "qdd"):
        assert not rep.quantities[q]["passed"], q
        assert rep.digits[q] < 4, rep.digits
    assert "FAIL" in rep.summary
    assert rep.quantities["C"]["worst"]["sample"] in [s.id for s in fx.samples]
    junit = rep.junit()
    assert "<failure" in junit and 'name="C"' in junit


def test_written_output_round_trips_through_the_command_line(src, tmp_path):
    fx_path = src("fixtures/golden/arm7.fixture.json")
    fx = rbdref.Fixture(fx_path)
    out = audit(fx)
    out.write(tmp_path / "arm7.engine.json")
    doc = json.loads((tmp_path / "arm7.engine.json").read_text())
    assert doc["format"] == "rbdref.engine_output" and doc["engine"]["name"] == "numpy-engine"
    # the inputs are the fixture's exact doubles
    assert doc["samples"][1]["inputs"]["q"] == list(fx.samples[1].q)
    r = subprocess.run([os.environ["RBDREF_CLI"], "compare", fx_path, str(tmp_path / "arm7.engine.json"), "--report",
                        str(tmp_path / "r.json")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    cli = json.loads((tmp_path / "r.json").read_text())
    py = rbdref.compare(fx_path, str(tmp_path / "arm7.engine.json"))
    assert {q["quantity"]: q["min_digits"] for q in cli["quantities"]} == {k: v["min_digits"] for k, v in py.quantities.items()}


def test_non_finite_value_is_a_sample_failure(src):
    fx = rbdref.Fixture(src("fixtures/golden/double_pendulum.fixture.json"))
    out = audit(fx)
    H = np.array(Engine(fx.model).H(fx.samples[0].q))
    H[1, 0] = np.nan
    out.add(fx.samples[0].id, H=H)
    rep = rbdref.compare(fx, out)
    assert not rep.passed
    assert any("H[1, 0] is nan" in n for n in rep.notes), rep.notes


def test_extended_precision_engine_as_decimal_strings(src):
    fx = rbdref.Fixture(src("fixtures/golden/double_pendulum.fixture.json"))
    out = rbdref.EngineOutput(fx, engine="exact", scalar="mpfr:40")
    for s in fx.samples:
        ref = s.ref["H"]
        out.add(s.id, H=ref.text)  # the reference's own decimal strings: 50 digits
    rep = rbdref.compare(fx, out)
    assert rep.passed and rep.digits["H"] >= 49, rep.digits


def test_fixture_score_matches_compare(src):
    fx = rbdref.Fixture(src("fixtures/golden/panda.fixture.json"))
    eng = Engine(fx.model)
    s = fx.samples[3]
    sc = fx.score(s, "H", eng.H(s.q))
    rep = rbdref.compare(fx, audit(fx))
    mine = [x for x in rep.document["samples"] if x["sample"] == s.id and x["quantity"] == "H"][0]
    assert sc["digits"] == pytest.approx(mine["digits"])
    bad = eng.H(s.q)
    bad[2, 5] *= 1 + 1e-7
    sc = fx.score(s, "H", bad)
    # digits = -log10(|error| / max|H|): the planted error relative to the matrix's scale
    expect = -np.log10(abs(bad[2, 5]) * 1e-7 / np.abs(np.asarray(s.ref["H"])).max())
    assert sc["worst_entry"] == (2, 5) and sc["digits"] == pytest.approx(expect, abs=0.01) and not sc["passed"], sc


# --- the fixture and its reference values ------------------------------------------------------

def test_fixture_inputs_are_the_files_exact_doubles(src):
    path = src("fixtures/golden/humanoid.fixture.json")
    fx = rbdref.Fixture(path)
    doc = json.load(open(path))
    assert fx.dofs == doc["dofs"] and fx.nv == 36 and fx.nq == 37
    for s, d in zip(fx.samples, doc["samples"]):
        assert s.id == d["id"]
        for k in ("q", "qd", "qdd", "tau"):
            v = getattr(s, k)
            assert v.dtype == np.float64 and list(v) == d["inputs"][k]
        H = s.ref["H"]
        assert H.shape == (36, 36) and H.digits >= 45
        assert np.asarray(H)[0, 0] == float(H.text[0, 0])


def test_model_eval_digits_at_two_precisions(src):
    m = rbdref.Model(src("fixtures/models/panda.urdf"))
    assert m.nv == 7 and m.dofs[0] == "panda_joint1"
    q = np.linspace(0.1, 0.7, 7)
    ev50 = m.eval(q=q, qd=np.ones(7), precision="bin50")
    ev100 = m.eval(q=q, qd=np.ones(7), precision="mpfr:100")
    assert ev50.digits["H"] >= 48 and ev100.digits["H"] >= 97
    decimal.getcontext().prec = 120
    a, b = ev50["H"].decimal(), ev100["H"].decimal()
    scale = max(abs(x) for x in b.ravel())
    assert max(abs(x - y) for x, y in zip(a.ravel(), b.ravel())) / scale < decimal.Decimal("1e-47")
    assert ev50.passed and ev50.positive_definite


def test_model_eval_matches_the_fixture_sample(src):
    fx = rbdref.Fixture(src("fixtures/golden/arm7.fixture.json"))
    m = rbdref.Model(src("fixtures/models/arm7.urdf"))
    s = fx.samples[2]
    ev = m.eval(q=s.q, qd=s.qd, qdd=s.qdd, tau=s.tau)
    decimal.getcontext().prec = 80
    for name in ("H", "C", "qdd", "D"):
        a, b = ev[name].decimal().ravel(), s.ref[name].decimal().ravel()
        scale = max(abs(x) for x in b)
        assert max(abs(x - y) for x, y in zip(a, b)) / scale < decimal.Decimal("1e-45"), name


def test_prove(src):
    m = rbdref.Model(src("fixtures/models/double_pendulum.urdf"))
    ev = m.eval(q=[0.3, -0.2], qd=[1, 2], prove=True)
    assert ev.proof is not None and ev["H"].proven_digits >= 45


def test_loop_section(src):
    m = rbdref.Model(src("fixtures/models/loops/slider_crank.urdf"), loops=src("fixtures/models/loops/slider_crank.loops.json"))
    fx = rbdref.Fixture(src("fixtures/golden/slider_crank.fixture.json"))
    s = fx.samples[1]
    ev = m.eval(q=s.q, qd=s.qd, qdd=s.qdd, tau=s.tau)
    assert ev.loops is not None and ev.loops.info["rank"] >= 1
    K = ev.loops["K"]
    assert K.shape[1] == m.nv and ev.loops.digits["K"] >= 45
    # the loop's q̈ satisfies K q̈ = k at the working precision
    decimal.getcontext().prec = 80
    Kd, k, qdd = K.decimal(), ev.loops["k"].decimal(), ev.loops["qdd"].decimal()
    r = max(abs(sum(Kd[i, j] * qdd[j] for j in range(m.nv)) - k[i]) for i in range(K.shape[0]))
    assert r < decimal.Decimal("1e-40")


def test_contact_section(src):
    m = rbdref.Model(src("fixtures/models/double_pendulum.urdf"), contacts=src("fixtures/models/contacts/double_pendulum_floor.contacts.json"))
    assert len(m.contacts) >= 2
    fx = rbdref.Fixture(src("fixtures/golden/pendulum_contacts.fixture.json"))
    s = fx.samples[1]
    ev = m.eval(q=s.q, qd=s.qd, qdd=s.qdd, tau=s.tau, impact=True)
    assert ev.contacts is not None and ev.contacts.info["status"] in ("solved", "no_solution", "impact_first", "penetrating")
    assert "T" in ev.contacts


# --- check, the registry, real engines ---------------------------------------------------------

def test_check_finds_an_asymmetric_H(src):
    fx = rbdref.Fixture(src("fixtures/golden/panda.fixture.json"))
    out = audit(fx)
    assert rbdref.check(out, fx).passed
    s = fx.samples[0]
    H = Engine(fx.model).H(s.q)
    H[0, 3] += 1e-6
    out.add(s.id, H=H)
    rep = rbdref.check(out)
    assert not rep.passed
    failed = {c["name"] for c in rep.checks if not c["passed"]}
    assert "H.symmetric_raw" in failed, rep.summary


def test_registry_and_a_real_engine(src):
    reg = {e["name"]: e for e in rbdref.engines()}
    assert "pinocchio" in reg and reg["pinocchio"]["built"] is False
    built = [n for n, e in reg.items() if e["built"]]
    assert "mujoco" in built, built
    assert "H" in reg["mujoco"]["quantities"] and reg["mujoco"]["armature"] is True
    fx = rbdref.Fixture(src("fixtures/golden/panda.fixture.json"))
    rep = rbdref.compare(fx, rbdref.run_engine("mujoco", fx))
    assert rep.passed and rep.digits["H"] > 12, rep.summary


# --- bad input ---------------------------------------------------------------------------------

def test_bad_input_names_file_and_field(src, tmp_path):
    with pytest.raises(rbdref.InputError) as e:
        rbdref.Fixture(tmp_path / "missing.json")
    assert "missing.json" in str(e.value) and e.value.file.endswith("missing.json")
    fx = rbdref.Fixture(src("fixtures/golden/double_pendulum.fixture.json"))
    out = rbdref.EngineOutput(fx, engine="x")
    with pytest.raises(rbdref.InputError) as e:
        out.add(fx.samples[0].id, H=np.zeros((3, 3)))
    assert e.value.field == "H" and "nv x nv = 2 x 2" in str(e.value)
    with pytest.raises(rbdref.InputError) as e:
        out.add(fx.samples[0].id, M=np.zeros(2))
    assert "not a quantity" in str(e.value)
    with pytest.raises(rbdref.InputError):
        out.add("s999", C=np.zeros(2))
    with pytest.raises(rbdref.InputError) as e:
        rbdref.EngineOutput(fx, engine="x", scalar="float16")
    with pytest.raises(rbdref.InputError) as e:
        rbdref.Model(src("fixtures/models/panda.urdf")).eval(q=np.zeros(3))
    assert "q" in str(e.value)
    with pytest.raises(rbdref.InputError):
        rbdref.Model(src("fixtures/models/panda.urdf")).eval(q=np.zeros(7), precision="bin75")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "rbdref.fixture", "version": 4')
    with pytest.raises(rbdref.InputError) as e:
        rbdref.Fixture(bad)
    assert "bad.json" in str(e.value)
    # an output that cannot be written leaves nothing behind
    with pytest.raises(rbdref.InputError):
        out.write(tmp_path / "no-such-folder" / "e.json")
    assert not (tmp_path / "no-such-folder").exists()


def test_mjcf_include_cycle_is_an_input_error(tmp_path):
    # A cycle through a body used to take the interpreter down (SIGSEGV in the reader).
    (tmp_path / "m.xml").write_text('<mujoco>\n  <worldbody>\n    <include file="b.xml"/>\n  </worldbody>\n</mujoco>\n')
    (tmp_path / "b.xml").write_text('<mujoco>\n  <body name="b">\n    <joint axis="0 1 0"/>\n'
                                    '    <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>\n    <include file="b.xml"/>\n'
                                    '  </body>\n</mujoco>\n')
    with pytest.raises(rbdref.InputError) as e:
        rbdref.Model(tmp_path / "m.xml")
    assert e.value.file.endswith("b.xml") and "already part of the model" in str(e.value)


# --- campaigns ---------------------------------------------------------------------------------

def test_shards_merge_to_the_single_run_byte_for_byte(src, tmp_path):
    m = rbdref.Model(src("fixtures/models/arm7.urdf"))
    whole = tmp_path / "whole.json"
    m.fixture(samples=7, seed=5, path=whole)
    parts = []
    for k in (3, 1, 2):
        p = tmp_path / f"part{k}.json.gz"
        fx = m.fixture(samples=7, seed=5, path=p, shard=f"{k}/3")
        assert fx.shard == (k, 3)
        parts.append(p)
    merged = rbdref.merge(parts, tmp_path / "merged.json")
    assert (tmp_path / "merged.json").read_bytes() == whole.read_bytes()
    assert [s.id for s in merged.samples] == [f"s{i:03d}" for i in range(7)]
    with pytest.raises(rbdref.InputError) as e:
        rbdref.merge(parts[:2], tmp_path / "x.json")
    assert "missing shard 2" in str(e.value)
    assert not (tmp_path / "x.json").exists()


# --- the module's guards: memory, shapes, NUL, types, outputs over inputs ----------------------------

def chain_model(path, n):
    """A chain of n revolute bodies, as rbdref.model JSON."""
    I = {"ixx": "0.001", "iyy": "0.001", "izz": "0.0001", "ixy": 0, "ixz": 0, "iyz": 0}
    bodies = [{"name": f"b{k}", "parent": f"b{k - 1}" if k else None, "joint": {"name": f"j{k}", "type": "revolute", "axis": [0, 1, 0]},
               "origin": {"xyz": [0, 0, "-0.1" if k else 0]}, "inertial": {"mass": "1", "com": [0, 0, "-0.05"], "I": I}}
              for k in range(n)]
    path.write_text(json.dumps({"format": "rbdref.model", "version": 1, "name": "chain", "bodies": bodies}))
    return path


def test_memory_guard_refuses_before_any_work(src, tmp_path, monkeypatch):
    monkeypatch.delenv("RBDREF_MAX_MEMORY", raising=False)
    chain = rbdref.Model(chain_model(tmp_path / "chain2000.json", 2000))
    for call in (lambda: chain.fixture(samples=4, precision="mpfr:10000", path=tmp_path / "f.json"),  # used to take 800 MB in 8 s, killed
                 lambda: chain.eval(q=np.zeros(2000), precision="mpfr:10000")):
        t = time.monotonic()
        with pytest.raises(rbdref.InputError) as e:
            call()
        assert time.monotonic() - t < 5, "refused at once, as the command line does"
        msg = str(e.value)
        assert e.value.file.endswith("chain2000.json") and "needs about" in msg and "more than the memory limit" in msg, msg
        assert "max_memory=SIZE" in msg and 'precision="double"' in msg and "--" not in msg, msg
    assert not (tmp_path / "f.json").exists()
    # max_memory: bytes or a size with a suffix, as --max-memory; the default the command line's
    panda = rbdref.Model(src("fixtures/models/panda.urdf"))
    with pytest.raises(rbdref.InputError) as e:
        panda.eval(q=np.zeros(7), max_memory="1M")
    assert "needs about" in str(e.value) and "(max_memory=1M)" in str(e.value)
    with pytest.raises(rbdref.InputError):
        panda.fixture(samples=1, max_memory=1 << 20)
    with pytest.raises(rbdref.InputError) as e:
        panda.eval(q=np.zeros(7), max_memory="8X")
    assert e.value.field == "max_memory" and "'8X'" in str(e.value)
    assert panda.eval(q=np.zeros(7), max_memory="8G").digits["H"] >= 45
    monkeypatch.setenv("RBDREF_MAX_MEMORY", "2M")
    with pytest.raises(rbdref.InputError) as e:
        panda.fixture(samples=1)
    assert "RBDREF_MAX_MEMORY=2M" in str(e.value)


def test_add_checks_the_shape_before_copying_anything(src):
    # In a process of its own: its peak memory is this call's.
    code = "\n".join([
        "import resource, sys, numpy as np, rbdref",
        "fx = rbdref.Fixture(sys.argv[1])",
        "out = rbdref.EngineOutput(fx, engine='x')",
        "H = np.ones((3000, 3000))",
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss",
        "try:",
        "    out.add(fx.samples[0].id, H=H)",
        "except rbdref.InputError as e:",
        "    print(e.field, '|', e)",
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)"])
    r = subprocess.run([sys.executable, "-c", code, src("fixtures/golden/double_pendulum.fixture.json")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    refused, grown_kib = r.stdout.splitlines()
    assert refused.startswith("H |") and "got shape (3000, 3000)" in refused, refused
    assert int(grown_kib) < 16 * 1024, f"the 72 MB array was copied or converted: {grown_kib} KiB more (it used to take 480 MB)"


class _Ctx:
    """What the guard tests call: the double pendulum's fixture, an engine output of it, its model."""

    def __init__(self, src):
        self.src = src
        self.fx_path = src("fixtures/golden/double_pendulum.fixture.json")
        self.fx = rbdref.Fixture(self.fx_path)
        self.out = audit(self.fx)
        self.model = rbdref.Model(src("fixtures/models/double_pendulum.urdf"))
        self.s = self.fx.samples[0]
        self.H = np.array(Engine(self.fx.model).H(self.s.q))


@pytest.fixture
def ctx(src):
    return _Ctx(src)


# (kwargs of add, the field named, what the message says)
ADD_REFUSALS = [
    ({"H": None}, "H", "got None"),                                  # used to be "Unable to cast Python instance to C++ type"
    ({"C": [0.5, None]}, "C[1]", "got None"),
    ({"C": [0.5, "x"]}, "C[1]", "\"x\""),
    ({"C": [0.5, "0\0.1"]}, "C[1]", "without NUL"),
    ({"C": [[0.5], [1.0, 2.0]]}, "C", "expected an array of numbers"),
    ({"C": np.array([True, False])}, "C", "dtype bool"),
    ({"C": "0.5"}, "C", "got shape ()"),
    ({"lambda": np.zeros(5)}, "lambda", "at most 0"),
    ({"raw": {"x": float("nan")}}, "raw", "expected JSON data"),
    ({"raw": {"engine_messages": ["ok", 1]}}, "raw.engine_messages[1]", "expected a string"),
    ({"H": "H", "C": None}, "C", "got None")]


@pytest.mark.parametrize("kwargs,field,says", ADD_REFUSALS, ids=[f[1] + "-" + f[2][:12] for f in ADD_REFUSALS])
def test_add_refuses_naming_the_quantity(ctx, kwargs, field, says):
    out = rbdref.EngineOutput(ctx.fx, engine="x")
    kwargs = {k: ctx.H if isinstance(v, str) and v == "H" else v for k, v in kwargs.items()}
    with pytest.raises(rbdref.InputError) as e:
        out.add(ctx.s.id, **kwargs)
    assert e.value.field == field and says in str(e.value), (e.value.field, str(e.value))
    assert out.sample_ids == [], "a refused add adds nothing, not even the sample"


def test_add_and_fail_name_their_arguments(ctx):
    out = rbdref.EngineOutput(ctx.fx, engine="x")
    with pytest.raises(rbdref.InputError) as e:
        out.add(5, H=ctx.H)
    assert e.value.field == "sample"
    with pytest.raises(rbdref.InputError):
        out.add(ctx.s.id)
    with pytest.raises(rbdref.InputError) as e:
        out.fail(ctx.s.id, "")
    assert e.value.field == "why"
    out.add(ctx.s.id, H=ctx.H, C=np.array([decimal.Decimal("0.5"), 1.5], dtype=object), raw={"engine_messages": ["ok"]})
    assert out.sample_ids == [ctx.s.id]


# (call, the argument named): a string or path with NUL
NUL_REFUSALS = [
    ("Fixture", lambda c, t: rbdref.Fixture("a\0b"), "path"),                      # used to say only "a"
    ("Model", lambda c, t: rbdref.Model("a\0b.urdf"), "path"),
    ("Model.loops", lambda c, t: rbdref.Model(c.src("fixtures/models/double_pendulum.urdf"), loops="l\0.json"), "loops"),
    ("EngineOutput.engine", lambda c, t: rbdref.EngineOutput(c.fx, engine="my\0engine"), "engine"),
    ("EngineOutput.version", lambda c, t: rbdref.EngineOutput(c.fx, engine="x", version="1\0"), "version"),
    ("EngineOutput.fail", lambda c, t: c.out.fail(c.s.id, "why\0not"), "why"),
    ("EngineOutput.write", lambda c, t: c.out.write(str(t / "e\0.json")), "path"),
    ("Model.fixture", lambda c, t: c.model.fixture(samples=1, path=str(t / "f\0.json")), "path"),
    ("Model.eval", lambda c, t: c.model.eval(q=["0\0.1", 0]), "q[0]"),
    ("Report.write", lambda c, t: rbdref.compare(c.fx, c.out).write(str(t / "r\0.json")), "path"),
    ("merge", lambda c, t: rbdref.merge([c.fx_path], str(t / "m\0.json")), "out"),
    ("Sample.reference", lambda c, t: c.s.reference("H\0"), "name")]


@pytest.mark.parametrize("call,field", [n[1:] for n in NUL_REFUSALS], ids=[n[0] for n in NUL_REFUSALS])
def test_strings_with_nul_are_refused_naming_the_argument(ctx, tmp_path, call, field):
    with pytest.raises(rbdref.InputError) as e:
        call(ctx, tmp_path)
    assert e.value.field == field and "without NUL" in str(e.value) and "\\0" in str(e.value), (e.value.field, str(e.value))
    assert os.listdir(tmp_path) == []


# (call, the argument named): None or a wrong type or value
TYPE_REFUSALS = [
    ("Fixture-None", lambda c: rbdref.Fixture(None), "path"),
    ("EngineOutput-engine-None", lambda c: rbdref.EngineOutput(c.fx, engine=None), "engine"),
    ("EngineOutput-fixture-None", lambda c: rbdref.EngineOutput(None, engine="x"), "fixture"),
    ("EngineOutput-scalar-int", lambda c: rbdref.EngineOutput(c.fx, engine="x", scalar=64), "scalar"),
    ("EngineOutput-conventions-list", lambda c: rbdref.EngineOutput(c.fx, engine="x", conventions=["a"]), "conventions"),
    ("EngineOutput-contact_model-int", lambda c: rbdref.EngineOutput(c.fx, engine="x", conventions={"contact_model": 5}),
     "conventions.contact_model"),
    ("compare-fixture-None", lambda c: rbdref.compare(None, c.out), "fixture"),
    ("compare-output-None", lambda c: rbdref.compare(c.fx, None), "output"),
    ("compare-tol-word", lambda c: rbdref.compare(c.fx, c.out, tol={"H": "tight"}), "tol['H']"),
    ("compare-tol-unknown", lambda c: rbdref.compare(c.fx, c.out, tol={"M": 1e-9}), "tol['M']"),
    ("compare-tol-list", lambda c: rbdref.compare(c.fx, c.out, tol=[1e-9]), "tol"),
    ("compare-output-empty", lambda c: rbdref.compare(c.fx, rbdref.EngineOutput(c.fx, engine="empty")), "output"),
    ("check-output-int", lambda c: rbdref.check(5), "output"),
    ("Model-floating_base-str", lambda c: rbdref.Model(c.src("fixtures/models/double_pendulum.urdf"), floating_base="yes"), "floating_base"),
    ("fixture-samples-str", lambda c: c.model.fixture(samples="4"), "samples"),
    ("fixture-samples-bool", lambda c: c.model.fixture(samples=True), "samples"),
    ("fixture-samples-0", lambda c: c.model.fixture(samples=0), "samples"),
    ("fixture-seed-negative", lambda c: c.model.fixture(samples=1, seed=-1), "seed"),
    ("fixture-threads-1000", lambda c: c.model.fixture(samples=1, threads=1000), "threads"),
    ("fixture-shard-int", lambda c: c.model.fixture(samples=1, shard=3), "shard"),
    ("eval-q-None", lambda c: c.model.eval(q=None), "q"),
    ("eval-impact-str", lambda c: c.model.eval(q=np.zeros(2), impact="no"), "impact"),
    ("eval-actuated-int", lambda c: c.model.eval(q=np.zeros(2), actuated=5), "actuated"),
    ("eval-q-object", lambda c: c.model.eval(q=[0.1, object()]), "q[1]"),
    ("score-None", lambda c: c.fx.score(c.s, "H", None), "H"),
    ("score-3000x3000", lambda c: c.fx.score(c.s, "H", np.zeros((3000, 3000))), "H"),
    ("run_engine-name-None", lambda c: rbdref.run_engine(None, c.fx), "name"),
    ("merge-shards-str", lambda c: rbdref.merge("a.json", "b.json"), "shards")]


@pytest.mark.parametrize("call,field", [n[1:] for n in TYPE_REFUSALS], ids=[n[0] for n in TYPE_REFUSALS])
def test_none_and_wrong_types_name_the_argument(ctx, call, field):
    with pytest.raises(rbdref.InputError) as e:
        call(ctx)
    assert e.value.field == field, (e.value.field, str(e.value))


def _copy(src_path, to):
    to.write_bytes(open(src_path, "rb").read())
    return to


@pytest.mark.parametrize("given", ["Fixture", "path"])
def test_engine_output_is_never_written_over_its_fixture(src, tmp_path, given):
    fx_path = _copy(src("fixtures/golden/double_pendulum.fixture.json"), tmp_path / "pendulum.fixture.json")
    original = fx_path.read_bytes()
    fx = rbdref.Fixture(fx_path)
    out = rbdref.EngineOutput(fx if given == "Fixture" else str(fx_path), engine="x")
    for s in fx.samples:
        out.add(s.id, **Engine(fx.model).run(s))
    (tmp_path / "sub").mkdir()
    for target in (fx_path, str(tmp_path / "." / "pendulum.fixture.json"), tmp_path / "sub" / ".." / "pendulum.fixture.json"):
        with pytest.raises(rbdref.InputError) as e:
            out.write(target)                                        # used to replace the fixture
        assert "is also an input" in str(e.value), str(e.value)
    assert fx_path.read_bytes() == original
    out.write(tmp_path / "e.json")


def test_report_is_never_written_over_what_it_compared(src, tmp_path):
    fx_path = _copy(src("fixtures/golden/double_pendulum.fixture.json"), tmp_path / "pendulum.fixture.json")
    original = fx_path.read_bytes()
    out = audit(rbdref.Fixture(fx_path))
    out.write(tmp_path / "e.json")
    rep = rbdref.compare(fx_path, out)
    for target in (fx_path, tmp_path / "e.json"):
        with pytest.raises(rbdref.InputError):
            rep.write(target)
        with pytest.raises(rbdref.InputError):
            rep.junit(target)
    assert fx_path.read_bytes() == original
    rep.write(tmp_path / "r.json")
    rep.junit(tmp_path / "r.xml")


def test_model_fixture_is_never_written_over_the_model_nor_an_output_over_it(src, tmp_path):
    model_path = _copy(src("fixtures/models/double_pendulum.urdf"), tmp_path / "pendulum.urdf")
    original = model_path.read_bytes()
    model = rbdref.Model(model_path)
    with pytest.raises(rbdref.InputError):
        model.fixture(samples=1, path=model_path)
    made = model.fixture(samples=1, path=tmp_path / "made.json")
    out = rbdref.EngineOutput(made, engine="x")
    out.add(made.samples[0].id, **Engine(made.model).run(made.samples[0]))
    for target in (tmp_path / "made.json", model_path):
        with pytest.raises(rbdref.InputError):
            out.write(target)
    assert model_path.read_bytes() == original


def test_merge_is_never_written_over_a_shard(src, tmp_path):
    model = rbdref.Model(src("fixtures/models/double_pendulum.urdf"))
    parts = [tmp_path / f"p{k}.json" for k in (1, 2)]
    for k, p in enumerate(parts, 1):
        model.fixture(samples=2, path=p, shard=f"{k}/2")
    kept = parts[0].read_bytes()
    with pytest.raises(rbdref.InputError):
        rbdref.merge(parts, parts[0])
    assert parts[0].read_bytes() == kept
