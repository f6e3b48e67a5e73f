"""Cross-check nmthpo's TransBO against OpenBox's ``tlbo_topov3_gp`` on one small setting.

OpenBox (PyPI ``openbox``) pins old scikit-learn/ConfigSpace versions, so it lives in its own
virtualenv (``.venv-openbox``) and never imports nmthpo. The check runs in three steps:

1. ``export`` (project venv): one TransBO trial on ``--target`` with ``--sources``; saves the
   source samples (shared encoding, standardised BLEU), the target table's encoding, the
   trial's rows and standardised BLEU, and per step our Phase-1 weights ``w``, our
   out-of-fold predictions and target weight ``p^T`` and our suggested row;
2. ``openbox`` (OpenBox venv; imports only numpy, ConfigSpace and openbox): per step,
   (a) solver level -- OpenBox's ``scipy_solve`` (SLSQP, rank loss type 3) on *our* matrix of
   source predictions, and on our out-of-fold matrix; (b) surrogate level -- OpenBox's
   ``TOPO_V3`` surrogate with ``surrogate_type="gp"`` (what ``tlbo_topov3_gp`` builds) on
   the same source samples and target prefix: its weights, and the row maximising its EI
   among the rows not yet evaluated;
3. ``compare`` (project venv): prints the agreement.

What must agree: (a) the solvers solve the same problem (OpenBox minimises, so predictions
and values are negated; it normalises the loss by the number of pairs instead of ``n^2``,
which leaves the minimiser unchanged), so weights should match to about 1e-3. What need not:
(b) ``TOPO_V3`` is OpenBox's *one-phase* variant (K source weights and the target's CV weight
learned jointly, target weight floored at 0.3, non-decreasing only from 10 observations) with
OpenBox's own GP, whereas TransBO (Li et al. 2022, Section 4) is two-phase; we report its
weights and how often its suggestion equals ours, as a sanity check, not an equality.

Usage::

    .venv/bin/python tools/openbox_crosscheck.py export --out results/openbox/ours.npz
    .venv-openbox/bin/python tools/openbox_crosscheck.py openbox \\
        --data results/openbox/ours.npz --out results/openbox/theirs.npz
    .venv/bin/python tools/openbox_crosscheck.py compare results/openbox/ours.npz \\
        results/openbox/theirs.npz
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np


# ------------------------------------------------------------------------------------------------
# 1. our side (project venv)
# ------------------------------------------------------------------------------------------------
def export(target: str, sources: list[str], budget: int, seed: int, out: Path) -> None:
    """Run one TransBO trial and save everything the OpenBox side needs."""
    from nmthpo.benchmark.tables import load_table
    from nmthpo.optimizers.transfer.combine import simplex_weights
    from nmthpo.optimizers.transfer.methods import TransBO
    from nmthpo.optimizers.transfer.sources import source_tasks

    table = load_table(target)
    X, bleu = table.encode("shared"), table.bleu
    srcs = source_tasks(sources, 50, seed, 0)
    opt = TransBO(X, np.random.default_rng([seed, 0, 1]), sources=srcs)
    init = np.random.default_rng([seed, 0, 0]).choice(table.n_rows, 3, replace=False)
    for r in init:
        opt.tell(int(r), bleu[r])
    K = len(srcs)
    steps = budget - 3
    w_ours = np.full((steps, K), np.nan)
    p_ours = np.full(steps, np.nan)
    suggestion = np.full(steps, -1)
    # out-of-fold predictions are re-derived here exactly as TransBO computes them
    cv_s = np.full((steps, budget), np.nan)
    cv_t = np.full((steps, budget), np.nan)
    orig = opt._surrogate

    def spy(ys: np.ndarray) -> Any:
        i = len(opt.rows) - 3
        rows = np.asarray(opt.rows)
        w_ours[i] = simplex_weights(opt.S_mean[:, rows].T, ys)
        state = opt.rng.bit_generator.state
        res = orig(ys)
        after = opt.rng.bit_generator.state
        opt.rng.bit_generator.state = state  # replay the fold split to record the CV matrix
        if rows.size >= opt.cv_min:
            from nmthpo.optimizers.transfer.combine import cv_folds

            folds = cv_folds(rows.size, opt.n_cv, opt.rng)
            A = opt.S_mean[:, rows].T
            for f in range(opt.n_cv):
                te = folds == f
                cv_s[i, : rows.size][te] = A[te] @ simplex_weights(A[~te], ys[~te])
                part = opt._fixed_gp(X[rows][~te], ys[~te], opt.cv_refit)
                cv_t[i, : rows.size][te] = part.predict(X[rows][te])[0]
        opt.rng.bit_generator.state = after
        p_ours[i] = res[2]
        return res

    opt._surrogate = spy  # type: ignore[method-assign]
    while len(opt.rows) < budget:
        i = len(opt.rows) - 3
        r = opt.ask()
        suggestion[i] = r
        opt.tell(r, bleu[r])
    rows = np.asarray(opt.rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        out,
        target=target,
        sources=np.array(sources),
        X=X,
        rows=rows,
        bleu=bleu[rows],
        A=opt.S_mean[:, rows].T,
        src_X=np.stack([s.X for s in srcs]),
        src_y=np.stack([s.y for s in srcs]),
        w_ours=w_ours,
        p_ours=p_ours,
        suggestion=suggestion,
        cv_s=cv_s,
        cv_t=cv_t,
    )
    print(f"exported {steps} TransBO steps on {target} (sources {', '.join(sources)}) -> {out}")


def compare(ours: Path, theirs: Path) -> int:
    """Print the agreement of the two sides; exit status 1 if the solver check fails."""
    from nmthpo.optimizers.transfer.combine import cv_target_weight

    a, b = np.load(ours), np.load(theirs)
    dw = np.nanmax(np.abs(a["w_ours"] - b["w_solver"]), axis=1)
    ok = np.isfinite(b["p_solver"])
    p_raw = np.full(ok.size, np.nan)  # our Eq. 8 solution before the non-decreasing max
    for i in np.flatnonzero(ok):
        t = 3 + i
        y = a["bleu"][:t]
        ys = (y - y.mean()) / (y.std() if y.std() > 0 else 1.0)
        p_raw[i] = cv_target_weight(a["cv_s"][i, :t], a["cv_t"][i, :t], ys)
    print(
        f"(a) Phase-1 weights, our SLSQP vs OpenBox scipy_solve on the same matrix: "
        f"max |dw| = {np.nanmax(dw):.2e} (median {np.nanmedian(dw):.2e}) over {dw.size} steps"
    )
    if ok.any():
        print(
            f"    CV target weight on the same out-of-fold matrix: max |dp| before the "
            f"non-decreasing max = {np.nanmax(np.abs(b['p_solver'] - p_raw)):.2e}"
        )
    same = np.mean(a["suggestion"] == b["suggestion_topo"])
    print(
        f"(b) OpenBox TOPO_V3 (one-phase, own GP): suggestion equals ours in {100 * same:.0f}% "
        f"of {a['suggestion'].size} steps; final weights ours w={np.round(a['w_ours'][-1], 3)}"
        f" p_T={a['p_ours'][-1]:.3f}; OpenBox {np.round(b['w_topo'][-1], 3)}"
    )
    print(
        f"    our suggestion's position in OpenBox's EI order (0 = its own choice): median "
        f"{np.median(b['rank_ours']):.0f}, per step {b['rank_ours'].tolist()}"
    )
    return 0 if np.nanmax(dw) < 1e-2 else 1


# ------------------------------------------------------------------------------------------------
# 2. OpenBox side (.venv-openbox; no nmthpo import)
# ------------------------------------------------------------------------------------------------
def run_openbox(data: Path, out: Path) -> None:
    """Solver- and surrogate-level OpenBox results for the exported trial."""
    from ConfigSpace import Configuration, ConfigurationSpace, UniformFloatHyperparameter
    from openbox.surrogate.tlbo.scipy_solver import scipy_solve
    from openbox.surrogate.tlbo.topo_variant3 import TOPO_V3
    from scipy.stats import norm

    z = np.load(data)
    A, rows, bleu, X = z["A"], z["rows"], z["bleu"], z["X"]
    steps, K = z["w_ours"].shape
    d = X.shape[1]
    cs = ConfigurationSpace()
    names = [f"x{j}" for j in range(d)]
    for nm in names:
        cs.add_hyperparameter(UniformFloatHyperparameter(nm, 0.0, 1.0))

    def cfg(x: np.ndarray) -> Any:
        return Configuration(cs, values={nm: float(v) for nm, v in zip(names, x, strict=True)})

    try:  # OpenBox >= 0.8: sources are History objects
        from openbox.utils.history import History, Observation

        source_data: list[Any] = []
        for k, (sx, sy) in enumerate(zip(z["src_X"], z["src_y"], strict=True)):
            h = History(task_id=f"source-{k}", num_objectives=1, config_space=cs)
            for x, y in zip(sx, sy, strict=True):
                h.update_observation(Observation(config=cfg(x), objectives=[-float(y)]))
            source_data.append(h)
    except ImportError:  # older OpenBox: {Configuration: performance} dictionaries
        source_data = [
            {cfg(x): -float(y) for x, y in zip(sx, sy, strict=True)}
            for sx, sy in zip(z["src_X"], z["src_y"], strict=True)
        ]
    w_solver = np.full((steps, K), np.nan)
    p_solver = np.full(steps, np.nan)
    w_topo = np.full((steps, K + 1), np.nan)
    sugg = np.full(steps, -1)
    rank_ours = np.full(steps, -1)  # rows OpenBox's EI prefers to our suggestion
    topo = TOPO_V3(cs, source_data, seed=1, surrogate_type="gp", num_src_hpo_trial=50)
    for i in range(steps):
        t = 3 + i
        y = bleu[:t]
        ys = (y - y.mean()) / (y.std() if y.std() > 0 else 1.0)
        x, status = scipy_solve(np.asmatrix(-A[:t]), np.asmatrix(-ys).T, 3)
        if status:
            w_solver[i] = x
        if np.isfinite(z["cv_s"][i, 0]):
            C = np.column_stack([z["cv_s"][i, :t], z["cv_t"][i, :t]])
            x2, status2 = scipy_solve(np.asmatrix(-C), np.asmatrix(-ys).T, 3)
            if status2:
                p_solver[i] = x2[1]
        topo.train(X[rows[:t]], -y)
        w_topo[i] = topo.get_weights()
        mu, var = topo.predict(X)
        mu, sd = mu.ravel(), np.sqrt(np.maximum(var.ravel(), 1e-12))
        # TOPO_V3 predicts standardised values (sources and target are standardised)
        best = float(np.min(-ys))
        u = (best - mu) / sd
        ei = sd * (u * norm.cdf(u) + norm.pdf(u))
        ei[rows[:t]] = -np.inf
        sugg[i] = int(np.argmax(ei))
        rank_ours[i] = int(np.sum(ei > ei[z["suggestion"][i]]))
    np.savez(
        out,
        w_solver=w_solver,
        p_solver=p_solver,
        w_topo=w_topo,
        rank_ours=rank_ours,
        suggestion_topo=sugg,
    )
    print(f"OpenBox results for {steps} steps -> {out}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("--target", default="zh-en")
    e.add_argument("--sources", default="ru-en,ja-en,en-ja")
    e.add_argument("--budget", type=int, default=20)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--out", type=Path, required=True)
    o = sub.add_parser("openbox")
    o.add_argument("--data", type=Path, required=True)
    o.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("ours", type=Path)
    c.add_argument("theirs", type=Path)
    args = ap.parse_args()
    if args.cmd == "export":
        export(args.target, args.sources.split(","), args.budget, args.seed, args.out)
        return 0
    if args.cmd == "openbox":
        run_openbox(args.data, args.out)
        return 0
    return compare(args.ours, args.theirs)


if __name__ == "__main__":
    raise SystemExit(main())
