"""Request and upload-chunk signatures, byte for byte as the agent verifies them.

- Request (docs/contracts.md "Request signing", ``shared/RequestSigner``): lowercase hex
  HMAC-SHA256(key = token, ``METHOD\\nRAW_PATH_AND_QUERY\\nTIMESTAMP_MS\\nNONCE\\nHEX_SHA256(BODY)``),
  the path and query exactly as sent.
- Upload chunks (docs/upload-integrity.md, ``shared/UploadChunkSigner``): ``sig_0`` is the
  request's signature, ``sig_i`` = HMAC-SHA256(token, ``"RUNBOX-CHUNK\\n" + sig_{i-1} + "\\n" +
  HEX_SHA256(data_i)``); each chunk is framed ``<hex len>;chunk-signature=<sig_i>\\r\\n<data>\\r\\n``
  and the body ends with the signed empty chunk.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Dict

#: X-Runbox-Content-SHA256 of a chunk-signed upload; replaces the body hash in the signature.
CHUNKED_SCHEME = "STREAMING-RUNBOX-HMAC-SHA256-CHUNKS"
#: Chunk size sent (1 MiB, as ``runbox cp``); the agent accepts up to 8 MiB.
DEFAULT_CHUNK_BYTES = 1024 * 1024
MAX_CHUNK_BYTES = 8 * 1024 * 1024
_SIG_FIELD = b";chunk-signature="
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sign(token: str, method: str, target: str, timestamp_ms: int, nonce: str, body_sha256: str) -> str:
    """Lowercase hex signature of one request (``target``: raw path and query as sent)."""
    message = f"{method}\n{target}\n{timestamp_ms}\n{nonce}\n{body_sha256}".encode("utf-8")
    return hmac.new(token.encode("utf-8"), message, hashlib.sha256).hexdigest()


def auth_headers(token: str, method: str, target: str, body_sha256: str, timestamp_ms: int) -> Dict[str, str]:
    """The four auth headers of one request, with a fresh 128-bit nonce."""
    nonce = secrets.token_hex(16)
    return {
        "Authorization": f"Bearer {token}",
        "X-Runbox-Timestamp": str(timestamp_ms),
        "X-Runbox-Nonce": nonce,
        "X-Runbox-Signature": sign(token, method, target, timestamp_ms, nonce, body_sha256),
    }


class ChunkSigner:
    """Frames the chunks of one chunk-signed upload, chained from the request's signature.
    Chunks must be sent in the order they were framed."""

    def __init__(self, token: str, seed_signature: str) -> None:
        self._key = token.encode("utf-8")
        self._previous = seed_signature

    def _next(self, data_sha256: str) -> str:
        message = f"RUNBOX-CHUNK\n{self._previous}\n{data_sha256}".encode("ascii")
        self._previous = hmac.new(self._key, message, hashlib.sha256).hexdigest()
        return self._previous

    def frame(self, data: bytes) -> bytes:
        """``<hex len>;chunk-signature=<sig>\\r\\n<data>\\r\\n`` for 1..8 MiB of ``data``."""
        if not 0 < len(data) <= MAX_CHUNK_BYTES:
            raise ValueError("a chunk holds 1 byte to 8 MiB")
        sig = self._next(sha256_hex(data))
        return b"%x" % len(data) + _SIG_FIELD + sig.encode("ascii") + b"\r\n" + data + b"\r\n"

    def final(self) -> bytes:
        """The signed empty chunk that ends the body."""
        return b"0" + _SIG_FIELD + self._next(EMPTY_SHA256).encode("ascii") + b"\r\n\r\n"


def encoded_length(decoded_length: int, chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> int:
    """Content-Length of the chunk-signed body of ``decoded_length`` bytes cut into
    ``chunk_bytes`` chunks (the last one shorter), final chunk included."""
    tail = len(_SIG_FIELD) + 64 + 2
    full, rest = divmod(decoded_length, chunk_bytes)
    total = full * (len("%x" % chunk_bytes) + tail + chunk_bytes + 2)
    if rest:
        total += len("%x" % rest) + tail + rest + 2
    return total + 1 + tail + 2
