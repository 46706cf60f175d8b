"""From the parsed tokenizer.json (``tagpipe.spec``) to what runs: per stage, a native step --
the C++ structs of ``tagpipe._core`` themselves, built here -- or the stage delegated to
``tokenizers`` with the reason (the lines of ``explain()``).  Never approximated.

One module per section, as in ``tagpipe.spec``, dispatching on the parsed model's class:

    normalizers      -> _core.NormalizerStep list           plan_normalizer
    pre_tokenizers   -> _core.PreTokenizerStage list        plan_pre_tokenizer
    models           -> BPE tables and options, or a _core.PieceModel
    added_tokens     -> _core.AddedToken lists
    post_processors  -> the special tokens; truncation and padding (PostProcess)
    metaspace        -> the MetaspaceRuns stage, when the vocabulary proves it exact
    decoders         -> the decode: _core.DecoderConfig, or delegated           plan_decoder
    encoder          -> the whole file: TokenizerPlan and _core.EncoderConfig   plan_tokenizer
"""

from tagpipe.plan.decoders import plan_decoder
from tagpipe.plan.encoder import TokenizerPlan, plan_tokenizer
from tagpipe.plan.normalizers import plan_normalizer
from tagpipe.plan.post_processors import PostProcess
from tagpipe.plan.pre_tokenizers import KNOWN_PATTERNS, PreTokenizerPlan, plan_pre_tokenizer
from tagpipe.plan.steps import Plan, Step

__all__ = [
    "KNOWN_PATTERNS",
    "Plan",
    "PostProcess",
    "PreTokenizerPlan",
    "Step",
    "TokenizerPlan",
    "plan_decoder",
    "plan_normalizer",
    "plan_pre_tokenizer",
    "plan_tokenizer",
]
