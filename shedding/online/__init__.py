"""Online shedding: the join operator, its policies and estimators, and the batch simulator."""

from .engine import FeedResult, JoinOperator
from .estimators import OnlineEstimator, StaticEstimator, make_estimator
from .policies import POLICIES, Policy, get_policy
from .simulator import Reference, simulate

__all__ = [
    "FeedResult", "JoinOperator", "OnlineEstimator", "StaticEstimator", "make_estimator",
    "POLICIES", "Policy", "get_policy", "Reference", "simulate",
]
