"""``ws.files``: the workspace file API (docs/contracts.md "Workspace file API").

Uploads are chunk-signed streams (docs/upload-integrity.md): the file is read once, each 1 MiB
chunk hashed and signed as it is sent, nothing held in memory beyond one chunk. Downloads are
streamed to disk and resume with ``Range``/``If-Range`` when the connection drops.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Union

from . import _parse, _signing
from ._http import Response, Stream, quote_path
from .errors import ConnectionLostError, InvalidRequestError, NotFoundError, ProtocolError

if TYPE_CHECKING:  # pragma: no cover
    from ._http import Client

Data = Union[bytes, bytearray, memoryview, str, IO[bytes]]


@dataclass(frozen=True)
class FileEntry:
    """One file, directory, link or other entry. ``path`` is workspace-relative (``""`` is the
    root), ``type`` one of ``file``, ``directory``, ``symlink``, ``other``; ``size`` in bytes;
    ``mode`` the permission bits (``0o644``); ``mtime_ms`` ms since the epoch; ``link_target``
    the text of a link (links are reported, never followed)."""

    path: str
    name: str
    type: str
    size: int
    mode: int
    mtime_ms: Optional[int]
    link_target: Optional[str] = None

    @property
    def is_dir(self) -> bool:
        return self.type == "directory"

    @property
    def is_file(self) -> bool:
        return self.type == "file"


def _mode(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return int(value, 8)
        except ValueError:
            pass
    return 0


def entry_from(obj: Any, parent: Optional[str], what: str) -> FileEntry:
    """A FileEntry from a listing entry (``name``, under ``parent``) or a stat/upload answer
    (``path``)."""
    if not isinstance(obj, dict):
        raise ProtocolError(None, f"{what}: an entry is not a JSON object")
    if parent is not None:
        name = _parse.field(obj, "name", str, what)
        path = f"{parent}/{name}" if parent else name
    else:
        path = _parse.field(obj, "path", str, what)
        name = path.rsplit("/", 1)[-1]
    size = obj.get("size")
    target = obj.get("linkTarget", obj.get("target"))
    return FileEntry(
        path=path, name=name,
        type=_parse.field(obj, "type", str, what),
        size=size if isinstance(size, int) and not isinstance(size, bool) else 0,
        mode=_mode(obj.get("mode")),
        mtime_ms=_parse.iso_ms(obj.get("mtimeMs", obj.get("mtime"))),
        link_target=target if isinstance(target, str) else None,
    )


def normalize(path: str) -> str:
    """Workspace-relative form: ``/workspace/a/b``, ``/a/b`` and ``a/b`` are all ``a/b``."""
    if path == "/workspace" or path.startswith("/workspace/"):
        path = path[len("/workspace"):]
    return path.lstrip("/")


class Files:
    """The files of one workspace (``ws.files``). Paths are workspace-relative (a leading
    ``/workspace/`` is accepted); the agent refuses ``..``, empty segments and links."""

    def __init__(self, client: "Client", workspace_id: str) -> None:
        self._client = client
        self._ws = workspace_id

    def _url(self, path: str) -> str:
        return f"/v1/workspaces/{quote_path(self._ws)}/files/{quote_path(normalize(path))}"

    # --- reading -----------------------------------------------------------------------------

    def read(self, path: str, offset: int = 0, length: Optional[int] = None) -> bytes:
        """The file's bytes (or ``length`` bytes from ``offset``). A directory is
        InvalidRequestError ``not_a_file``; a missing file NotFoundError."""
        headers = {}
        if offset or length is not None:
            end = "" if length is None else str(offset + length - 1)
            if length == 0:
                return b""
            headers["Range"] = f"bytes={offset}-{end}"
        stream = self._client.request("GET", self._url(path), headers=headers, stream=True)
        assert isinstance(stream, Stream)
        with stream:
            self._require_file(stream, path)
            chunks: List[bytes] = []
            while True:
                data = stream.read(1 << 20)
                if not data:
                    break
                chunks.append(data)
            stream.finish()
        return b"".join(chunks)

    def read_text(self, path: str, encoding: str = "utf-8", errors: str = "strict") -> str:
        return self.read(path).decode(encoding, errors)

    @staticmethod
    def _require_file(stream: Stream, path: str) -> None:
        kind = stream.headers.get("X-Runbox-Entry-Type")
        if kind == "directory":
            stream.close()
            raise InvalidRequestError(None, "not_a_file", f"{path} is a directory")

    def download(self, path: str, local_path: Union[str, "os.PathLike[str]"], retries: int = 3,
                 chunk_bytes: int = 1 << 20) -> int:
        """Streams the file to ``local_path``; returns its size in bytes. When the connection
        drops, resumes from the bytes already written (``Range``, with ``If-Range`` on the
        first answer's ETag: a file changed meanwhile is fetched again from the start), up to
        ``retries`` times."""
        written = 0
        etag: Optional[str] = None
        with open(local_path, "wb") as out:
            while True:
                headers: Dict[str, str] = {}
                if written and etag:
                    headers = {"Range": f"bytes={written}-", "If-Range": etag}
                try:
                    stream = self._client.request("GET", self._url(path), headers=headers, stream=True)
                    assert isinstance(stream, Stream)
                    with stream:
                        self._require_file(stream, path)
                        if stream.status == 200 and written:
                            out.seek(0)
                            out.truncate()
                            written = 0
                        etag = stream.headers.get("ETag") or etag
                        while True:
                            data = stream.read(chunk_bytes)
                            if not data:
                                break
                            out.write(data)
                            written += len(data)
                        stream.finish()
                    return written
                except ConnectionLostError:
                    if retries <= 0 or not etag:
                        raise
                    retries -= 1
                    out.flush()

    def list(self, path: str = "", page_size: int = 1000) -> List[FileEntry]:
        """Every entry of directory ``path`` (the root by default), sorted by name; the agent's
        pages (``offset``/``limit``/``nextOffset``) are followed to the end."""
        return list(self.iter(path, page_size))

    def iter(self, path: str = "", page_size: int = 1000) -> Iterator[FileEntry]:
        """Like :meth:`list`, one page at a time."""
        parent = normalize(path).strip("/")
        offset: Optional[int] = 0
        while offset is not None:
            stream = self._client.request("GET", self._url(path), query={"offset": offset, "limit": page_size},
                                          stream=True)
            assert isinstance(stream, Stream)
            with stream:
                if stream.headers.get("X-Runbox-Entry-Type") != "directory":
                    raise InvalidRequestError(None, "not_a_directory", f"{path} is not a directory")
                body = stream.read(64 << 20)
                stream.finish()
            page = Response(stream.status, stream.headers, body).json_object()
            entries = page.get("entries")
            if not isinstance(entries, list):
                raise ProtocolError(stream.status, "directory listing: no entries list")
            for item in entries:
                yield entry_from(item, parent, "directory listing")
            nxt = page.get("nextOffset")
            offset = nxt if isinstance(nxt, int) and not isinstance(nxt, bool) and nxt > offset else None

    def stat(self, path: str) -> FileEntry:
        """One entry (``GET …/files/{path}?stat=true``): links are described, not followed."""
        resp = self._client.request("GET", self._url(path), query={"stat": True})
        return entry_from(resp.json_object(), None, "stat")  # type: ignore[union-attr]

    def exists(self, path: str) -> bool:
        """True when ``path`` exists (any type); only a 404 means False."""
        try:
            self._client.request("HEAD", self._url(path))
        except NotFoundError:
            return False
        return True

    # --- writing -----------------------------------------------------------------------------

    def write(self, path: str, data: Data, *, mode: Optional[int] = None, overwrite: bool = True,
              parents: bool = True, chunk_bytes: int = _signing.DEFAULT_CHUNK_BYTES) -> FileEntry:
        """Writes ``data`` (bytes, str as UTF-8, or a binary file object read from its current
        position) to ``path``, chunk-signed. ``overwrite=False`` refuses an existing file
        (ConflictError ``file_exists``); ``parents`` creates missing directories; ``mode`` sets
        the permission bits (e.g. ``0o755``). The file appears only once every byte verified."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        if isinstance(data, (bytes, bytearray, memoryview)):
            source: IO[bytes] = io.BytesIO(bytes(data))
            size = len(data)
            spool = None
        else:
            source, size, spool = _sized(data)
        try:
            return self._put(path, source, size, mode, overwrite, parents, chunk_bytes)
        finally:
            if spool is not None:
                spool.close()

    def upload(self, local_path: Union[str, "os.PathLike[str]"], path: str, *, mode: Optional[int] = None,
               overwrite: bool = True, parents: bool = True) -> FileEntry:
        """Uploads the local file ``local_path`` to ``path`` (see :meth:`write`)."""
        with open(local_path, "rb") as f:
            return self.write(path, f, mode=mode, overwrite=overwrite, parents=parents)

    def _put(self, path: str, source: IO[bytes], size: int, mode: Optional[int], overwrite: bool,
             parents: bool, chunk_bytes: int) -> FileEntry:
        if not 0 < chunk_bytes <= _signing.MAX_CHUNK_BYTES:
            raise ValueError("chunk_bytes must be 1 byte to 8 MiB")
        query: Dict[str, Any] = {"conflict": "overwrite" if overwrite else "reject", "parents": parents}
        if mode is not None:
            query["mode"] = format(mode, "04o")
        headers = {"X-Runbox-Content-SHA256": _signing.CHUNKED_SCHEME,
                   "X-Runbox-Decoded-Length": str(size), "Content-Type": "application/octet-stream"}
        token = self._client.token

        def body(auth: Dict[str, str]) -> Iterator[bytes]:
            signer = _signing.ChunkSigner(token, auth["X-Runbox-Signature"])
            left = size
            while left > 0:
                data = source.read(min(chunk_bytes, left))
                if not data:
                    raise ValueError(f"the source ended {left} bytes before its size ({size})")
                left -= len(data)
                yield signer.frame(data)
            yield signer.final()

        resp = self._client.send_body("PUT", self._url(path), query=query, body_sha256=_signing.CHUNKED_SCHEME,
                                      headers=headers, content_length=_signing.encoded_length(size, chunk_bytes),
                                      body=body)
        return entry_from(resp.json_object(), None, "upload answer")

    def delete(self, path: str, recursive: bool = False) -> None:
        """Deletes a file, a link (not its target) or an empty directory; ``recursive`` a tree."""
        self._client.request("DELETE", self._url(path), query={"recursive": True} if recursive else None)

    def move(self, src: str, dst: str, *, overwrite: bool = False, parents: bool = False) -> None:
        """Renames ``src`` to ``dst`` within the workspace."""
        self._client.request("POST", f"/v1/workspaces/{quote_path(self._ws)}/files:move",
                             json_body={"from": normalize(src), "to": normalize(dst),
                                        "overwrite": overwrite, "parents": parents})

    def mkdir(self, path: str, parents: bool = False) -> FileEntry:
        """Creates directory ``path`` (mode 0755) and returns its entry. ``parents``: missing
        directories above it too, and an existing directory is fine; without, an existing
        entry is ConflictError ``file_exists`` and a missing parent NotFoundError."""
        resp = self._client.request("POST", f"/v1/workspaces/{quote_path(self._ws)}/files:mkdir",
                                    json_body={"path": normalize(path), "parents": parents})
        return entry_from(resp.json_object(), None, "mkdir answer")  # type: ignore[union-attr]


def _sized(f: IO[bytes]) -> "tuple[IO[bytes], int, Optional[IO[bytes]]]":
    """The bytes left in ``f`` and their count: a regular file or seekable stream is measured;
    anything else (a pipe, a socket) is spooled to a temporary file first, since the agent needs
    the size up front (X-Runbox-Decoded-Length)."""
    try:
        here = f.tell()
        end = f.seek(0, os.SEEK_END)
        f.seek(here)
        return f, end - here, None
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        pass
    spool = tempfile.TemporaryFile()
    shutil.copyfileobj(f, spool, 1 << 20)
    size = spool.tell()
    spool.seek(0)
    return spool, size, spool

