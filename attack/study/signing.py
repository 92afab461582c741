"""Ed25519 signatures on certificates: who issued a certificate, not only that it is intact.

A certificate's digest shows that the file is unchanged to someone who already trusts it; anyone
can recompute it after an edit. A signature made with the issuer's private key can be checked by
anyone holding the issuer's public key and cannot be remade without the private key. What is
signed is the certificate's canonical JSON without its ``signature`` entry: keys sorted, UTF-8,
no insignificant whitespace (``json.dumps(..., sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``). See ``docs/reference/certificate.md``.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import stat
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from attack.errors import InputError
from attack.io.writers import OWNER_ONLY, write_files_atomic

ALGORITHM = "Ed25519"
#: Warnings for the command line (the CLI echoes the ``attack.io`` loggers on stderr).
_log = logging.getLogger("attack.io.keys")
PRIVATE_NAME, PUBLIC_NAME = "private.pem", "public.pem"


def fingerprint(public_key: Ed25519PublicKey) -> str:
    """``SHA256:`` and the hex SHA-256 of the raw 32-byte public key."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "SHA256:" + hashlib.sha256(raw).hexdigest()


def generate_keypair(folder: str | Path, passphrase: bytes | None = None) -> tuple[Path, Path, str]:
    """Write a new key pair into ``folder``: ``private.pem`` (PKCS#8, owner-only, encrypted when a
    passphrase is given) and ``public.pem``. Refuses to overwrite an existing key. Returns the
    two paths and the public key's fingerprint."""
    folder = Path(folder)
    private_path, public_path = folder / PRIVATE_NAME, folder / PUBLIC_NAME
    for path in (private_path, public_path):
        if path.exists():
            raise InputError("a key already exists here; refusing to overwrite it", file=str(path))
    if passphrase is not None and not passphrase:
        raise InputError("the passphrase is empty")
    key = Ed25519PrivateKey.generate()
    encryption = (serialization.BestAvailableEncryption(passphrase) if passphrase
                  else serialization.NoEncryption())
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    write_files_atomic({private_path: (private_pem.decode("ascii"), OWNER_ONLY),
                        public_path: (public_pem.decode("ascii"), None)})
    return private_path, public_path, fingerprint(key.public_key())


def load_private_key(path: str | Path, passphrase: bytes | None = None) -> Ed25519PrivateKey:
    """The Ed25519 private key in a PEM file; a clear ``InputError`` otherwise. A key file
    that others than its owner may read is used, with a warning: anyone who can read it can sign
    certificates in the issuer's name."""
    data = _read(path)
    mode = stat.S_IMODE(Path(path).stat().st_mode)
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        _log.warning("the private key %s can be read by others than its owner (mode %s): anyone who can "
                     "read it can sign certificates in your name; make it owner-only (chmod 600 %s)",
                     path, oct(mode), path)
    try:
        key = serialization.load_pem_private_key(data, password=passphrase)
    except TypeError as exc:  # encrypted without a passphrase, or a passphrase for a plain key
        raise InputError(f"{_first_line(exc)}; give the passphrase with --passphrase-env",
                         file=str(path)) from None
    except ValueError as exc:
        raise InputError(f"not a readable private key ({_first_line(exc)}); a wrong passphrase?",
                         file=str(path)) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise InputError("not an Ed25519 private key (make one with attack keygen)", file=str(path))
    return key


def load_public_key(path: str | Path) -> Ed25519PublicKey:
    """The Ed25519 public key in a PEM file; a clear ``InputError`` otherwise."""
    data = _read(path)
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError as exc:
        raise InputError(f"not a readable public key ({_first_line(exc)})", file=str(path)) from None
    if not isinstance(key, Ed25519PublicKey):
        raise InputError("not an Ed25519 public key", file=str(path))
    return key


def passphrase_from_env(name: str | None) -> bytes | None:
    """The passphrase held in the environment variable ``name`` (None when no name is given)."""
    if name is None:
        return None
    value = os.environ.get(name)
    if value is None:
        raise InputError(f"the environment variable {name} named by --passphrase-env is not set")
    return value.encode("utf-8")


def signature_entry(message: bytes, key: Ed25519PrivateKey) -> dict:
    """The ``signature`` entry of a certificate for its canonical bytes ``message``."""
    return {
        "algorithm": ALGORITHM,
        "public_key_fingerprint": fingerprint(key.public_key()),
        "value": base64.b64encode(key.sign(message)).decode("ascii"),
    }


def signature_valid(message: bytes, entry: dict, key: Ed25519PublicKey) -> bool:
    """Whether ``entry`` is a valid signature of ``message`` by ``key``."""
    if entry.get("algorithm") != ALGORITHM:
        return False
    try:
        key.verify(base64.b64decode(entry.get("value", ""), validate=True), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def _read(path: str | Path) -> bytes:
    path = Path(path)
    if not path.is_file():
        raise InputError("key file not found", file=str(path))
    return path.read_bytes()


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
