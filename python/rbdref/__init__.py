"""rbdref: reference values for rigid-body dynamics, with the digits that are certified.

The Python face of rbdref's C++ library (docs/python.md). An engine written in, or driven from,
Python is audited in a few lines::

    import rbdref
    fx = rbdref.Fixture("panda.fixture.json.gz")        # made by `rbdref fixture` or Model.fixture
    out = rbdref.EngineOutput(fx, engine="my-engine", version="1.2")
    for s in fx.samples:                                # s.q, s.qd, s.qdd, s.tau: float64 arrays
        out.add(s.id, H=my_H(s.q), C=my_C(s.q, s.qd))
    rep = rbdref.compare(fx, out)
    print(rep.summary); assert rep.passed, rep.digits

Reference values are decimal strings carrying every digit of the working precision (Value.text);
numpy float64 views of them are for convenience and are rounded. Bad input raises InputError,
naming the file, the field and what was expected.
"""

import decimal
import json
import os

import numpy as np

from . import _core

__version__ = _core.__version__

__all__ = [
    "InputError", "ModelError", "EngineError", "Value", "Sample", "Fixture", "EngineOutput", "Report",
    "Model", "Evaluation", "Section", "compare", "check", "engines", "run_engine", "merge", "quantities",
]


class InputError(ValueError):
    """Bad input (a model, fixture, engine output, state or argument): `file`, `field` and the message
    say which and what was expected, as the command line's exit status 2 does."""

    def __init__(self, message, file="", field=""):
        super().__init__(message)
        self.file = file
        self.field = field


class ModelError(ValueError):
    """A model rbdref cannot compute with (a precision's range, a degenerate joint)."""


class EngineError(RuntimeError):
    """An engine adapter refused or failed on a model (run_engine)."""


_core._set_exceptions(InputError, ModelError, EngineError)


def _sample_id(sample):
    return sample.id if isinstance(sample, Sample) else sample


class Value:
    """A reference quantity: decimal text with every digit of the working precision, and its digits.

    text          numpy array of str in the quantity's shape (0-d for a scalar)
    digits        norm-wise certified digits (what compare caps a score at)
    entry_digits  certified digits of each entry, same shape as text
    proven_digits norm-wise proven digits (a fixture or eval made with prove), or None
    np.asarray(value) gives float64 (rounded once from the decimal text); value.decimal() exact
    decimal.Decimal objects.
    """

    def __init__(self, name, shape, text, digits, entry_digits, proven_digits=None, scale=None):
        self.name = name
        self.shape = tuple(shape)
        self.text = np.array(text, dtype=object).reshape(self.shape)
        self.digits = digits
        self.entry_digits = None if entry_digits is None else np.array(entry_digits, dtype=np.int64).reshape(self.shape)
        self.proven_digits = proven_digits
        self.scale = scale

    @classmethod
    def _of(cls, d):
        return cls(d["name"], d["shape"], d["text"], d["digits"], d["entry_digits"] or None, d["proven_digits"], d["scale"])

    def __array__(self, dtype=None, copy=None):
        a = np.array([float(t) for t in self.text.ravel()], dtype=np.float64).reshape(self.shape)
        return a if dtype is None else a.astype(dtype)

    def decimal(self):
        """The values as decimal.Decimal (exact: the decimal text as written), in the quantity's shape."""
        return np.array([decimal.Decimal(t) for t in self.text.ravel()], dtype=object).reshape(self.shape)

    def __getitem__(self, index):
        return self.text[index]

    def __repr__(self):
        return f"<rbdref.Value {self.name} shape={self.shape} digits={self.digits}>"


class Sample:
    """One sample of a fixture: its inputs (float64, the exact doubles the fixture stores) and its
    reference values (sample.ref["H"], sample.ref["loops.lambda"], sample.ref["contacts.qdd"], ...)."""

    def __init__(self, core):
        self._s = core
        self.id = core.id
        self.kind = core.kind

    q = property(lambda self: self._s.q)
    qd = property(lambda self: self._s.qd)
    qdd = property(lambda self: self._s.qdd)
    tau = property(lambda self: self._s.tau)
    condition_number = property(lambda self: self._s.condition_number)
    quantities = property(lambda self: self._s.quantities)

    def reference(self, name):
        """The reference Value of `name`: a tree quantity (H, C, tau, qdd, L, D, kinetic_energy, ...),
        "loops.X", "contacts.X", or an engine-output name (tau_c, lambda, contact_lambda, ...)."""
        d = self._s._reference(name)
        if d is None:
            raise KeyError(f"sample {self.id} has no reference value '{name}' (it has {', '.join(self.quantities)})")
        return Value._of(d)

    @property
    def ref(self):
        return _Lookup(self.reference, self.quantities)

    def __repr__(self):
        return f"<rbdref.Sample {self.id} ({self.kind})>"


