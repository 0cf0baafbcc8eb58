"""Workload sources: synthetic Zipf streams (Das, Gehrke, Riedewald 2003, §4) and CSV/Parquet files.

Names are imported on first use (PEP 562), so that ``import shedding.datasets`` does not load
pandas.
"""

from shedding import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "CORRELATIONS": "zipf", "s_value_map": "zipf", "zipf_probabilities": "zipf", "zipf_workload": "zipf",
    "load_two_streams": "files", "load_workload": "files", "write_workload": "files",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
