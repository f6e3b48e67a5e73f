"""The one RunSpec keeps every cached file's name: keys of single-task specs equal the former
``RunSpec.key()``, keys of transfer specs the former ``TransferSpec.key()``."""

import pytest

from nmthpo.engine.runner import RunSpec, cached_runs
from tests.paths import ROOT

RESULTS = ROOT / "results"


@pytest.mark.parametrize(
    ("spec", "suffix"),
    [
        # GP-BO's and the transfer methods' keys hold their revision (1 since issue 25 changed
        # their defaults; GP-BO's were b153bab23ea0c911 and 092ed7dcad910cbd before, the four
        # transfer keys below b33aec67234e572d, b5f0d9d5e95e131d, e08048c094e305b8 and
        # 677b6d5f85f58c7d); the graph methods' too (revision 1 since their tie tolerance
        # became 1e-6: gb-ei-m's was 29753813649dec36); a method of revision 0 keeps its key
        # (rs with sources)
        (RunSpec("bo-ei-m", "en-ja", record_mse=True), "9159c6fe4766f630"),
        (RunSpec("bo-ei-m", "ja-en", record_mse=True), "95f576877a0f1fd3"),
        (RunSpec("gb-ei-m", "en-ja", record_mse=True), "131eadef8201f923"),
        (
            RunSpec(
                "rgpe",
                "zh-en",
                sources=("ru-en", "ja-en", "en-ja", "sw-en", "so-en"),
                n_source=50,
                budget=50,
                n_init=3,
                seed=0,
            ),
            "09daeff577ffbb71",
        ),
        (RunSpec("rgpe", "zh-en", sources=("ja-en", "en-ja")), "81052e26846098a9"),
        (RunSpec("transbo", "ja-en", sources=("zh-en", "ru-en")), "c78e0c97aec8f9cf"),
        (RunSpec("rgpe", "lc-finetune-zh-en", sources=("lc-finetune-fr-en",)), "a2e8910f4c2d20d0"),
        (
            RunSpec("rs", "zh-en", sources=("ru-en", "ja-en", "en-ja", "sw-en", "so-en")),
            "e726c0cba9321486",
        ),
    ],
)
def test_pinned_keys(spec, suffix):
    assert spec.key() == suffix
    assert (
        RESULTS / ("single" if spec.sources is None else "transfer") / f"{spec.stem()}.parquet"
    ).exists() or spec.task == "ja-en"


def test_every_cached_single_run_keeps_its_name():
    runs = [
        (spec, pq) for d in sorted(RESULTS.glob("*")) if d.is_dir() for spec, pq in cached_runs(d)
    ]
    assert len(runs) > 100
    for spec, pq in runs:
        assert spec.stem() == pq.stem
        assert RunSpec.from_json(spec.to_json()) == spec


def test_every_cached_transfer_run_keeps_its_name():
    from nmthpo.studies.li_transbo.study import CHAPTER_GRID, setting_specs

    stems = {s.stem() for name in CHAPTER_GRID for s in setting_specs(name)}
    files = {p.stem for p in (RESULTS / "transfer").glob("*.parquet")}
    assert stems == files and len(files) == 162


def test_transfer_extras_enter_the_key_only_when_not_default():
    base = RunSpec("rs", "zh-en", sources=("ru-en",))
    assert base.stop == "none" and base.encoding == "shared" and base.budget == 50
    assert "stop" not in base.payload()
    other = RunSpec("rs", "zh-en", stop="target", sources=("ru-en",))
    assert other.payload()["stop"] == "target" and other.key() != base.key()
    assert RunSpec.from_json(other.to_json()) == other
    with pytest.raises(ValueError, match="apply to runs with source tasks only"):
        RunSpec("rs", "zh-en", n_source=10).validate()


def test_record_time_enters_the_key_only_when_set():
    plain = RunSpec("bo-ei-m", "ja-en")
    assert "record_time" not in plain.payload()
    assert plain.key() == RunSpec("bo-ei-m", "ja-en", record_time=False).key()
    timed = RunSpec("bo-ei-m", "ja-en", record_time=True)
    assert timed.payload()["record_time"] is True
    assert timed.key() != plain.key()
