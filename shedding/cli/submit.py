"""``spark-submit`` entry point of the streaming join: the flags are those of ``shed stream-join``.

    spark-submit --master spark://HOST:7077 "$(python -c 'import shedding.cli.submit as m; print(m.__file__)')" \\
        --r DIR --s DIR --window 500 --memory 500 --shedding prob --out OUT

Under spark-submit the session takes spark-submit's master and options; ``--master`` is ignored.
"""

import sys

from shedding.cli.group import main

if __name__ == "__main__":
    sys.argv = ["shed", "stream-join", *sys.argv[1:]]
    main()
