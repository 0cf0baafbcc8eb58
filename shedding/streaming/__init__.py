"""The semantic window join inside Spark Structured Streaming.

* :mod:`~shedding.streaming.shard`: :class:`ShardJoin` (no Spark) holds arrivals back until their
  time step is complete and drives the same :class:`~shedding.online.engine.JoinOperator` as the
  simulator;
* :mod:`~shedding.streaming.partition`: which shard a key belongs to, and each shard's memory;
* :mod:`~shedding.streaming.budget`: one memory budget re-divided over the shards every micro-batch;
* :mod:`~shedding.streaming.replay`: the shards run without Spark, micro-batch by micro-batch;
* :mod:`~shedding.streaming.spark_join`: ``semantic_window_join``, one ShardJoin per shard inside
  ``transformWithStateInPandas`` (:mod:`~shedding.streaming.processor`), over its inputs as tagged
  rows (:mod:`~shedding.streaming.inputs`, event time by :mod:`~shedding.streaming.event_time`),
  with its frequency table (:mod:`~shedding.streaming.frequencies`);
* :mod:`~shedding.streaming.native`: Spark's own stream-stream join of the same window, the baseline;
* :mod:`~shedding.streaming.job`: the ``shed stream-join`` job (checkpoint, query), over its file
  sources (:mod:`~shedding.streaming.sources`), the end of a bounded input
  (:mod:`~shedding.streaming.end_of_input`), Spark settings (:mod:`~shedding.streaming.tuning`),
  paths a cluster shares (:mod:`~shedding.streaming.paths`) and the tables it writes
  (:mod:`~shedding.streaming.results`), with counts in words (:mod:`~shedding.streaming.words`).

The public names are imported on first use (``from shedding.streaming import
semantic_window_join``), so that importing the package, and ``shed --help``, do not load Spark:
:func:`semantic_window_join`, :func:`configure_session`, :class:`EndOfInput`, and
:func:`observed`, which reads a progress report's ``shedding`` totals by name on a classic and
on a Spark Connect session alike.
"""

from __future__ import annotations

from importlib import import_module

#: the public names, by the module that defines them
_PUBLIC = {"semantic_window_join": "spark_join", "configure_session": "spark_join", "metric": "spark_join",
           "EndOfInput": "end_of_input", "observed": "results"}
__all__ = list(_PUBLIC)


def __getattr__(name: str):
    """A public name, imported from its module on first use."""
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_PUBLIC[name]}"), name)
