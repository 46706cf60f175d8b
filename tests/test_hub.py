"""from_pretrained: a real Hugging Face cache layout read offline, local paths, and the errors
a user can act on (the Hub's HTTP answers are mocked as huggingface_hub's exceptions; no test
touches the network)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import tagpipe
from tagpipe import cli
from tagpipe.hub import HubError

hf = pytest.importorskip("huggingface_hub")
from huggingface_hub import errors as hf_errors  # noqa: E402

from support.data import SHARED  # noqa: E402

GPT2 = cli.bundled_tokenizer_json()
COMMIT_1, COMMIT_2 = "1" * 40, "2" * 40


def fake_cache(
    root: Path, repo: str, files_by_commit: dict[str, dict[str, "str | bytes"]], refs: dict[str, str]
) -> Path:
    """The layout huggingface_hub writes: blobs named by content hash, snapshots/<commit>/
    holding symlinks to them, refs/<branch> naming a commit."""
    repo_dir = root / ("models--" + repo.replace("/", "--"))
    (repo_dir / "blobs").mkdir(parents=True)
    for commit, files in files_by_commit.items():
        snap = repo_dir / "snapshots" / commit
        snap.mkdir(parents=True)
        for name, text in files.items():
            data = text.encode("utf-8") if isinstance(text, str) else text
            blob = repo_dir / "blobs" / hashlib.sha256(data).hexdigest()
            blob.write_bytes(data)
            (snap / name).symlink_to(os.path.relpath(blob, snap))
    (repo_dir / "refs").mkdir()
    for ref, commit in refs.items():
        (repo_dir / "refs" / ref).write_text(commit)
    return root


def other_tokenizer() -> str:
    """A second tokenizer, to tell revisions apart: llama3 when ../shared is here, else GPT-2
    with one more added token."""
    if SHARED is not None:
        return (SHARED / "tokenizers" / "llama3" / "tokenizer.json").read_text(encoding="utf-8")
    import json

    j = json.loads(GPT2)
    j["added_tokens"].append(
        {
            "id": 50257,
            "content": "<|rev2|>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
    )
    return json.dumps(j)


def test_offline_cache_by_repo_id_and_revision(tmp_path):
    """In a fresh interpreter with HF_HUB_OFFLINE=1 and HF_HUB_CACHE pointing at the layout,
    exactly as a user's machine would be."""
    cache = fake_cache(
        tmp_path / "hub",
        "acme/tok",
        {COMMIT_1: {"tokenizer.json": GPT2}, COMMIT_2: {"tokenizer.json": other_tokenizer()}},
        {"main": COMMIT_1, "v2": COMMIT_2},
    )
    script = (
        "import tagpipe, tokenizers\n"
        "t = 'Hello world, 東京 <|endoftext|>'\n"
        "for rev, commit in [(None, '1'), ('v2', '2'), ('2' * 40, '2')]:\n"
        "    tok = tagpipe.from_pretrained('acme/tok', revision=rev)\n"
        f"    ref = tokenizers.Tokenizer.from_file(r'{cache}/models--acme--tok/snapshots/' + commit * 40\n"
        f"                                         + '/tokenizer.json')\n"
        "    assert tok.encode(t) == ref.encode(t).ids, rev\n"
        "    print(rev, tok.vocab_size)\n"
    )
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(cache), HF_HOME=str(tmp_path / "home"))
    r = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert r.returncode == 0, r.stderr
    sizes = [line.split()[1] for line in r.stdout.splitlines()]
    assert sizes[0] == "50257" and sizes[1] == sizes[2] != sizes[0]
    # and through the command line, by repo id
    run = subprocess.run(
        [sys.executable, "-m", "tagpipe", "explain", "acme/tok"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 0 and "tagpipe: native" in run.stdout, run.stderr


@pytest.mark.skipif(SHARED is None, reason="TAGPIPE_TEST_DATA / ../shared not found")
def test_offline_cache_with_only_a_sentencepiece_model(tmp_path):
    """meta-llama/Llama-2-7b ships tokenizer.model and no tokenizer.json."""
    model = (SHARED / "tokenizers" / "llama2" / "tokenizer.model").read_bytes()
    cache = fake_cache(tmp_path, "meta-llama/Llama-2-7b", {COMMIT_1: {"tokenizer.model": model}}, {"main": COMMIT_1})
    tok = tagpipe.from_pretrained("meta-llama/Llama-2-7b", cache_dir=cache, local_files_only=True)
    assert tok.native and tok.encode("Hello world") == [1, 15043, 3186]


def test_offline_with_nothing_cached_is_real(tmp_path):
    with pytest.raises(HubError, match="neither its tokenizer.json nor its tokenizer.model is in the cache"):
        tagpipe.from_pretrained("acme/never-downloaded", cache_dir=tmp_path, local_files_only=True)


def test_local_file_and_directory(tmp_path):
    (tmp_path / "tokenizer.json").write_text(GPT2, encoding="utf-8")
    for where in (tmp_path, tmp_path / "tokenizer.json", str(tmp_path)):
        assert tagpipe.from_pretrained(where).encode("Hello world") == [15496, 995]
    sp = tmp_path / "sp"
    sp.mkdir()
    (sp / "tokenizer.model").write_bytes(b"\x0a\x00")  # one empty piece, a Unigram model by default
    with pytest.raises(ValueError, match="does not convert: trainer_spec.model_type is Unigram"):
        tagpipe.from_pretrained(sp)
    (tmp_path / "empty").mkdir()
    with pytest.raises(HubError, match="no tokenizer.json or tokenizer.model"):
        tagpipe.from_pretrained(tmp_path / "empty")
    for path in (tmp_path / "missing.json", "./missing", "a/b/c"):  # paths, not repo ids: no Hub call
        with pytest.raises(HubError, match="no such file"):
            tagpipe.from_pretrained(path)


def _http_error(cls, status: int):
    """huggingface_hub's exception as its HTTP layer raises it, for a given status."""
    response = SimpleNamespace(headers={}, request=None, status_code=status)
    return cls(f"{status} Client Error", response=response)


@pytest.mark.parametrize(
    "raised, message",
    [
        (lambda: _http_error(hf_errors.GatedRepoError, 403), "is a gated repo: accept its terms"),
        (lambda: _http_error(hf_errors.RepositoryNotFoundError, 404), "no such repo on the Hub"),
        (lambda: _http_error(hf_errors.RevisionNotFoundError, 404), "no revision 'nope'"),
    ],
)
def test_hub_errors_say_what_to_do(monkeypatch, raised, message):
    def download(repo_id, filename, **kw):
        raise raised()

    monkeypatch.setattr(hf, "hf_hub_download", download)
    with pytest.raises(HubError, match=message):
        tagpipe.from_pretrained("acme/x", revision="nope")


def test_repo_without_a_tokenizer_json(monkeypatch, tmp_path):
    """No tokenizer.json: a tokenizer.model is converted; neither is a clear error."""
    missing = getattr(hf_errors, "RemoteEntryNotFoundError", None) or hf_errors.EntryNotFoundError
    shipped: dict[str, str] = {}

    def download(repo_id, filename, **kw):
        if filename in shipped:
            return shipped[filename]
        raise _http_error(missing, 404) if missing is not hf_errors.EntryNotFoundError else missing("404")

    monkeypatch.setattr(hf, "hf_hub_download", download)
    with pytest.raises(HubError, match="has no tokenizer.json or tokenizer.model"):
        tagpipe.from_pretrained("acme/not-a-tokenizer")
    shipped["tokenizer.model"] = str(tmp_path / "tokenizer.model")
    (tmp_path / "tokenizer.model").write_bytes(b"\x0a\x00")
    with pytest.raises(ValueError, match="does not convert"):
        tagpipe.from_pretrained("acme/unigram")
    if SHARED is not None:  # the real Llama 2 model, as meta-llama/Llama-2-7b ships it
        shipped["tokenizer.model"] = str(SHARED / "tokenizers" / "llama2" / "tokenizer.model")
        tok = tagpipe.from_pretrained("meta-llama/Llama-2-7b")
        assert tok.native and tok.metaspace_runs
        assert tok.encode("Hello world") == [1, 15043, 3186]
    shipped["tokenizer.json"] = str(tmp_path / "tokenizer.json")
    (tmp_path / "tokenizer.json").write_text(GPT2, encoding="utf-8")
    assert tagpipe.from_pretrained("acme/ok").encode("Hello") == [15496]


def test_cli_names_a_missing_model(capsys, tmp_path):
    assert cli.main(["explain", str(tmp_path / "nothing.json")]) == 2
    err = capsys.readouterr().err
    assert "nothing.json" in err
