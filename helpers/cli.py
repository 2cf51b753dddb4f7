"""Command line: ``python -m helpers replicate`` (the whole replication, headless) and ``python -m helpers grade`` (instructors).

Prints the Table 1 comparison (original IAT, paper, this embedding) and the WEFAT correlations,
writes the figures to ``--out`` and, with ``--json FILE``, the results in the JSON layout of the
course design (COURSE_DESIGN.md, "Self-study replication without a notebook").
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["main", "replicate"]

PAPER_WEFAT = {"occupations": 0.90, "names": 0.84}


def _fmt_p(p) -> str:
    if p is None:
        return "-"
    return f"{p:.0e}" if p < 1e-3 else f"{p:.3f}"


def replicate(embedding: str | None = None, *, permutations: int = 100_000, seed: int = 0, ddof: int = 1,
              out: str | None = None, progress: bool = True) -> dict:
    """Run the ten WEATs and both WEFATs; return the JSON-ready results dict (and write figures to ``out``)."""
    from .embeddings import DEFAULT_NAME, load_embedding
    from .weat import run_table1
    from .wefat import run_wefat_names, run_wefat_occupations
    from .wordsets import weat_tests

    kv = load_embedding(embedding, progress=progress)
    specs = {t.id: t for t in weat_tests()}
    results = run_table1(kv, ddof=ddof, n_resamples=permutations, seed=seed)
    weat = []
    for r in results:
        t = specs[r.test_id]
        na, nb = len(r.a_words), len(r.b_words)
        weat.append({
            "id": t.id, "target_x": t.target_x.name, "target_y": t.target_y.name,
            "attribute_a": t.attribute_a.name, "attribute_b": t.attribute_b.name,
            "n_target": r.n_target, "n_attribute": na if na == nb else [na, nb],
            "missing": r.missing_words, "trimmed": r.trimmed_words,
            "effect_size": r.effect_size, "p_value": r.pvalue, "p_method": r.method,
            "paper_effect_size": t.paper["d"], "paper_p_value": t.paper["p"],
        })
    occ, names = run_wefat_occupations(kv, ddof=ddof), run_wefat_names(kv, ddof=ddof)
    doc = {
        "embedding": str(embedding) if embedding else DEFAULT_NAME,
        "permutations": permutations, "seed": seed, "std_ddof": ddof, "weat": weat,
        "wefat": {k: {"n": w.n, "pearson_r": w.pearson_r, "p_value": w.p_value}
                  for k, w in (("occupations", occ), ("names", names))},
    }
    if out:
        _figures(Path(out), results, specs, occ, names)
    return doc


def _figures(out: Path, results, specs, occ, names) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import plots

    out.mkdir(parents=True, exist_ok=True)
    labels = [f"{r.test_id}. {specs[r.test_id].target_x.name} vs. {specs[r.test_id].target_y.name}\n"
              f"{specs[r.test_id].attribute_a.name.lower()} vs. {specs[r.test_id].attribute_b.name.lower()}, "
              f"{r.n_target} + {r.n_target} targets, {len(r.a_words)} + {len(r.b_words)} attributes" for r in results]
    ax = plots.forest_plot(labels, [r.effect_size for r in results], [specs[r.test_id].paper["d"] for r in results],
                           [specs[r.test_id].original["d"] for r in results])
    ax.figure.savefig(out / "table1_forest.png", dpi=120)
    plt.close(ax.figure)
    for key, w, xlabel, title in (
        ("occupations", occ, "women among workers in the occupation (%, BLS 2015)",
         "Figure 1: occupations, % women vs. association with female terms"),
        ("names", names, "people with the name who are female (%, 1990 census)",
         "Figure 2: androgynous names, % female vs. association with female terms"),
    ):
        ax = plots.wefat_scatter(w.values, w.scores, w.words, pearson_r=w.pearson_r, p_value=w.p_value,
                                 paper_r=PAPER_WEFAT[key], xlabel=xlabel, title=title)
        ax.figure.savefig(out / f"wefat_{key}.png", dpi=120)
        plt.close(ax.figure)
    r1 = results[0]
    ax = plots.null_distribution(r1.null_distribution, r1.statistic, pvalue=r1.pvalue, method=r1.method,
                                 title="WEAT 1 (flowers vs. insects): permutation null distribution")
    ax.figure.savefig(out / "weat1_null.png", dpi=120)
    plt.close(ax.figure)


def format_report(doc: dict) -> str:
    lines = [f"Embedding: {doc['embedding']}",
             f"Permutations per sampled test: {doc['permutations']:,}; seed {doc['seed']}; std ddof={doc['std_ddof']}",
             "", "Table 1: WEAT effect sizes d and one-sided p-values",
             f"{'#':>2}  {'targets':<56} {'N_T':>4} {'N_A':>4}  {'paper d':>7} {'ours d':>7}  {'paper P':>7} {'ours p':>8} {'method':<8} missing"]
    for w in doc["weat"]:
        targets = f"{w['target_x']} vs. {w['target_y']}".replace("European-American", "Eur.-Am.").replace("African-American", "Afr.-Am.")[:56]
        lines.append(f"{w['id']:>2}  {targets:<56} {w['n_target']:>4} {str(w['n_attribute']):>4}  {w['paper_effect_size']:>7.2f} "
                     f"{w['effect_size']:>7.2f}  {_fmt_p(w['paper_p_value']):>7} {_fmt_p(w['p_value']):>8} "
                     f"{w['p_method']:<8} {', '.join(w['missing']) or '-'}")
    lines += ["", "WEFAT: Pearson correlation of the association with female terms and the real-world share",
              f"{'':<13} {'n':>3} {'paper r':>8} {'ours r':>7} {'ours p':>9}"]
    for k, v in doc["wefat"].items():
        lines.append(f"{k:<13} {v['n']:>3} {PAPER_WEFAT[k]:>8.2f} {v['pearson_r']:>7.2f} {v['p_value']:>9.1e}")
    lines += ["", "The paper used GloVe Common Crawl 840B (300 d, cased); its P are from a normal approximation",
              "to 100,000 permutations, ours count permutations ((k+1)/(B+1)) or enumerate all splits (exact)."]
    return "\n".join(lines)


def _grade(args) -> int:
    from .grading import grade_class, summary

    if args.workers is not None and args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    try:
        reports = grade_class(".", assignments=args.assignments or None, workers=args.workers,
                              sandbox=not args.no_sandbox, force=args.force, feedback=not args.no_feedback,
                              export=args.export)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # helpers.sandbox.SandboxError says how to install bubblewrap
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{'assignment':<30} {'student':<20} {'score':>11}")
    for r in reports:
        note = "" if r.success else f"  (autograde failed: {r.error.strip().splitlines()[-1] if r.error.strip() else 'see nbgrader log'})"
        note += "  (late)" if r.seconds_late > 0 else ""
        note += "  (skipped: unchanged since last graded)" if r.skipped else ""
        note += f"  FLAGGED ({len(r.flags)})" if r.flags else ""
        print(f"{r.assignment:<30} {r.student:<20} {r.score:>5.1f}/{r.max_score:<5.1f}{note}")
    flags = [f for r in reports for f in r.flags]
    if flags:
        print("\nFlags for a person (also in flags.csv and the formgrader's manual grading):")
        for f in flags:
            print(f"  {f['assignment']} {f['student']} {f['notebook']} {f['cell'] or '(whole notebook)'}: {f['reason']}")
    n = summary(reports)
    print(f"\n{len(reports)} submission(s): {n['graded']} graded, {n['skipped']} skipped (unchanged; --force "
          f"regrades), {n['failed']} failed, {n['flagged']} flagged")
    if args.export:
        stem = Path(args.export)
        print(f"Grades written to {stem} and {stem.with_name(stem.stem + '_lms.csv')}; per-question statistics "
              f"to {stem.with_name('question_stats.csv')} (plot: .png); flags to {stem.with_name('flags.csv')}")
    return 0 if all(r.success for r in reports) else 1


def _bundle(args) -> int:
    from .bundle import build_bundle

    try:
        out = build_bundle(".", args.out, force=args.force)
    except (FileNotFoundError, FileExistsError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Student bundle written to {out}/ (give students this folder; see docs/STUDENTS.md)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m helpers", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("replicate", help="run all ten WEATs and both WEFATs and compare with the paper")
    rep.add_argument("--embedding", metavar="PATH", help="word2vec/GloVe/fastText text or binary, or a saved "
                     "gensim KeyedVectors (default: the embedded GloVe 6B 50d)")
    rep.add_argument("--permutations", type=int, default=100_000, metavar="N",
                     help="random splits per sampled permutation test (default 100000)")
    rep.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the random generator (default 0)")
    rep.add_argument("--ddof", type=int, choices=(0, 1), default=1,
                     help="standard deviation of the effect size: 1 = authors' code (default), 0 = population")
    rep.add_argument("--json", metavar="FILE", help="write the results as JSON to FILE")
    rep.add_argument("--out", metavar="DIR", help="write the figures (PNG) to DIR")
    rep.add_argument("--quiet", action="store_true", help="print nothing but errors")
    gr = sub.add_parser("grade", help="instructors: autograde every submission in submitted/, write feedback "
                        "and grades.csv (run from the course root)")
    gr.add_argument("assignments", nargs="*", help="assignment names (default: every assignment in solutions/)")
    gr.add_argument("--no-feedback", action="store_true", help="do not generate feedback HTML")
    gr.add_argument("--export", default="grades.csv", metavar="FILE", help="CSV of all grades (default grades.csv); "
                    "grades_lms.csv, question_stats.csv/.png and flags.csv are written next to it")
    gr.add_argument("--workers", type=int, default=None, metavar="N",
                    help="submissions graded at once, each in its own process (default: the number of cores)")
    gr.add_argument("--force", action="store_true",
                    help="regrade submissions already graded whose files have not changed (manual scores are kept)")
    gr.add_argument("--no-sandbox", action="store_true",
                    help="run student code without the bubblewrap sandbox (only for code you trust: see docs/INSTRUCTORS.md)")
    bu = sub.add_parser("bundle", help="instructors: write the student distribution (released notebooks, data, the "
                        "course package as a wheel, requirements.txt) to OUT, with no solutions or hidden tests")
    bu.add_argument("out", metavar="OUT", help="folder to create")
    bu.add_argument("--force", action="store_true", help="replace OUT if it exists")
    args = parser.parse_args(argv)
    if args.command == "grade":
        return _grade(args)
    if args.command == "bundle":
        return _bundle(args)
    if args.permutations < 1:
        parser.error("--permutations must be a positive number")
    try:
        doc = replicate(args.embedding, permutations=args.permutations, seed=args.seed, ddof=args.ddof,
                        out=args.out, progress=not args.quiet)
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
