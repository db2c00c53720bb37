"""The pool credential (docs/contracts.md "Pool credential"), as ``shared/PoolSecret`` and
``shared/PoolHostToken``: one secret per pool in a 0600 file, from which each pool host's agent
token is derived with the nonce the host shows on its unauthenticated ``GET /health``. The
secret never leaves this process; each host's token is computed from that host's own nonce and
sent only to it."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

from ._http import Session
from .errors import FleetTokenError

_SECRET = re.compile(r"[0-9a-f]{64}")
_NONCE = re.compile(r"[0-9a-f]{32}")


def default_secret_path(pool: str) -> str:
    """``$XDG_CONFIG_HOME/runbox/pools/POOL.secret``, else ``~/.config/runbox/pools/POOL.secret``."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return os.path.join(base, "runbox", "pools", pool + ".secret")


def read_private(path: str, what: str, agent: str = "", root_reads_any: bool = False) -> bytes:
    """The bytes of the private file ``path`` (``what`` names it in errors), read as
    ``shared/PrivateFile`` reads it: opened once (O_NONBLOCK: a FIFO never hangs) and checked on
    that descriptor: a regular file, owned by this user, neither group nor others may read or
    write it (chmod 600 it), at most 4 KiB. ``root_reads_any``: root may read a file of any
    owner (a client's token file). FleetTokenError (``agent`` named) otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as e:
        raise FleetTokenError(agent, f"cannot read {what} {path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FleetTokenError(agent, f"{what} {path} is not a regular file")
        if st.st_uid != os.geteuid() and not (root_reads_any and os.geteuid() == 0):
            raise FleetTokenError(agent, f"{what} {path} is owned by uid {st.st_uid}, not by this user "
                                  f"(uid {os.geteuid()})")
        if st.st_mode & 0o077:
            raise FleetTokenError(agent, f"{what} {path} is readable by group or others "
                                  f"(mode {stat.S_IMODE(st.st_mode):03o}); chmod 600 it")
        data = os.read(fd, 4097)
        if len(data) > 4096:
            raise FleetTokenError(agent, f"{what} {path} is larger than 4096 bytes")
        return data
    finally:
        os.close(fd)


def read_secret(path: str, agent: str = "") -> str:
    """The secret in ``path``: 64 lowercase hex characters, read by :func:`read_private`.
    FleetTokenError (``agent`` named) when it is refused or holds no such secret."""
    try:
        secret = read_private(path, "the pool secret", agent).strip().decode("ascii")
    except UnicodeDecodeError:
        secret = ""
    if not _SECRET.fullmatch(secret):
        raise FleetTokenError(agent, f"the pool secret {path} does not hold 64 lowercase hex characters")
    return secret


def host_token(secret: str, host_nonce: str) -> str:
    """A pool host's agent token: hex HMAC-SHA256(secret, "runbox-pool-host:" + host nonce)."""
    return hmac.new(secret.encode("ascii"), b"runbox-pool-host:" + host_nonce.encode("ascii"),
                    hashlib.sha256).hexdigest()


def derive_host_token(url: str, secret: str, pin: Optional[bytes] = None, timeout_s: float = 10.0,
                      agent: str = "") -> str:
    """Reads the host nonce from ``url``'s ``GET /health`` (no credential sent; ``pin`` checked
    first for https://) and returns :func:`host_token`. FleetTokenError when the host does not
    answer 200 or shows no host nonce (an agent without --pool-secret-file), and, before
    anything is sent, for a URL that is not https://: the token goes in clear to whoever answers,
    and only TLS proves which host that is (a squatter on a stopped host's port would get it)."""
    if urlsplit(url).scheme != "https":
        raise FleetTokenError(agent, f"{url}: a pool host's token is derived and sent only over https:// "
                              "(TLS proves which host answers; over plain HTTP whoever answers on that "
                              "port would get a host's token); start the host with --listen-tls and "
                              "give its https URL and fingerprint")
    session = Session(url, timeout_s, pin=pin)
    conn = session.new_connection()
    try:
        conn.request("GET", session.prefix + "/health")
        resp = conn.getresponse()
        body = resp.read(1 << 16)
        status = resp.status
    except OSError as e:
        raise FleetTokenError(agent, f"cannot read the host nonce from {url}/health: {e}") from None
    finally:
        conn.close()
    if status != 200:
        raise FleetTokenError(agent, f"{url}/health answered {status}, not the host nonce")
    try:
        pool = json.loads(body).get("pool")
        nonce = pool.get("hostNonce") if isinstance(pool, dict) else None
    except (ValueError, AttributeError):
        nonce = None
    if not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        raise FleetTokenError(agent, f"{url} shows no pool host nonce on /health (is it a pool host "
                              "started with --pool-secret-file?)")
    return host_token(secret, nonce)


__all__ = ["default_secret_path", "read_private", "read_secret", "host_token", "derive_host_token"]
