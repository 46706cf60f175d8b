"""The `tagpipe` command (python -m tagpipe): one module per command.

    main          the argument parser, dispatch and exit codes
    demo          tagpipe demo: the bundled GPT-2 on real text, offline
    encode        tagpipe encode: the command line of ...
      encode_files  ... the streaming encoder, which reads with
      corpus        (text, JSON Lines, Parquet documents in bounded memory) and writes
      tokenfile     (OUT.bin / OUT.idx / OUT.json, readable with numpy alone)
    bench         tagpipe bench: tagpipe vs tokenizers on the user's text, ids checked
    explain       tagpipe explain: native or delegated, stage by stage
    resources     what they share: MODEL -> Tokenizer, the bundled GPT-2, the stdlib text

The top of tagpipe's import layers (tests/test_layers.py): nothing else in tagpipe imports it.
"""

from tagpipe.cli.main import main
from tagpipe.cli.resources import SENTENCE, bundled_tokenizer_json, load_model, sample_text, stdlib_documents

__all__ = ["SENTENCE", "bundled_tokenizer_json", "load_model", "main", "sample_text", "stdlib_documents"]
