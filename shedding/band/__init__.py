"""Band joins |r.a_i - s.a_i| <= eps_i in the sliding-window join engine (issue 13).

``predicate``: exact scaling of attributes and eps; ``exact``: EXACT and pair enumeration;
``estimator``: PROB's band probability from a histogram; ``kernel`` / ``operator``: the band
join operator with the online policies; ``opt``: OPT/OPTV on the compact network;
``static``: static k-truncation on the band join graph.
"""

from .exact import BandIndex, band_archive_metric, band_exact_count, band_exact_pairs
from .predicate import BandWorkload, parse_eps

__all__ = ["BandIndex", "BandWorkload", "band_archive_metric", "band_exact_count", "band_exact_pairs", "parse_eps"]
