"""Tests for nmthpo.data.nmtlc: the NMTLC loader's tidy frame; unsafe or malformed pickles
are refused."""

from __future__ import annotations

import math
import os
import pickle
from pathlib import Path

import pytest

from nmthpo.data import DataError, nmtlc
from nmthpo.data import store as data
from tests.paths import MIRROR

pytestmark = pytest.mark.skipif(
    not (MIRROR / "datasets").is_dir(),
    reason=f"data mirror {MIRROR} not found (set NMTHPO_MIRROR to a copy of Este1le/hpo_nmt)",
)


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NMTHPO_MIRROR", raising=False)
    monkeypatch.delenv("NMTHPO_DATA", raising=False)
    for var in ("no_proxy", "NO_PROXY"):  # never send loopback requests to a proxy
        monkeypatch.setenv(var, "127.0.0.1,localhost")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One read-only install shared by the tests that do not modify it."""
    return data.fetch(mirror=MIRROR, dest=tmp_path_factory.mktemp("shared") / "hpo_nmt")


def test_load_nmtlc_tidy_frame(
    monkeypatch: pytest.MonkeyPatch, installed: Path, no_env: None
) -> None:
    monkeypatch.setenv("NMTHPO_DATA", str(installed))
    df = nmtlc.load_nmtlc()
    assert len(df) == 2483
    assert list(df.columns) == list(nmtlc.NMTLC_COLUMNS)
    assert list(df.columns) == [
        "task", "dataset", "src", "trg", "basemodel",
        "dataset_size", "initial_lr", "model_size", "ff_num_hidden", "num_layers",
        "batch_size", "bpe", "r",
        "perplexity_curve", "bleu_curve", "perplexity_optimal", "bleu_optimal", "max_len",
        "task_name",
    ]  # fmt: skip
    counts = df.groupby(["task_name", "dataset"]).size().to_dict()
    assert counts == {
        ("lc-scratch-zh-en", "ted-zh-en"): 148,
        ("lc-scratch-ru-en", "ted-ru-en"): 193,
        ("lc-scratch-ja-en", "robust19-ja-en"): 177,
        ("lc-scratch-en-ja", "robust19-en-ja"): 179,
        ("lc-scratch-sw-en", "material-sw-en"): 819,
        ("lc-scratch-so-en", "material-so-en"): 646,
        ("lc-finetune-zh-en", "zh-en"): 159,
        ("lc-finetune-fr-en", "fr-en"): 162,
    }
    # record 0 is the scratch sample printed in upstream's README
    r0 = df.iloc[0]
    assert (r0.task, r0.dataset, r0.src, r0.trg, r0.basemodel) == (
        "scratch", "material-so-en", "so", "en", "scratch",
    )  # fmt: skip
    assert (r0.dataset_size, r0.initial_lr, r0.model_size, r0.ff_num_hidden) == (
        24000, 0.0003, 1024, 1024,
    )  # fmt: skip
    assert (r0.num_layers, r0.batch_size, r0.bpe, r0.r, r0.max_len) == (1, 4096, 1, 0, 77)
    assert len(r0.perplexity_curve) == 17 and r0.perplexity_curve[0] == 18.195837
    assert r0.perplexity_optimal == 18.195837
    assert r0.bleu_curve is None and math.isnan(r0.bleu_optimal)
    scratch = df["task"] == "scratch"
    assert df.loc[scratch, "bleu_optimal"].isna().all()
    assert df.loc[~scratch, "bleu_optimal"].notna().all() and (~scratch).sum() == 321
    assert all(isinstance(c, list) for c in df.loc[~scratch, "bleu_curve"])
    # fact of the file: the optimum is the best point of the curve
    assert all(min(c) == o for c, o in zip(df.perplexity_curve, df.perplexity_optimal, strict=True))
    assert nmtlc.nmtlc_task_names() == [
        "lc-scratch-zh-en", "lc-scratch-ru-en", "lc-scratch-ja-en", "lc-scratch-en-ja",
        "lc-scratch-sw-en", "lc-scratch-so-en", "lc-finetune-zh-en", "lc-finetune-fr-en",
    ]  # fmt: skip


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_malicious_nmtlc_pickle_refused_and_not_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    bad = tmp_path / "nmtlc.pkl"
    bad.write_bytes(pickle.dumps([{"task": "scratch"}, _Payload(marker)], protocol=4))
    with pytest.raises(DataError, match=r"nmtlc\.pkl: unsafe.*refused global (posix|os)\.system"):
        nmtlc.read_nmtlc(bad)
    assert not marker.exists()


def test_malformed_nmtlc_record_named(tmp_path: Path) -> None:
    bad = tmp_path / "nmtlc.pkl"
    bad.write_bytes(pickle.dumps([{"task": "scratch", "dataset_name": 3}], protocol=4))
    with pytest.raises(DataError, match=r"record 0: field 'dataset_name'"):
        nmtlc.read_nmtlc(bad)
    bad.write_bytes(pickle.dumps({"not": "a list"}, protocol=4))
    with pytest.raises(DataError, match="expected a list of records"):
        nmtlc.read_nmtlc(bad)


def test_load_nmtlc_not_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_env: None
) -> None:
    monkeypatch.setenv("NMTHPO_DATA", str(tmp_path / "absent"))
    with pytest.raises(DataError, match=r"not installed.*nmtlc\.pkl.*nmthpo data fetch"):
        nmtlc.load_nmtlc()
