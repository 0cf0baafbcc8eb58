"""The study framework: suites of runs defined in TOML, run on Spark (or here, when runs are timed
against each other), their results kept in one folder, and a self-contained HTML page per suite.

* :mod:`.suite`: the one suite file format (a ``kind`` names the study) and its checks;
* :mod:`.study`: what a study plug-in provides; :mod:`.registry`: the studies by kind;
* :mod:`.runner`: runs any study's plan; :mod:`.store`: the results folder (parts, resume,
  provenance, ``results.parquet``/``.csv``, ``suite.json``);
* :mod:`.page`: the page toolkit (page, sections, tables, figures, verdicts);
* the studies: :mod:`.dgr` (Das, Gehrke, Riedewald, with :mod:`.policies`, the new policies'
  goal), :mod:`.wjoin` and :mod:`.bestmatch`; the streaming join's report
  (:mod:`shedding.streaming.report`) and ``shed explain`` (:mod:`.explain`, :mod:`.explain_page`)
  use the page toolkit too.
"""
