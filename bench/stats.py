"""The benchmarks' one quantile rule."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

__all__ = ["quantile"]


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (``q`` in hundredths, 0.01-0.99): ``statistics.quantiles``,
    inclusive method (linear interpolation between the nearest ranks; 0.5 is the median); the
    value itself for one value, 0.0 for none.

    >>> quantile([1.0, 2.0, 3.0, 4.0], 0.5), quantile([5.0], 0.99), quantile([], 0.5)
    (2.5, 5.0, 0.0)
    """
    if not values:
        return 0.0
    if len(values) == 1:
        return float(values[0])
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]
