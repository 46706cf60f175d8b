"""The ``normalizer`` section -> native steps (``_core.NormalizerStep``), or delegation with
the reason.  A Sequence is flattened; consecutive per-character normalizers (Lowercase,
StripAccents, NFD, NFKD, BertNormalizer) are fused into one unicode pass when their rules
run in that pass's order (cpp/normalize/normalize.h, UnicodeOptions)."""

from __future__ import annotations

from typing import Callable, Optional

from tagpipe import _core, spec
from tagpipe.plan.regex import Unsupported, compile_regex
from tagpipe.plan.steps import Plan, short_pattern

NormalizerStep = _core.NormalizerStep
Kind = _core.NormalizerStep.Kind
Unicode = _core.UnicodeOptions

# The rules of one unicode pass, in the order it applies them.
_UNICODE_RULES = ("clean_text", "chinese", "decompose", "drop", "lowercase", "drop_after")

# Normalizers that are one unicode pass on their own.
_UNICODE_NORMALIZERS: dict[type, Callable[[], _core.UnicodeOptions]] = {
    spec.Lowercase: lambda: Unicode(lowercase=True),
    spec.StripAccents: lambda: Unicode(drop_after=_core.CharFilter.Mark),
    spec.NFD: lambda: Unicode(decompose=_core.Decompose.Nfd),
    spec.NFKD: lambda: Unicode(decompose=_core.Decompose.Nfkd),
}


def _rules(options: _core.UnicodeOptions) -> list[int]:
    """The positions (in _UNICODE_RULES) of the rules these options turn on ([-1]: none)."""
    return [i for i, name in enumerate(_UNICODE_RULES) if int(getattr(options, name))] or [-1]


def _add_unicode(steps: list[_core.NormalizerStep], options: _core.UnicodeOptions) -> None:
    """Appends a unicode pass, fused into the previous one when all its rules come after that
    one's (NFD, Lowercase, StripAccents: one pass that does the three in order)."""
    if steps and steps[-1].kind == Kind.Unicode and min(_rules(options)) > max(_rules(steps[-1].unicode)):
        fused = steps[-1].unicode
        for i in _rules(options):
            if i >= 0:
                setattr(fused, _UNICODE_RULES[i], getattr(options, _UNICODE_RULES[i]))
        steps[-1].unicode = fused
        return
    steps.append(NormalizerStep(kind=Kind.Unicode, unicode=options))


class _Planner:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.steps: list[_core.NormalizerStep] = []

    def native(self, path: str, what: str, how: str, step: Optional[_core.NormalizerStep] = None) -> None:
        if step is not None:
            self.steps.append(step)
        self.plan.add(path, what, True, how)

    def visit(self, node: spec.Normalizer, path: str) -> None:
        if isinstance(node, spec.NormalizerSequence):
            for i, child in enumerate(node.normalizers):
                self.visit(child, f"{path}.normalizers[{i}]")
            return
        unicode = _UNICODE_NORMALIZERS.get(type(node))
        handler = _HANDLERS.get(type(node))
        if unicode is not None:
            _add_unicode(self.steps, unicode())
            self.native(path, node.type, "oracle-derived character tables")
        elif handler is not None:
            handler(self, node, path)
        else:
            self.plan.add(path, node.type, False, f"no native {node.type} normalizer yet")


# -- one function per normalizer -------------------------------------------------------------


def _prepend(p: _Planner, n: spec.Prepend, path: str) -> None:
    p.native(
        path, f"Prepend({n.prepend!r})", "prefix copied before each gap", NormalizerStep(kind=Kind.Prepend, a=n.prepend)
    )


