"""``spark-submit`` entry point of the streaming join: the flags are those of ``shed stream-join``.

    spark-submit --master spark://HOST:7077 \\
        --driver-java-options "$(python -c 'import shedding.spark as s; print(s.LOG_OPTION)')" \\
        "$(python -c 'import shedding.cli.submit as m; print(m.__file__)')" \\
        --r DIR --s DIR --window 500 --memory 500 --shedding prob --out OUT

Under spark-submit the session takes spark-submit's master and options; ``--master`` is ignored.
The driver option gives spark-submit's JVM, started before this module runs, the package's log4j
configuration, so that the output is the summary and not Spark's log.
"""

import sys

from shedding.cli.group import main

if __name__ == "__main__":
    sys.argv = ["shed", "stream-join", *sys.argv[1:]]
    main()
