"""Online shedding: the join operator, its policies and estimators, and the batch simulator."""

from shedding.online.engine import FeedResult, JoinOperator
from shedding.online.estimators import OnlineEstimator, StaticEstimator, make_estimator
from shedding.online.policies import POLICIES, Policy, get_policy
from shedding.online.simulator import Reference, simulate

__all__ = [
    "FeedResult", "JoinOperator", "OnlineEstimator", "StaticEstimator", "make_estimator",
    "POLICIES", "Policy", "get_policy", "Reference", "simulate",
]
