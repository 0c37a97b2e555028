"""A NaN found inside one block (or Dask chunk) of rows is reported at its row in X."""

import dask.array as da
import numpy as np
import pytest

from pixsel._validation import check_finite
from pixsel.stats import class_means, class_statistics
from pixsel.stats._reduce import block_reduce, sum_partials

MSG = r"X \(rows 200 to 249\) contains 1 NaN .* the first at index \(217, 3\)"


def _nan_data():
    X = np.ones((300, 5), dtype=np.float32)
    X[217, 3] = np.nan
    return X, np.arange(300) % 2


@pytest.mark.parametrize("f", [class_statistics, class_means])
def test_nan_in_a_later_chunk_is_reported_at_its_global_row(f):
    X, y = _nan_data()
    with pytest.raises(ValueError, match=MSG):
        f(da.from_array(X, chunks=(50, 5)), y)
    with pytest.raises(ValueError, match=r"the first at index \(217, 3\)"):
        f(X, y)


def test_in_memory_blocks_report_global_rows():
    X, _ = _nan_data()

    def part(xb):
        return check_finite(xb, "a block").sum(axis=0)

    with pytest.raises(ValueError, match=MSG):  # 50 rows per block of float64 working memory
        block_reduce(part, sum_partials, X, block_bytes=8 * 5 * 50)
