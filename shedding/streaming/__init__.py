"""The semantic window join inside Spark Structured Streaming.

* :mod:`~shedding.streaming.shard`: :class:`ShardJoin` (no Spark) holds arrivals back until their
  time step is complete and drives the same :class:`~shedding.online.engine.JoinOperator` as the
  simulator;
* :mod:`~shedding.streaming.partition`: which shard a key belongs to, and each shard's memory;
* :mod:`~shedding.streaming.spark_join`: ``semantic_window_join``, one ShardJoin per shard inside
  ``transformWithStateInPandas`` (:mod:`~shedding.streaming.processor`), with its frequency table
  (:mod:`~shedding.streaming.frequencies`);
* :mod:`~shedding.streaming.native`: Spark's own stream-stream join of the same window, the baseline;
* :mod:`~shedding.streaming.job`: the ``shed stream-join`` job (checkpoint, query), over its file
  sources (:mod:`~shedding.streaming.sources`), the end of a bounded input
  (:mod:`~shedding.streaming.end_of_input`), Spark settings (:mod:`~shedding.streaming.tuning`)
  and the tables it writes (:mod:`~shedding.streaming.results`).

Nothing is imported here, so that ``shed --help`` does not load Spark.
"""