class _Lookup:
    def __init__(self, get, keys):
        self._get, self._keys = get, list(keys)

    def __getitem__(self, name):
        return self._get(name)

    def __contains__(self, name):
        try:
            self._get(name)
            return True
        except KeyError:
            return False

    def keys(self):
        return list(self._keys)

    def __iter__(self):
        return iter(self._keys)


class Fixture:
    """A golden fixture (any format version; .json or .json.gz), verified on reading (checksum,
    model hash, every field)."""

    def __init__(self, path):
        self._init(_core.Fixture(path))

    def _init(self, core):
        self._f = core
        self.samples = [Sample(s) for s in core.samples]
        self._by_id = {s.id: s for s in self.samples}

    @classmethod
    def _from_core(cls, core):
        f = cls.__new__(cls)
        f._init(core)
        return f

    path = property(lambda self: self._f.path)
    dofs = property(lambda self: self._f.dofs)
    q_coordinates = property(lambda self: self._f.q_coordinates)
    nv = property(lambda self: self._f.nv)
    nq = property(lambda self: self._f.nq)
    model_name = property(lambda self: self._f.model_name)
    model_sha256 = property(lambda self: self._f.model_sha256)
    precision = property(lambda self: self._f.precision)
    digits = property(lambda self: self._f.digits)
    seed = property(lambda self: self._f.seed)
    warnings = property(lambda self: self._f.warnings)
    shard = property(lambda self: self._f.shard)

    @property
    def model(self):
        """The fixture's model (canonical rbdref.model JSON) as a dict."""
        return json.loads(self._f.model_json)

    def sample(self, sample_id):
        return self._by_id[sample_id]

    def score(self, sample, quantity, values, scalar="double"):
        """One engine quantity at one sample, scored as compare scores it: a dict with digits, cap,
        rel_err, tolerance, passed, worst_entry, engine and reference (the worst entry's values)."""
        return self._f.score(_sample_id(sample), quantity, values, scalar)

    def __len__(self):
        return len(self.samples)

    def __iter__(self):
        return iter(self.samples)

    def __repr__(self):
        return f"<rbdref.Fixture {self.model_name}: {len(self.samples)} samples, nv={self.nv}, {self.precision}>"


class EngineOutput:
    """What an engine computed on a fixture's samples, in rbdref's conventions (docs/formats.md,
    "Engine output"). add() takes numpy arrays: H and L nv x nv, C, tau, qdd, D, tau_c, contact_qdd,
    ... one-dimensional; lambda, contact_lambda and impact_lambda as long as the model says. Decimal
    strings are taken for an engine at an extended precision. A non-finite entry is recorded as the
    engine failing on that sample (a sample failure in the report), not as a number."""

    def __init__(self, fixture, engine, version="", scalar="double", import_path="python", conventions=None):
        fx = fixture._f if isinstance(fixture, Fixture) else fixture
        self._o = _core.EngineOutput(fx, engine, version, scalar, import_path, conventions)
        self.fixture = fixture

    @classmethod
    def _from_core(cls, core, fixture):
        o = cls.__new__(cls)
        o._o, o.fixture = core, fixture
        return o

    def add(self, sample, **quantities):
        """Adds (or replaces) the engine's values at a sample, all or none: each checked by name and
        shape (from the array's metadata, before anything is copied); a non-finite entry records the
        engine failing on the sample instead of the quantity."""
        self._o.add(_sample_id(sample), **quantities)
        return self

    def fail(self, sample, why):
        """Records that the engine failed on the sample (why): a sample failure in every report."""
        self._o.fail(_sample_id(sample), why)
        return self

    def write(self, path):
        """Writes the engine output (atomically: a temporary file, then rename); never over the
        fixture it was made from."""
        self._o.write(path)

    def to_json(self):
        return self._o.to_json()

    engine = property(lambda self: self._o.engine)
    sample_ids = property(lambda self: self._o.sample_ids)


