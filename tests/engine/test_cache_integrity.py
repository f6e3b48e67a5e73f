"""Damaged, foreign or stale cache entries are named, moved aside and recomputed (issue 12)."""

from __future__ import annotations

import functools
import json
import logging
import os
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nmthpo.engine.cache import CHECKSUM_FIELD, artefact_problem, sha256_file, sidecar_path
from nmthpo.engine.runner import RunSpec, _partial_record, _write_npz, run, run_trial

TRIALS = 4
KW = dict(trials=TRIALS, seed=2, progress=False)


def _run(cache: Path) -> pd.DataFrame:
    return run("rs", "ja-en", cache_dir=cache, **KW).frame


@pytest.fixture
def fresh() -> pd.DataFrame:
    return run("rs", "ja-en", **KW).frame


def _final(cache: Path) -> Path:
    (pq,) = cache.glob("*.parquet")
    return pq


def _moved(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.rglob("*.bad-*"))


def _reseal(path: Path) -> None:
    """Rewrite the sidecar's checksum so that it matches the (altered) file."""
    side = sidecar_path(path)
    rec = json.loads(side.read_text())
    rec[CHECKSUM_FIELD] = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    side.write_text(json.dumps(rec))


def test_finished_run_has_checksummed_sidecar(tmp_path: Path) -> None:
    _run(tmp_path)
    pq = _final(tmp_path)
    rec = json.loads(sidecar_path(pq).read_text())
    assert rec[CHECKSUM_FIELD]["sha256"] == sha256_file(pq)
    assert artefact_problem(pq, RunSpec("rs", "ja-en", seed=2).payload()) is None
    assert "another spec" in artefact_problem(pq, RunSpec("rs", "ja-en", seed=3).payload())


