"""tagpipe: Hugging Face tokenizers, faster, with exactly the same token ids.

:class:`Tokenizer` encodes a ``tokenizer.json`` natively (or delegates the whole call to
``tokenizers`` and says why in ``explain()``); :class:`PreTokenizer` runs a pre-tokenizer
section alone; :func:`classify` is the tag stream every stage reads, on every kernel this
CPU runs (:func:`kernels`).
"""

from tagpipe._delegate import DelegationError, delegation_disabled
from tagpipe._kernels import KernelInfo, kernels, set_kernel
from tagpipe._kernels import _apply_env as _apply_kernel_env
from tagpipe._version import __version__ as __version__
from tagpipe.accelerate import accelerate
from tagpipe.classify import Alphabet, Classified, alphabets, classify
from tagpipe.hub import from_pretrained
from tagpipe.integrations import datasets_encode, datasets_encoder, ray_encoder, spark_encode, spark_udf
from tagpipe.pretokenizer import PreTokenized, PreTokenizer
from tagpipe.tokenizer import Tokenizer

__all__ = [
    "accelerate",
    "Alphabet",
    "Classified",
    "DelegationError",
    "KernelInfo",
    "PreTokenized",
    "PreTokenizer",
    "Tokenizer",
    "alphabets",
    "classify",
    "datasets_encode",
    "datasets_encoder",
    "delegation_disabled",
    "from_pretrained",
    "kernels",
    "ray_encoder",
    "set_kernel",
    "spark_encode",
    "spark_udf",
]

_apply_kernel_env()
