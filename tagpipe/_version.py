"""tagpipe's version, at the bottom of the import layers so any module can name it
(`tagpipe.__version__` is this; pyproject.toml carries the same number)."""

__version__ = "0.1.0"
