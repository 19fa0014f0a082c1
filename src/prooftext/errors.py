"""The one exception tree of prooftext.

Every error a user can see is an instance of a class below. Each class carries a stable string ``code``
(the CLI ``--json`` error object and the JSON-RPC ``data.code``) and a JSON-RPC error code in the
``-32000..-32099`` range. Adapters (CLI, JSON-RPC, MCP) turn these into wire errors in exactly one place
each; the core never formats an error for a wire.

::

    ProoftextError                      error               -32000
    ├── RequestError                    invalid_request     -32602  (names the offending ``field``)
    │   ├── EmptyQueryError             query_empty
    │   ├── RangeError                  value_out_of_range
    │   ├── UnknownNameError            unknown_name
    │   └── DeclarationRequiredError    declaration_required
    ├── ConfigError                     config_invalid      -32001
    │   ├── ExtraMissingError           extra_missing
    │   └── SigningKeyError             signing_key_invalid
    ├── RootError                       root_invalid        -32002
    │   ├── RootMissingError            root_missing
    │   ├── RootNotDirectoryError       root_not_directory
    │   └── RootUnreadableError         root_unreadable
    ├── CanonicalJSONError              json_invalid        -32003
    │   ├── JSONSyntaxError             json_syntax
    │   ├── JSONFloatError              json_float
    │   ├── JSONNonFiniteError          json_nonfinite
    │   ├── JSONDuplicateKeyError       json_duplicate_key
    │   ├── JSONLoneSurrogateError      json_lone_surrogate
    │   ├── JSONBOMError                json_bom
    │   ├── JSONDepthError              json_too_deep
    │   ├── JSONEncodingError           json_encoding
    │   ├── JSONIntegerRangeError       json_integer_range
    │   └── JSONTypeError               json_type
    ├── TokenizerError                  tokenizer_error     -32004
    │   └── CorruptTokenizerError       tokenizer_corrupt
    ├── SourceError                     source_error        -32005
    │   ├── SourceUnreadableError       source_unreadable
    │   ├── SourceDriftError            source_drift
    │   ├── SourceMissingError          source_missing
    │   ├── PathOutsideRootError        path_outside_root
    │   └── SourceExcludedError         source_excluded
    ├── BudgetError                     budget_exceeded     -32006
    │   └── InsufficientContextError    context_insufficient
    ├── StoreError                      store_error         -32007
    │   ├── StoreCorruptError           store_corrupt
    │   ├── StoreBusyError              store_busy
    │   └── StoreSchemaError            store_schema
    ├── ArtifactError                   artifact_invalid    -32008
    │   ├── ArtifactIdMismatchError     artifact_id_mismatch
    │   ├── SchemaViolationError        schema_violation
    │   ├── OutputExistsError           output_exists
    │   ├── OutputUnwritableError       output_unwritable
    │   └── SelectionMismatchError      selection_mismatch
    ├── GovernanceError                 governance_violation -32009
    │   ├── AuthorityError              authority_invalid
    │   ├── SensitivityError            sensitivity_violation
    │   ├── FreshnessError              freshness_violation
    │   ├── ProvenanceError             provenance_invalid
    │   ├── CandidateMismatchError      candidate_mismatch
    │   └── OwnerRootError              owner_root_invalid
    ├── SelectionBlockedError           selection_blocked   -32010
    ├── NotFoundError                   not_found           -32011
    ├── MemoryStoreError                memory_error        -32012
    ├── BackendError                    backend_error       -32013
    │   ├── BackendUnavailableError     backend_unavailable
    │   ├── BackendProtocolError        backend_protocol
    │   └── ModelNotFoundError          model_not_found
    ├── AuthError                       unauthorized        -32014
    ├── LimitError                      limit_exceeded      -32015
    ├── WorkerLostError                 worker_lost         -32016
    ├── DiskFullError                   disk_full           -32017
    └── EvaluationError                 evaluation_failed   -32018
        ├── SchedulerUnreachableError   scheduler_unreachable
        └── AllTasksFailedError         all_tasks_failed
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

MAX_MESSAGE_CHARS = 2000
"""Error messages are bounded so that an error object never carries a whole hostile input."""


def _unchanged(text: str) -> str:
    return text


_scrub: Callable[[str], str] = _unchanged


def set_scrubber(scrub: Callable[[str], str]) -> None:
    """Install the function that removes credentials from every error message and string detail (an error
    may quote its input). The package installs its redaction on import; this module depends on nothing."""
    global _scrub
    _scrub = scrub


def bounded(text: str) -> str:
    """``text`` as an error message carries it: credentials redacted, at most :data:`MAX_MESSAGE_CHARS`
    characters (also for messages the interfaces make of their own, such as a command line's usage error)."""
    text = _scrub(text)
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - 1] + "…"


