"""The whole replication headless: the ten WEATs of Table 1 and both WEFATs of Caliskan, Bryson &
Narayanan, "Semantics derived automatically from language corpora contain human-like biases",
Science 356(6334):183-186, 2017 (doi:10.1126/science.aal4230), on one embedding, with the figures
and the plain-text report that ``python -m helpers replicate`` prints.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["replicate", "word_intervals", "write_figures", "format_report", "format_pvalue", "FIGURE_FORMATS",
           "BOOTSTRAP_RESAMPLES"]


def format_pvalue(p) -> str:
    """A p-value as the report prints it: ``-`` for None, ``1e-05`` below 0.001, else three decimals.

    Scientific notation with one digit below 0.001; Table 1 of the paper prints its P values as powers
    of ten, rounded up (``10^-7``).

    Parameters
    ----------
    p : float or None
        The p-value.

    Returns
    -------
    str
        The text.
    """
    if p is None:
        return "-"
    return f"{p:.0e}" if p < 1e-3 else f"{p:.3f}"


def replicate(embedding: str | None = None, *, n_resamples: int = 100_000, seed: int = 0, ddof: int = 1,
              out: str | None = None, progress: bool = True, fmt: str = "png", dpi: int = 120,
              extended: bool = False) -> dict:
    """Run the ten WEATs of Table 1 and both WEFATs of Caliskan, Bryson & Narayanan (Science 2017).

    What ``python -m helpers replicate`` runs: each WEAT's effect size and one-sided permutation
    p-value (:func:`helpers.weat.run_table1`; exact when all splits can be enumerated), the WEFAT
    correlations of occupations and names (:mod:`helpers.wefat`), the paper's values beside ours,
    and optionally the figures and notebook 10's lexicon WEATs.

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
        write_figures(Path(out), results, specs, occ, names, paper, fmt=fmt, dpi=dpi,
                 intervals=word_intervals(kv, results, seed=seed, ddof=ddof))
    return doc


#: The file formats of the figures (``--format``).
FIGURE_FORMATS = ("png", "svg", "pdf")
#: Bootstrap replicates per test of the intervals over word choice (:func:`word_intervals`).
BOOTSTRAP_RESAMPLES = 1_000


def word_intervals(kv, results, *, seed: int = 0, ddof: int = 1,
                   n_resamples: int = BOOTSTRAP_RESAMPLES) -> list[tuple[float, float]]:
    """95% intervals over word choice of each WEAT's effect size: the word bootstrap of notebook 9.

    For each result, the words it used are resampled with replacement within each of X, Y, A and B
    (:func:`helpers.lexicon.bootstrap_interval`, generator ``default_rng([seed, test_id, 9])``):
    the 2.5% and 97.5% percentiles of the replicates' effect sizes.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding the results were computed on.
    results : sequence of helpers.weat.WeatResult
        The tests, as :func:`helpers.weat.run_table1` returns them.
    seed : int
        Seed of the per-test generators.
    ddof : {0, 1}
        Delta degrees of freedom of the effect sizes' standard deviation, as for the results.
    n_resamples : int
        Bootstrap replicates per test.

    Returns
    -------
    list of helpers.statistics.ConfidenceInterval
        One ``(low, high)`` per result, in order.
    """
    import numpy as np

    from .embeddings import lookup
    from .lexicon import bootstrap_interval

    return [bootstrap_interval(*(lookup(kv, words).vectors for words in (r.x_words, r.y_words, r.a_words, r.b_words)),
                               n_resamples=n_resamples, ddof=ddof, rng=np.random.default_rng([seed, r.test_id or 0, 9]))
            for r in results]


def write_figures(out: Path, results, specs, occ, names, paper, *, fmt: str = "png", dpi: int = 120,
                  intervals=None) -> None:
    """Write the replication's figures to ``out``: Table 1 as a forest plot, Figures 1 and 2, WEAT 1's null.

    ``table1_forest``, ``wefat_occupations``, ``wefat_names`` and ``weat1_null`` with the suffix
    ``fmt``, drawn by :mod:`helpers.plots` (matplotlib's Agg backend: no display needed).

    Parameters
    ----------
    out : pathlib.Path
        The folder (made if it does not exist).
    results : sequence of helpers.weat.WeatResult
        Table 1's tests, WEAT 1 first.
    specs : dict
        ``{test id: helpers.wordsets.WeatSpec}``: names and the paper's values.
    occ, names : helpers.wefat.WefatResult
        The two WEFATs (occupations, names).
    paper : dict
        The paper's WEFAT results (:func:`helpers.wordsets.wefat_paper`).
    fmt : {"png", "svg", "pdf"}
        File format.
    dpi : int
        Resolution of PNG figures.
    intervals : sequence of (float, float), optional
        Each test's interval over word choice (:func:`word_intervals`), drawn around our effect size.

    Raises
    ------
    ValueError
        ``fmt`` is not one of :data:`FIGURE_FORMATS`.
    """
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

    The paper's effect size and p-value beside ours for each WEAT, then the WEFAT correlations, then
    how our p-values were computed (counted permutations or exact enumeration).

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
                     f"{w['effect_size']:>7.2f}  {format_pvalue(w['paper_pvalue']):>7} {format_pvalue(w['pvalue']):>8} "
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
