"""Damaged, foreign, unsealed or stale cache entries are named, set aside and recomputed
(issue 12; "Reliability, second round", items 3 and 4): caches are verified, never trusted."""

from __future__ import annotations

import errno
import functools
import json
import logging
import os
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nmthpo.engine.cache import (
    CHECKSUM_FIELD,
    artefact_problem,
    checksum_entry,
    sha256_file,
    sidecar_path,
)
from nmthpo.engine.runner import RunSpec, _partial_record, _write_npz, run, run_trial
from nmthpo.errors import FaultError, InputValueError

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


def _reseal(path: Path, side: Path | None = None) -> None:
    """Rewrite the sidecar's whole seal so that it matches the (altered) file: only the
    content checks can then refuse it."""
    side = sidecar_path(path) if side is None else side
    rec = json.loads(side.read_text())
    rec[CHECKSUM_FIELD] = checksum_entry(path, rec)
    side.write_text(json.dumps(rec))


def _recompute_checksum(path: Path, side: Path | None = None) -> None:
    """What a hand-made sidecar does: record the file's SHA-256 and size (``sha256sum``),
    keeping the rest of the sidecar as it is."""
    side = sidecar_path(path) if side is None else side
    rec = json.loads(side.read_text())
    rec[CHECKSUM_FIELD] = {
        **rec.get(CHECKSUM_FIELD, {}),
        "sha256": sha256_file(path),
        "bytes": path.stat().st_size,
    }
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
    frame.loc[5, "row"] = 99999  # the tampered row, with a matching seal
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


def test_sidecar_without_checksum_is_never_reused(
    tmp_path: Path, fresh: pd.DataFrame, caplog: pytest.LogCaptureFixture
) -> None:
    """No lenient path: a run whose sidecar records no checksum (or no seal) is recomputed."""
    for what in ("checksum", "seal"):
        cache = tmp_path / what
        _run(cache)
        pq = _final(cache)
        side = sidecar_path(pq)
        rec = json.loads(side.read_text())
        if what == "checksum":
            rec.pop(CHECKSUM_FIELD)
        else:
            rec[CHECKSUM_FIELD].pop("bound")
        side.write_text(json.dumps(rec))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="nmthpo"):
            pd.testing.assert_frame_equal(_run(cache), fresh)
        assert ("records no checksum" if what == "checksum" else "no seal") in caplog.text
        assert len(_moved(cache)) == 2
        assert artefact_problem(pq, RunSpec("rs", "ja-en", seed=2).payload()) is None


def _found(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("found ")]


def test_run_without_sidecar_is_never_reused(
    tmp_path: Path, fresh: pd.DataFrame, caplog: pytest.LogCaptureFixture
) -> None:
    """The issue: a finished run without its sidecar was reused ("found 4 of 4")."""
    _run(tmp_path)
    pq = _final(tmp_path)
    sidecar_path(pq).unlink()
    with caplog.at_level(logging.INFO, logger="nmthpo"):
        again = _run(tmp_path)
    assert _found(caplog) == [] and "has no sidecar" in caplog.text
    pd.testing.assert_frame_equal(again, fresh)
    assert _moved(tmp_path) == [f"{pq.name}.bad-1"]
    assert artefact_problem(pq, RunSpec("rs", "ja-en", seed=2).payload()) is None


def _offer_as(cache: Path, other: RunSpec) -> Path:
    """Rename the cached ``rs`` run of ``cache`` to ``other``'s name and give it ``other``'s
    sidecar (from a run of ``other``) with the file checksum recomputed: the issue's forgery."""
    src = _final(cache)
    donor = cache.parent / f"{cache.name}-donor"
    run(other.method, other.task, trials=TRIALS, seed=other.seed, progress=False, cache_dir=donor)
    dst = cache / f"{other.stem()}.parquet"
    src.replace(dst)
    sidecar_path(src).unlink()
    sidecar_path(dst).write_text(sidecar_path(donor / dst.name).read_text())
    _recompute_checksum(dst)
    return dst


