"""pytest hooks.  The tests' shared helpers are the `support` package (tests/support/), not
this file; the data they need is found through TAGPIPE_TEST_DATA (support.data).

The README's `pytest` must finish in minutes on a 2-core laptop, so the longest tests are
marked `slow` here, in one list, and deselected unless `--run-slow` is given.  CI runs the
whole suite (.ci/run sets `PYTEST_ADDOPTS=--run-slow`); nothing here is skipped for good.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPORA = ("english", "code", "chinese", "russian", "multilingual", "edge")

# Node ids (a file, a test function, or one parametrized case) of the slow tests: each entry
# covers every test whose id starts with it.  Scheduling only: a test listed here is exactly
# the test `--run-slow` runs.
SLOW = (
    # exhaustive sweeps: every Unicode scalar, every offset
    "tests/test_pretokenizers_parity.py::test_every_scalar_alone",
    "tests/test_pretokenizers_parity.py::test_every_scalar_between_letters",
    "tests/test_normalizers.py::test_every_scalar",
    "tests/test_classify_kernels.py::test_every_scalar_at_every_offset",
    "tests/test_classify_tables.py::test_onig_predicates",
    "tests/test_classify_tables.py::test_scripts_any_is_transparent",
    "tests/test_regex_compiler.py::test_every_set_equals_the_oracle_on_every_scalar",
    "tests/test_regex_compiler.py::test_public_regex_every_scalar_between_letters",
    "tests/test_regex_compiler.py::test_fixture_regex_compiled_every_scalar_between_letters",
    "tests/test_regex_scripts.py::test_common_scripts_on_every_scalar",
    "tests/test_regex_scripts.py::test_every_script_run_on_every_scalar",
    "tests/test_regex_replace.py::test_every_scalar_between_letters",
    # every normalizer of the real files over whole corpora (the encoder's own corpus tests stay)
    "tests/test_normalizers.py::test_fixture_normalizer_on_corpus",
    # every truncation limit x direction x padding on the real files (gemma3 alone ~2-3 min)
    "tests/test_postprocess.py::test_native_cut_equals_the_oracle_on_real_files",
    # property tests with hundreds of generated texts per real tokenizer
    "tests/test_encode_parity.py::test_hypothesis_text",
    "tests/test_models_native.py::test_hypothesis_text",
    # every input the differential fuzzer ever kept, each against 8 real tokenizers
    "tests/test_fuzz_regressions.py::test_corpus_input",
    # stress: many threads and caches, long pieces, a 20 MB string, concurrent loads
    "tests/test_encode_parity.py::test_concurrency",
    "tests/test_encode_parity.py::test_long_pieces_cut_exactly",
    "tests/test_encode_parity.py::test_20mb_string",
    "tests/test_hardening.py::test_concurrent_loading_of_different_tokenizers",
    # every short vocabulary string of the largest vocabularies through a seeded word cache
    "tests/test_word_seed_cache.py::test_every_short_vocabulary_string_through_a_seeded_cache[gemma3]",
    "tests/test_word_seed_cache.py::test_every_short_vocabulary_string_through_a_seeded_cache[gpt-4o]",
    "tests/test_word_seed_cache.py::test_every_short_vocabulary_string_through_a_seeded_cache[qwen3]",
    "tests/test_word_seed_cache.py::test_every_short_vocabulary_string_through_a_seeded_cache[deepseek-v3]",
    "tests/test_memory_bounds.py::test_the_cache_budget_bounds_resident_memory_across_threads",
    # the data engines started for real (Ray, Spark, datasets' worker processes)
    "tests/test_integrations.py::test_datasets_num_proc_2",
    "tests/test_integrations.py::test_ray_map_batches",
    "tests/test_integrations.py::test_spark_local_2",
    "tests/test_integrations.py::test_spark_nulls",
    "tests/test_integrations.py::test_one_native_thread_by_default_in_datasets_workers",
    "tests/test_integrations.py::test_one_native_thread_by_default_in_ray_workers",
    "tests/test_integrations.py::test_one_native_thread_by_default_in_spark_workers",
    "tests/test_docs_examples.py::test_the_page_runs_as_written[docs/distributed.md]",
    # pairs: every short length x truncation x padding (two forms of each stay in the default run)
    "tests/test_accelerate_pairs.py::test_every_truncation_of_short_pairs",
    *(
        f"tests/test_pairs.py::test_every_short_truncation_and_padding[{form}]"
        for form in ("byte_level", "none", "roberta", "sequence")
    ),
    *(
        f"tests/test_accelerate_pairs.py::test_pairs_equal_the_original[sides2-{model}]"
        for model in ("bert-wiki", "roberta-base", "gpt2", "llama2", "llama3", "t5-small")
    ),
    # the same checks, the largest cases: each area keeps smaller ones in the default run
    *(
        f"tests/test_kernel_parity.py::test_encode_parity_on_every_kernel[{model}-{kernel}]"
        for model in ("gemma3", "qwen3")
        for kernel in ("scalar", "sse42", "avx2", "avx512", "neon")
    ),
    *(f"tests/test_metaspace.py::test_corpora_equal_whole_span_and_oracle[gemma3-{corpus}]" for corpus in CORPORA),
    *(f"tests/test_encode_parity.py::test_corpus_documents[{model}-chinese-special]" for model in ("gemma3", "qwen3")),
    *(
        f"tests/test_cli_encode.py::test_corpus_blank_lines_llama3[{corpus}]"
        for corpus in CORPORA
        if corpus != "english"
    ),
    *(
        f"tests/test_accelerate_pairs.py::test_pairs_equal_the_original[sides1-{model}]"
        for model in ("bert-wiki", "roberta-base", "gpt2", "llama2", "llama3", "t5-small")
    ),
    *(
        f"tests/test_accelerate_pairs.py::test_pairs_equal_the_original[sides0-{model}]"
        for model in ("roberta-base", "gpt2", "llama3")
    ),
    "tests/test_pairs.py::test_every_short_truncation_and_padding",
    "tests/test_pairs.py::test_fixtures_on_the_corpora[qwen3]",
    "tests/test_metaspace.py::test_named_oracle_results",
    "tests/test_pretokenizers_parity.py::test_harness_minimal_wrapper_is_faithful",
    "tests/test_threads.py::test_new_caches_do_not_resize_one_in_use",
    "tests/test_hostile_files.py::test_millions_of_merges",
    "tests/test_hostile_files.py::test_huge_added_token_list",
    "tests/test_decode.py::test_every_fixture_decodes_natively[gemma3]",
    "tests/test_spec_tokenizer.py::test_real_files_match_oracle[gemma3]",
    "tests/test_spec_tokenizer.py::test_real_files_match_oracle[qwen3]",
    # every code point of a table against the oracle (the tables are also checked by
    # tables/gen_tables.py --check in CI)
    "tests/test_classify_tables.py::test_unicode_regex_whitespace",
    "tests/test_classify_tables.py::test_unicode_word",
    "tests/test_classify_tables.py::test_nfc_inert_is_unchanged_by_the_oracle",
    "tests/test_normalizers.py::test_unchanged_table_per_code_point",
    # the docs' longer pages run as written (README's blocks stay in the default run)
    "tests/test_docs_examples.py::test_the_page_runs_as_written[docs/usage.md]",
    "tests/test_docs_examples.py::test_the_page_runs_as_written[docs/cli.md]",
    # benchmark harnesses with pools of worker processes, mypy's stubtest, a memory probe
    "tests/test_bench_encode.py::test_repeat_pools_the_rounds_of_new_workers",
    "tests/test_bench_misses.py::test_a_pooled_run_verifies_every_id",
    "tests/test_bench_drivers.py::test_missing_refusing_and_crashing_peers_are_reported",
    "tests/test_memory_bounds.py::test_many_added_tokens_cost_what_they_weigh",
    "tests/test_hub.py::test_offline_cache_by_repo_id_and_revision",
    "tests/test_core_stubs.py::test_core_stubs_match_the_extension",
    # offsets and overflowing rows: every short length x truncation x stride x padding (a
    # smaller grid of every form stays in the default run)
    "tests/test_offsets.py::test_every_short_truncation_overflows_as_the_oracle",
    "tests/test_offsets.py::test_fixtures_on_the_corpora[qwen3]",  # (NFC's spliced texts: a big file)
    # the peers' packages, each loaded and checked against the oracle
    "tests/test_bench_drivers.py::test_peer_is_exact_where_it_serves_and_says_why_not_elsewhere",
    # a full compile of the core into a wheel, installed in a fresh environment
    "tests/test_wheel.py",
)


def pytest_addoption(parser):
    parser.addoption(
        "--run-slow",
        action="store_true",
        help="also run the tests marked slow (deselected by default; CI runs them)",
    )


def pytest_configure(config):
    # The checkout's bench/ and fuzz/ packages are imported by their tests.  Appended, not
    # prepended: the tagpipe under test (installed, or a built tree on PYTHONPATH) comes first,
    # never the checkout's tagpipe/, which a clean clone has not built.
    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))


def _listed_slow(nodeid: str) -> bool:
    return any(nodeid == s or nodeid.startswith((s + "::", s + "[")) for s in SLOW)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _listed_slow(item.nodeid):
            item.add_marker(pytest.mark.slow)
    if config.getoption("--run-slow"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def pytest_terminal_summary(terminalreporter, config):
    if not config.getoption("--run-slow"):
        terminalreporter.write_line("slow tests were deselected; `pytest --run-slow` runs the whole suite, as CI does")
