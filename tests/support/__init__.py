"""What the tests share, imported as ``from support import ...`` (tests/ is on sys.path for
pytest), never from another test module.

    data        where the shared tokenizers and corpora are (TAGPIPE_TEST_DATA), the kernels
                and alphabets of this build, ``needs_shared``
    strategies  hypothesis strategies and corpus documents
    parity      the parity tests' comparison, failure reports and tokenizer.json builders
    layouts     post-processor forms, truncations and paddings of the layout tests
    malformed   a tokenizer.json accepted exactly when the oracle accepts it
    hostile     generators of hostile tokenizer.json files (bench.load uses one too)
    bench       running a bench/ module in a process of its own

Modules here import each other relatively, so they also work as ``tests.support`` (how
bench/ imports the generators).
"""
