"""tagpipe inside data engines: Arrow / numpy / pandas batches, and datasets, Ray Data and
Spark run for real in local mode, every id compared with the oracle.

The input-path tests need only pyarrow (a test extra).  Each engine test skips only when
its engine is not installed (the test extras install all three; Spark also needs Java,
which .ci/run installs).  Documents: paragraphs of every ../shared corpus, about 40 kB of
each; tokenizers: the bundled GPT-2 and llama3 (BOS from its post-processor).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
import shutil

import numpy as np
import pytest
import tokenizers

import tagpipe
from tagpipe import cli
from tagpipe.integrations import base

from support.data import CORPORA, SHARED, needs_shared
from support.delegation import DELEGATED_REASON, delegated_whole

pa = pytest.importorskip("pyarrow")

PER_CORPUS = 40_000  # bytes of each corpus: ~250 kB in all


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def corpus_documents() -> list[str]:
    docs = []
    for path in CORPORA:
        text = path.read_text(encoding="utf-8")[:PER_CORPUS]
        docs += [p for p in text.split("\n\n")]  # (empty and whitespace-only paragraphs included)
    return docs


EXTRA = ["", " ", "héllo wörld — 你好，世界 🎉", "\u00a0tabs\tand\r\nlines\n", "a" * 3000, "<|endoftext|>x"]


def _tokenizer(name: str):
    if name == "gpt2":
        text = cli.bundled_tokenizer_json()
    else:
        if SHARED is None:
            pytest.skip("TAGPIPE_TEST_DATA / ../shared not found")
        text = (SHARED / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8")
    return tagpipe.Tokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)


@pytest.fixture(scope="module", params=["gpt2", "llama3"])
def case(request):
    """(tagpipe tokenizer, documents, the oracle's ids of each document)."""
    if SHARED is None:
        pytest.skip("TAGPIPE_TEST_DATA / ../shared not found")
    tok, oracle = _tokenizer(request.param)
    docs = corpus_documents() + EXTRA
    want = [e.ids for e in oracle.encode_batch(docs)]
    return tok, docs, want


def _rows(list_array) -> list:
    return list_array.to_pylist()


# -- input and output forms, without an engine ----------------------------------------------


@needs_shared
def test_arrow_numpy_pandas_inputs_match_the_oracle(case):
    tok, docs, want = case
    assert tok.encode_batch(docs, num_threads=2) == want  # the list path
    arr = pa.array(docs)
    assert tok.encode_batch(arr, num_threads=2) == want
    assert tok.encode_batch(pa.array(docs, type=pa.large_string()), num_threads=1) == want
    assert _rows(tok.encode_arrow(arr, num_threads=2)) == want
    out = tok.encode_arrow(arr)
    assert out.type == pa.list_(pa.uint32()) and out.null_count == 0
    # sliced (non-zero offset), chunked (with an empty and a sliced chunk)
    assert tok.encode_batch(arr.slice(7, 50)) == want[7:57]
    chunked = pa.chunked_array([arr.slice(0, 10), pa.array([], pa.string()), arr.slice(10)])
    assert tok.encode_batch(chunked) == want
    assert _rows(tok.encode_arrow(pa.chunked_array([arr.slice(3)], type=pa.string()))) == want[3:]
    # numpy object and fixed-width str arrays, pandas Series (Arrow-backed and object)
    assert tok.encode_batch(np.array(docs, dtype=object)) == want
    assert tok.encode_batch(np.array(docs[:40])) == want[:40]
    pd = pytest.importorskip("pandas")
    assert tok.encode_batch(pd.Series(docs, dtype=pd.ArrowDtype(pa.string()))) == want
    assert tok.encode_batch(pd.Series(docs, dtype=object)) == want
    ids, offsets = tok.encode_batch_flat(arr)
    assert ids.dtype == np.uint32 and offsets.dtype == np.int64 and len(offsets) == len(docs) + 1
    assert [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(docs))] == want


@needs_shared
def test_arrow_add_special_tokens_off(case):
    tok, docs, _ = case
    assert tok.encode_batch(pa.array(docs), add_special_tokens=False) == tok.encode_batch(
        docs, add_special_tokens=False
    )