class Report:
    """A comparison (compare) or a check run (check), as the command line reports it.

    passed     every quantity and check within tolerance (or explained by a declared convention)
    digits     {quantity: smallest digits over the samples} of the quantities scored
    quantities {quantity: its score (min_digits, cap, max_rel_err, worst sample and entry, ...)}
    checks     the reference-free checks of the engine's own numbers, one dict per sample and check
    document   the whole rbdref.report document; summary the terminal text; junit() the JUnit XML
    """

    def __init__(self, doc_text, summary, junit, passed, inputs=()):
        self._inputs = list(inputs)  # the files compared: write() and junit() never replace them
        self.document = json.loads(doc_text)
        self.summary = summary
        self._junit = junit
        self.passed = bool(passed)
        self.quantities = {q["quantity"]: q for q in self.document.get("quantities", [])}
        self.digits = {name: q["min_digits"] for name, q in self.quantities.items() if q.get("min_digits") is not None}
        self.checks = self.document.get("checks", [])
        self.notes = self.document.get("notes", [])

    def junit(self, path=None):
        """The JUnit XML text; written atomically to `path` when given."""
        if path is not None:
            _core._write_text(path, self._junit, self._inputs, "Report.junit")
        return self._junit

    def write(self, path):
        """Writes the rbdref.report document (atomically); never over a file it was made from."""
        _core._write_text(path, json.dumps(self.document, indent=1, ensure_ascii=False) + "\n", self._inputs, "Report.write")

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f"<rbdref.Report {'passed' if self.passed else 'FAILED'}: {self.digits}>"


def compare(fixture, output, tol=None):
    """Scores an engine output against a fixture (each a path or an object), as `rbdref compare`;
    tol overrides tolerances per quantity: {"qdd": 1e-9}."""
    fx = fixture._f if isinstance(fixture, Fixture) else fixture
    out = output._o if isinstance(output, EngineOutput) else output
    return Report(*_core._compare(fx, out, tol))


def check(output, fixture=None):
    """The reference-free checks of an engine's own numbers (H symmetric and positive-definite, the
    equation of motion, LᵀDL, loop and contact identities), as `rbdref check`."""
    out = output._o if isinstance(output, EngineOutput) else output
    fx = fixture._f if isinstance(fixture, Fixture) else fixture
    return Report(*_core._check(out, fx))


class Section:
    """The loops or contacts section of an evaluation: section["K"] is a Value, section.info the
    section's other fields (rank, status, cases, ...)."""

    def __init__(self, doc):
        self.info = doc
        self.digits = doc.get("normwise_certified_digits", {})
        self._entry = doc.get("certified_digits", {})

    def __getitem__(self, name):
        return _value_of(self.info, name, self._entry, self.digits, None)

    def __contains__(self, name):
        return name in self.digits

    def keys(self):
        return list(self.digits.keys())

    def __repr__(self):
        return f"<rbdref.Section {sorted(self.digits)}>"


def _shape_of(v):
    shape = []
    while isinstance(v, list):
        shape.append(len(v))
        v = v[0] if v else None
    return tuple(shape)


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield v


def _value_of(doc, name, entry, normwise, proof):
    if name not in doc or doc[name] is None:
        raise KeyError(f"no value '{name}' in this evaluation (degeneracy: {doc.get('degeneracy')})")
    v = doc[name]
    shape = _shape_of(v)
    e = entry.get(name)
    pd = None
    if proof and name in proof and isinstance(proof[name], dict):
        pd = proof[name].get("digits")
    return Value(name, shape, list(_flat(v)), normwise.get(name), None if e is None else list(_flat(e)), pd)


