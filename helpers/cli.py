"""Command line: ``python -m helpers replicate`` (the whole replication, headless), ``train`` (word vectors from your corpus), ``grade``, ``feedback`` and ``bundle`` (instructors) and ``site`` (the course as a website).

Prints the Table 1 comparison (original IAT, paper, this embedding) and the WEFAT correlations,
writes the figures to ``--out`` (PNG, SVG or PDF: ``--format``, ``--dpi``) and, with ``--json FILE``, the
results as JSON (the layout is documented in README.md, "The JSON of ``replicate --json``").
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .replication import FIGURE_FORMATS, format_report, replicate

__all__ = ["main"]

def _site(args) -> int:
    from .site import SiteError, build_site, execute_notebooks

    try:
        if args.execute_only is not None:
            if args.out:
                print("error: --execute-only writes executed/ and builds no site; give no OUT with it", file=sys.stderr)
                return 2
            paths = execute_notebooks(".", args.execute_only or None)
            print(f"{len(paths)} executed notebook(s) written to executed/; check the outputs, then commit them")
            return 0
        if not args.out:
            print("error: give the folder to write the site to: python -m helpers site OUT", file=sys.stderr)
            return 2
        result = build_site(".", args.out, edition=args.edition, force=args.force)
    except SiteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"The {result['edition']} edition of the site ({len(result['chapters'])} chapters) was built in "
          f"{result['seconds']:.0f} s: open {result['out'] / 'index.html'}, or copy {result['out']}/ to any static host")
    return 0


def _table1_sets() -> dict[int, list[set[str]]]:
    """The four word sets of each Table 1 WEAT by its row, lower-cased (what ``replicate`` looks up)."""
    from .wordsets import weat_tests

    return {t.id: [{w.lower() for w in ws.used_by_paper} for ws in (t.target_x, t.target_y, t.attribute_a, t.attribute_b)]
            for t in weat_tests()}


def _train(args) -> int:
    """``python -m helpers train CORPUS OUT``: word2vec on a text corpus, written as a word2vec file."""
    from tqdm.auto import tqdm

    from .corpus import build_vocabulary, read_corpus, train_word2vec

    try:
        sentences = read_corpus(args.corpus)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    vocabulary = set(build_vocabulary(sentences, min_count=args.min_count))
    if not vocabulary:
        print(f"error: no word of {args.corpus} occurs at least --min-count={args.min_count} times: lower "
              "--min-count or give a larger corpus", file=sys.stderr)
        return 2
    sets = _table1_sets()
    if not any(words & vocabulary for four in sets.values() for words in four):
        print(f"error: {args.corpus} contains none of the words of the paper's Table 1 (seen at least "
              f"--min-count={args.min_count} times), so `replicate` could run none of its tests on the result. Train "
              "on English text that mentions them (flowers, insects, names, pronouns, career and family words, ...), "
              "or lower --min-count", file=sys.stderr)
        return 2
    # replicate runs all ten tests: a test with a word set of which no word was seen stops it
    usable = [row for row, four in sets.items() if all(words & vocabulary for words in four)]
    n_tokens = sum(len(s) for s in sentences)
    if not args.quiet:
        print(f"{len(sentences):,} sentences, {n_tokens:,} words, vocabulary {len(vocabulary):,} "
              f"(seen at least {args.min_count} times); every word set has words for {len(usable)} of the 10 "
              "Table 1 tests")
    if len(usable) < len(sets):
        missing = ", ".join(str(row) for row in sets if row not in usable)
        print(f"warning: Table 1 rows {missing} have a word set none of whose words is in the vocabulary; "
              "`replicate` will stop at the first of them. Run the other rows one by one with "
              "helpers.weat.run_weat (notebook 12, section 6)", file=sys.stderr)
    from .wordsets import wefat_names, wefat_occupations

    for what, (words, _) in (("occupations", wefat_occupations()), ("names", wefat_names())):
        found = len({w.lower() for w in words} & vocabulary)
        if found < 3:
            print(f"warning: only {found} of the {len(words)} WEFAT {what} are in the vocabulary; `replicate` "
                  "needs at least 3 for its WEFAT and will stop there", file=sys.stderr)
    with tqdm(total=args.epochs, desc="Training word2vec", unit=" epoch", disable=args.quiet) as bar:
        kv = train_word2vec(sentences, vector_size=args.vector_size, window=args.window, min_count=args.min_count,
                            epochs=args.epochs, sg=0 if args.cbow else 1, seed=args.seed,
                            on_epoch=lambda done: bar.update(done - bar.n))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    kv.save_word2vec_format(str(out), binary=args.binary)
    if not args.quiet:
        print(f"{len(kv.index_to_key):,} word vectors of {kv.vector_size} dimensions written to {out}; run the "
              f"paper's tests on them with: python -m helpers replicate --embedding {out}")
    return 0


GRADING_INSTALL = ("The grading commands are for instructors and are not part of the students' package. "
                   "Install the course with its grader: pip install -e '.[grading]' from the course folder "
                   "(README.md), then run the command again.")


def _grading_command(name: str):
    """The instructors' command ``name`` from :mod:`helpers.grading.cli`, or None (with a message on stderr)
    where the grader is not installed (the students' wheel)."""
    try:
        from .grading import cli
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == "helpers.grading" or not exc.name.startswith("helpers")):
            print(f"error: {GRADING_INSTALL} (missing: {exc.name})", file=sys.stderr)
            return None
        raise
    return getattr(cli, f"{name}_command")


