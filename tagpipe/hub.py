"""`tagpipe.from_pretrained`: a tokenizer from a Hub repo id, a local directory or a file.

Hub downloads go through `huggingface_hub` (the optional extra ``tagpipe[hub]``), so its cache,
``HF_HUB_OFFLINE``, ``HF_HOME``/``HF_HUB_CACHE``, ``HF_TOKEN`` and ``HF_ENDPOINT`` work as they
do for transformers.  ``tokenizer.json`` is read when the repo (or directory) has one;
otherwise a SentencePiece ``tokenizer.model`` is converted the way transformers converts a
llama-style BPE model (tagpipe.sentencepiece), with ``add_bos_token``, ``add_eos_token`` and
``legacy`` from ``tokenizer_config.json`` when the repo has one, or refused with the reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional, Union

from tagpipe.sentencepiece import to_tokenizer_json
from tagpipe.tokenizer import Tokenizer

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


CONFIG_FILE = "tokenizer_config.json"


def _sentencepiece_options(config: Optional[Union[str, Path]]) -> dict[str, bool]:
    """What of tokenizer_config.json the SentencePiece conversion uses (transformers' defaults
    when a key is absent or null): add_bos_token, add_eos_token, legacy."""
    if config is None or not Path(config).is_file():
        return {}
    try:
        doc = json.loads(Path(config).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise HubError(f"{config}: not readable JSON ({err})") from None
    out = {}
    for key in ("add_bos_token", "add_eos_token", "legacy"):
        value = doc.get(key) if isinstance(doc, dict) else None
        if value is not None:
            if not isinstance(value, bool):
                raise HubError(f"{config}: {key} is {value!r}, not true or false")
            out[key] = value
    return out


def _from_sentencepiece(path: Union[str, Path], config: Optional[Union[str, Path]] = None, **kw: Any) -> Tokenizer:
    options = _sentencepiece_options(config if config is not None else Path(path).parent / CONFIG_FILE)
    return Tokenizer.from_str(to_tokenizer_json(Path(path).read_bytes(), **options), **kw)


def _hub_config(name: str, get: dict) -> Optional[str]:
    try:
        from huggingface_hub import hf_hub_download

        return hf_hub_download(name, CONFIG_FILE, **get)
    except Exception:  # noqa: BLE001 - absent (or unreachable): transformers' defaults
        return None


def _local(path: Path, **kw: Any) -> Tokenizer:
    if path.is_file():
        if path.suffix == ".model":
            return _from_sentencepiece(path, **kw)
        return Tokenizer.from_file(path, **kw)
    if (path / TOKENIZER_FILE).is_file():
        return Tokenizer.from_file(path / TOKENIZER_FILE, **kw)
    if (path / SENTENCEPIECE_FILE).is_file():
        return _from_sentencepiece(path / SENTENCEPIECE_FILE, **kw)
    raise HubError(f"{path}: no {TOKENIZER_FILE} or {SENTENCEPIECE_FILE} in this directory")


def from_pretrained(
    name_or_path: Union[str, os.PathLike],
    *,
    revision: Optional[str] = None,
    token: Optional[Union[str, bool]] = None,
    cache_dir: Optional[Union[str, os.PathLike]] = None,
    local_files_only: bool = False,
    **kw: Any,
) -> Tokenizer:
    """A :class:`tagpipe.Tokenizer` from a ``tokenizer.json`` path, a SentencePiece
    ``tokenizer.model`` path, a directory holding either, or a Hugging Face Hub repo id
    (``"gpt2"``, ``"meta-llama/Llama-2-7b"``) at `revision` (a branch, tag or commit).  A
    ``tokenizer.json`` wins over a ``tokenizer.model``.  Other keywords go to
    :class:`tagpipe.Tokenizer`."""
    path = Path(name_or_path)
    if path.exists():
        return _local(path, **kw)
    name = str(name_or_path)
    if name.startswith(("/", ".", "~")) or name.endswith(".json") or name.count("/") > 1 or "\\" in name:
        raise HubError(f"{name}: no such file or directory (and not a Hub repo id)")
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise HubError(
            f"{name!r} is not a file or directory, and loading from the Hub needs "
            f'huggingface_hub: pip install "tagpipe[hub]"'
        ) from None
    e = _errors()
    get = dict(revision=revision, token=token, cache_dir=cache_dir, local_files_only=local_files_only)
    try:
        file = hf_hub_download(name, TOKENIZER_FILE, **get)
    except e.GatedRepoError:
        raise HubError(
            f"{name} is a gated repo: accept its terms on the Hub, then pass token= or set "
            f"HF_TOKEN (or run `hf auth login`)"
        ) from None
    except e.RepositoryNotFoundError:
        raise HubError(f"{name}: no such repo on the Hub (or it is private: pass token= or set HF_TOKEN)") from None
    except e.RevisionNotFoundError:
        raise HubError(f"{name}: no revision {revision!r}") from None
    except e.LocalEntryNotFoundError:  # (offline, or the Hub unreachable): a cached model will do
        try:
            model = hf_hub_download(name, SENTENCEPIECE_FILE, **get)
            return _from_sentencepiece(model, _hub_config(name, get) or "", **kw)
        except e.LocalEntryNotFoundError:
            pass
        offline = local_files_only or os.environ.get("HF_HUB_OFFLINE", "0").upper() in ("1", "ON", "YES", "TRUE")
        why = "offline (HF_HUB_OFFLINE or local_files_only)" if offline else "the Hub cannot be reached"
        raise HubError(
            f"{name}: {why}, and neither its {TOKENIZER_FILE} nor its {SENTENCEPIECE_FILE}"
            f"{'' if revision is None else f' at {revision}'} is in the cache"
        ) from None
    except (e.EntryNotFoundError, getattr(e, "RemoteEntryNotFoundError", e.EntryNotFoundError)):
        try:
            model = hf_hub_download(name, SENTENCEPIECE_FILE, **get)
        except Exception:  # noqa: BLE001 - no SentencePiece model either
            raise HubError(f"{name} has no {TOKENIZER_FILE} or {SENTENCEPIECE_FILE} (not a tokenizer repo?)") from None
        return _from_sentencepiece(model, _hub_config(name, get) or "", **kw)
    return Tokenizer.from_file(file, **kw)
