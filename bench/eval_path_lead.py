"""Experiment (issue 23 item 6): index a changed file's path without `src/`, `tests/`, `docs/`,
`__init__` and the extension; does the pooled paired-bootstrap interval show it no worse?

    python bench/eval_path_lead.py [--eval-dir ../shared/eval]

Measurement only: the product does not do this (see bench/README.md, "Retrieval quality").

Builds the eval vault once (bench/eval_retrieval.py's functions: real write path, decoys, the
doctor check) and ranks every query in both protocols with the product as it is; then swaps the
analyser's word splitter (`search.ranking._words`, used for notes and queries alike) for one that
first rewrites each file path (`src/werkzeug/debug/__init__.py` -> `werkzeug debug`,
`tests/test_http.py` -> `test_http`, `CHANGES.rst` -> `CHANGES`; a URL's path is left alone),
rebuilds the index from git (it is derived: deleting it loses nothing) and ranks again. Prints
both sets of figures and the paired 95% intervals of the difference, per corpus and pooled.

Plain script, no pytest. Only the figures it prints are claims.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import eval_retrieval as er  # noqa: E402

# A file path: a run with a `/` not after a letter, digit, `/` or `.` (so not a URL's path), or a
# bare name with a common file extension.
PATH = re.compile(
    r"(?<![\w/.])(?:[\w.-]+/)+[\w.-]*\w"
    r"|(?<![\w/.-])[\w-]+\.(?:py|pyi|pyx|rst|md|txt|toml|cfg|ini|yml|yaml|json|js|ts|tsx|jsx|html|css|sh|c|h|cpp|rs|go|java|rb)(?![\w/.-])"
)
NOISE = frozenset({"src", "tests", "docs", "__init__"})


def path_words(match: re.Match) -> str:
    """A path's names without `src/`, `tests/`, `docs/`, `__init__` and the extension."""
    *dirs, name = match.group().split("/")
    stem = name.rsplit(".", 1)[0] if "." in name.strip(".") else name
    return " ".join(part for part in (*dirs, stem) if part and part not in NOISE)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--eval-dir",
        type=Path,
        default=er.ROOT.parent / "shared" / "eval",
        help="folder of corpora (default ../shared/eval)",
    )
    args = parser.parse_args()
    corpora = [er.load(p) for p in sorted(p for p in args.eval_dir.iterdir() if (p / "queries.jsonl").is_file())]
    names = [c.name for c in corpora]
    from jacked_vault.search import ranking
    from jacked_vault.search.index import SearchIndex

    sample = "Changed files: CHANGES.rst, src/werkzeug/debug/__init__.py, tests/test_http.py, docs/index.rst; https://github.com/pallets/werkzeug/pull/1"
    print(f"rewrite: {sample!r}\n      -> {PATH.sub(path_words, sample)!r}")
    rows: dict[str, dict[str, dict[str, list]]] = {"as is": {}, "path lead": {}}
    with tempfile.TemporaryDirectory(prefix="jacked-lead-") as tmp:
        ctx = er.build_vault(Path(tmp), corpora)
        er.check_vault(ctx)
        every_decoy = set().union(*(c.decoys for c in corpora))
        words = ranking._words
        for variant in rows:
            if variant == "path lead":
                ranking._words = lambda text: words(PATH.sub(path_words, text))
                index = SearchIndex(ctx.vault)
                try:
                    print(f"index rebuilt with the path lead: {index.rebuild()} files")
                finally:
                    index.close()
            for protocol in er.PROTOCOLS:
                rows[variant][protocol] = {
                    c.name: er.score(
                        c, er.run_in_process(ctx, c, protocol).ranked, c.decoys if protocol == "group" else every_decoy
                    )
                    for c in corpora
                }
        ranking._words = words
    for protocol, about in er.PROTOCOLS.items():
        print(f"\nprotocol {protocol}: {about}")
        print(f"{'corpus':<16}{'ranker':<12}  {er.HEADER[:-18]}")
        for name in [*names, er.POOLED]:
            for variant, by in rows.items():
                figures = er.pooled(by[protocol], names) if name == er.POOLED else by[protocol][name]
                print(f"{name:<16}{variant:<12}{er.figures(figures)}")
        er.print_intervals(
            f"protocol {protocol}: path lead - as is, paired bootstrap 95% intervals",
            [("path lead - as is", rows["as is"][protocol], rows["path lead"][protocol])],
            names,
        )


if __name__ == "__main__":
    main()
