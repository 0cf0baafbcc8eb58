"""shedding: semantic load shedding for sliding-window stream joins.

After Das, Gehrke, Riedewald, "Approximate Join Processing Over Data Streams", SIGMOD 2003.
"""

from .datasets import load_two_streams, load_workload, zipf_workload
from .errors import ShedError
from .exact import exact_count, exact_pairs
from .model import RunResult, Schedule, Workload
from .online import JoinOperator, simulate

__all__ = [
    "ShedError", "Workload", "Schedule", "RunResult", "exact_count", "exact_pairs",
    "JoinOperator", "simulate", "zipf_workload", "load_workload", "load_two_streams",
]
__version__ = "0.1.0"
