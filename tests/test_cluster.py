"""The one Dask client helper: a bad scheduler address is a clear one-line error."""

import pytest

from spycfr.cluster import dask_client
from spycfr.errors import SpycfrError


def test_an_unreachable_scheduler_is_a_clear_error():
    with pytest.raises(SpycfrError, match=r"cannot reach the Dask scheduler at "
                                          r"'tcp://127\.0\.0\.1:1': ") as caught:
        with dask_client("tcp://127.0.0.1:1", timeout="1s"):
            pytest.fail("connected to a closed port")
    assert "\n" not in str(caught.value)
