"""Signed packets: a keyed BLAKE3 MAC over a packet's (or an adaptive result's) canonical form.

``verify`` alone proves the excerpts, not the packet: a packet edited and then rendered again consistently
(an excerpt dropped, the order changed, a range shrunk, the query or its limits changed, a truncation made
up) passes every check it can make from the files. A signature closes that gap for whoever holds the key:
it binds every member of the packet, the compiler's record included, to the installation (or server) that
compiled it.

The key is 32 random bytes in a file of mode 0600, kept outside any repository: by default
``$PROOFTEXT_KEY``, else ``$XDG_CONFIG_HOME/prooftext/signing.key`` (``~/.config`` when that is unset). A key
inside the root being indexed is refused, so no packet can ever quote it.

A signed value carries ``signature = {"alg": "blake3-keyed", "key_id": ..., "mac": ...}``: ``mac`` is the
keyed BLAKE3 (64 hex) of the canonical JSON of the value without its ``signature`` member, and ``key_id`` the
first 16 hex of the key's BLAKE3 under a fixed derivation context (it names the key, it does not reveal it).
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import blake3

import prooftext.canonical as canonical
from prooftext.corpus.ignore import GIT_DIR
from prooftext.corpus.safeio import SYMLINK_ERRNOS, existing_directory
from prooftext.errors import OutputExistsError, SigningKeyError

ALG = "blake3-keyed"
KEY_BYTES = 32
KEY_ID_HEX = 16
KEY_ID_CONTEXT = "prooftext packet signing key id v1"
"""The BLAKE3 derivation context whose output names a key (its ``key_id``)."""
SIGNATURE = "signature"
"""The member of a packet or adaptive result that holds its signature."""
KEY_ENV = "PROOFTEXT_KEY"
_MAX_KEY_FILE = 1024

VALID = "valid"
"""Signed by the key verify was given."""
UNSIGNED = "unsigned"
"""Carries no signature."""
FORGED = "forged"
"""Signed with the key's id, but the MAC does not match the value: it was changed after signing."""
OTHER_KEY = "other_key"
"""Signed by another key (its ``key_id`` is not this key's)."""
NOT_CHECKED = "not_checked"
"""Signed, but verify was given no key."""


def default_key_path() -> Path:
    """``$PROOFTEXT_KEY``, else ``$XDG_CONFIG_HOME/prooftext/signing.key`` (``~/.config`` by default)."""
    named = os.environ.get(KEY_ENV)
    if named:
        return Path(named).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "prooftext" / "signing.key"


DEFAULT_SOURCE = "default key path"
"""The ``source`` of a key file that neither the caller nor :data:`KEY_ENV` named."""


@dataclass(frozen=True)
class KeyFile:
    """A key file's path and where it came from, as its errors name it: a path the caller gave is the
    ``field`` ``key``; one from :data:`KEY_ENV` or the default path has that ``source`` instead (no option
    or argument named it), and the message says so."""

    path: Path
    source: str | None = None

    @classmethod
    def of(cls, path: object) -> KeyFile:
        if isinstance(path, (str, os.PathLike)):
            if not os.fspath(path):  # `Path("")` would be the working directory
                raise SigningKeyError("key is empty: give a key file", field="key")
            return cls(Path(path).expanduser())
        if path is not None:
            raise SigningKeyError(f"key must be a path to a key file, not {type(path).__name__}", field="key")
        return cls(default_key_path(), f"${KEY_ENV}" if os.environ.get(KEY_ENV) else DEFAULT_SOURCE)

    @property
    def name(self) -> str:
        """The path, with its source when the caller did not give it."""
        if self.source is None:
            return str(self.path)
        return (
            f"{self.path} (the {self.source})"
            if self.source == DEFAULT_SOURCE
            else f"{self.path} (from {self.source})"
        )

    @property
    def details(self) -> dict[str, str]:
        return {"field": "key"} if self.source is None else {"source": self.source}


def _refuse_inside(key: KeyFile, root: Path | str | None) -> None:
    """A key inside ``root`` is refused; a root that is no existing directory is refused as every command
    refuses it (``root_missing``, ``root_not_directory``), not taken as a place the key is outside of."""
    if root is None:
        return
    base = existing_directory(root)
    where = key.path.parent.resolve() / key.path.name
    if where == base or base in where.parents:
        raise SigningKeyError(
            f"a signing key must live outside the root being indexed: {key.name} is inside {base}",
            **key.details,
        )


def _refuse_in_repository(key: KeyFile) -> None:
    """A new key is never written into a repository's work tree (where a commit would publish it)."""
    where = key.path.parent.resolve()
    for folder in (where, *where.parents):
        if (folder / GIT_DIR).exists():
            raise SigningKeyError(
                f"a signing key must live outside any repository: {key.name} is inside {folder}",
                **key.details,
            )


