"""The agent's TLS listener and its pinned certificate (docs/contracts.md "TLS and pinning"),
as ``shared/TlsPin`` decides it for the C++ client, the CLI and the console.

The fingerprint is the SHA-256 of the certificate's DER encoding. With a pin, exactly the
pinned certificate is accepted, whatever the system store, expiry or host name say (the pin is
its identity); without one, only a certificate the system CA store verifies for the URL's host.
The decision is taken on every new connection after the handshake and before a byte of the
request is sent.
"""

from __future__ import annotations

import hashlib
import http.client
import re
import socket
import ssl
from typing import Optional

from .errors import CertificateRefusedError

_OPENSSL_PREFIX = re.compile(r"^sha256\s*fingerprint\s*=", re.IGNORECASE)
_HEX64 = re.compile(r"^[0-9A-Fa-f]{64}$")


def parse_fingerprint(text: str) -> Optional[bytes]:
    """The 32 bytes of a fingerprint typed as ``AB:CD:…`` (colons optional, any case),
    ``sha256:<64 hex>`` or openssl's ``SHA256 Fingerprint=AB:CD:…``; None for anything else
    (``tls::parseFingerprint``)."""
    t = _OPENSSL_PREFIX.sub("", text.strip())
    if t[:7].lower() == "sha256:":
        t = t[7:]
    t = t.replace(":", "")
    return bytes.fromhex(t) if _HEX64.match(t) else None


def format_fingerprint(sha256: bytes) -> str:
    """``AB:CD:…``: the form ``runbox-agent --print-fingerprint`` prints."""
    return ":".join("%02X" % b for b in sha256)


def certificate_sha256(der: Optional[bytes]) -> bytes:
    return hashlib.sha256(der).digest() if der else b""


def pinned_context() -> ssl.SSLContext:
    """TLS 1.2 or later, the chain and host name left to the pin."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def system_context() -> ssl.SSLContext:
    """The system CA store and the host name check, TLS 1.2 or later."""
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def check_pin(presented_der: Optional[bytes], pin: bytes) -> None:
    """Raises CertificateRefusedError unless SHA-256(``presented_der``) is ``pin``."""
    actual = certificate_sha256(presented_der)
    if not actual:
        raise CertificateRefusedError("TLS: the agent presented no certificate", format_fingerprint(pin), None)
    if actual != pin:
        raise CertificateRefusedError(
            "TLS: the agent's certificate does not match the pinned fingerprint: expected "
            f"{format_fingerprint(pin)}, presented {format_fingerprint(actual)}. The agent's "
            "certificate changed, or this is not the agent: compare with `runbox-agent "
            "--print-fingerprint` on its host before pinning the new one; nothing was sent",
            format_fingerprint(pin), format_fingerprint(actual))


def _presented_fingerprint(host: str, port: int, timeout: Optional[float]) -> Optional[str]:
    """The certificate ``host:port`` presents, by a handshake that sends no request; None when
    that fails too."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            with pinned_context().wrap_socket(raw, server_hostname=host) as tls:
                der = tls.getpeercert(binary_form=True)
    except (OSError, ValueError):
        return None
    return format_fingerprint(certificate_sha256(der)) if der else None


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    """An ``HTTPSConnection`` that decides the agent's certificate in ``connect()``, so a
    refused one fails the request before it is sent: by ``pin`` (32 bytes) when given, else by
    ``context`` (the system store unless the caller gave its own), whose refusal becomes a
    CertificateRefusedError naming the presented fingerprint and how to pin it."""

    def __init__(self, host: str, port: int, *, timeout: float, pin: Optional[bytes],
                 context: Optional[ssl.SSLContext]) -> None:
        self._pin = pin
        super().__init__(host, port, timeout=timeout,
                         context=pinned_context() if pin else (context or system_context()))

    def connect(self) -> None:
        try:
            super().connect()
        except ssl.SSLCertVerificationError as e:
            self.close()
            presented = _presented_fingerprint(self.host, self.port, self.timeout)
            raise CertificateRefusedError(
                f"TLS: the agent's certificate is not trusted ({e.verify_message or e}); its SHA-256 "
                f"fingerprint is {presented or '(unknown)'}. Compare it with `runbox-agent "
                "--print-fingerprint` on the agent's host (the agent also logs it at start), then "
                "pin it: Agent(fingerprint=...) (or RUNBOX_FINGERPRINT); nothing was sent",
                None, presented) from None
        if self._pin:
            try:
                check_pin(self.sock.getpeercert(binary_form=True), self._pin)
            except CertificateRefusedError:
                self.close()
                raise