class ProoftextError(Exception):
    """Base of every prooftext error: a stable ``code``, a JSON-RPC code and bounded details."""

    code: ClassVar[str] = "error"
    rpc_code: ClassVar[int] = -32000

    def __init__(self, message: str, **details: Any) -> None:
        self.message = bounded(message)
        self.details: dict[str, Any] = details
        super().__init__(self.message)

    def to_dict(self) -> dict[str, Any]:
        """The bounded error object that every interface emits."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = {k: bounded(v) if isinstance(v, str) else v for k, v in self.details.items()}
        return out


class RequestError(ProoftextError):
    """A request (query, parameters, flags) is invalid; ``field`` names the offending input."""

    code = "invalid_request"
    rpc_code = -32602

    def __init__(self, message: str, *, field: str, **details: Any) -> None:
        super().__init__(message, field=field, **details)
        self.field = field


class EmptyQueryError(RequestError):
    code = "query_empty"


class RangeError(RequestError):
    code = "value_out_of_range"


def whole_number(name: str, value: object, low: int, high: int, unit: str = "") -> int:
    """``value`` when it is an integer (not a boolean) from ``low`` through ``high``: the one check of a
    whole-number field, a :class:`RequestError` naming ``name`` for any other type, a :class:`RangeError`
    outside the range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{name} must be an integer", field=name)
    if not low <= value <= high:
        raise RangeError(f"{name} must be between {low} and {high}{unit}, got {value}", field=name)
    return value


class UnknownNameError(RequestError):
    code = "unknown_name"


class DeclarationRequiredError(RequestError):
    """A run with a model in the loop was given no quality bar (metric, threshold, permitted regression and
    reference arm) before it started; ``details.missing`` lists what is undeclared."""

    code = "declaration_required"


class ConfigError(ProoftextError):
    code = "config_invalid"
    rpc_code = -32001


class ExtraMissingError(ConfigError):
    """A command needs an optional part of prooftext that is not installed (``pip install 'prooftext[eval]'``
    for the evaluation's baseline and plotting libraries). ``details.install`` is the command that adds it."""

    code = "extra_missing"


class SigningKeyError(ConfigError):
    """A signing key that cannot be created, read or used: missing, the wrong size, open to others, or
    inside the root being indexed."""

    code = "signing_key_invalid"


class RootError(ProoftextError):
    code = "root_invalid"
    rpc_code = -32002


class RootMissingError(RootError):
    code = "root_missing"


class RootNotDirectoryError(RootError):
    code = "root_not_directory"


class RootUnreadableError(RootError):
    """The root exists but cannot be opened or looked at: no permission, a loop of links."""

    code = "root_unreadable"


class CanonicalJSONError(ProoftextError):
    code = "json_invalid"
    rpc_code = -32003


class JSONSyntaxError(CanonicalJSONError):
    code = "json_syntax"


class JSONFloatError(CanonicalJSONError):
    code = "json_float"


class JSONNonFiniteError(CanonicalJSONError):
    code = "json_nonfinite"


class JSONDuplicateKeyError(CanonicalJSONError):
    code = "json_duplicate_key"


class JSONLoneSurrogateError(CanonicalJSONError):
    code = "json_lone_surrogate"


class JSONBOMError(CanonicalJSONError):
    code = "json_bom"


class JSONDepthError(CanonicalJSONError):
    code = "json_too_deep"


class JSONEncodingError(CanonicalJSONError):
    code = "json_encoding"


class JSONIntegerRangeError(CanonicalJSONError):
    code = "json_integer_range"


class JSONTypeError(CanonicalJSONError):
    code = "json_type"


class TokenizerError(ProoftextError):
    """A known tokenizer that cannot be used. An unknown tokenizer name is a request's
    :class:`UnknownNameError`, as any other unknown name is."""

    code = "tokenizer_error"
    rpc_code = -32004


class CorruptTokenizerError(TokenizerError):
    code = "tokenizer_corrupt"


class SourceError(ProoftextError):
    code = "source_error"
    rpc_code = -32005


class SourceUnreadableError(SourceError):
    code = "source_unreadable"