def test_sidecar_of_another_spec_with_recomputed_checksum_is_never_reused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An ``rs`` run offered for ``gb-ei-m`` with ``gb-ei-m``'s sidecar and a recomputed
    checksum: its spec is not the one sealed with its bytes."""
    cache = tmp_path / "cache"
    _run(cache)
    other = RunSpec("gb-ei-m", "ja-en", seed=2)
    forged = _offer_as(cache, other)
    rs_rows = pd.read_parquet(forged)["row"].tolist()
    assert "seal mismatch" in artefact_problem(forged, other.payload())
    with caplog.at_level(logging.INFO, logger="nmthpo"):
        got = run("gb-ei-m", "ja-en", cache_dir=cache, **KW).frame
    assert _found(caplog) == [] and "seal mismatch" in caplog.text
    truth = run("gb-ei-m", "ja-en", **KW).frame
    pd.testing.assert_frame_equal(got, truth)
    assert got["row"].tolist() != rs_rows


def test_forged_spec_with_recomputed_checksum_is_never_reused(
    tmp_path: Path, fresh: pd.DataFrame, caplog: pytest.LogCaptureFixture
) -> None:
    """The run's own sidecar edited to another spec (seed 7), checksum recomputed."""
    _run(tmp_path)
    pq = _final(tmp_path)
    seven = RunSpec("rs", "ja-en", seed=7)
    rec = json.loads(sidecar_path(pq).read_text())
    rec["seed"] = 7
    dst = tmp_path / f"{seven.stem()}.parquet"
    pq.replace(dst)
    sidecar_path(pq).unlink()
    sidecar_path(dst).write_text(json.dumps(rec))
    _recompute_checksum(dst)
    with caplog.at_level(logging.INFO, logger="nmthpo"):
        got = run("rs", "ja-en", cache_dir=tmp_path, **{**KW, "seed": 7}).frame
    assert _found(caplog) == [] and "seal mismatch" in caplog.text
    pd.testing.assert_frame_equal(got, run("rs", "ja-en", **{**KW, "seed": 7}).frame)


def test_transfer_frame_of_another_method_is_never_reused(tmp_path: Path) -> None:
    """Even fully resealed, a transfer frame names its method: another's is refused."""
    spec = RunSpec("rs", "ja-en", sources=("zh-en",), budget=6)
    other = RunSpec("igp", "ja-en", sources=("zh-en",), budget=6)
    kw = dict(trials=2, progress=False, sources=("zh-en",), budget=6)
    run("rs", "ja-en", cache_dir=tmp_path / "a", **kw)
    run("igp", "ja-en", cache_dir=tmp_path / "b", **kw)
    src, dst = tmp_path / "a" / f"{spec.stem()}.parquet", tmp_path / "b" / f"{other.stem()}.parquet"
    dst.write_bytes(src.read_bytes())
    _reseal(dst)
    assert "column method holds ['rs']" in other.frame_problem(pd.read_parquet(dst))
    got = run("igp", "ja-en", cache_dir=tmp_path / "b", **kw).frame
    assert set(got["method"]) == {"igp"}


@pytest.fixture
def book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for the book's ``results/`` (and an empty user cache)."""
    import nmthpo.engine.cache as cache_mod

    root = tmp_path / "results"
    monkeypatch.setattr(cache_mod, "results_dir", lambda: root)
    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "user"))
    monkeypatch.setenv("NMTHPO_WRITE_RESULTS", "1")  # ``make results`` writes it; tests unset it
    return root


def _snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("damage", ["no-sidecar", "no-checksum", "flip", "forged"])
def test_book_results_are_never_modified(
    book: Path,
    fresh: pd.DataFrame,
    damage: str,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bad run in the book's cache is left in place and not used: it is computed into the
    user cache, where the next run finds it; nothing under results/ changes."""
    folder = book / "single"
    _run(folder)
    pq = _final(folder)
    side = sidecar_path(pq)
    if damage == "no-sidecar":
        side.unlink()
    elif damage == "no-checksum":
        rec = json.loads(side.read_text())
        rec.pop(CHECKSUM_FIELD)
        side.write_text(json.dumps(rec))
    elif damage == "flip":
        blob = bytearray(pq.read_bytes())
        blob[len(blob) // 2] ^= 0xFF
        pq.write_bytes(bytes(blob))
    else:
        frame = pd.read_parquet(pq)
        frame.to_parquet(pq, index=False)
        rec = json.loads(side.read_text())
        rec["seed"] = 3
        side.write_text(json.dumps(rec))
        _recompute_checksum(pq)
    monkeypatch.delenv("NMTHPO_WRITE_RESULTS")  # run time: the book's cache is only read
    before = _snapshot(book)
    with caplog.at_level(logging.INFO, logger="nmthpo"):
        again = _run(folder)
    pd.testing.assert_frame_equal(again, fresh)
    assert "left in place" in caplog.text and _found(caplog) == []
    assert _snapshot(book) == before and _moved(book) == []
    user = book.parent / "user" / "single" / pq.name
    assert artefact_problem(user, RunSpec("rs", "ja-en", seed=2).payload()) is None
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="nmthpo"):
        pd.testing.assert_frame_equal(_run(folder), fresh)  # the user copy is found
    assert _found(caplog) == [f"found {TRIALS} of {TRIALS} trials in {folder}"]
    assert _snapshot(book) == before


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
    """The book's results/ (sealed by tools/seal_results.py) pass every check, so a chapter
    never recomputes them."""
    from nmthpo.engine.cache import results_dir
    from nmthpo.engine.runner import _frame_problem

    checked = 0
    for pq in sorted(results_dir().rglob("*__*__*.parquet")):
        if pq.relative_to(results_dir()).parts[0] == "changes":
            continue  # snapshots of earlier runs: checked against their commit (test_changes)
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
        spec = RunSpec.from_json(pq.with_suffix(".json").read_text())
        assert spec.task == task and spec.stem() == pq.stem, pq
        assert artefact_problem(pq, spec.payload()) is None, pq
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
        _reseal(pq, side)
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


def test_unsealed_study_entries_of_the_book_are_not_used_and_not_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry of the book's cache without a checksum is not used (no lenient path) and left
    as it is; the entry is computed into the user cache, where the next call finds it."""
    import nmthpo.engine.cache as cache_mod

    book = tmp_path / "results"
    monkeypatch.setattr(cache_mod, "results_dir", lambda: book)
    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "user"))
    for which in ("ga", "scoring"):
        monkeypatch.setenv("NMTHPO_WRITE_RESULTS", "1")  # written by ``make results``
        pq, side, again = _study_entry(which, book / which)
        monkeypatch.delenv("NMTHPO_WRITE_RESULTS")
        good = pd.read_parquet(pq)
        rec = json.loads(side.read_text())
        rec.pop(CHECKSUM_FIELD)
        side.write_text(json.dumps(rec))
        before = _snapshot(book)
        frame, computed = again()
        assert computed == 1 and _snapshot(book) == before and _moved(book) == []
        pd.testing.assert_frame_equal(frame, good)
        user_pq = tmp_path / "user" / which / pq.name
        assert artefact_problem(user_pq, {}, sidecar=side.name[len(pq.stem) :]) is None
        frame, computed = again()  # read back from the user cache
        assert computed == 1 and _snapshot(book) == before


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