def test_flipped_bytes_are_never_reused(
    tmp_path: Path, fresh: pd.DataFrame, caplog: pytest.LogCaptureFixture
) -> None:
    _run(tmp_path)
    pq = _final(tmp_path)
    blob = bytearray(pq.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    pq.write_bytes(bytes(blob))
    with caplog.at_level(logging.WARNING, logger="nmthpo"):
        again = _run(tmp_path)
    assert "SHA-256 mismatch" in caplog.text and pq.name in caplog.text
    pd.testing.assert_frame_equal(again, fresh)
    assert _moved(tmp_path) == sorted([f"{pq.name}.bad-1", f"{sidecar_path(pq).name}.bad-1"])
    assert artefact_problem(pq, RunSpec("rs", "ja-en", seed=2).payload()) is None


def test_valid_file_with_a_wrong_row_is_never_reused(
    tmp_path: Path, fresh: pd.DataFrame, caplog: pytest.LogCaptureFixture
) -> None:
    _run(tmp_path)
    pq = _final(tmp_path)
    frame = pd.read_parquet(pq)
    frame.loc[5, "row"] = 99999  # the tampered row, with a matching checksum
    frame.to_parquet(pq, index=False)
    _reseal(pq)
    with caplog.at_level(logging.WARNING, logger="nmthpo"):
        again = _run(tmp_path)
    assert "row id 99999 is outside the table" in caplog.text
    pd.testing.assert_frame_equal(again, fresh)
    assert 99999 not in again["row"].to_numpy()


def test_repeated_row_and_wrong_bleu_are_never_reused(tmp_path: Path, fresh: pd.DataFrame) -> None:
    for change in ("repeat", "bleu"):
        cache = tmp_path / change
        _run(cache)
        pq = _final(cache)
        frame = pd.read_parquet(pq)
        if change == "repeat":
            frame.loc[1, "row"] = frame.loc[0, "row"]
            frame.loc[1, "bleu"] = frame.loc[0, "bleu"]
        else:
            frame.loc[2, "bleu"] += 1.0
        frame.to_parquet(pq, index=False)
        _reseal(pq)
        pd.testing.assert_frame_equal(_run(cache), fresh)
        assert len(_moved(cache)) == 2


def test_legacy_sidecar_without_checksum_is_validated(tmp_path: Path, fresh: pd.DataFrame) -> None:
    """Runs cached before checksums (the book's results/) are reused only if their rows
    validate."""
    _run(tmp_path)
    pq = _final(tmp_path)
    side = sidecar_path(pq)
    rec = json.loads(side.read_text())
    rec.pop(CHECKSUM_FIELD)
    side.write_text(json.dumps(rec))
    stamp = pq.stat().st_mtime_ns
    pd.testing.assert_frame_equal(_run(tmp_path), fresh)
    assert _moved(tmp_path) == [] and pq.stat().st_mtime_ns == stamp  # reused, not rewritten
    frame = pd.read_parquet(pq)
    frame.loc[0, "row"] = -1
    frame.to_parquet(pq, index=False)
    pd.testing.assert_frame_equal(_run(tmp_path), fresh)
    assert len(_moved(tmp_path)) == 2


def test_foreign_sidecar_is_not_reused(tmp_path: Path, fresh: pd.DataFrame) -> None:
    _run(tmp_path)
    pq = _final(tmp_path)
    side = sidecar_path(pq)
    rec = json.loads(side.read_text())
    rec["seed"] = 7
    side.write_text(json.dumps(rec))
    pd.testing.assert_frame_equal(_run(tmp_path), fresh)
    assert len(_moved(tmp_path)) == 2


def _partial(cache: Path, trial: int) -> Path:
    spec = RunSpec("rs", "ja-en", seed=2)
    path = cache / "partial" / spec.stem() / f"trial-{trial:05d}.npz"
    _write_npz(path, run_trial(spec, trial), _partial_record(spec, trial))
    return path


@pytest.mark.parametrize("damage", ["truncate", "flip", "no-sidecar", "other-trial", "wrong-row"])
def test_damaged_partial_trial_is_recomputed(
    tmp_path: Path, fresh: pd.DataFrame, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    good, bad = _partial(tmp_path, 0), _partial(tmp_path, 1)
    if damage == "truncate":
        bad.write_bytes(bad.read_bytes()[:100])
    elif damage == "flip":
        blob = bytearray(bad.read_bytes())
        blob[-30] ^= 0x01
        bad.write_bytes(bytes(blob))
    elif damage == "no-sidecar":
        sidecar_path(bad).unlink()
    elif damage == "other-trial":
        sidecar_path(bad).write_text(sidecar_path(good).read_text())
    else:
        with np.load(bad) as z:
            arrays = {k: z[k] for k in z.files}
        arrays["row"] = arrays["row"].copy()
        arrays["row"][-1] = arrays["row"][0]
        _write_npz(bad, arrays, _partial_record(RunSpec("rs", "ja-en", seed=2), 1))
    with caplog.at_level(logging.WARNING, logger="nmthpo"):
        again = _run(tmp_path)
    assert "trial-00001.npz" in caplog.text and "trial-00000.npz" not in caplog.text
    pd.testing.assert_frame_equal(again, fresh)
    moved = _moved(tmp_path)
    assert moved and all(m.startswith("trial-00001.") for m in moved)


def test_outputs_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        res = run("rs", "ja-en", cache_dir=tmp_path / "cache", **KW)
        res.save(tmp_path / "out")
    finally:
        os.umask(old)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 5
    for p in files:
        assert stat.S_IMODE(p.stat().st_mode) == 0o640, p


def test_committed_run_caches_are_accepted() -> None:
    """The book's results/ (written before checksums, some without a sidecar) pass the
    checks, so a chapter never recomputes or moves them."""
    from nmthpo.engine.cache import results_dir
    from nmthpo.engine.runner import _frame_problem

    checked = 0
    for pq in sorted(results_dir().rglob("*__*__*.parquet")):
        frame = pd.read_parquet(pq)
        if "row" not in frame.columns:
            continue  # a study's table, not a run
        task = pq.stem.split("__")[1]
        if "checkpoint" in frame.columns:  # a learning-curve run: always with its sidecar
            from nmthpo.engine.fidelity import CurveRunSpec

            side = json.loads(pq.with_suffix(".json").read_text())
            curves = CurveRunSpec(
                side["method"], side["task"], side["budget"], side["seed"], side["settings"]
            )
            assert artefact_problem(pq, curves.payload()) is None, pq
            assert curves.frame_problem(frame) is None, pq
            checked += 1
            continue
        spec = (
            RunSpec("rs", task, sources=("zh-en",))
            if "rep" in frame.columns
            else RunSpec("rs", task)
        )
        assert artefact_problem(pq, {}, require_checksum=False) is None, pq
        assert _frame_problem(spec, frame) is None, pq
        checked += 1
    assert checked > 100


# -- the studies' caches: Chapter 5's GA tables and Chapter 6's entries ----------------------------
GA_KW = dict(init_pops=(5,), iterations=8, trials=1, variants={"paper": {}})


def _ga(cache: Path, **extra: object) -> pd.DataFrame:
    from nmthpo.studies.ganapathy import tables as genetic

    return genetic.cached_table("variants", cache_dir=cache, **{**GA_KW, **extra})


def _select_frame(budget: int, trials: int) -> pd.DataFrame:
    """A small frame of Chapter 6's ``select`` kind (its columns and levels)."""
    from nmthpo.studies.ariafar.results import _COLUMNS

    rows = [
        {
            "budget": budget,
            "trial": t,
            "method": m,
            "where": "full",
            "space": "full",
            "n_rows": 100,
            "best": 20.0 + t,
            "incumbent": 19.0 + t,
            "final": 19.5,
        }
        for t in range(trials)
        for m in ("rs", "bo-ei-m")
    ]
    return pd.DataFrame(rows, columns=list(_COLUMNS["select"]))


def _scoring(cache: Path, calls: list[int], budget: int = 10) -> pd.DataFrame:
    from nmthpo.studies.ariafar.results import cached_frame

    def compute() -> pd.DataFrame:
        calls.append(budget)
        return _select_frame(budget, 2)

    return cached_frame("select", f"t-b{budget}", {"budget": budget, "trials": 2}, compute, cache)


def _study_entry(which: str, cache: Path) -> tuple[Path, Path, object]:
    """Write one entry of ``which`` cache; (parquet, sidecar, a function that reruns it and
    returns (frame, number of computations so far))."""
    calls: list[int] = []
    if which == "ga":
        from nmthpo.studies.ganapathy import tables as genetic

        real = genetic._CACHEABLE["variants"]

        @functools.wraps(real)  # the same signature: cached_table binds the parameters to it
        def counted(**kw: object) -> pd.DataFrame:
            calls.append(1)
            return real(**kw)

        def again() -> tuple[pd.DataFrame, int]:
            with pytest.MonkeyPatch.context() as mp:
                mp.setitem(genetic._CACHEABLE, "variants", counted)
                return _ga(cache), len(calls)

        _ga(cache)
        side_suffix = ".json"
    else:

        def again() -> tuple[pd.DataFrame, int]:
            return _scoring(cache, calls), len(calls)

        _scoring(cache, [])
        side_suffix = ".params.txt"
    (pq,) = cache.glob("*.parquet")
    return pq, sidecar_path(pq, side_suffix), again


@pytest.mark.parametrize("which", ["ga", "scoring"])
@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign", "no-checksum", "wrong-content"])
def test_damaged_study_cache_entry_is_set_aside_and_recomputed(
    tmp_path: Path, which: str, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"
    pq, side, again = _study_entry(which, cache)
    good = pd.read_parquet(pq)
    expected = {
        "flip": "SHA-256 mismatch",
        "truncate": "truncated",
        "foreign": "another spec",
        "no-checksum": "records no checksum",
        "wrong-content": "column" if which == "scoring" else "rows",
    }[damage]
    if damage == "flip":
        blob = bytearray(pq.read_bytes())
        blob[len(blob) // 2] ^= 0xFF
        pq.write_bytes(bytes(blob))
    elif damage == "truncate":
        pq.write_bytes(pq.read_bytes()[: pq.stat().st_size // 2])
    elif damage == "foreign":  # the sidecar of another call (other parameters)
        other = tmp_path / "other"
        if which == "ga":
            _ga(other, iterations=9)
        else:
            _scoring(other, [], budget=20)
        (other_pq,) = other.glob("*.parquet")
        side.write_text(sidecar_path(other_pq, side.name[len(pq.stem) :]).read_text())
    elif damage == "no-checksum":  # a user-cache entry must have one
        rec = json.loads(side.read_text())
        rec.pop(CHECKSUM_FIELD)
        side.write_text(json.dumps(rec))
    else:  # a valid Parquet file, checksum matching, content of another call
        bad = good.iloc[:-1] if which == "ga" else good.assign(trial=good["trial"] + 5)
        bad.to_parquet(pq, index=which == "ga")
        rec = json.loads(side.read_text())
        rec[CHECKSUM_FIELD] = {"sha256": sha256_file(pq), "bytes": pq.stat().st_size}
        side.write_text(json.dumps(rec))
    with caplog.at_level(logging.WARNING, logger="nmthpo"):
        frame, computed = again()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "\n" not in warnings[0], warnings
    assert pq.name in warnings[0] and expected in warnings[0], warnings[0]
    assert computed == 1  # recomputed, not reused
    pd.testing.assert_frame_equal(frame, good)
    assert _moved(cache) == sorted([f"{pq.name}.bad-1", f"{side.name}.bad-1"])
    # the recomputed entry is checksummed and reused as it is
    caplog.clear()
    frame, computed = again()
    assert computed == 1 and not caplog.records
    pd.testing.assert_frame_equal(frame, good)


def test_legacy_study_entries_are_reused_only_if_their_content_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries of the book's cache were written before checksums: accepted without one (never
    rewritten) when their content validates, set aside when it does not."""
    import nmthpo.engine.cache as cache_mod

    book = tmp_path / "results"
    monkeypatch.setattr(cache_mod, "results_dir", lambda: book)
    for which in ("ga", "scoring"):
        pq, side, again = _study_entry(which, book / which)
        rec = json.loads(side.read_text())
        rec.pop(CHECKSUM_FIELD)
        side.write_text(json.dumps(rec))
        stamp = pq.stat().st_mtime_ns, side.stat().st_mtime_ns
        frame, computed = again()
        assert computed == 0 and (pq.stat().st_mtime_ns, side.stat().st_mtime_ns) == stamp
        pd.testing.assert_frame_equal(frame, pd.read_parquet(pq))
        if which == "ga":
            frame.iloc[:, 0] = -1.0
            frame.to_parquet(pq)
        else:
            frame.drop(columns="final").to_parquet(pq, index=False)
        _, computed = again()
        assert computed == 1 and len(_moved(book / which)) == 2


def test_committed_study_caches_are_accepted_as_they_are(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Chapter 5's and 6's committed caches pass the checks: read, never recomputed or moved."""
    from nmthpo.engine.cache import results_dir
    from nmthpo.studies.ariafar import results as scoring_results
    from nmthpo.studies.ganapathy import tables as genetic
    from nmthpo.studies.grids import GA_TABLES, book_dir

    def refuse(*args: object, **kwargs: object) -> pd.DataFrame:
        raise AssertionError("a committed cache entry was recomputed")

    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "user"))
    monkeypatch.setattr(scoring_results, "compute_entry", refuse)
    before = {
        p: p.stat().st_mtime_ns for d in ("ga", "scoring") for p in (results_dir() / d).iterdir()
    }
    for kind, extra in GA_TABLES.kinds.items():
        real = genetic._CACHEABLE[kind]
        monkeypatch.setitem(genetic._CACHEABLE, kind, functools.wraps(real)(refuse))
        frame = genetic.cached_table(
            kind, cache_dir=book_dir(GA_TABLES.folder), **{**GA_TABLES.params, **extra}
        )
        assert len(frame) >= (2 if kind == "long" else 7)  # "long": m = 20, 25 only
    res = scoring_results.chapter6_results()
    assert all(len(f) for f in res.values())
    after = {
        p: p.stat().st_mtime_ns for d in ("ga", "scoring") for p in (results_dir() / d).iterdir()
    }
    assert after == before and not (tmp_path / "user").exists()


def test_bad_study_frame_is_never_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A computed frame is validated before it is written: a wrong one is an internal error
    and leaves no cache entry."""
    from nmthpo.studies.ariafar.results import cached_frame
    from nmthpo.studies.ganapathy import tables as genetic

    with pytest.raises(RuntimeError, match="column trial holds"):
        cached_frame(
            "select", "t", {"budget": 10, "trials": 3}, lambda: _select_frame(10, 2), tmp_path
        )
    real = genetic._CACHEABLE["variants"]
    monkeypatch.setitem(
        genetic._CACHEABLE, "variants", functools.wraps(real)(lambda **kw: real(**kw).iloc[:, :0])
    )
    with pytest.raises(RuntimeError, match="its columns"):
        _ga(tmp_path)
    assert list(tmp_path.iterdir()) == []
