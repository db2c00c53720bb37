"""ws.files against the real agent: every call, chunk-signed uploads, Range downloads, paging."""

from __future__ import annotations

import hashlib
import io
import os

import pytest

import runbox
from runbox import ConflictError, InvalidRequestError, NotFoundError


def test_write_read_kinds_of_data(ws):
    e = ws.files.write("a.txt", "héllo\n")
    assert isinstance(e, runbox.FileEntry) and e.path == "a.txt" and e.size == len("héllo\n".encode())
    assert ws.files.read_text("a.txt") == "héllo\n"
    ws.files.write("b.bin", bytes(range(256)))
    assert ws.files.read("b.bin") == bytes(range(256))
    ws.files.write("c.bin", io.BytesIO(b"xyz"))
    assert ws.files.read("/workspace/c.bin") == b"xyz", "a /workspace/ prefix is accepted"
    ws.files.write("empty", b"")
    assert ws.files.read("empty") == b""
    assert ws.run(["cat", "a.txt"]).stdout == "héllo\n".encode(), "the sandbox sees it"


def test_write_from_a_pipe(ws):
    r, w = os.pipe()
    os.write(w, b"from a pipe")
    os.close(w)
    with os.fdopen(r, "rb") as f:
        ws.files.write("p.txt", f)
    assert ws.files.read("p.txt") == b"from a pipe"


def test_large_upload_in_signed_chunks(ws, tmp_path):
    data = os.urandom(3 * 1024 * 1024 + 12345)
    local = tmp_path / "big"
    local.write_bytes(data)
    ws.files.upload(local, "dir/big", mode=0o600)
    r = ws.run(["sha256sum", "dir/big"], check=True)
    assert r.stdout.split()[0].decode() == hashlib.sha256(data).hexdigest()
    # small chunks: many chained signatures
    ws.files.write("small-chunks", data[:100000], chunk_bytes=4096)
    assert ws.files.read("small-chunks") == data[:100000]
    back = tmp_path / "back"
    assert ws.files.download("dir/big", back) == len(data) and back.read_bytes() == data
    assert ws.files.read("dir/big", offset=10, length=5) == data[10:15]
    assert ws.files.read("dir/big", offset=len(data) - 3) == data[-3:]


def test_write_conflict_parents_mode(ws):
    ws.files.write("x", b"1")
    with pytest.raises(ConflictError) as e:
        ws.files.write("x", b"2", overwrite=False)
    assert e.value.code == "file_exists"
    ws.files.write("x", b"2")
    assert ws.files.read("x") == b"2"
    with pytest.raises(NotFoundError):
        ws.files.write("no/such/dir/f", b"", parents=False)
    e2 = ws.files.write("tool.sh", "#!/bin/sh\necho tool\n", mode=0o755)
    assert e2.mode == 0o755
    assert ws.run(["./tool.sh"]).stdout == b"tool\n"


def test_list_follows_pages(ws):
    ws.run("mkdir d && cd d && for i in $(seq -w 1 25); do echo $i > f$i; done && mkdir sub && ln -s f01 link")
    entries = ws.files.list("d", page_size=7)
    names = [e.name for e in entries]
    assert names == sorted(names) and len(names) == 27
    assert [e.name for e in ws.files.iter("d", page_size=10)] == names
    by = {e.name: e for e in entries}
    assert by["sub"].is_dir and by["f01"].is_file and by["f01"].size == 3 and by["f01"].path == "d/f01"
    assert by["link"].type == "symlink" and by["link"].link_target == "f01"
    assert by["f01"].mtime_ms and by["f01"].mode & 0o400
    assert "d" in [e.name for e in ws.files.list()]
    with pytest.raises(InvalidRequestError):
        ws.files.list("d/f01")