def _replace(p: _Planner, n: spec.Replace, path: str) -> None:
    if n.pattern.kind == "String" and n.pattern.value:
        p.native(
            path,
            f"Replace({n.pattern.value!r} -> {n.content!r})",
            "literal search",
            NormalizerStep(kind=Kind.Replace, a=n.pattern.value, b=n.content),
        )
    elif n.pattern.kind == "Regex" and n.pattern.value == " {2,}":
        p.native(
            path,
            f"Replace(Regex(' {{2,}}') -> {n.content!r})",
            "runs of two or more spaces",
            NormalizerStep(kind=Kind.SpaceRuns, b=n.content),
        )
    else:  # a regex, or the empty String (onig compiles it as the empty regex)
        pattern = short_pattern(n.pattern.value)
        shown = f"Regex({pattern})" if n.pattern.kind == "Regex" else pattern
        what = f"Replace({shown} -> {n.content!r})"
        try:
            program = compile_regex(n.pattern.value)
        except Unsupported as e:
            return p.plan.add(path, what, False, f"regex {e}")
        p.native(path, what, "compiled regex", NormalizerStep(kind=Kind.RegexReplace, program=program, b=n.content))


def _nfc(p: _Planner, n: spec.NFC, path: str) -> None:
    p.native(
        path,
        "NFC",
        "identity on NFC-inert text (quick check); other texts are delegated per call",
        NormalizerStep(kind=Kind.Nfc),
    )


def _nfkc(p: _Planner, n: spec.NFKC, path: str) -> None:
    p.native(
        path,
        "NFKC",
        "identity on NFKC-inert text (quick check); other texts are delegated per call",
        NormalizerStep(kind=Kind.Nfkc),
    )


def _bert(p: _Planner, n: spec.BertNormalizer, path: str) -> None:
    strip = n.lowercase if n.strip_accents is None else n.strip_accents  # strip_accents.unwrap_or(lowercase)
    options = Unicode(clean_text=n.clean_text, chinese=n.handle_chinese_chars, lowercase=n.lowercase)
    if strip:
        options.decompose, options.drop = _core.Decompose.Nfd, _core.CharFilter.BertMn
    _add_unicode(p.steps, options)
    flags = ", ".join(
        k
        for k, v in (
            ("clean_text", n.clean_text),
            ("chinese", n.handle_chinese_chars),
            ("strip_accents", strip),
            ("lowercase", n.lowercase),
        )
        if v
    )
    p.native(path, f"BertNormalizer({flags})", "oracle-derived character tables")


def _strip(p: _Planner, n: spec.Strip, path: str) -> None:
    p.native(
        path,
        f"Strip(left={n.strip_left}, right={n.strip_right})",
        "Unicode White_Space trimmed",
        NormalizerStep(kind=Kind.Strip, strip_left=n.strip_left, strip_right=n.strip_right),
    )


def _precompiled(p: _Planner, n: spec.Precompiled, path: str) -> None:
    blob = n.precompiled_charsmap
    if int.from_bytes(blob[:4], "little") < 4:
        p.plan.add(path, "Precompiled", False, "the charsmap's trie is empty (the oracle panics on every text)")
        return
    try:
        charsmap = _core.Charsmap(blob)
    except ValueError as e:
        raise ValueError(f"{path}.precompiled_charsmap: {e}") from None
    p.native(
        path,
        f"Precompiled({len(blob)} bytes)",
        "character by character; a text where a grapheme cluster could change the result is delegated per call",
        NormalizerStep(kind=Kind.Precompiled, charsmap=charsmap),
    )


_HANDLERS: dict[type, Callable] = {
    spec.Prepend: _prepend,
    spec.Replace: _replace,
    spec.NFC: _nfc,
    spec.NFKC: _nfkc,
    spec.BertNormalizer: _bert,
    spec.Strip: _strip,
    spec.Precompiled: _precompiled,
}


def plan_normalizer(node: Optional[spec.Normalizer], path: str, plan: Plan) -> list[_core.NormalizerStep]:
    """The native steps of a parsed ``normalizer`` section (None: there is none); its explain()
    lines go to `plan`."""
    p = _Planner(plan)
    if node is not None:
        p.visit(node, path)
    return p.steps


def absent_char(steps: list[_core.NormalizerStep]) -> Optional[str]:
    """A character no normalized text holds: the normalizer's last step replaces every one of
    it by a string without it (gemma-3: Replace(' ' -> '▁')); None if there is none."""
    if not steps or steps[-1].kind != Kind.Replace:
        return None
    gone, written = steps[-1].a, steps[-1].b
    return gone if len(gone) == 1 and gone not in written else None
