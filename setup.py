"""The compiled accelerator for ``nardtools validate`` (nardtools/_fastmat.c).

Everything else is in pyproject.toml.  The extension is optional: without a C
compiler the package installs without it and validation uses the reference
replay for every file.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("nardtools._fastmat", ["nardtools/_fastmat.c"], optional=True,
                             extra_compile_args=["-O2"])])