def test_arrow_nulls():
    tok, oracle = _tokenizer("gpt2")
    texts = ["one two", None, "", None, "three"]
    arr = pa.array(texts)
    with pytest.raises(ValueError, match=r"text 1 is null \(2 null rows\)"):
        tok.encode_batch(arr)
    with pytest.raises(ValueError, match="text 0 is null"):
        tok.encode_arrow(arr.slice(1))
    out = tok.encode_arrow(arr, nulls="null")
    want = [oracle.encode(t).ids if t is not None else None for t in texts]
    assert out.to_pylist() == want and out.null_count == 2
    ids, offsets = tok.encode_batch_flat(pa.chunked_array([arr.slice(1)]), nulls="null")
    assert offsets.tolist() == [0, 0, 0, 0, 1] and ids.tolist() == oracle.encode("three").ids
    with pytest.raises(ValueError, match="nulls must be one of"):
        tok.encode_batch_flat(arr, nulls="skip")


@needs_shared
def test_arrow_nulls_drop_the_special_tokens_too():
    tok, oracle = _tokenizer("llama3")
    out = tok.encode_arrow(pa.array([None, "hi", None], pa.large_string()), nulls="null")
    assert out.to_pylist() == [None, oracle.encode("hi").ids, None]


def test_arrow_bad_input_is_named():
    tok, _ = _tokenizer("gpt2")
    bad = pa.Array.from_buffers(
        pa.string(), 2, [None, pa.py_buffer(np.array([0, 1, 3], np.int32)), pa.py_buffer(b"a\xff\xfe")]
    )
    with pytest.raises(ValueError, match="not valid UTF-8"):
        tok.encode_batch(bad)
    with pytest.raises(TypeError, match="Arrow string column, got Arrow type int64"):
        tok.encode_batch(pa.array([1, 2]))
    with pytest.raises(TypeError, match="dtype int64"):
        tok.encode_batch(np.arange(3))
    with pytest.raises(TypeError, match="item 1 is NoneType"):
        tok.encode_batch(np.array(["a", None], dtype=object))
    assert tok.encode_batch(pa.array([], pa.string())) == []
    assert tok.encode_arrow(pa.array([], pa.string())).to_pylist() == []


@needs_shared
def test_arrow_rows_delegated_per_call_and_whole_tokenizers():
    """A text the core cannot normalize (qwen3's NFC on a decomposed letter) comes back
    from the oracle, spliced into its row; bert-wiki (WordPiece) takes Arrow input too (it is
    native now: test_arrow_rows_of_a_tokenizer_delegated_whole has a delegated tokenizer)."""
    texts = ["plain text", "cafe\u0301 de\u0301ja\u0300", None, "more plain"]
    for name in ("qwen3", "bert-wiki"):
        tok, oracle = _tokenizer(name)
        out = tok.encode_arrow(pa.array(texts).slice(0), nulls="null")
        assert out.to_pylist() == [oracle.encode(t).ids if t is not None else None for t in texts], name


PADDING = {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0}
PADDING.update(pad_type_id=0, pad_token="[PAD]")


@pytest.mark.parametrize("name", ["gpt2", "bert-wiki", "bert-wiki-padded"])
def test_arrow_rows_of_a_tokenizer_delegated_whole(name):
    """A tokenizer with no native encoder at all (a Split tagpipe cannot compile, asserted
    from explain() so that this cannot turn native unnoticed): Arrow input row by row through
    the oracle -- null rows holding no ids (not even bert-wiki's [CLS] / [SEP] or padding,
    and padded to the longest live row), an empty text, slices with an offset, a chunked
    large_string column, add_special_tokens=False."""
    tok, _ = _tokenizer(name.removesuffix("-padded"))
    doc = json.loads(delegated_whole(tok.to_str()))
    if name.endswith("-padded"):
        doc["padding"] = PADDING
    text = json.dumps(doc)
    tok, oracle = tagpipe.Tokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)
    assert not tok.native and "DELEGATED" in tok.explain() and DELEGATED_REASON in tok.explain()

    def want_of(texts, add_special_tokens=True):
        live = iter(oracle.encode_batch([t for t in texts if t is not None], add_special_tokens=add_special_tokens))
        return [next(live).ids if t is not None else None for t in texts]

    texts = [None, "baaad aa a", "", None, "Hello, wörld", "naïve 東京 aaaa", None, "<|endoftext|>x"]
    want = want_of(texts)
    arr = pa.array(texts)
    out = tok.encode_arrow(arr, nulls="null")
    assert out.to_pylist() == want and out.null_count == 3
    assert out.values.to_pylist() == [i for row in want if row is not None for i in row]
    for start, length in ((1, 5), (3, 4), (4, 4)):
        got = tok.encode_arrow(arr.slice(start, length), nulls="null")
        assert got.to_pylist() == want_of(texts[start : start + length]), (start, length)
    chunked = pa.chunked_array([arr.slice(0, 3).cast(pa.large_string()), arr.slice(3).cast(pa.large_string())])
    assert tok.encode_arrow(chunked, nulls="null").to_pylist() == want
    _, offsets = tok.encode_batch_flat(arr, nulls="null")
    assert np.diff(offsets).tolist() == [len(row) if row is not None else 0 for row in want]
    with pytest.raises(ValueError, match=r"text 0 is null \(3 null rows\)"):
        tok.encode_arrow(arr)
    live = [t for t in texts if t is not None][1:]
    assert tok.encode_arrow(pa.array([None, *live]).slice(1)).to_pylist() == want_of(live)
    plain = tok.encode_arrow(arr, add_special_tokens=False, nulls="null").to_pylist()
    assert plain == want_of(texts, add_special_tokens=False)


