"""Workload sources: synthetic Zipf streams (paper §4) and CSV/Parquet files."""

from shedding.datasets.files import load_two_streams, load_workload, write_workload
from shedding.datasets.zipf import CORRELATIONS, s_value_map, zipf_probabilities, zipf_workload

__all__ = [
    "CORRELATIONS",
    "load_two_streams",
    "load_workload",
    "s_value_map",
    "write_workload",
    "zipf_probabilities",
    "zipf_workload",
]