def test_exists_delete_move(ws):
    ws.files.write("t/one", b"1")
    assert ws.files.exists("t/one") and ws.files.exists("t") and not ws.files.exists("t/none")
    ws.files.move("t/one", "u/two", parents=True)
    assert not ws.files.exists("t/one") and ws.files.read("u/two") == b"1"
    ws.files.write("u/three", b"3")
    with pytest.raises(ConflictError):
        ws.files.move("u/two", "u/three")
    ws.files.move("u/two", "u/three", overwrite=True)
    assert ws.files.read("u/three") == b"1"
    with pytest.raises(ConflictError) as e:
        ws.files.delete("u")  # not empty
    assert e.value.code == "directory_not_empty"
    ws.files.delete("u", recursive=True)
    assert not ws.files.exists("u")
    with pytest.raises(NotFoundError):
        ws.files.delete("u")
    with pytest.raises(NotFoundError):
        ws.files.read("missing")
    with pytest.raises(InvalidRequestError) as e:
        ws.files.read("../etc/passwd")
    assert e.value.code == "invalid_path"


def test_links_are_not_followed(ws):
    ws.run("ln -s /etc/passwd pw")
    with pytest.raises(InvalidRequestError) as e:
        ws.files.read("pw")
    assert e.value.code == "symlink_not_followed"


def test_read_of_a_directory(ws):
    ws.run("mkdir dd")
    with pytest.raises(InvalidRequestError) as e:
        ws.files.read("dd")
    assert e.value.code == "not_a_file"


def test_stat(ws):
    ws.files.write("s/f", b"12345", mode=0o640)
    ws.run("ln -s f s/l")
    f = ws.files.stat("s/f")
    assert (f.path, f.type, f.size, f.mode) == ("s/f", "file", 5, 0o640) and f.mtime_ms
    assert ws.files.stat("s").type == "directory"
    link = ws.files.stat("s/l")
    assert link.type == "symlink" and link.link_target == "f"
    with pytest.raises(NotFoundError):
        ws.files.stat("s/none")


def test_mkdir(ws):
    made = ws.files.mkdir("m")
    assert made.is_dir and made.path == "m" and made.mode == 0o755
    assert ws.files.list("m") == []
    with pytest.raises(ConflictError) as e:
        ws.files.mkdir("m")
    assert e.value.code == "file_exists"
    with pytest.raises(NotFoundError):
        ws.files.mkdir("x/y/z")
    assert ws.files.mkdir("x/y/z", parents=True).path == "x/y/z"
    assert ws.files.mkdir("x/y/z", parents=True).is_dir, "parents: an existing directory is fine"
    assert ws.run(["test", "-d", "x/y/z"]).ok


def test_an_upload_over_the_limit_is_refused_on_its_head():
    from conftest import RealAgent

    small = RealAgent(extra_env={"RUNBOX_UPLOAD_MAX_FILE_BYTES": str(1 << 20)})
    try:
        with small.client() as agent, agent.workspace() as ws:
            ws.files.write("fits", b"x" * (1 << 20))  # positive control: at the limit
            with pytest.raises(runbox.TooLargeError) as e:
                ws.files.write("too-big", io.BytesIO(b"y" * (16 << 20)))
            assert e.value.status == 413 and e.value.code == "upload_too_large"
            assert not ws.files.exists("too-big") and ws.files.read("fits") == b"x" * (1 << 20)
    finally:
        small.stop()


def test_usage_counts_what_the_tree_occupies(ws):
    before = ws.usage()
    assert before.complete and before.allocated_bytes < 1 << 20
    ws.files.write("one-mib.bin", os.urandom(1 << 20))
    ws.run("truncate -s 1G sparse.bin", check=True)
    after = ws.usage()
    # The sparse file counts its blocks, not its size (as the workspace quota does).
    assert (1 << 20) <= after.allocated_bytes < 3 << 20
    assert after.apparent_bytes >= (1 << 30) + (1 << 20)
    assert after.entries >= 2 and after.complete
    assert after.max_workspace_bytes >= 0
