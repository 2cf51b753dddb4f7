"""Command line: ``python -m helpers replicate`` (the whole replication, headless), ``grade``, ``feedback`` and ``bundle`` (instructors) and ``site`` (the course as a website).

Prints the Table 1 comparison (original IAT, paper, this embedding) and the WEFAT correlations,
writes the figures to ``--out`` (PNG, SVG or PDF: ``--format``, ``--dpi``) and, with ``--json FILE``, the
results as JSON (the layout is documented in README.md, "The JSON of ``replicate --json``").
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["main", "replicate"]

def _fmt_p(p) -> str:
    if p is None:
        return "-"
    return f"{p:.0e}" if p < 1e-3 else f"{p:.3f}"


def replicate(embedding: str | None = None, *, n_resamples: int = 100_000, seed: int = 0, ddof: int = 1,
              out: str | None = None, progress: bool = True, fmt: str = "png", dpi: int = 120,
              extended: bool = False) -> dict:
    """Run the ten WEATs of Table 1 and both WEFATs of Caliskan, Bryson & Narayanan (Science 2017).

    Parameters
    ----------
    embedding : str or None
        Path of a word2vec/GloVe/fastText file or a saved gensim KeyedVectors; None for the
        default GloVe 6B 50d.
    n_resamples : int
        Random splits per sampled permutation test (small tests are enumerated exactly).
    seed : int
        Seed of the per-test generators (``numpy.random.default_rng([seed, test_id])``).
    ddof : int, 0 or 1
        Delta degrees of freedom of the effect size's standard deviation (1, the course's default: the sample standard deviation).
    out : str or None
        Folder to write the figures to; None writes none.
    progress : bool
        Show a progress bar when a text embedding is converted.
    fmt : {"png", "svg", "pdf"}
        File format of the figures.
    dpi : int
        Resolution of PNG figures, in dots per inch.
    extended : bool
        Also the lexicon WEATs of notebook 10 (:func:`helpers.lexicon.lexicon_json`), under ``lexicon``.

    Returns
    -------
    dict
        The JSON-ready results: ``embedding``, ``n_resamples``, ``seed``, ``ddof``, ``weat`` (one
        dict per test), ``wefat`` (``occupations`` and ``names``) and, with ``extended``, ``lexicon``;
        see README.md.
    """
    from .embeddings import DEFAULT_NAME, load_embedding
    from .weat import run_table1
    from .wefat import run_wefat_names, run_wefat_occupations
    from .wordsets import weat_tests, wefat_paper

    kv = load_embedding(embedding, progress=progress)
    specs = {t.id: t for t in weat_tests()}
    results = run_table1(kv, ddof=ddof, n_resamples=n_resamples, seed=seed)
    weat = []
    for r in results:
        t = specs[r.test_id]
        na, nb = len(r.a_words), len(r.b_words)
        weat.append({
            "id": t.id, "target_x": t.target_x.name, "target_y": t.target_y.name,
            "attribute_a": t.attribute_a.name, "attribute_b": t.attribute_b.name,
            "n_target": r.n_target, "n_attribute": na if na == nb else [na, nb],
            "missing": r.missing_words, "trimmed": r.trimmed_words,
            "effect_size": r.effect_size, "pvalue": r.pvalue, "p_method": r.method,
            "paper_effect_size": t.paper["d"], "paper_pvalue": t.paper["p"],
        })
    occ, names = run_wefat_occupations(kv, ddof=ddof), run_wefat_names(kv, ddof=ddof)
    paper = wefat_paper()
    doc = {
        "embedding": str(embedding) if embedding else DEFAULT_NAME,
        "n_resamples": n_resamples, "seed": seed, "ddof": ddof, "weat": weat,
        "wefat": {k: {"n": w.n, "pearson_r": w.pearson_r, "pvalue": w.pvalue, "paper_pearson_r": paper[k]["pearson_r"]}
                  for k, w in (("occupations", occ), ("names", names))},
    }
    if extended:
        from .lexicon import lexicon_json
        doc["lexicon"] = lexicon_json(kv, seed=seed)
    if out:
        _figures(Path(out), results, specs, occ, names, paper, fmt=fmt, dpi=dpi,
                 intervals=word_intervals(kv, results, seed=seed, ddof=ddof))
    return doc


FIGURE_FORMATS = ("png", "svg", "pdf")
BOOTSTRAP_RESAMPLES = 1_000


def word_intervals(kv, results, *, seed: int = 0, ddof: int = 1,
                   n_resamples: int = BOOTSTRAP_RESAMPLES) -> list[tuple[float, float]]:
    """95% intervals over word choice of each WEAT's effect size: the word bootstrap of notebook 9.

    For each result, the words it used are resampled with replacement within each of X, Y, A and B
    (:func:`helpers.lexicon.bootstrap_interval`, generator ``default_rng([seed, test_id, 9])``):
    the 2.5% and 97.5% percentiles of the replicates' effect sizes.

    Parameters
    ----------
    kv : gensim ``KeyedVectors``, the embedding the results were computed on.
    results : sequence of :class:`helpers.weat.WeatResult`.
    seed : int, seed of the per-test generators.
    ddof : 0 or 1, as for the effect sizes.
    n_resamples : int, bootstrap replicates per test.

    Returns
    -------
    list of (float, float)
        One (low, high) per result, in order.
    """
    import numpy as np

    from .embeddings import lookup
    from .lexicon import bootstrap_interval

    return [bootstrap_interval(*(lookup(kv, words).vectors for words in (r.x_words, r.y_words, r.a_words, r.b_words)),
                               n_resamples=n_resamples, ddof=ddof, rng=np.random.default_rng([seed, r.test_id or 0, 9]))
            for r in results]


def _figures(out: Path, results, specs, occ, names, paper, *, fmt: str = "png", dpi: int = 120,
             intervals=None) -> None:
    if fmt not in FIGURE_FORMATS:
        raise ValueError(f"The figure format must be one of {', '.join(FIGURE_FORMATS)}, not {fmt!r}.")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import plots

    out.mkdir(parents=True, exist_ok=True)
    labels = [f"{r.test_id}. {specs[r.test_id].target_x.name} vs. {specs[r.test_id].target_y.name}\n"
              f"{specs[r.test_id].attribute_a.name.lower()} vs. {specs[r.test_id].attribute_b.name.lower()}, "
              f"{r.n_target} + {r.n_target} targets, {len(r.a_words)} + {len(r.b_words)} attributes" for r in results]
    ours_label = "this embedding" if intervals is None else (
        f"this embedding, with its 95% interval\nover words ({BOOTSTRAP_RESAMPLES:,} bootstrap resamples)")
    ax = plots.forest_plot(labels, [r.effect_size for r in results], [specs[r.test_id].paper["d"] for r in results],
                           [specs[r.test_id].original["d"] for r in results], ours_label=ours_label,
                           intervals=intervals)
    ax.figure.savefig(out / f"table1_forest.{fmt}", dpi=dpi)
    plt.close(ax.figure)
    for key, w, xlabel, title in (
        ("occupations", occ, "women among workers in the occupation (%, BLS 2015)",
         "Figure 1: occupations, % women vs. association with female terms"),
        ("names", names, "people with the name who are female (%, 1990 census)",
         "Figure 2: androgynous names, % female vs. association with female terms"),
    ):
        ax = plots.wefat_scatter(w.values, w.scores, w.words, pearson_r=w.pearson_r, pvalue=w.pvalue,
                                 paper_r=paper[key]["pearson_r"], xlabel=xlabel, title=title)
        ax.figure.savefig(out / f"wefat_{key}.{fmt}", dpi=dpi)
        plt.close(ax.figure)
    r1 = results[0]
    ax = plots.null_distribution(r1.null_distribution, r1.statistic, pvalue=r1.pvalue, method=r1.method,
                                 title="WEAT 1 (flowers vs. insects): permutation null distribution")
    ax.figure.savefig(out / f"weat1_null.{fmt}", dpi=dpi)
    plt.close(ax.figure)


def format_report(doc: dict) -> str:
    """The plain-text report of :func:`replicate`'s results: Table 1 side by side, then the WEFATs.

    Parameters
    ----------
    doc : dict
        What :func:`replicate` returns.

    Returns
    -------
    str
        The report, one line per test.
    """
    lines = [f"Embedding: {doc['embedding']}",
             f"Permutations per sampled test: {doc['n_resamples']:,}; seed {doc['seed']}; std ddof={doc['ddof']}",
             "", "Table 1: WEAT effect sizes d and one-sided p-values",
             f"{'#':>2}  {'targets':<56} {'N_T':>4} {'N_A':>4}  {'paper d':>7} {'ours d':>7}  {'paper P':>7} {'ours p':>8} {'method':<8} missing"]
    for w in doc["weat"]:
        targets = f"{w['target_x']} vs. {w['target_y']}".replace("European-American", "Eur.-Am.").replace("African-American", "Afr.-Am.")[:56]
        lines.append(f"{w['id']:>2}  {targets:<56} {w['n_target']:>4} {str(w['n_attribute']):>4}  {w['paper_effect_size']:>7.2f} "
                     f"{w['effect_size']:>7.2f}  {_fmt_p(w['paper_pvalue']):>7} {_fmt_p(w['pvalue']):>8} "
                     f"{w['p_method']:<8} {', '.join(w['missing']) or '-'}")
    lines += ["", "WEFAT: Pearson correlation of the association with female terms and the real-world share",
              f"{'':<13} {'n':>3} {'paper r':>8} {'ours r':>7} {'ours p':>9}"]
    for k, v in doc["wefat"].items():
        lines.append(f"{k:<13} {v['n']:>3} {v['paper_pearson_r']:>8.2f} {v['pearson_r']:>7.2f} {v['pvalue']:>9.1e}")
    lines += ["", "The paper used GloVe Common Crawl 840B (300 d, cased). Our p count permutations ((k+1)/(B+1))",
              "or enumerate all splits (exact). The paper's smallest P (1e-07, 1e-08) are below what counting",
              "100,000 splits can give; a normal approximation reaches them (our inference, not the paper's word)."]
    if "lexicon" in doc:
        from .lexicon import format_lexicon
        lines.append(format_lexicon(doc["lexicon"]))
    return "\n".join(lines)


def _grade(args) -> int:
    from .grading import GradingStopped, blocking_failures, grade_class, summary

    if args.workers is not None and args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    try:
        reports = grade_class(".", assignments=args.assignments or None, workers=args.workers,
                              sandbox=not args.no_sandbox, force=args.force, feedback=not args.no_feedback,
                              export=args.export, scheduler=args.scheduler, log=print)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except GradingStopped as exc:
        print(f"error: grading stopped before any submission was graded.\n{exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # helpers.sandbox.SandboxError says how to install bubblewrap
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{'assignment':<30} {'student':<20} {'score':>11}")
    for r in reports:
        note = "" if r.success else "  (autograde failed: see the errors below)"
        note += "  (late)" if r.seconds_late > 0 else ""
        note += "  (skipped: unchanged since last graded)" if r.skipped else ""
        note += f"  FLAGGED ({len(r.flags)})" if r.flags else ""
        print(f"{r.assignment:<30} {r.student:<20} {r.score:>5.1f}/{r.max_score:<5.1f}{note}")
    flags = [f for r in reports for f in r.flags]
    if flags:
        print("\nFlags for a person (also in flags.csv and the formgrader's manual grading):")
        for f in flags:
            print(f"  {f['assignment']} {f['student']} {f['notebook']} {f['cell'] or '(whole notebook)'}: {f['reason']}")
    errors: dict[str, list[str]] = {}
    for r in reports:
        if not r.success:
            errors.setdefault(r.error.strip() or "nbgrader gave no reason", []).append(f"{r.assignment}/{r.student}")
    if errors:
        print("\nErrors (the submissions nbgrader could not grade):")
        for error, who in errors.items():
            print(f"  {', '.join(who[:5])}{f' and {len(who) - 5} more' if len(who) > 5 else ''}: {error}")
    n = summary(reports)
    print(f"\n{len(reports)} submission(s): {n['graded']} graded, {n['skipped']} skipped (unchanged; --force "
          f"regrades), {n['failed']} failed, {n['flagged']} flagged")
    failed = blocking_failures(reports)
    if args.export and failed:
        stem = Path(args.export)
        print(f"No exports written: {len(failed)} submission(s) could not be graded (errors above). {stem} and the "
              f"other exports, if any, are those of an earlier run. Fix the cause and run again: what was graded "
              f"is skipped.")
    elif args.export:
        stem = Path(args.export)
        print(f"Grades written to {stem} and {stem.with_name(stem.stem + '_lms.csv')}; per-question statistics "
              f"to {stem.with_name('question_stats.csv')} (plot: .png); open flags to {stem.with_name('flags.csv')}")
    if not args.no_feedback:
        print("Feedback written to feedback/; after grading by hand, run `python -m helpers feedback` to write "
              "it again with your grades.")
    return 0 if all(r.success for r in reports) else 1


def _feedback(args) -> int:
    from .grading import regenerate_feedback

    try:
        reports = regenerate_feedback(".", args.assignments or None, lms=args.lms)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not reports:
        print("error: no autograded submission in autograded/: grade first (python -m helpers grade)", file=sys.stderr)
        return 2
    status = 0
    for r in reports:
        if r.error:
            print(f"{r.assignment}: feedback failed: {r.error}", file=sys.stderr)
            status = 1
            continue
        print(f"{r.assignment}: feedback written for {len(r.students)} submission(s) to feedback/<student>/{r.assignment}/")
        if r.waiting:
            print(f"  still waiting for manual grading (their feedback shows those cells ungraded): "
                  f"{', '.join(r.waiting)}")
        if r.lms_files:
            print(f"  for the LMS: {len(r.lms_files)} file(s) in {r.lms_files[0].parent}/ (<student>_<notebook>.html)")
    return status


def _bundle(args) -> int:
    from .bundle import build_bundle

    try:
        out = build_bundle(".", args.out, force=args.force)
    except (FileNotFoundError, FileExistsError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Student bundle written to {out}/ (give students this folder; see docs/STUDENTS.md)")
    return 0


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


def main(argv: list[str] | None = None) -> int:
    """``python -m helpers``: the ``replicate``, ``grade``, ``feedback``, ``bundle`` and ``site`` commands.

    Parameters
    ----------
    argv : list of str or None
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success, 2 for an unusable embedding or course folder, or grading
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
    if args.command == "grade":
        return _grade(args)
    if args.command == "feedback":
        return _feedback(args)
    if args.command == "bundle":
        return _bundle(args)
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
