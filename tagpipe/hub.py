"""`tagpipe.from_pretrained`: a tokenizer from a Hub repo id, a local directory or a file.

Hub downloads go through `huggingface_hub` (the optional extra ``tagpipe[hub]``), so its cache,
``HF_HUB_OFFLINE``, ``HF_HOME``/``HF_HUB_CACHE``, ``HF_TOKEN`` and ``HF_ENDPOINT`` work as they
do for transformers.  Only ``tokenizer.json`` is read: a repo that ships nothing but a
SentencePiece ``tokenizer.model`` gets an error saying so (converting it is not native yet).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Union

TOKENIZER_FILE = "tokenizer.json"
SENTENCEPIECE_FILE = "tokenizer.model"


class HubError(OSError):
    """A tokenizer that cannot be fetched; the message says what to do about it."""


def _errors():
    """huggingface_hub's exception classes, wherever this version keeps them."""
    try:
        from huggingface_hub import errors as e
    except ImportError:  # older releases
        from huggingface_hub import utils as e  # type: ignore[no-redef]
    return e


def _local(path: Path, **kw: Any):
    from tagpipe.tokenizer import Tokenizer

    if path.is_file():
        return Tokenizer.from_file(path, **kw)
    if (path / TOKENIZER_FILE).is_file():
        return Tokenizer.from_file(path / TOKENIZER_FILE, **kw)
    if (path / SENTENCEPIECE_FILE).is_file():
        raise HubError(f"{path} holds only a SentencePiece {SENTENCEPIECE_FILE}; tagpipe reads "
                       f"{TOKENIZER_FILE} (convert it with transformers and save_pretrained)")
    raise HubError(f"{path}: no {TOKENIZER_FILE} in this directory")


def from_pretrained(name_or_path: Union[str, os.PathLike], *, revision: Optional[str] = None,
                    token: Optional[Union[str, bool]] = None, cache_dir: Optional[Union[str, os.PathLike]] = None,
                    local_files_only: bool = False, **kw: Any):
    """A :class:`tagpipe.Tokenizer` from a ``tokenizer.json`` path, a directory holding one,
    or a Hugging Face Hub repo id (``"gpt2"``, ``"meta-llama/Llama-3.1-8B"``) at `revision`
    (a branch, tag or commit).  Other keywords go to :class:`tagpipe.Tokenizer`."""
    path = Path(name_or_path)
    if path.exists():
        return _local(path, **kw)
    name = str(name_or_path)
    if name.startswith(("/", ".", "~")) or name.endswith(".json") or name.count("/") > 1 or os.sep in name.replace("/", ""):
        raise HubError(f"{name}: no such file or directory (and not a Hub repo id)")
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise HubError(f"{name!r} is not a file or directory, and loading from the Hub needs "
                       f"huggingface_hub: pip install \"tagpipe[hub]\"") from None
    e = _errors()
    get = dict(revision=revision, token=token, cache_dir=cache_dir, local_files_only=local_files_only)
    try:
        file = hf_hub_download(name, TOKENIZER_FILE, **get)
    except e.GatedRepoError:
        raise HubError(f"{name} is a gated repo: accept its terms on the Hub, then pass token= or set "
                       f"HF_TOKEN (or run `hf auth login`)") from None
    except e.RepositoryNotFoundError:
        raise HubError(f"{name}: no such repo on the Hub (or it is private: pass token= or set "
                       f"HF_TOKEN)") from None
    except e.RevisionNotFoundError:
        raise HubError(f"{name}: no revision {revision!r}") from None
    except e.LocalEntryNotFoundError:
        offline = local_files_only or os.environ.get("HF_HUB_OFFLINE", "0").upper() in ("1", "ON", "YES", "TRUE")
        why = "offline (HF_HUB_OFFLINE or local_files_only)" if offline else "the Hub cannot be reached"
        raise HubError(f"{name}: {why}, and its {TOKENIZER_FILE}"
                       f"{'' if revision is None else f' at {revision}'} is not in the cache") from None
    except (e.EntryNotFoundError, getattr(e, "RemoteEntryNotFoundError", e.EntryNotFoundError)):
        try:
            hf_hub_download(name, SENTENCEPIECE_FILE, **get)
        except Exception:  # noqa: BLE001 - no SentencePiece model either
            raise HubError(f"{name} has no {TOKENIZER_FILE} (not a tokenizer repo?)") from None
        raise HubError(f"{name} ships only a SentencePiece {SENTENCEPIECE_FILE}; tagpipe reads "
                       f"{TOKENIZER_FILE} (try the repo's -hf variant)") from None
    from tagpipe.tokenizer import Tokenizer

    return Tokenizer.from_file(file, **kw)
