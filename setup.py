"""The build of the wheel: setuptools, plus the engines compiled ahead of time into it.

After the package's files are copied into the build folder, ``python -m shedding.cli.engines``
compiles every engine a command reaches, for a generic CPU, into ``shedding/_engines`` there, so
the wheel runs its first command without compiling (shedding/jit.py, "The shipped engines";
docs/install.md). An editable install (``pip install -e``, what ``make`` does) skips it: ``make``
compiles them into the source tree instead. ``SHEDDING_ENGINES=0`` skips it too (a wheel that
compiles on first use, as before).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithEngines(build_py):
    """setuptools' build_py, then the engines compiled into the build folder."""

    def run(self) -> None:
        super().run()
        if self.editable_mode or os.environ.get("SHEDDING_ENGINES") == "0":
            return
        build = Path(self.build_lib).resolve()
        out = build / "shedding" / "_engines"
        shutil.rmtree(out, ignore_errors=True)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(build), os.environ.get("PYTHONPATH")])))
        # run from the build folder: python -m puts the working folder first on the path, and the
        # source tree there would be compiled instead of the copy being built
        subprocess.run([sys.executable, "-m", "shedding.cli.engines", str(out)], env=env, cwd=build, check=True)


setup(cmdclass={"build_py": BuildWithEngines})
