"""A tokenizer tagpipe delegates whole, and the switch that forbids delegating.

``TAGPIPE_DELEGATION=error`` (docs/usage.md, "Environment variables"; any case) makes every
delegation of the process raise `DelegationError`: building a delegated tokenizer, and any
later call that would delegate (checked on every call, not only when building).  Unset, or
any other value, delegation is allowed and the ids are the oracle's.  Each case runs in a
process of its own, started with the variable set as a user would set it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import tokenizers

import tagpipe
from tagpipe import cli

from support.delegation import DELEGATED_REASON, delegated_whole

TEXTS = ["baaad aa a", "Hello world", "", "naïve 東京 aaaa"]

# The child builds the tokenizer as the environment says, then once more with the variable
# removed, encodes once (the oracle is loaded then), puts the variable back and encodes again:
# every call must check it, not only the building or the first call.
CHILD = r"""
import json, os, sys
import tagpipe

text, texts = open(sys.argv[1], encoding="utf-8").read(), json.loads(sys.argv[2])
out = {}
try:
    tok = tagpipe.Tokenizer.from_str(text)
except tagpipe.DelegationError as e:  # (only the building: a call that raises fails the child)
    out["built"] = {"error": str(e)}
else:
    out["built"] = {"native": tok.native, "ids": [tok.encode(t) for t in texts]}
value = os.environ.pop("TAGPIPE_DELEGATION", None)
tok = tagpipe.Tokenizer.from_str(text)
out["before"] = tok.encode(texts[0])
if value is not None:
    os.environ["TAGPIPE_DELEGATION"] = value
for name, call in (("encode", lambda: tok.encode(texts[0])), ("batch", lambda: tok.encode_batch(texts))):
    try:
        out[name] = call()
    except tagpipe.DelegationError as e:
        out[name] = {"error": str(e)}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def delegated(tmp_path_factory):
    """(the path of a delegated GPT-2 tokenizer.json, the oracle's ids of TEXTS)."""
    text = delegated_whole(cli.bundled_tokenizer_json())
    tok = tagpipe.Tokenizer.from_str(text)
    assert not tok.native and "DELEGATED" in tok.explain() and DELEGATED_REASON in tok.explain()
    path = tmp_path_factory.mktemp("delegated") / "tokenizer.json"
    path.write_text(text, encoding="utf-8")
    oracle = tokenizers.Tokenizer.from_str(text)
    return path, [oracle.encode(t).ids for t in TEXTS]


def run_child(path, value, cwd) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TAGPIPE_DELEGATION"}
    if value is not None:
        env["TAGPIPE_DELEGATION"] = value
    r = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), json.dumps(TEXTS)],
        env=env,
        cwd=cwd,  # not the checkout: its tagpipe/ may have no built core
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("value", ["error", "ERROR", "Error"])
def test_env_error_refuses_every_delegation(delegated, tmp_path, value):
    path, want = delegated
    out = run_child(path, value, tmp_path)
    assert out["before"] == want[0]
    for what in ("built", "encode", "batch"):
        assert isinstance(out[what], dict) and "error" in out[what], (what, out[what])
    # the refusal says what would have been delegated: the JSON path and the reason
    assert out["built"]["error"].startswith("this tokenizer would be delegated")
    assert "pre_tokenizer.pretokenizers[0]" in out["built"]["error"]
    assert DELEGATED_REASON in out["built"]["error"] and DELEGATED_REASON in out["encode"]["error"]


@pytest.mark.parametrize("value", [None, "allow", "", "0", "errors"])
def test_env_unset_or_other_values_delegate_to_the_oracle(delegated, tmp_path, value):
    path, want = delegated
    out = run_child(path, value, tmp_path)
    assert out["built"] == {"native": False, "ids": want}
    assert out["before"] == out["encode"] == want[0] and out["batch"] == want
