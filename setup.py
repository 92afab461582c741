"""Building a wheel also compiles the package's numba loops into it (``attack/_precompile.py``),
so that a fresh installation runs at once at full speed. Every other setting is in
``pyproject.toml``."""

import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCompiledLoops(build_py):
    """``build_py``, then ``python -m attack._precompile`` on the built package (not for an
    editable install, whose loops compile into the source tree on first use). A failure leaves
    the wheel without compiled loops, which then compile on first use, and says so."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        built = os.path.abspath(self.build_lib)
        for folder, _, files in os.walk(built):       # loops compiled by an earlier build
            for name in files:
                if name.endswith((".nbi", ".nbc")):
                    os.remove(os.path.join(folder, name))
        env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
        # the built package first; pip's build environment may come by PYTHONPATH too
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [built, env.get("PYTHONPATH")]))
        done = subprocess.run([sys.executable, "-m", "attack._precompile"], cwd=built, env=env,
                              check=False)
        if done.returncode:
            self.warn("the numba loops could not be compiled into the wheel; "
                      "they will compile on first use")


setup(cmdclass={"build_py": BuildWithCompiledLoops})
