"""The load-shedding study of Das, Gehrke, Riedewald (SIGMOD 2003), section 4: the suites
``quick``, ``paper``, ``weather-sample``, ``weather`` and ``policies`` (kind ``dgr``), their runs
on Spark, figures in the paper's forms, and the findings that check each experiment's claim."""
