"""The compiled parts of nardtools; everything else is in pyproject.toml.

``nardtools._core`` (built from csrc/*.c, outside the package so that the
sources never import as a namespace package) is the compiled core of the rules.
It is optional at install time: without a C compiler the package installs
without it and the readable Python reference does all the work (slowly).  The
tests require it unless ``NARDTOOLS_ENGINE=reference`` is set.
"""

import sys
from glob import glob

from setuptools import Extension, setup

#: -O3 and -fno-trapping-math let the compiler vectorise the networks' loops
#: (csrc/net.c); neither changes a result.
FLAGS = ["-O3", "-fno-trapping-math", "-std=c11"]
#: Large forward passes run in POSIX threads (csrc/module.c: net_threads).
THREADS = [] if sys.platform == "win32" else ["-pthread"]

setup(ext_modules=[
    Extension("nardtools._core", sorted(glob("csrc/*.c")), depends=sorted(glob("csrc/*.h")),
              optional=True, extra_compile_args=FLAGS + THREADS, extra_link_args=THREADS),
])