class SourceDriftError(SourceError):
    code = "source_drift"


class SourceMissingError(SourceError):
    code = "source_missing"


class PathOutsideRootError(SourceError):
    code = "path_outside_root"


class SourceExcludedError(SourceError):
    """A file the index leaves out (ignored, a credential, binary, ...) asked for by path: ``reason`` is the
    scan's reason code and ``remedy`` what would change it."""

    code = "source_excluded"


class BudgetError(ProoftextError):
    code = "budget_exceeded"
    rpc_code = -32006


class InsufficientContextError(BudgetError):
    """Context was required to be estimated sufficient and the estimator did not pass within the ceiling."""

    code = "context_insufficient"


class StoreError(ProoftextError):
    code = "store_error"
    rpc_code = -32007


class StoreCorruptError(StoreError):
    code = "store_corrupt"


class StoreBusyError(StoreError):
    code = "store_busy"


class StoreSchemaError(StoreError):
    code = "store_schema"


class ArtifactError(ProoftextError):
    code = "artifact_invalid"
    rpc_code = -32008


class ArtifactIdMismatchError(ArtifactError):
    code = "artifact_id_mismatch"


class SchemaViolationError(ArtifactError):
    code = "schema_violation"


class OutputExistsError(ArtifactError):
    code = "output_exists"


class OutputUnwritableError(ArtifactError):
    """An output (a published artifact, standard output) could not be written: a full disk, a closed pipe."""

    code = "output_unwritable"


class SelectionMismatchError(ArtifactError):
    """A supplied Selection differs from what the deterministic selector produces for its Graph and Query."""

    code = "selection_mismatch"


class GovernanceError(ProoftextError):
    code = "governance_violation"
    rpc_code = -32009


class AuthorityError(GovernanceError):
    code = "authority_invalid"


class SensitivityError(GovernanceError):
    code = "sensitivity_violation"


class FreshnessError(GovernanceError):
    code = "freshness_violation"


class ProvenanceError(GovernanceError):
    code = "provenance_invalid"


class CandidateMismatchError(GovernanceError):
    code = "candidate_mismatch"


class OwnerRootError(GovernanceError):
    code = "owner_root_invalid"


class SelectionBlockedError(ProoftextError):
    code = "selection_blocked"
    rpc_code = -32010


class NotFoundError(ProoftextError):
    code = "not_found"
    rpc_code = -32011


class MemoryStoreError(ProoftextError):
    code = "memory_error"
    rpc_code = -32012


class BackendError(ProoftextError):
    code = "backend_error"
    rpc_code = -32013


class BackendUnavailableError(BackendError):
    code = "backend_unavailable"


class BackendProtocolError(BackendError):
    code = "backend_protocol"


class ModelNotFoundError(BackendError):
    code = "model_not_found"


class AuthError(ProoftextError):
    code = "unauthorized"
    rpc_code = -32014


class LimitError(ProoftextError):
    code = "limit_exceeded"
    rpc_code = -32015


class WorkerLostError(ProoftextError):
    """The worker process running a request died. ``details.repeatable`` says whether sending it again is
    safe (it was run again already, as often as its deadline allowed); a call that must not repeat may or
    may not have taken effect. ``details.retry_after_ms`` is a hint."""

    code = "worker_lost"
    rpc_code = -32016


class DiskFullError(ProoftextError):
    """A write found no room on the file system (SQLite's ``SQLITE_FULL``, a shared-memory index that cannot
    grow, or ``ENOSPC``). The write was undone whole; reads of the same store still work. Free some space
    and retry."""

    code = "disk_full"
    rpc_code = -32017


class EvaluationError(ProoftextError):
    """An evaluation run could not be carried out as a whole."""

    code = "evaluation_failed"
    rpc_code = -32018


class SchedulerUnreachableError(EvaluationError):
    """The Dask scheduler named by ``details.address`` could not be reached."""

    code = "scheduler_unreachable"


class AllTasksFailedError(EvaluationError):
    """Every task of a run failed; its rows, summary and report are written, and ``details.codes`` counts
    the failures by code."""

    code = "all_tasks_failed"


def all_error_classes() -> list[type[ProoftextError]]:
    """Every class of the tree, depth first, for tests that check codes are unique and documented."""
    out: list[type[ProoftextError]] = []

    def walk(cls: type[ProoftextError]) -> None:
        out.append(cls)
        for sub in cls.__subclasses__():
            walk(sub)

    walk(ProoftextError)
    return out
