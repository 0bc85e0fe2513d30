"""The README's list of open fuzz findings is the open regressions in tests/fuzz/regressions/."""

from pathlib import Path

from known_open import open_regressions, readme_line

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_lists_exactly_the_open_regressions() -> None:
    text = README.read_text()
    block = text.split("Still open, kept there as strict expected failures", 1)[1]
    block = block.split("\n* **", 1)[0]
    listed = [line.strip() for line in block.splitlines() if line.strip().startswith("- `")]
    assert listed == [readme_line(r) for r in open_regressions()]