# -- faults: a full disk, a file where the cache keeps unfinished trials ---------------------------
def _leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.name.endswith(".tmp"))


def test_full_disk_leaves_nothing_half_written_and_a_rerun_resumes(
    tmp_path: Path,
    fresh: pd.DataFrame,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """ENOSPC while writing the third trial: a FaultError naming the file and the fix, no
    temporary or partial file; the rerun finds the two saved trials and computes the rest."""
    real = np.savez
    calls: list[int] = []

    def full(fh: object, **arrays: object) -> None:
        calls.append(1)
        if len(calls) == 3:
            fh.write(b"PK\x03\x04 half")  # type: ignore[attr-defined]
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fh, **arrays)

    monkeypatch.setattr(np, "savez", full)
    with pytest.raises(FaultError) as info:
        _run(tmp_path)
    msg = str(info.value)
    assert "\n" not in msg and "trial-00002.npz" in msg and "free some space" in msg
    assert info.value.exit_status == 1 and info.value.errno == errno.ENOSPC
    assert _leftovers(tmp_path) == []
    part = sorted(p.name for p in (tmp_path / "partial").rglob("*.npz"))
    assert part == ["trial-00000.npz", "trial-00001.npz"]  # no file of trial 2
    monkeypatch.setattr(np, "savez", real)
    with caplog.at_level(logging.INFO, logger="nmthpo"):
        again = _run(tmp_path)
    assert _found(caplog) == [f"found 2 of {TRIALS} trials in {tmp_path}; computing the rest"]
    pd.testing.assert_frame_equal(again, fresh)


def test_full_disk_on_a_sidecar_leaves_no_artefact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The artefact was written but its sidecar could not be: the artefact is removed, so no
    unsealed file remains."""
    import nmthpo.engine.cache as cache_mod

    real = cache_mod.write_text

    def full(path: object, text: str) -> None:
        if str(path).endswith(".json"):
            raise cache_mod.fault_from_oserror(
                OSError(errno.ENOSPC, "No space left on device", str(path)), f"cannot write {path}"
            )
        real(path, text)  # type: ignore[arg-type]

    monkeypatch.setattr(cache_mod, "write_text", full)
    with pytest.raises(FaultError, match="No space left"):
        cache_mod.write_checked(tmp_path / "a.parquet", lambda p: p.write_bytes(b"x"), {"k": 1})
    assert list(tmp_path.iterdir()) == []


def test_partial_directory_that_is_a_file_is_refused_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "partial").write_text("not a directory")
    with pytest.raises(InputValueError) as info:
        _run(tmp_path)
    msg = str(info.value)
    assert str(tmp_path / "partial") in msg and "is a file" in msg and "\n" not in msg
    assert sorted(p.name for p in tmp_path.iterdir()) == ["partial"]
    cache_file = tmp_path / "cache-file"
    cache_file.write_text("")
    with pytest.raises(InputValueError, match="cache-file: is an existing file, not a directory"):
        _run(cache_file)