@dataclass(frozen=True)
class SigningKey:
    """A packet signing key: 32 secret bytes (never shown in its ``repr``) and the file they came from."""

    secret: bytes = field(repr=False)
    path: Path | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.secret, bytes):
            raise SigningKeyError(
                f"a signing key is {KEY_BYTES} bytes, not a {type(self.secret).__name__}", field="key"
            )
        if len(self.secret) != KEY_BYTES:
            raise SigningKeyError(f"a signing key is {KEY_BYTES} bytes, not {len(self.secret)}", field="key")

    @property
    def key_id(self) -> str:
        """The key's public name: 16 hex of its BLAKE3 under :data:`KEY_ID_CONTEXT`."""
        return blake3.blake3(self.secret, derive_key_context=KEY_ID_CONTEXT).hexdigest()[:KEY_ID_HEX]

    def mac(self, data: bytes) -> str:
        """The keyed BLAKE3 of ``data``, 64 lowercase hex."""
        return blake3.blake3(data, key=self.secret).hexdigest()

    @staticmethod
    def default_path() -> Path:
        return default_key_path()

    @staticmethod
    def per_user_default(path: Path | str | None) -> bool:
        """Whether ``path`` leaves the key at its per-user default path: none given, and no ``$PROOFTEXT_KEY``."""
        return KeyFile.of(path).source == DEFAULT_SOURCE

    @classmethod
    def generate(cls, path: Path | str | None = None, root: Path | str | None = None) -> SigningKey:
        """A new random key written to ``path`` (by default :func:`default_key_path`) with mode 0600; an
        existing file is never overwritten (``output_exists``), and a path inside ``root`` or inside any
        repository's work tree is refused."""
        key = KeyFile.of(path)
        target = key.path
        _refuse_inside(key, root)
        _refuse_in_repository(key)
        secret = secrets.token_bytes(KEY_BYTES)
        try:
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            raise OutputExistsError(f"a key file already exists at {key.name}", **key.details) from None
        except OSError as exc:
            raise SigningKeyError(
                f"cannot create the key file {key.name}: {exc.strerror}", **key.details
            ) from None
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            os.write(fd, secret)
            os.fsync(fd)
        finally:
            os.close(fd)
        return cls(secret, target)

    @classmethod
    def load(cls, path: Path | str | None = None, root: Path | str | None = None) -> SigningKey:
        """The key in ``path`` (by default :func:`default_key_path`): a regular file of exactly 32 bytes that
        no one but its owner can read or write, outside ``root`` when one is given."""
        key = KeyFile.of(path)
        target = key.path
        _refuse_inside(key, root)
        try:
            fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as exc:
            if exc.errno in SYMLINK_ERRNOS and target.is_symlink():
                raise SigningKeyError(
                    f"the key file {key.name} is a symbolic link; name the key file itself "
                    f"({os.path.realpath(target)}): a link could be pointed at another key",
                    **key.details,
                ) from None
            raise SigningKeyError(
                f"cannot open the key file {key.name}: {exc.strerror}", **key.details
            ) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise SigningKeyError(f"the key file {key.name} is not a regular file", **key.details)
            if info.st_mode & 0o077:
                mode = oct(stat.S_IMODE(info.st_mode))
                raise SigningKeyError(
                    f"the key file {key.name} is open to others (mode {mode})", **key.details
                )
            if info.st_size != KEY_BYTES:
                raise SigningKeyError(
                    f"the key file {key.name} holds {info.st_size} bytes; a signing key is {KEY_BYTES}",
                    **key.details,
                )
            data = os.read(fd, _MAX_KEY_FILE)
        finally:
            os.close(fd)
        return cls(data, target)


def checked_key(key: object) -> SigningKey | None:
    """``key`` when it is a :class:`SigningKey` or None; a path or raw bytes are refused, naming ``key``
    (``SigningKey.load(path)`` reads a key file with its checks)."""
    if key is not None and not isinstance(key, SigningKey):
        raise SigningKeyError(
            f"key must be a prooftext.SigningKey (SigningKey.load(path)), not {type(key).__name__}",
            field="key",
        )
    return key


def _body(value: dict[str, Any]) -> bytes:
    return canonical.encode({k: v for k, v in value.items() if k != SIGNATURE})


def sign(value: Any, key: SigningKey) -> dict[str, Any]:
    """A copy of ``value`` (a packet or an adaptive result, as a dict or as the object whose ``to_dict()``
    gives it) carrying ``key``'s signature over its canonical form; a signature it held is replaced."""
    if checked_key(key) is None:
        raise SigningKeyError("a value is signed with a prooftext.SigningKey, not None", field="key")
    body = value.to_dict() if hasattr(value, "to_dict") else value
    if not isinstance(body, dict):
        raise SigningKeyError(
            "only a packet or an adaptive result (a JSON object) can be signed", field="value"
        )
    out = {k: v for k, v in body.items() if k != SIGNATURE}
    out[SIGNATURE] = {"alg": ALG, "key_id": key.key_id, "mac": key.mac(_body(out))}
    return out


def signature_state(value: dict[str, Any], key: SigningKey | None) -> str:
    """One of :data:`VALID`, :data:`UNSIGNED`, :data:`FORGED`, :data:`OTHER_KEY` or :data:`NOT_CHECKED`."""
    signature = value.get(SIGNATURE)
    if not isinstance(signature, dict):
        return UNSIGNED
    if key is None:
        return NOT_CHECKED
    if signature.get("key_id") != key.key_id:
        return OTHER_KEY
    mac = signature.get("mac")
    if (
        signature.get("alg") == ALG
        and isinstance(mac, str)
        and mac.isascii()
        and hmac.compare_digest(mac, key.mac(_body(value)))
    ):
        return VALID
    return FORGED