# -- the helpers' pickles ----------------------------------------------------------------------


def test_helpers_pickle_small_and_rebuild_once_per_process():
    tok, _ = _tokenizer("gpt2")
    enc = tagpipe.ray_encoder(tok, "body", "ids", num_threads=None, add_special_tokens=False)
    data = pickle.dumps(enc)
    assert len(data) < len(tok.to_str().encode()) + 2000
    base._WORKER_TOKENIZERS.clear()
    a, b = pickle.loads(data), pickle.loads(data)
    assert a.tokenizer is b.tokenizer and a.tokenizer is not tok  # built once in this "worker"
    assert (a.column, a.output, a.num_threads, a.add_special_tokens) == ("body", "ids", None, False)
    assert a.provenance()["tokenizer_sha256"] == base.tokenizer_sha256(tok) == enc.provenance()["tokenizer_sha256"]
    assert a.provenance()["tokenizers"] == tokenizers.__version__
    tampered = data.replace(b"<|endoftext|>", b"<|endoftexT|>", 1)
    with pytest.raises(ValueError, match="does not match its sha256"):
        pickle.loads(tampered)
    other = pickle.dumps(enc).replace(tagpipe.__version__.encode(), b"9.9.9")
    with pytest.raises(ValueError, match="this worker runs tagpipe .* from tagpipe 9.9.9"):
        pickle.loads(other)
    with pytest.raises(TypeError, match="expected a tagpipe.Tokenizer"):
        tagpipe.datasets_encoder(tokenizers.Tokenizer.from_str(tok.to_str()))
    with pytest.raises(ValueError, match="num_threads"):
        tagpipe.ray_encoder(tok, num_threads=0)


def test_missing_engine_names_the_extra(monkeypatch):
    import sys

    for name in ("pyspark", "pyspark.sql", "pyspark.sql.functions", "pyspark.sql.types", "datasets"):
        monkeypatch.setitem(sys.modules, name, None)  # (import fails: as if not installed)
    tok = _tokenizer("gpt2")[0]
    with pytest.raises(ImportError, match=r'pip install "tagpipe\[spark\]"'):
        tagpipe.spark_udf(tok)
    with pytest.raises(ImportError, match=r'pip install "tagpipe\[datasets\]"'):
        tagpipe.datasets_encode([], tok)


# -- the engines, for real ---------------------------------------------------------------------


@needs_shared
@pytest.mark.skipif(not _has("datasets"), reason="datasets is not installed (pip install 'tagpipe[datasets]')")
def test_datasets_num_proc_2(case, tmp_path):
    import datasets

    tok, docs, want = case
    assert tok.encode_batch(docs, num_threads=2) == want  # the parent's pool has started: num_proc forks it
    ds = datasets.Dataset.from_dict({"text": docs, "n": list(range(len(docs)))})
    out = tagpipe.datasets_encode(
        ds, tok, num_proc=2, batch_size=64, remove_columns=["text"], cache_file_name=str(tmp_path / "arrow.arrow")
    )
    assert out.column_names == ["n", "input_ids"] and out.format["type"] is None
    assert out.features["input_ids"].feature.dtype == "uint32"
    assert out["n"] == list(range(len(docs))) and out["input_ids"] == want
    # the plain map with the default (python) format
    fn = tagpipe.datasets_encoder(tok, output="ids")
    plain = ds.map(fn, batched=True, batch_size=50, num_proc=2, cache_file_name=str(tmp_path / "py.arrow"))
    assert plain.features["ids"].feature.dtype == "uint32" and plain["ids"] == want and plain["text"] == docs


