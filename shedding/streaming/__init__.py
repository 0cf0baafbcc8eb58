"""The semantic window join inside Spark Structured Streaming.

:class:`~shedding.streaming.shard.ShardJoin` (no Spark) holds arrivals back until their time step
is complete and drives the same :class:`~shedding.online.engine.JoinOperator` as the simulator;
:mod:`~shedding.streaming.spark_join` runs one per shard inside ``transformWithStateInPandas``.
"""

from .partition import shard_budgets, shard_of
from .shard import SHEDDING, JoinSpec, ShardJoin

__all__ = ["JoinSpec", "ShardJoin", "SHEDDING", "shard_budgets", "shard_of"]
