# The projects below are the judge's corpus (tests/judge/semantic_corpus.py), each with a bug
# that fails its own tests on purpose: they are built by benchmarks/judge_corpus.py, never
# collected by this repository's test run.
collect_ignore_glob = ["*"]
