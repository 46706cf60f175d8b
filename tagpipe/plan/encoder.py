"""The whole tokenizer.json -> its plan (`TokenizerPlan`: the explain() lines, the truncation
and padding, the post-processor's tokens, the decode) and, when every stage is native, the
native encoder's configuration (``_core.EncoderConfig``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from tagpipe import _core, spec
from tagpipe.plan.added_tokens import plan_added_tokens
from tagpipe.plan.decoders import plan_decoder
from tagpipe.plan.metaspace import metaspace_runs
from tagpipe.plan.models import configure_model, id_bound, plan_model
from tagpipe.plan.normalizers import absent_char, plan_normalizer
from tagpipe.plan.offsets import OffsetsPlan, plan_offsets
from tagpipe.plan.pairs import Layout, plan_layout
from tagpipe.plan.post_processors import PostProcess, plan_post_process, special_ids
from tagpipe.plan.pre_tokenizers import byte_level, plan_pre_tokenizer
from tagpipe.plan.steps import Plan, Step


@dataclass
class TokenizerPlan(Plan):
    """What runs where for one tokenizer.json (``steps``: the explain() lines)."""

    post: PostProcess = field(default_factory=PostProcess)  # truncation and padding
    prefix_ids: list[int] = field(default_factory=list)  # the post-processor's tokens around one sequence
    suffix_ids: list[int] = field(default_factory=list)
    # the post-processor's layout with type ids, and of a pair (tagpipe.plan.pairs); None: why
    layout: Optional[Layout] = None
    layout_why: str = ""
    offsets: OffsetsPlan = field(default_factory=OffsetsPlan)  # native offsets, or why not
    byte_level: bool = False  # the model is handed ByteLevel pieces
    metaspace_runs: bool = False  # MetaspaceRuns cuts the pipeline (tagpipe.plan.metaspace)
    id_bound: int = 0  # one more than the largest id an encode can return
    # The decode, planned apart (not a line of `steps`: a delegated decoder does not delegate
    # the encoding): its explain() line, and the native decoder's configuration or None.
    decoder: Optional[Step] = None
    decoder_config: Optional[_core.DecoderConfig] = None


def plan_tokenizer(
    loaded: spec.TokenizerSpec, cache_bytes: int, use_metaspace_runs: bool = True
) -> tuple[TokenizerPlan, Optional[_core.EncoderConfig]]:
    """The plan, and the native encoder's configuration (None: the tokenizer is delegated)."""
    plan = TokenizerPlan(id_bound=id_bound(loaded.model, loaded.added_tokens))
    normalizer = plan_normalizer(loaded.normalizer, "normalizer", plan)
    native_normalizer = normalizer if plan.native else None
    plan.decoder, plan.decoder_config = plan_decoder(loaded, native_normalizer, plan.id_bound)
    pre = plan_pre_tokenizer(loaded.pre_tokenizer, absent=absent_char(normalizer))
    plan.steps.extend(pre.steps)
    plan.byte_level = byte_level(pre.stages)
    plan_model(loaded.model, plan.byte_level, cache_bytes, plan)
    plan.prefix_ids, plan.suffix_ids = special_ids(loaded.post_processor, "post_processor", plan)
    plan.layout, plan.layout_why = plan_layout(loaded.post_processor)
    plan.post = plan_post_process(loaded.truncation, loaded.padding, plan.prefix_ids, plan.suffix_ids, plan)
    if not plan.native:
        return plan, None
    plan.offsets = plan_offsets(loaded, plan.byte_level)
    runs, lines = metaspace_runs(loaded.model, normalizer, pre.stages)
    if runs is not None and not use_metaspace_runs:
        runs, lines = None, [Step("MetaspaceRuns", "off", True, "disabled (metaspace_runs=False): the whole-span path")]
    plan.steps.extend(lines)
    added = plan_added_tokens(loaded.added_tokens, normalizer, plan)
    if added is None:
        return plan, None
    plan.metaspace_runs = runs is not None
    config = _core.EncoderConfig(
        normalizer=normalizer,
        pre_tokenizer=pre.stages + ([runs] if runs else []),
        raw_tokens=added[0],
        normalized_tokens=added[1],
        prefix_ids=plan.prefix_ids,
        suffix_ids=plan.suffix_ids,
        cache_bytes=cache_bytes,
    )
    configure_model(loaded.model, config)
    return plan, config
