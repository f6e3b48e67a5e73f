from nmthpo.studies import reproducibility as R
from tests.paths import ROOT

CHAPTERS = ROOT / "book" / "chapters"


def test_versions_and_machine():
    v = R.package_versions(["numpy"])
    assert list(v.index) == ["numpy", "python"]
    assert R.machine().loc["cpus", "value"] >= 1


def test_chapter_parameters_reads_executed_chapters():
    p = R.chapter_parameters(CHAPTERS)
    chapters = set(p.index.get_level_values("chapter"))
    assert "01_benchmark" in chapters and "99_reproducibility" not in chapters
    assert ("01_benchmark", "tasks") in p.index and list(p.columns) == ["value"]
    # one row per parameter: no value is cut to fit a wide table
    assert p["value"].str.len().max() > 50


def test_data_manifest_lists_tables():
    m = R.data_manifest()
    assert len(m) == 24 and m.index[0].startswith("datasets/")
