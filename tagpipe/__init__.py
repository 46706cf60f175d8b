"""tagpipe: Hugging Face tokenizers, many times faster, with exactly the same token ids.

Today: the tag stream every later stage reads (:func:`classify`), on every kernel this
CPU runs (:func:`kernels`).
"""
from tagpipe._kernels import KernelInfo, kernels, set_kernel
from tagpipe._kernels import _apply_env as _apply_kernel_env
from tagpipe.classify import Alphabet, Classified, alphabets, classify

__version__ = "0.1.0"
__all__ = ["Alphabet", "Classified", "KernelInfo", "alphabets", "classify", "kernels", "set_kernel"]

_apply_kernel_env()
