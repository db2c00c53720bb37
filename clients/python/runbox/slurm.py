"""Slurm pools (docs/contracts.md "Slurm pools"), as the CLI reads them: a pooled id
``POOL-JOBID.ID`` names the pool host that Slurm job JOBID runs, found in the file the job
published (``$XDG_CACHE_HOME/runbox/pools/POOL/hosts/JOBID.json``) when POOL has a Slurm
definition (``$XDG_CONFIG_HOME/runbox/pools/POOL.slurm.json``, ``runbox pool create --slurm``).
The file is believed only when its jobId and pool are its own, its URL is ``https://``, its
fingerprint one and its nonce well-formed; the host is then reached pinned with that fingerprint
and signed with the token derived from the pool's secret (:mod:`runbox.pool_secret`).
Booting and listing jobs stay the CLI's (``runbox pool add|ls|rm``)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Optional, Tuple

from ._tls import parse_fingerprint
from .fleet import FleetAgent, valid_name

_JOB_ID = re.compile(r"[0-9]{1,20}")
_NONCE = re.compile(r"[0-9a-f]{32}")


def split_host_name(host: str) -> Optional[Tuple[str, str]]:
    """``POOL-JOBID`` → (POOL, JOBID), split at the last ``-``; None unless digits follow it."""
    pool, dash, job = host.rpartition("-")
    if not dash or not _JOB_ID.fullmatch(job) or not valid_name(pool):
        return None
    return pool, job


def definition_path(pool: str) -> str:
    """``$XDG_CONFIG_HOME/runbox/pools/POOL.slurm.json``, else under ``~/.config``."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return os.path.join(base, "runbox", "pools", f"{pool}.slurm.json")


def hosts_dir(pool: str) -> str:
    """``$XDG_CACHE_HOME/runbox/pools/POOL/hosts``, else under ``~/.cache``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return os.path.join(base, "runbox", "pools", pool, "hosts")


def published_host(host: str) -> Optional[FleetAgent]:
    """The fleet entry of Slurm pool host ``host`` (``POOL-JOBID``) as its job published it,
    or None: not such a name, no Slurm definition of POOL, no file (the job is not running),
    or a file that fails a check."""
    parts = split_host_name(host)
    if parts is None or not os.path.isfile(definition_path(parts[0])):
        return None
    pool, job = parts
    try:
        with open(os.path.join(hosts_dir(pool), f"{job}.json"), "rb") as f:
            doc = json.loads(f.read(64 * 1024))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("jobId") != job or doc.get("pool") != pool:
        return None
    url, fingerprint, nonce = doc.get("url"), doc.get("fingerprint"), doc.get("hostNonce")
    if not isinstance(url, str) or not url.startswith("https://") or not isinstance(fingerprint, str):
        return None
    pin = parse_fingerprint(fingerprint)
    if pin is None or not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        return None
    return FleetAgent(name=host, url=url, fingerprint=fingerprint, pin=pin, pool=pool)