def main(argv: list[str] | None = None) -> int:
    """``python -m helpers``: the ``replicate``, ``train``, ``grade``, ``feedback``, ``bundle`` and ``site`` commands.

    Parameters
    ----------
    argv : list of str or None
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success, 2 for an unusable embedding, corpus or course folder, or grading
        stopped before any submission (an ``error:`` on stderr saying why), 1 when autograding failed
        for a submission (then no export is written) or feedback could not be written.
    """
    parser = argparse.ArgumentParser(prog="python -m helpers", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("replicate", help="run all ten WEATs and both WEFATs and compare with the paper")
    rep.add_argument("--embedding", metavar="PATH", help="word2vec/GloVe/fastText text or binary, or a saved "
                     "gensim KeyedVectors (default: the embedded GloVe 6B 50d)")
    rep.add_argument("--n-resamples", "--permutations", dest="n_resamples", type=int, default=100_000, metavar="N",
                     help="random splits per sampled permutation test (default 100000; --permutations is an alias)")
    rep.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the random generator (default 0)")
    rep.add_argument("--ddof", type=int, choices=(0, 1), default=1,
                     help="standard deviation of the effect size: 1 = sample (default), 0 = population (d grows by sqrt(N/(N-1)))")
    rep.add_argument("--json", metavar="FILE", help="write the results as JSON to FILE")
    rep.add_argument("--out", metavar="DIR", help="write the figures to DIR")
    rep.add_argument("--format", choices=FIGURE_FORMATS, default="png", dest="fmt",
                     help="file format of the figures (default png; svg and pdf are vector graphics)")
    rep.add_argument("--dpi", type=int, default=120, metavar="N", help="resolution of PNG figures (default 120)")
    rep.add_argument("--quiet", action="store_true", help="print nothing but errors")
    rep.add_argument("--extended", action="store_true", help="also the lexicon WEATs of notebook 10 (Empath "
                     "categories, large SSA name lists, before and after projecting the gender direction out)")
    tr = sub.add_parser("train", help="train word2vec (deterministic: one thread, a seed) on a text corpus, one "
                        "sentence per line, and write a word2vec file that replicate --embedding reads")
    tr.add_argument("corpus", metavar="CORPUS", help="UTF-8 text file, one sentence per line (lower-cased, split at "
                    "white space)")
    tr.add_argument("out", metavar="OUT", help="the word2vec file to write (text, or binary with --binary)")
    tr.add_argument("--vector-size", type=int, default=100, metavar="N", help="dimensions (default 100)")
    tr.add_argument("--window", type=int, default=5, metavar="N", help="largest context distance (default 5)")
    tr.add_argument("--epochs", type=int, default=5, metavar="N", help="passes over the corpus (default 5)")
    tr.add_argument("--min-count", type=int, default=5, metavar="N",
                    help="leave out words seen fewer times (default 5)")
    tr.add_argument("--seed", type=int, default=0, metavar="S", help="seed of every random draw (default 0)")
    tr.add_argument("--cbow", action="store_true", help="CBOW instead of skip-gram")
    tr.add_argument("--binary", action="store_true", help="write word2vec's binary format instead of text")
    tr.add_argument("--quiet", action="store_true", help="print nothing but errors")
    gr = sub.add_parser("grade", help="instructors: check the grading environment on the worked solutions, then "
                        "autograde every submission in submitted/, write feedback and grades.csv (run from the course root)")
    gr.add_argument("assignments", nargs="*", help="assignment names (default: every assignment someone submitted)")
    gr.add_argument("--no-feedback", action="store_true", help="do not generate feedback HTML")
    gr.add_argument("--export", default="grades.csv", metavar="FILE", help="CSV of all grades (default grades.csv); "
                    "grades_lms.csv, question_stats.csv/.png and flags.csv are written next to it")
    gr.add_argument("--workers", type=int, default=None, metavar="N",
                    help="submissions graded at once, each in its own process (default: the number of cores)")
    gr.add_argument("--force", action="store_true",
                    help="regrade submissions already graded whose files have not changed (manual scores are kept)")
    gr.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="grade on a Dask distributed cluster (tcp://HOST:8786) instead of local processes; "
                    "needs pip install .[cluster] (docs/SYSADMIN.md)")
    gr.add_argument("--no-sandbox", action="store_true",
                    help="run student code without the bubblewrap sandbox (only for code you trust: see docs/INSTRUCTORS.md)")
    gr.add_argument("--new-students", action="store_true",
                    help="add students who are not in the gradebook yet (not on the imported roster); without it, "
                    "such a submission folder stops the run before anything is graded")
    fb = sub.add_parser("feedback", help="instructors: write the feedback HTML again with the gradebook's current "
                        "scores (run it after grading by hand)")
    fb.add_argument("assignments", nargs="*", help="assignment names (default: every assignment in autograded/)")
    fb.add_argument("--lms", metavar="DIR", default=None, help="also copy each student's feedback to "
                    "DIR/<assignment>/<student>_<notebook>.html, to upload to an LMS")
    bu = sub.add_parser("bundle", help="instructors: write the student distribution (released notebooks, data, the "
                        "course package as a wheel, requirements.txt) to OUT, with no solutions or hidden tests")
    bu.add_argument("out", metavar="OUT", help="folder to create")
    bu.add_argument("--force", action="store_true", help="replace OUT if it exists")
    si = sub.add_parser("site", help="the course as a static website in OUT (needs requirements-site.txt): the "
                        "self-study edition (executed worked solutions, folded) or the class edition (released notebooks)")
    si.add_argument("out", nargs="?", metavar="OUT", help="folder to write the site to (open OUT/index.html)")
    si.add_argument("--edition", choices=("self-study", "class"), default="self-study",
                    help="self-study (default): executed worked solutions, Table 1 and figures; class: the released "
                    "notebooks only, no output, worked solution or hidden test")
    si.add_argument("--force", action="store_true", help="replace OUT if it exists")
    si.add_argument("--execute-only", nargs="*", default=None, metavar="NN_topic",
                    help="build no site: execute the worked solutions (all, or the ones named) into executed/, "
                    "the stored notebooks the self-study edition shows")
    args = parser.parse_args(argv)
    if args.command == "site":
        return _site(args)
    if args.command == "train":
        for name in ("vector_size", "window", "epochs", "min_count"):
            if getattr(args, name) < 1:
                parser.error(f"--{name.replace('_', '-')} must be a positive number")
        return _train(args)
    if args.command in ("grade", "feedback", "bundle"):
        command = _grading_command(args.command)
        return 2 if command is None else command(args)
    if args.n_resamples < 1:
        parser.error("--n-resamples must be a positive number")
    if args.dpi < 1:
        parser.error("--dpi must be a positive number")
    try:
        doc = replicate(args.embedding, n_resamples=args.n_resamples, seed=args.seed, ddof=args.ddof,
                        out=args.out, progress=not args.quiet, fmt=args.fmt, dpi=args.dpi,
                        extended=args.extended)
    except (FileNotFoundError, ValueError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc  # KeyError quotes its text
        print(f"error: {message}", file=sys.stderr)
        return 2
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    if not args.quiet:
        print(format_report(doc))
        if args.out:
            print(f"\nFigures written to {args.out}/")
        if args.json:
            print(f"Results written to {args.json}")
    return 0
