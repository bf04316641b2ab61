import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # numpy_engine

SOURCE = os.environ.get("RBDREF_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


@pytest.fixture
def src():
    return lambda *p: os.path.join(SOURCE, *p)


@pytest.fixture(scope="session")
def panda_fixture(tmp_path_factory):
    import rbdref
    path = tmp_path_factory.mktemp("fx") / "panda.fixture.json.gz"
    return rbdref.Model(os.path.join(SOURCE, "fixtures/models/panda.urdf")).fixture(samples=5, seed=11, path=path)
