"""The scoped BLAS thread limit (pixsel._threads)."""

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from pixsel._threads import blas_limit


def _blas_threads():
    return sorted({lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"})


def test_blas_limit_limits_and_restores_and_skips_what_is_already_so():
    before = _blas_threads()
    with threadpool_limits(limits=2, user_api="blas"):
        with blas_limit(1):
            assert _blas_threads() == [1]
            assert float(np.ones((4, 4)).sum()) == 16.0
        assert _blas_threads() == [2]  # restored
        with blas_limit(2):  # already so: nothing to change or restore
            assert _blas_threads() == [2]
        assert _blas_threads() == [2]
    with threadpool_limits(limits=1, user_api="blas"), blas_limit(1):
        assert _blas_threads() == [1]
    assert _blas_threads() == before
    with blas_limit(None):
        assert _blas_threads() == before
