from pathlib import Path

from personal_envs.core.download import sha256_of
from personal_envs.webmall.catalog import find_product_csvs
from personal_envs.webmall.download import FILES
from personal_envs.webmall.tasks import find_task_file


def test_files_point_at_the_public_raw_files_with_anchor_checksums(webmall_dir: Path) -> None:
    assert len(FILES) == 6
    checked = 0
    for remote in FILES:
        assert remote.url.startswith("https://raw.githubusercontent.com/wbsg-uni-mannheim/")
        assert remote.url.endswith(remote.relpath.rsplit("/", 1)[-1])
        if remote.relpath == "docker_all/index.html" and not (webmall_dir / remote.relpath).is_file():
            continue  # anchors laid before the solution page was added to them
        assert remote.sha256 == sha256_of(webmall_dir / remote.relpath)
        checked += 1
    assert checked >= 5


def test_fetched_layout_is_found_by_the_loaders(webmall_dir: Path) -> None:
    # fetch_files writes FILES' relpaths under data_home()/webmall; the loaders look there.
    assert find_task_file(webmall_dir) == webmall_dir / "task_sets.json"
    csvs = find_product_csvs(webmall_dir)
    assert csvs is not None and [p.relative_to(webmall_dir).as_posix() for p in csvs] == [
        remote.relpath for remote in FILES[1:5]]
