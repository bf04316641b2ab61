"""The Python module against the library and the command line: engines written in Python audited
clean and with planted errors, reference values with their digits, bad input, shards."""
import decimal
import gzip
import json
import os
import subprocess

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
