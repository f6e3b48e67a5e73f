from pathlib import Path

from nmthpo.studies import reproducibility as R

CHAPTERS = Path(__file__).resolve().parents[1] / "book" / "chapters"


def test_versions_and_machine():
    v = R.package_versions(["numpy"])
    assert list(v.index) == ["numpy", "python"]
    assert R.machine().loc["cpus", "value"] >= 1


def test_chapter_parameters_reads_executed_chapters():
    p = R.chapter_parameters(CHAPTERS)
    assert "01_benchmark" in p.columns and "99_reproducibility" not in p.columns
    assert "tasks" in p.index


def test_data_manifest_lists_tables():
    m = R.data_manifest()
    assert len(m) == 24 and m.index[0].startswith("datasets/")
