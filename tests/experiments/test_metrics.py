import numpy as np
import pytest

from pixsel import experiments as ev  # not 'from ... import test_*': pytest would collect them


def test_test_error_by_hand():
    assert ev.test_error([0, 1, 1, 0, 1], [0, 0, 1, 1, 1]) == pytest.approx(2 / 5)
    assert ev.test_error(["a", "b"], ["a", "b"]) == 0.0
    with pytest.raises(ValueError, match="same shape"):
        ev.test_error([0, 1], [0])


def test_label_entropy_by_hand():
    assert ev.label_entropy([0, 1, 0, 1]) == pytest.approx(1.0)
    # 3/4, 1/4: -(0.75 log2 0.75 + 0.25 log2 0.25) = 0.811278...
    assert ev.label_entropy([5, 5, 5, 3]) == pytest.approx(0.8112781244591328)
    assert ev.label_entropy([1, 1, 1]) == 0.0


def test_test_information_by_hand():
    y = np.array([0, 0, 1, 1])
    p_true = np.array([0.9, 0.6, 0.8, 0.3])
    p1 = np.where(y == 1, p_true, 1 - p_true)
    log_proba = np.log(np.column_stack([1 - p1, p1]))
    # H = 1 bit; mean log2 p(true) = (log2 .9 + log2 .6 + log2 .8 + log2 .3) / 4
    expected = 1.0 + (-0.15200309344504997 - 0.7369655941662062 - 0.32192809488736235 - 1.7369655941662063) / 4
    assert ev.test_information(y, log_proba, [0, 1]) == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(0.263034, abs=1e-6)


def test_test_information_limits_and_classes_order():
    y = np.array([2, 2, 2, 7])  # unbalanced: the ideal is H(y) = 0.811 bits
    perfect = np.where(np.column_stack([y == 2, y == 7]), 0.0, -np.inf)
    assert ev.test_information(y, perfect, [2, 7]) == pytest.approx(ev.label_entropy(y))
    # predicting the label frequencies scores exactly 0
    freq = np.log(np.tile([0.75, 0.25], (4, 1)))
    assert ev.test_information(y, freq, [2, 7]) == pytest.approx(0.0, abs=1e-12)
    # a confident mistake makes it negative
    wrong = np.log(np.tile([0.01, 0.99], (4, 1)))
    assert ev.test_information(y, wrong, [2, 7]) < 0
    with pytest.raises(ValueError, match="not in classes"):
        ev.test_information([0, 3], np.log(np.full((2, 2), 0.5)), [0, 1])
    with pytest.raises(ValueError, match="shape"):
        ev.test_information([0, 1], np.log(np.full((2, 3), 1 / 3)), [0, 1])