@pytest.mark.skipif(not _has("datasets"), reason="datasets is not installed (pip install 'tagpipe[datasets]')")
def test_one_native_thread_by_default_in_datasets_workers(tmp_path):
    import datasets

    from tagpipe.integrations import default_threads, engine_worker

    assert engine_worker() is None and default_threads() == (os.cpu_count() or 1)
    ds = datasets.Dataset.from_dict({"x": list(range(8))})
    out = ds.map(
        lambda b: {"w": [f"{engine_worker()} {default_threads()}"] * len(b["x"])},
        batched=True,
        batch_size=4,
        num_proc=2,
        cache_file_name=str(tmp_path / "w.arrow"),
    )
    assert set(out["w"]) == {"pool 1"}


@pytest.fixture(scope="module")
def away_from_the_checkout(tmp_path_factory):
    """Ray's and pyspark's workers put the driver's working directory first on their sys.path:
    started from the checkout they would import its tagpipe/ (the sources, with no built
    extension) instead of the installed package.  Start them, and run their tests, elsewhere."""
    old = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("engines"))
    yield
    os.chdir(old)


@pytest.fixture(scope="module")
def ray_local(away_from_the_checkout):
    if not _has("ray"):
        pytest.skip("ray is not installed (pip install 'tagpipe[ray]')")
    import ray

    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=200 << 20, configure_logging=False
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()


@needs_shared
@pytest.mark.parametrize("batch_format", ["pyarrow", "pandas", "numpy"])
def test_ray_map_batches(case, ray_local, batch_format):
    tok, docs, want = case
    ds = ray_local.data.from_arrow(pa.table({"text": docs, "n": np.arange(len(docs))})).repartition(4)
    out = ds.map_batches(tagpipe.ray_encoder(tok), batch_format=batch_format, batch_size=64)
    table = pa.concat_tables([ray_local.get(ref) for ref in out.to_arrow_refs()]).sort_by("n")
    assert table.column("n").to_pylist() == list(range(len(docs)))
    got = [list(map(int, row)) for row in table.column("input_ids").to_pylist()]
    assert got == want
    if batch_format == "pyarrow":
        assert pa.types.is_list(table.schema.field("input_ids").type)
        assert table.schema.field("input_ids").type.value_type == pa.uint32()


def test_one_native_thread_by_default_in_ray_workers(ray_local):
    from tagpipe.integrations import default_threads, engine_worker

    def where():
        return f"{engine_worker()} {default_threads()}"

    assert engine_worker() is None
    assert ray_local.get(ray_local.remote(where).remote()) == "ray 1"


@pytest.fixture(scope="module")
def spark_local(away_from_the_checkout):
    if not _has("pyspark"):
        pytest.skip("pyspark is not installed (pip install 'tagpipe[spark]')")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (.ci/run installs default-jre-headless)")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("tagpipe-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    yield spark
    spark.stop()


@needs_shared
def test_spark_local_2(case, spark_local):
    tok, docs, want = case
    df = spark_local.createDataFrame([(i, d) for i, d in enumerate(docs)], "n long, text string").repartition(2)
    rows = df.withColumn("input_ids", tagpipe.spark_udf(tok)("text")).select("n", "input_ids").collect()
    assert [r.input_ids for r in sorted(rows, key=lambda r: r.n)] == want
    out = tagpipe.spark_encode(df, tok)
    assert out.schema["input_ids"].dataType.simpleString() == "array<int>"
    rows = out.select("n", "input_ids").collect()
    assert [r.input_ids for r in sorted(rows, key=lambda r: r.n)] == want


def test_one_native_thread_by_default_in_spark_workers(spark_local):
    from tagpipe.integrations import default_threads, engine_worker

    assert engine_worker() is None
    got = spark_local.sparkContext.parallelize([0, 1], 2).map(lambda _: f"{engine_worker()} {default_threads()}")
    assert set(got.collect()) == {"spark 1"}


def test_spark_nulls(spark_local):
    tok, oracle = _tokenizer("gpt2")
    df = spark_local.createDataFrame([(0, "a b"), (1, None), (2, "")], "n long, text string")
    rows = tagpipe.spark_encode(df, tok, nulls="null").orderBy("n").collect()
    assert [r.input_ids for r in rows] == [oracle.encode("a b").ids, None, []]
