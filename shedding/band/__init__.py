"""Band joins |r.a_i - s.a_i| <= eps_i in the sliding-window join engine (issue 13).

``predicate``: exact scaling of attributes and eps; ``exact``: EXACT, pair enumeration and ArM;
``estimator``: PROB's band probability from a histogram (static or online); ``kernel`` /
``operator``: the band join operator with the online policies; ``simulate``: a policy over a whole
workload; ``opt``: OPT/OPTV on the compact network; ``static``: static k-truncation on the band
join graph; ``cli``: ``shed simulate --predicate band``.
"""

from shedding.band.exact import BandIndex, band_archive_metric, band_exact_count, band_exact_pairs
from shedding.band.predicate import BandWorkload, parse_eps

__all__ = ["BandIndex", "BandWorkload", "band_archive_metric", "band_exact_count", "band_exact_pairs", "parse_eps"]