class Evaluation:
    """The reference values of one state (the rbdref.eval document of `rbdref eval`): ev["H"] is a
    Value, ev.digits["H"] its norm-wise certified digits, ev.loops and ev.contacts the sections of a
    closed-loop model or one with contacts, ev.checks the property checks, ev.proof the proof."""

    def __init__(self, text):
        self.document = json.loads(text)
        d = self.document
        self.digits = d.get("normwise_certified_digits", {})
        self.precision = d.get("precision")
        self.positive_definite = d.get("positive_definite")
        self.degeneracy = d.get("degeneracy")
        self.checks = d.get("checks", [])
        self.proof = d.get("proof")
        self.loops = Section(d["loops"]) if isinstance(d.get("loops"), dict) else None
        self.contacts = Section(d["contacts"]) if isinstance(d.get("contacts"), dict) else None
        self.passed = all(c.get("passed") for c in self.checks)

    def __getitem__(self, name):
        proof = (self.proof or {}).get("quantities")
        return _value_of(self.document, name, self.document.get("certified_digits", {}), self.digits, proof)

    def __contains__(self, name):
        return name in self.digits

    def keys(self):
        return list(self.digits.keys())

    def __repr__(self):
        return f"<rbdref.Evaluation {self.precision}: {self.digits}>"


class Model:
    """A model file (URDF, MJCF or rbdref.model JSON) as rbdref loads it, with its import warnings.
    loops and contacts name a loops or contacts file, as --loops and --contacts do."""

    def __init__(self, path, floating_base=False, inertia="accept", loops=None, contacts=None):
        self._m = _core.Model(path, floating_base, inertia, loops, contacts)

    name = property(lambda self: self._m.name)
    kind = property(lambda self: self._m.kind)
    file = property(lambda self: self._m.file)
    sha256 = property(lambda self: self._m.sha256)
    warnings = property(lambda self: self._m.warnings)
    dofs = property(lambda self: self._m.dofs)
    q_coordinates = property(lambda self: self._m.q_coordinates)
    nv = property(lambda self: self._m.nv)
    nq = property(lambda self: self._m.nq)
    loop_joints = property(lambda self: self._m.loop_joints)
    contacts = property(lambda self: self._m.contacts)

    @property
    def canonical(self):
        """The model as rbdref reads it (canonical rbdref.model JSON) as a dict."""
        return json.loads(self._m.canonical_json)

    def eval(self, q, qd=None, qdd=None, tau=None, precision="bin50", actuated=None, impact=False, prove=False,
             tau_loops=None, contact_state=None, max_memory=None):
        """Reference values of one state with their certified digits (and proven ones with prove),
        as `rbdref eval`. q, qd, qdd, tau: arrays of numbers (exact doubles) or decimal strings;
        missing ones are zeros. actuated: DoF names for closed-loop inverse dynamics ("all" or a list).
        max_memory: the memory guard's limit, as --max-memory (bytes, or "8G"; default
        RBDREF_MAX_MEMORY, else 3/4 of the memory): a model that needs more is refused at once."""
        return Evaluation(self._m._eval(q, qd, qdd, tau, precision, actuated, impact, prove, tau_loops, contact_state, max_memory))

    def fixture(self, samples=8, seed=1, precision="bin50", prove=False, threads=0, path=None, shard=None, max_memory=None):
        """A golden fixture of this model (the same document `rbdref fixture` writes for the same
        arguments); written atomically to `path` when given (gzip when it ends in .gz), never over
        the model's files. shard "K/N": only shard K of N of the samples (merge joins the shards).
        max_memory: as for eval; the samples computed at once count, as for `rbdref fixture`."""
        return Fixture._from_core(self._m._fixture(samples, seed, precision, prove, threads, shard, max_memory, path))

    def __repr__(self):
        return f"<rbdref.Model {self.name} ({self.kind}): nq={self.nq}, nv={self.nv}>"


def engines():
    """The engine registry of this build: one dict per engine (name, version, built, joints, loop
    joints, contacts, impact, armature, quantities, import path), as `rbdref engines --json`."""
    return json.loads(_core._engine_registry())["engines"]


def run_engine(name, fixture, source=None):
    """Runs one of this build's engine adapters (engines()) on a fixture's samples: its EngineOutput."""
    fx = fixture._f if isinstance(fixture, Fixture) else fixture
    return EngineOutput._from_core(_core._run_engine(name, fx, source), fixture)


def merge(shards, out):
    """Joins the files of `fixture --shard K/N` (or Model.fixture(shard=...)) into the fixture a
    single run writes, byte for byte; written atomically to `out` (gzip when it ends in .gz)."""
    return Fixture(_core._merge_fixture_shards(shards, out))


def quantities():
    """The quantities an engine output may carry, in rbdref's order."""
    return list(_core._quantities())
