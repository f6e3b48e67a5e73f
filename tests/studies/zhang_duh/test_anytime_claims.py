"""Tests of nmthpo.studies.zhang_duh.anytime_claims: the Figure 6 statistics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.claims import Above, AllOf, Below, Every
from nmthpo.engine.stats import VERDICTS
from nmthpo.studies.zhang_duh import anytime_claims as ac


def _fig6_frames(n_trials: int = 10, steps: int = 60) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(0)
    n = 150  # ja-en's rows
    frames = {}
    for m in ("rs", "bo-ei-m", "gb-eif-m"):
        rows = []
        for t in range(n_trials):
            for s, r in enumerate(rng.permutation(n)[:steps]):
                mse = np.nan if m == "rs" else (2.0 if m.startswith("bo") else 1.0) / (s + 1)
                rows.append({"trial": t, "step": s + 1, "row": int(r), "mse": mse})
        frames[m] = pd.DataFrame(rows)
    return frames


def test_figure6_statistics() -> None:
    frames = _fig6_frames()
    leaders = ac.figure6_leaders(frames, "ja-en", (5, 10))
    assert list(leaders.index) == [5, 10] and "best GB minus best BO" in leaders.columns
    fast = ac.faster_than_rs(frames, "ja-en", (5, 10))
    assert set(fast.parts) == {"best BO at 5", "best GB at 5", "best BO at 10", "best GB at 10"}
    assert fast.quantity == "bleu" and Every(Above(0.0)).judge(fast)[0] in VERDICTS
    sup = ac.gb_superior(frames, "ja-en", (5, 10))
    assert set(sup.parts) == {"5 evaluations", "10 evaluations"}
    # MSE: BO's is twice GB's at every step and falls as 1/step
    mse = ac.mse_claim_parts(frames, "ja-en", start=3, late=50)
    assert mse.parts["BO starts larger"].value == pytest.approx(2.0)
    assert mse.parts["BO decreases"].value == pytest.approx(3 / 50)
    var = float(np.var(load_table("ja-en").bleu))
    assert mse.parts["GB fits well at the start"].value == pytest.approx((1 / 3) / var)
    rule = AllOf(
        {
            "GB fits well at the start": Below(1.0),
            "BO starts larger": Above(1.0),
            "BO decreases": Below(1.0),
        }
    )
    assert rule.judge(mse)[0] == "reproduced"
    assert ac.mse_ratio_at(frames, 20).value == pytest.approx(0.5)
    no_mse = {m: f.drop(columns="mse") for m, f in frames.items()}
    assert np.isnan(ac.mse_claim_parts(no_mse, "ja-en").value)
    assert np.isnan(ac.mse_ratio_at(no_mse, 20).value)
