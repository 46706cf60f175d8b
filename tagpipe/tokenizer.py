"""Tokenizer: a tokenizer.json encoded natively, id for id with `tokenizers`.

    >>> tok = tagpipe.Tokenizer.from_file("tokenizer.json")
    >>> tok.encode("Hello world")             # list[int], the same ids as tokenizers
    >>> tok.encode_to_numpy("Hello world")    # uint32 array, no Python list
    >>> tok.encode_batch_flat(texts)          # (ids uint32[N], offsets int64[n+1]), all cores
    >>> tok.encode_arrow(pa_string_array)     # Arrow list<uint32>; Arrow/numpy/pandas input
    >>> tok.encode_batch_pairs(texts, pairs)   # Encodings: ids, type ids, special-tokens/attention masks
    >>> tok.decode(ids)                       # the text, as tokenizers' decode; decode_batch, decode_stream
    >>> print(tok.explain())                  # every stage: native or delegated, and why

Every stage runs in C++ when tagpipe runs all of them exactly; otherwise the whole call
goes to `tokenizers` (correct first) and `explain()` says why.  Under
`tagpipe.delegation_disabled()` (or TAGPIPE_DELEGATION=error) a delegation raises
instead.  A text whose normalization tagpipe cannot prove to be the identity (NFC on a
text that is not NFC-inert) is delegated per call.  Which stages are native, and the
native encoder's configuration: tagpipe.plan, from the file as tagpipe.spec reads it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from tagpipe import _core
from tagpipe._delegate import DelegationError, delegation_allowed, oracle
from tagpipe.decoding import DecodeStream, flag
from tagpipe.encodings import FIELDS, Encoding, Encodings
from tagpipe.plan import plan_tokenizer
from tagpipe.plan.rows import Side, post_process
from tagpipe.pretokenizer import _utf8
from tagpipe.sequences import Sequences, check_unicode
from tagpipe.spec import TokenizerJsonError, load_tokenizer_json

DEFAULT_CACHE_BYTES = 128 << 20  # the word cache budget, all threads of one Tokenizer together
ENV_CACHE = "TAGPIPE_CACHE_BYTES"


def _default_cache_bytes() -> int:
    value = os.environ.get(ENV_CACHE)
    if value is None:
        return DEFAULT_CACHE_BYTES
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"{ENV_CACHE}={value!r} is not a number of bytes") from None
    if n < 0:
        raise ValueError(f"{ENV_CACHE}={value!r} must not be negative")
    return n


def _unpickle(version: int, json_text: str, options: dict[str, Any]) -> "Tokenizer":
    if version != 1:
        raise ValueError(f"a tagpipe.Tokenizer pickled by a newer tagpipe (format {version})")
    return Tokenizer(json_text, **options)


# -- the tokenizer -----------------------------------------------------------------------------


class Tokenizer:
    """A tokenizer.json, encoded natively where every stage is native."""

    def __init__(self, json_text: str, *, cache_bytes: Optional[int] = None, metaspace_runs: bool = True):
        """`cache_bytes`: the word cache budget (default 128 MiB, or TAGPIPE_CACHE_BYTES);
        `metaspace_runs=False` keeps a never-cutting pipeline whole (tagpipe.plan.metaspace)."""
        self._json = json_text
        loaded = load_tokenizer_json(json_text)
        self._options = {"cache_bytes": cache_bytes, "metaspace_runs": metaspace_runs}
        self._cache_bytes = _default_cache_bytes() if cache_bytes is None else int(cache_bytes)
        if self._cache_bytes < 0:
            raise ValueError("cache_bytes must not be negative")
        self.plan, config = plan_tokenizer(loaded, self._cache_bytes, metaspace_runs)
        del loaded
        self._post = self.plan.post
        self._vocab_size = self.plan.id_bound
        self._native = _core.Encoder(config) if config is not None else None  # (takes over config's tables)
        decoder_config, self.plan.decoder_config = self.plan.decoder_config, None
        self._decoder = _core.Decoder(decoder_config) if decoder_config is not None else None
        del decoder_config
        # (the post-processor's tokens around one sequence, when native: tagpipe.accelerate)
        self._special_ids = (list(self.plan.prefix_ids), list(self.plan.suffix_ids)) if self.native else ([], [])
        self._runs = self.native and self.plan.metaspace_runs
        self._oracle = None
        # (each text's sequence before the post-processor: ids, offsets, delegated texts)
        self._sequences = Sequences(json_text, self._native, self.plan, self._oracle_tokenizer)
        if self._native is None and not delegation_allowed():
            raise DelegationError("this tokenizer would be delegated to tokenizers: " + "; ".join(self.plan.reasons()))

    def __reduce__(self):
        """Pickles as its tokenizer.json and options (small, rebuilt natively where unpickled:
        worker processes of datasets, Ray or Spark get the same ids)."""
        return (_unpickle, (1, self._json, dict(self._options)))

    def to_str(self) -> str:
        """The tokenizer.json text this tokenizer was built from."""
        return self._json

    @property
    def options(self) -> dict[str, Any]:
        """The keyword arguments this tokenizer was built with (cache_bytes, metaspace_runs)."""
        return dict(self._options)

    @property
    def special_ids(self) -> tuple[list[int], list[int]]:
        """The ids the post-processor puts before and after one sequence, when native
        (both empty for a delegated tokenizer)."""
        return list(self._special_ids[0]), list(self._special_ids[1])

    @functools.cached_property
    def sha256(self) -> str:
        """The sha256 (hex) of `to_str()`'s UTF-8: the name of this tokenizer in manifests,
        provenance records and worker checks."""
        return hashlib.sha256(self._json.encode("utf-8")).hexdigest()

    # -- loading --
    @classmethod
    def from_file(cls, path: Union[str, os.PathLike], **kw) -> "Tokenizer":
        raw = Path(path).read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:  # the oracle refuses these files too
            raise TokenizerJsonError("", f"{path}: not UTF-8 (byte 0x{raw[e.start]:02X} at offset {e.start})") from None
        del raw  # (not held through the load: a big file would be in memory twice)
        return cls(text, **kw)

    @classmethod
    def from_str(cls, json_text: str, **kw) -> "Tokenizer":
        return cls(json_text, **kw)

    @classmethod
    def from_hf(cls, obj: Any, **kw) -> "Tokenizer":
        """From a `tokenizers.Tokenizer` or a transformers fast tokenizer."""
        backend = getattr(obj, "backend_tokenizer", obj)
        if not hasattr(backend, "to_str"):
            raise TypeError(
                f"from_hf expects a tokenizers.Tokenizer or a transformers fast tokenizer, got {type(obj).__name__}"
            )
        return cls(backend.to_str(), **kw)

    # -- what runs where --
    @property
    def native(self) -> bool:
        return self._native is not None

    @property
    def metaspace_runs(self) -> bool:
        """Whether MetaspaceRuns cuts this tokenizer's never-cutting pipeline (see
        tagpipe.plan.metaspace; explain() says why not)."""
        return self._runs

    def explain(self) -> str:
        head = "tagpipe: " + ("native" if self.native else "DELEGATED to tokenizers")
        lines = [head] + ["  " + str(s) for s in self.plan.steps]
        if self._native is not None:
            why_not = self._native.cut_rule()  # None: not BPE
            if why_not is not None:
                but = self._native.cut_exception()
                lines.append(
                    "  BPE cuts: "
                    + (
                        f"off ({why_not})"
                        if why_not
                        else "a new piece of 16+ bytes is cut before each character no merge can bridge "
                        "to the one before it (cpp/model/bridge_cuts.h)" + (f"; {but}" if but else "")
                    )
                )
                seed = self._native.seed_size
                lines.append(
                    f"  word seed: {seed} vocabulary strings are their own token when the word cache "
                    "misses (cpp/model/word_seed.h)"
                    if seed
                    else "  word seed: none (a continuing_subword_prefix or end_of_word_suffix, or "
                    "vocabulary strings that share an id)"
                )
        if self._native is not None:
            why = self.plan.offsets.why
            lines.append(
                "  offsets: "
                + (
                    f"DELEGATED: {why}"
                    if why
                    else "native (cpp/encode/offsets.h; a text whose spans are not proven is delegated)"
                )
            )
        if self.plan.decoder is not None:
            lines.append("  " + str(self.plan.decoder))
        return "\n".join(lines)

    def _oracle_tokenizer(self):
        if not delegation_allowed():  # checked on every call, not only the first
            raise DelegationError(
                "this call would be delegated to tokenizers: " + "; ".join(self.plan.reasons())
                if not self.native
                else "this text needs a normalization tagpipe does not run, "
                "or an unknown piece meets a model without its unk token (the oracle raises)"
            )
        if self._oracle is None:
            self._oracle = oracle().Tokenizer.from_str(self._json)
        return self._oracle

    def _delegate(self, text: str, add_special_tokens: bool) -> list[int]:
        if add_special_tokens and self.plan.special_tokens_error is not None:
            raise TokenizerJsonError(*self.plan.special_tokens_error)  # (the oracle would panic)
        try:
            return self._oracle_tokenizer().encode(text, add_special_tokens=add_special_tokens).ids
        except TypeError:  # tokenizers' word for a lone surrogate; ours names it
            _utf8(text)
            raise

    # -- encoding --
    def encode_to_numpy(self, text: str, add_special_tokens: bool = True) -> np.ndarray:
        """The ids of one text as a uint32 array (no Python list is built)."""
        if not isinstance(text, str):
            raise TypeError(f"encode expects str, got {type(text).__name__}")
        if self._native is not None:
            cut = self._post.native(add_special_tokens)
            try:
                ids = self._native.encode(text, add_special_tokens, *(cut or (-1, False)))
            except UnicodeEncodeError:
                _utf8(text)  # raises the clear ValueError
                raise
            if ids is not None and self._post.active:
                offsets = np.array([0, len(ids)], dtype=np.int64)
                if cut is None and self._post.failing(np.diff(offsets), add_special_tokens)[0]:
                    ids = None  # the oracle's error: it raises it
                else:
                    if cut is None:
                        ids, offsets = self._post.truncate(ids, offsets, add_special_tokens)
                    ids, _ = self._post.pad(ids, offsets)
            if ids is not None:
                return ids
        return np.asarray(self._delegate(text, add_special_tokens), dtype=np.uint32)

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        """The ids of one text, as tokenizers' ``encode(text).ids``."""
        return self.encode_to_numpy(text, add_special_tokens).tolist()

    def encode_batch_flat(
        self,
        texts: Sequence[str],
        add_special_tokens: bool = True,
        num_threads: Optional[int] = None,
        *,
        nulls: str = "error",
    ) -> tuple[np.ndarray, np.ndarray]:
        """All ids of many texts: (ids uint32[N], offsets int64[len(texts) + 1]); text i is
        ids[offsets[i]:offsets[i + 1]].  Runs on `num_threads` native threads (default: every
        core; one inside a data engine's worker process, see docs/distributed.md) with the
        GIL released.

        `texts`: a sequence of str, a numpy array of str (object or <U), a pandas Series,
        or a pyarrow StringArray / LargeStringArray / ChunkedArray -- Arrow columns are read
        from their buffers, with no Python str per row.  A null Arrow row raises ValueError
        naming it, unless ``nulls="null"``: then it has no ids (see `encode_arrow`)."""
        from tagpipe.columns import ArrowText, text_column

        column = text_column(texts, nulls)
        if isinstance(column, ArrowText):
            return self._encode_arrow_text(column, add_special_tokens, num_threads)
        texts = list(column)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"encode_batch expects str items, item {i} is {type(t).__name__}")
        threads = self._threads(num_threads)
        if self._native is None:
            check_unicode(texts)
            return self._post.pad(*self._delegate_all(texts, add_special_tokens))
        cut = self._post.native(add_special_tokens)
        try:
            ids, offsets, delegate = self._native.encode_batch(
                texts, add_special_tokens, threads, *(cut or (-1, False))
            )
        except UnicodeEncodeError:
            check_unicode(texts)
            raise
        return self._finish(ids, offsets, delegate, texts.__getitem__, add_special_tokens, cut=cut)

    @staticmethod
    def _threads(num_threads: Optional[int]) -> int:
        """None: every core -- or 1 inside a data engine's worker process (Spark, Ray, a
        process pool such as datasets' num_proc), where the engine already uses every core."""
        if num_threads is None:
            from tagpipe._threads import default_threads

            return default_threads()
        threads = int(num_threads)
        if threads < 1:
            raise ValueError("num_threads must be at least 1")
        return threads

    def _delegate_all(self, texts: Sequence[str], add_special_tokens: bool) -> tuple[np.ndarray, np.ndarray]:
        parts = [np.asarray(self._delegate(t, add_special_tokens), dtype=np.uint32) for t in texts]
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in parts], out=offsets[1:])
        return (np.concatenate(parts) if parts else np.zeros(0, np.uint32)), offsets

    def _finish(self, ids, offsets, delegate, text_of, add_special_tokens, live=None, cut=None):
        """A native batch's truncation (unless the encoder did it: `cut`, from
        PostProcess.native), its delegated texts' oracle ids (the oracle truncates and pads
        each), then the padding of the batch (rows not `live` -- null -- stay empty)."""
        if self._post.active and cut is None:
            delegate = delegate.astype(bool) | self._post.failing(np.diff(offsets), add_special_tokens)
            ids, offsets = self._post.truncate(ids, offsets, add_special_tokens)
        ids, offsets = self._splice_delegated(ids, offsets, delegate, text_of, add_special_tokens)
        return self._post.pad(ids, offsets, live)

    def _splice_delegated(self, ids, offsets, delegate, text_of, add_special_tokens):
        """Rare: texts whose normalization is not native come back empty and flagged; their
        oracle ids are spliced in (text_of(i) gives text i as a str)."""
        if not delegate.any():
            return ids, offsets
        parts = [
            ids[offsets[i] : offsets[i + 1]]
            if not delegate[i]
            else np.asarray(self._delegate(text_of(i), add_special_tokens), dtype=np.uint32)
            for i in range(len(delegate))
        ]
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in parts], out=offsets[1:])
        return (np.concatenate(parts) if parts else np.zeros(0, np.uint32)), offsets

    def _encode_arrow_text(self, column, add_special_tokens: bool, num_threads: Optional[int]):
        threads = self._threads(num_threads)
        live = None if column.null_mask is None else ~column.null_mask
        if self._native is None:
            rows = range(len(column)) if live is None else np.flatnonzero(live)
            texts = {int(i): column.text(int(i)) for i in rows}
            parts = [
                np.asarray(self._delegate(texts[i], add_special_tokens), dtype=np.uint32)
                if i in texts
                else np.zeros(0, np.uint32)
                for i in range(len(column))
            ]
            offsets = np.zeros(len(parts) + 1, dtype=np.int64)
            np.cumsum([len(p) for p in parts], out=offsets[1:])
            return self._post.pad(np.concatenate(parts) if parts else np.zeros(0, np.uint32), offsets, live)
        cut = self._post.native(add_special_tokens)
        ids, offsets, delegate = self._native.encode_spans(
            column.data, column.starts, column.ends, add_special_tokens, threads, *(cut or (-1, False))
        )
        if live is not None and live.size and not live.all():  # null rows: no ids, not even specials
            lengths = np.diff(offsets)
            keep = np.repeat(live, lengths)
            ids = ids[keep]
            lengths[~live] = 0
            offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
            delegate = delegate & live
        return self._finish(ids, offsets, delegate, column.text, add_special_tokens, live, cut=cut)

    def encode_arrow(
        self, texts: Any, add_special_tokens: bool = True, num_threads: Optional[int] = None, *, nulls: str = "error"
    ) -> Any:
        """The ids of a text column as an Arrow ``list<uint32>`` array (``large_list`` past
        2**31 - 1 ids), built from the flat ids and offsets without a copy per row: what
        datasets, Ray Data and Spark store as is.  `texts` as for `encode_batch_flat`; with
        ``nulls="null"`` a null text gives a null row."""
        import pyarrow as pa

        from tagpipe.columns import ArrowText, text_column

        column = text_column(texts, nulls)
        ids, offsets = (
            self._encode_arrow_text(column, add_special_tokens, num_threads)
            if isinstance(column, ArrowText)
            else self.encode_batch_flat(column, add_special_tokens, num_threads)
        )
        mask = None
        if isinstance(column, ArrowText) and column.null_mask is not None:
            mask = pa.array(column.null_mask)
        values = pa.array(ids, type=pa.uint32())
        if offsets[-1] <= np.iinfo(np.int32).max:
            return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values, mask=mask)
        return pa.LargeListArray.from_arrays(pa.array(offsets), values, mask=mask)

    def encode_batch(
        self, texts: Sequence[str], add_special_tokens: bool = True, num_threads: Optional[int] = None
    ) -> list[list[int]]:
        """The ids of each text (a list per text); `texts` as for `encode_batch_flat`."""
        ids, offsets = self.encode_batch_flat(texts, add_special_tokens, num_threads)
        flat = ids.tolist()
        return [flat[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]

    # -- pairs, type ids, masks, offsets and overflowing rows --
    def encode_bodies(self, texts: Sequence[str], num_threads: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        """The ids of each text without special tokens, truncation or padding -- each sequence
        as tokenizers encodes it before its post-processing: (ids uint32[N], offsets
        int64[n + 1]), as `encode_batch_flat`."""
        side = self._sequences.ids(list(texts), self._threads(num_threads))
        return side.ids, side.offsets

    def encode_sides(
        self, texts: list[str], pairs: Optional[list[str]], num_threads: Optional[int] = None, offsets: bool = False
    ) -> tuple[Side, Optional[Side]]:
        """The sequences of the texts and of their pairs (None: no pairs), in one native call:
        `encode_bodies`' ids and, with `offsets`, each token's characters (tagpipe.sequences)."""
        both = texts if pairs is None else texts + pairs
        threads = self._threads(num_threads)
        side = self._sequences.offsets(both, threads) if offsets else self._sequences.ids(both, threads)
        if pairs is None:
            return side, None
        return side.split(len(texts))

    def encode_batch_pairs(
        self,
        texts: Sequence[str],
        pairs: Optional[Sequence[str]] = None,
        add_special_tokens: bool = True,
        num_threads: Optional[int] = None,
        *,
        offsets: bool = False,
        overflowing: bool = False,
    ) -> Encodings:
        """Each text -- with its pair, ``pairs[i]``, when `pairs` is given -- as tokenizers'
        ``encode_batch(list(zip(texts, pairs)))``: ids, type ids, special-tokens masks and
        attention masks (`Encodings`, flat; ``[i]`` gives row i), with this file's truncation
        and padding; with `offsets` each token's characters in its text (``offset_mapping``),
        with `overflowing` each input's overflowing rows after its first (the windows its
        truncation's ``stride`` makes, ``overflow_to_sample_mapping``).  The sequences are
        encoded natively, then laid out with numpy (tagpipe.plan.rows); what is not native
        (``explain_pairs()``, ``explain_offsets()``), or a row that is the oracle's truncation
        error, goes to tokenizers (which raises that error)."""
        texts = list(texts)
        if pairs is not None:
            pairs = list(pairs)
            if len(pairs) != len(texts):
                raise ValueError(f"{len(texts)} texts but {len(pairs)} pairs")
        is_pair = pairs is not None
        why = self.explain_pairs(is_pair) or (self.explain_offsets() if offsets else "")
        if not why and overflowing:
            why = self.plan.layout.windows_why(is_pair)
        if why or self._native is None:
            return self._oracle_pairs(texts, pairs, add_special_tokens, offsets, overflowing)
        if add_special_tokens and self.plan.special_tokens_error is not None:
            raise TokenizerJsonError(*self.plan.special_tokens_error)
        a, b = self.encode_sides(texts, pairs, num_threads, offsets)
        trims = self._sequences.trims if offsets else None
        rows, failing = post_process(self.plan.layout, a, b, self._post, add_special_tokens, overflowing, trims)
        if rows is None:  # the oracle's truncation error: it raises it
            i = int(np.flatnonzero(failing)[0])
            one = None if pairs is None else [pairs[i]]
            return self._oracle_pairs([texts[i]], one, add_special_tokens, offsets, overflowing)
        return Encodings(
            rows.ids, rows.type_ids, rows.special_tokens_mask, rows.attention_mask, rows.offsets, rows.offset_mapping,
            rows.sample,
        )  # fmt: skip

    def encode_pair(
        self,
        text: str,
        pair: Optional[str] = None,
        add_special_tokens: bool = True,
        *,
        offsets: bool = False,
        overflowing: bool = False,
    ) -> Encoding:
        """One text (and its pair) as `encode_batch_pairs` does it: an `Encoding` of lists, its
        overflowing rows in ``.overflowing``."""
        rows = self.encode_batch_pairs(
            [text], None if pair is None else [pair], add_special_tokens, 1, offsets=offsets, overflowing=overflowing
        )
        first = rows[0]
        if len(rows) == 1:
            return first
        return dataclasses.replace(first, overflowing=[rows[i] for i in range(1, len(rows))])

    def explain_pairs(self, is_pair: bool = True) -> str:
        """Why `encode_batch_pairs` (and accelerate's type ids and pairs) go to tokenizers for
        this post-processor ("" when native)."""
        layout = self.plan.layout
        if layout is None:
            return self.plan.layout_why
        return layout.why if is_pair and layout.pair is None else ""

    @property
    def offsets_trim(self) -> Optional[bool]:
        """None, or the trim the post-processor makes of the offsets (``trim_offsets``), as
        its ``add_prefix_space``: what tagpipe.plan.rows.post_process takes."""
        return self._sequences.trims

    def explain_offsets(self) -> str:
        """Why offsets (``encode_batch_pairs(offsets=True)``, accelerate's
        ``return_offsets_mapping``) go to tokenizers for this tokenizer ("" when native)."""
        if not self.native:
            return "tagpipe delegates this tokenizer"
        return self.plan.offsets.why

    def _oracle_pairs(
        self, texts: list[str], pairs: Optional[list[str]], add_special_tokens: bool, offsets: bool, overflowing: bool
    ) -> Encodings:
        inputs = texts if pairs is None else list(zip(texts, pairs))
        encs = self._oracle_tokenizer().encode_batch(inputs, add_special_tokens=add_special_tokens)
        rows = [(i, r) for i, e in enumerate(encs) for r in ([e] + list(e.overflowing) if overflowing else [e])]
        lengths = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(r.ids) for _, r in rows], out=lengths[1:])
        arrays = [
            np.asarray([v for _, r in rows for v in getattr(r, f)], dtype=np.uint32 if f.endswith("ids") else np.uint8)
            for f in FIELDS
        ]
        spans = np.asarray([o for _, r in rows for o in r.offsets], dtype=np.int64).reshape(-1, 2) if offsets else None
        sample = np.asarray([i for i, _ in rows], dtype=np.int64) if overflowing else None
        return Encodings(*arrays, lengths, spans, sample)

    # -- decoding --
    @property
    def native_decode(self) -> bool:
        """Whether decode runs natively (explain()'s "decoder" line says why not)."""
        return self._decoder is not None

    def _decode_oracle(self):
        """The oracle, for a delegated decode (or one the oracle panics on: its exception)."""
        if not delegation_allowed():
            why = self.plan.decoder.how if self._decoder is None else "the oracle panics on these ids"
            raise DelegationError("this decode would be delegated to tokenizers: " + why)
        if self._oracle is None:
            self._oracle = oracle().Tokenizer.from_str(self._json)
        return self._oracle

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """The text of these ids, as tokenizers' ``decode(ids, skip_special_tokens)``: `ids` a
        sequence of ints or a numpy integer array; ids the vocabulary does not hold are
        skipped; a negative id, or one past 2**32 - 1, is an OverflowError."""
        skip = flag(skip_special_tokens)
        if self._decoder is not None:
            text = self._decoder.decode(ids, skip)
            if text is not None:
                return text
        return self._decode_oracle().decode(ids, skip_special_tokens=skip)

    def decode_batch(
        self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True, num_threads: Optional[int] = None
    ) -> list[str]:
        """`decode` of each id sequence (or of each row of a 2-D integer array), on
        `num_threads` native threads (default: every core) with the GIL released."""
        skip = flag(skip_special_tokens)
        if self._decoder is None:
            return self._decode_oracle().decode_batch(sequences, skip_special_tokens=skip)
        texts = self._decoder.decode_batch(sequences, skip, self._threads(num_threads))
        return self._decode_missing(texts, lambda i: sequences[i], skip)

    def decode_batch_flat(
        self, ids: Any, offsets: Any, skip_special_tokens: bool = True, num_threads: Optional[int] = None
    ) -> list[str]:
        """`decode_batch` of the flat form `encode_batch_flat` returns: text i is the decode of
        ids[offsets[i]:offsets[i + 1]]."""
        skip = flag(skip_special_tokens)
        offsets = np.asarray(offsets, dtype=np.int64)
        if self._decoder is None:
            flat = np.asarray(ids)
            rows = [flat[offsets[i] : offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]
            return self._decode_oracle().decode_batch(rows, skip_special_tokens=skip)
        texts = self._decoder.decode_flat(ids, offsets, skip, self._threads(num_threads))
        return self._decode_missing(texts, lambda i: np.asarray(ids)[offsets[i] : offsets[i + 1]].tolist(), skip)

    def _decode_missing(self, texts: list, ids_of, skip: bool) -> list[str]:
        """The texts the oracle panics on (None from the native decode): its exception."""
        for i, t in enumerate(texts):
            if t is None:
                texts[i] = self._decode_oracle().decode(ids_of(i), skip_special_tokens=skip)
        return texts

    def decode_stream(self, skip_special_tokens: bool = False, ids: Optional[Sequence[int]] = None) -> DecodeStream:
        """A `DecodeStream` for a generation loop: ``stream.step(id)`` returns each new chunk of
        text (None while a character is incomplete), as tokenizers'
        ``DecodeStream(ids, skip_special_tokens).step(tokenizer, id)``; `ids`: the prompt's, whose
        text is not returned."""
        skip = False if skip_special_tokens is None else flag(skip_special_tokens)
        if self._decoder is not None:
            return DecodeStream(self._decoder.stream(skip, ids), self._decode_oracle, skip)
        self._decode_oracle()  # (raises now while delegation is disabled)
        return DecodeStream(None, self._decode_oracle, skip, ids)

    def profile(self, texts: Sequence[str], add_special_tokens: bool = True) -> dict[str, float]:
        """Nanoseconds per byte of each stage -- normalize, split (added tokens and
        pre-tokenizer) and model (the word cache and the model: BPE, WordPiece, WordLevel or
        Unigram) -- encoding `texts` on one thread; and of the model's pieces, the share that
        went to the model (`miss_rate`: missed the word cache, and were not a vocabulary
        string the word seed knows) and the nanoseconds one such miss took (`ns_per_miss`:
        the time of the batched misses -- the word seed's probes, the model, the cache
        inserts -- over their number; NaN when nothing missed)."""
        if self._native is None:
            raise DelegationError("a delegated tokenizer has no native stages to profile")
        texts = list(texts)
        nbytes = max(1, sum(len(_utf8(t)) for t in texts))
        ns = self._native.profile(texts, add_special_tokens)
        out = {k: ns[k] / nbytes for k in ("normalize", "split", "model")}
        out["miss_rate"] = ns["misses"] / max(1, ns["pieces"])
        out["ns_per_miss"] = ns["miss_ns"] / ns["misses"] if ns["misses"] else float("nan")  # (none: undefined)
        return out

    @property
    def vocab_size(self) -> int:
        """One more than the largest id an encode can return (vocabulary and added tokens)."""
        return self._vocab_size

    @property
    def cache_bytes(self) -> int:
        """The word cache budget (all threads together); ``cache_used`` is what it holds now."""
        return self._cache_bytes

    @property
    def cache_used(self) -> int:
        return self._native.cache_used if self._native is not None else 0
