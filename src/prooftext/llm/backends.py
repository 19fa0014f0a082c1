"""Chat backends over httpx: Ollama's native ``/api/chat`` and OpenAI-compatible ``/v1/chat/completions``.

Both stream or not; the plan's output budget goes out as ``options.num_predict`` (Ollama) or ``max_tokens``
(OpenAI-compatible). The model is always the one the caller names: a backend never substitutes another,
and the name the server answers with is kept beside it (``served_model``), so a server that answers as
another model can be told (see :mod:`prooftext.llm.signal`). What a reply says of itself (its model, its
done or finish reason) is a string or null; any other value is ``backend_protocol``, as is a stream delta
that is not an object.

Every failure is a :class:`BackendError` subclass: connection refused or a timeout →
``backend_unavailable``; an unknown model, as the server's own JSON error answer says it →
``model_not_found``; malformed JSON, invalid UTF-8 or a stream that ends early → ``backend_protocol``; any
other HTTP error status (a 404 for a path the server does not serve among them) → ``backend_error`` with the
status and the URL requested.

Local models can take minutes to load and answer, so the reply timeout bounds the wait between bytes, not a
whole reply: a request fails as ``backend_unavailable`` once the server has sent nothing for ``read_timeout``
seconds (:data:`READ_TIMEOUT_S` unless told; ``--timeout`` on the commands that take ``--model``).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import urlsplit, urlunsplit

import httpx

from prooftext.errors import (
    BackendError,
    BackendProtocolError,
    BackendUnavailableError,
    ModelNotFoundError,
    RangeError,
    RequestError,
    UnknownNameError,
)
from prooftext.llm.messages import ChatMessage

DEFAULT_OLLAMA_ENDPOINT = "http://127.0.0.1:11434"
DEFAULT_OPENAI_ENDPOINT = "http://127.0.0.1:8000"
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 600.0
"""Seconds a request waits with nothing received from the server (the time between bytes, not for a whole
reply): long enough for a local model to load and answer a prompt whole, short enough that a server that
accepts a request and never answers does not hang a run."""

MAX_ERROR_BODY_BYTES = 4096
OLLAMA_TIMING_FIELDS: tuple[str, ...] = (
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
    "total_duration",
)
BACKENDS: tuple[str, ...] = ("ollama", "openai")
API_KEY_ENV = "PROOFTEXT_API_KEY"
"""The environment variable whose value the ``openai`` backend sends as ``Authorization: Bearer`` (a hosted
API's key). It is read where the backend is made and kept only in the client's headers: never in an option,
a message, a record or a cache key."""

DeltaCallback = Callable[[str], None]


@dataclass(frozen=True)
class ChatResult:
    """A reply and its shape: the model requested, Ollama timing fields (nanoseconds and counts) and OpenAI
    usage, when given, and the model the server says answered (``None`` when it names none)."""

    text: str
    model: str
    backend: str
    streamed: bool
    done_reason: str | None
    timings: dict[str, int | None] = field(default_factory=dict)
    usage: dict[str, int | None] = field(default_factory=dict)
    served_model: str | None = None


REDACTED_USERINFO = "[REDACTED]"
MIN_SCRUBBED_CHARS = 4
"""A credential this long or longer is cut out of a server's error message that repeats it; a shorter user
name (``u``) would only garble the message."""


def shown_endpoint(endpoint: str) -> str:
    """``endpoint`` as messages and records show it: a user name or password in it (``http://user:key@host``,
    which the request still sends) becomes ``[REDACTED]``, so no credential reaches an error, a log or a
    report."""
    try:
        parts = urlsplit(endpoint)
    except ValueError:  # not a URL httpx could send to either; shown only if it holds no "@" at all
        return endpoint if "@" not in endpoint else REDACTED_USERINFO
    if "@" not in parts.netloc:
        return endpoint
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{REDACTED_USERINFO}@{host}"))


def _usable_endpoint(endpoint: object) -> bool:
    """Whether ``endpoint`` is an http(s) URL a request can be sent to: a host without spaces, a valid port."""
    if not isinstance(endpoint, str) or not endpoint.startswith(("http://", "https://")):
        return False
    try:
        parts = urlsplit(endpoint)
        host, port = parts.hostname, parts.port
    except ValueError:  # an unclosed IPv6 bracket, a port out of range or not a number
        return False
    return bool(host) and not any(c.isspace() for c in parts.netloc) and port != 0


def _userinfo(endpoint: str) -> tuple[str, ...]:
    """The user name and password ``endpoint`` holds, as written (both, either or none)."""
    try:
        parts = urlsplit(endpoint)
    except ValueError:
        return ()
    userinfo = parts.netloc.rsplit("@", 1)[0] if "@" in parts.netloc else ""
    return tuple(piece for piece in userinfo.split(":", 1) if piece)


def _decode(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BackendProtocolError(f"{what} is not valid UTF-8 (byte {exc.start})") from None


def _json(data: bytes, what: str) -> Any:
    """The one parse of a backend body (a reply, a stream line or event, an error body). Whatever the parser
    refuses is a protocol error, never an internal one: invalid UTF-8 or JSON, nesting too deep for it
    (``RecursionError``) or an integer too long to convert (a ``ValueError``, as a syntax error is)."""
    text = _decode(data, what)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise BackendProtocolError(f"{what} is not valid JSON") from None


MAX_REPORTED_INT = 2**53 - 1
"""Timings and counts beyond the canonical-JSON integer range (or negative) are not believable: dropped."""


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_REPORTED_INT else None


def _text_field(data: dict[str, Any], key: str, what: str) -> str | None:
    """``data[key]`` when it is a string, ``None`` when it is absent or null. A reply's own words about
    itself reach the shape-only signal report, which holds strings or null there: any other value is a
    protocol error."""
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BackendProtocolError(f"{what} has a {key!r} that is neither a string nor null")


def _lines(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Complete lines from a byte stream (split before decoding, so multi-byte characters survive)."""
    buf = b""
    for chunk in chunks:
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.rstrip(b"\r")
    if buf.strip():
        yield buf


def check_timeout(value: object) -> float:
    """``value`` as a reply timeout in seconds: a finite number above zero, else ``value_out_of_range``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        raise RangeError(f"--timeout must be a number of seconds above 0, not {value!r}", field="timeout")
    return float(value)


def _check_request(model: str, max_output_tokens: int, messages: Sequence[ChatMessage]) -> None:
    if not isinstance(model, str) or not model.strip():
        raise RequestError("a model name is required", field="model")
    if (
        isinstance(max_output_tokens, bool)
        or not isinstance(max_output_tokens, int)
        or max_output_tokens <= 0
    ):
        raise RequestError("max_output_tokens must be a positive integer", field="max_output_tokens")
    if not messages:
        raise RequestError("there are no messages to send", field="messages")


class ChatBackend:
    """A chat model behind an HTTP endpoint: one request per turn, whole or streamed; each backend says how
    its API spells a request and a reply."""

    name = "http"

    def __init__(
        self,
        endpoint: str,
        *,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        read_timeout: float = READ_TIMEOUT_S,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.read_timeout = check_timeout(read_timeout)
        if not _usable_endpoint(endpoint):
            raise RequestError(
                "the endpoint must be an http:// or https:// URL with a host (and a port from 1 to 65535)",
                field="endpoint",
            )
        self._endpoint = endpoint.rstrip("/")
        self._shown = shown_endpoint(self._endpoint)
        given = _userinfo(self._endpoint) + tuple(v.split(" ", 1)[-1] for v in (headers or {}).values())
        self._secrets = tuple(v for v in given if len(v) >= MIN_SCRUBBED_CHARS)
        timeout = httpx.Timeout(
            connect=connect_timeout, read=self.read_timeout, write=connect_timeout, pool=None
        )
        self._client = httpx.Client(timeout=timeout, headers=headers or {}, trust_env=False)

    @property
    def endpoint(self) -> str:
        """The endpoint as shown (:func:`shown_endpoint`): without the credentials it may hold."""
        return self._shown

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        model: str,
        max_output_tokens: int,
        stream: bool = False,
        on_delta: DeltaCallback | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ChatResult:
        """One reply. ``temperature`` and ``seed``, when given, go out as each API spells them (Ollama's
        ``options``, OpenAI's top-level fields); when not, the server's defaults apply."""
        _check_request(model, max_output_tokens, messages)
        payload = self._payload(messages, model, max_output_tokens, stream)
        self._sampling(payload, temperature, seed)
        if not stream:
            return self._reply(payload, model)
        return self._streamed(payload, model, on_delta)

    def _payload(
        self, messages: Sequence[ChatMessage], model: str, max_output_tokens: int, stream: bool
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _sampling(self, payload: dict[str, Any], temperature: float | None, seed: int | None) -> None:
        if temperature is not None:
            payload["temperature"] = temperature
        if seed is not None:
            payload["seed"] = seed

    def _reply(self, payload: dict[str, Any], model: str) -> ChatResult:
        raise NotImplementedError

    def _streamed(self, payload: dict[str, Any], model: str, on_delta: DeltaCallback | None) -> ChatResult:
        raise NotImplementedError

    def _fail_status(self, status: int, url: str, body: bytes, model: str) -> BackendError:
        """The error of an HTTP error status: ``model_not_found`` only when the server's JSON error answer
        says so (:func:`_says_model_missing`), else ``backend_error`` naming the status and the URL."""
        answer = _error_answer(body)
        if _says_model_missing(status, answer):
            return ModelNotFoundError(f"model {model!r} not found on {self.endpoint}", model=model)
        said = answer.message if answer is not None and answer.message else _snippet(body)
        for secret in self._secrets:  # a server or proxy that echoes the credential it refused
            said = said.replace(secret, REDACTED_USERINFO)
        shown = self._shown + url[len(self._endpoint) :]
        return BackendError(f"backend answered HTTP {status} for {shown}: {said}", status=status, url=shown)

    @contextmanager
    def _transport_errors(self) -> Iterator[None]:
        """httpx's failures as backend errors: unreachable or timed out, else a protocol failure."""
        try:
            yield
        except httpx.ConnectError as exc:
            raise BackendUnavailableError(
                f"cannot connect to {self._shown}: {exc}", endpoint=self._shown
            ) from None
        except httpx.ReadTimeout:
            raise BackendUnavailableError(
                f"{self._shown} sent nothing for {self.read_timeout:g} s (the reply timeout);"
                " a slower model needs a larger --timeout SECONDS",
                endpoint=self._shown,
                timeout_s=self.read_timeout,
            ) from None
        except httpx.TimeoutException:
            raise BackendUnavailableError(f"{self._shown} timed out", endpoint=self._shown) from None
        except httpx.HTTPError as exc:
            raise BackendProtocolError(
                f"HTTP failure talking to {self._shown}: {type(exc).__name__}"
            ) from None

    def _post(self, path: str, payload: dict[str, Any], model: str) -> Any:
        url = self._endpoint + path
        with self._transport_errors():
            response = self._client.post(url, json=payload)
            body = response.content
        if response.status_code >= 400:
            raise self._fail_status(response.status_code, url, body, model)
        return _json(body, "the backend's response")

    def _stream(self, path: str, payload: dict[str, Any], model: str) -> Iterator[bytes]:
        url = self._endpoint + path
        with self._transport_errors(), self._client.stream("POST", url, json=payload) as response:
            if response.status_code >= 400:
                body = b""
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_ERROR_BODY_BYTES:
                        break
                raise self._fail_status(response.status_code, url, body, model)
            yield from _lines(response.iter_bytes())


@dataclass(frozen=True)
class _ErrorAnswer:
    """A backend's own JSON error answer: its message and code, each when it gives one as a string."""

    message: str | None
    code: str | None


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _error_of(data: Any) -> _ErrorAnswer | None:
    """The error answer ``data`` holds: Ollama's ``{"error": "…"}``, the OpenAI API's ``{"error": {"message":
    …, "code": …}}`` or an older vLLM's ``{"object": "error", "message": …}``; None for any other shape."""
    if not isinstance(data, dict):
        return None
    err = data.get("error")
    if isinstance(err, str):
        return _ErrorAnswer(err, None)
    if isinstance(err, dict):
        return _ErrorAnswer(_string(err.get("message")), _string(err.get("code")))
    if data.get("object") == "error":
        return _ErrorAnswer(_string(data.get("message")), None)
    return None


def _error_answer(body: bytes) -> _ErrorAnswer | None:
    """The error answer of an error body; None when the body is not JSON at all (an HTML page, a plain-text
    ``404 page not found``, JSON the parser refuses): that is still the backend's error, with its status."""
    try:
        return _error_of(_json(body, "the error body"))
    except BackendProtocolError:
        return None


def _check_reported(data: dict[str, Any]) -> None:
    """A reply or stream event that carries an ``error`` is the backend's error, in its own words."""
    if data.get("error") is None:
        return
    answer = _error_of(data)
    said = answer.message if answer is not None and answer.message else "no message given"
    raise BackendError(f"backend reported an error: {said}")


def _snippet(body: bytes) -> str:
    return body[:200].decode("utf-8", errors="replace")


def _says_model_missing(status: int, answer: _ErrorAnswer | None) -> bool:
    """Whether a server's error answer says the model is unknown: the OpenAI API's code ``model_not_found``,
    or a 404 whose message says a model is not found (Ollama: ``model "x" not found, try pulling it first``,
    in its native and its OpenAI-compatible API) or does not exist (vLLM: ``The model `x` does not
    exist.``). A 404 without such an answer is a path the server does not serve, no verdict on the model."""
    if answer is None:
        return False
    if answer.code == "model_not_found":
        return True
    said = (answer.message or "").lower()
    return status == 404 and "model" in said and ("not found" in said or "does not exist" in said)


class OllamaBackend(ChatBackend):
    """Ollama's native chat API (``POST /api/chat``), NDJSON when streaming."""

    name = "ollama"

    def __init__(
        self,
        endpoint: str = DEFAULT_OLLAMA_ENDPOINT,
        *,
        num_ctx: int | None = None,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        read_timeout: float = READ_TIMEOUT_S,
    ) -> None:
        super().__init__(endpoint, connect_timeout=connect_timeout, read_timeout=read_timeout)
        self.num_ctx = num_ctx

    def _payload(
        self, messages: Sequence[ChatMessage], model: str, max_output_tokens: int, stream: bool
    ) -> dict[str, Any]:
        options: dict[str, Any] = {"num_predict": max_output_tokens}
        if self.num_ctx is not None:
            options["num_ctx"] = self.num_ctx
        return {
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "model": model,
            "options": options,
            "stream": stream,
        }

    def _sampling(self, payload: dict[str, Any], temperature: float | None, seed: int | None) -> None:
        if temperature is not None:
            payload["options"]["temperature"] = temperature
        if seed is not None:
            payload["options"]["seed"] = seed

    @staticmethod
    def _timings(data: dict[str, Any]) -> dict[str, int | None]:
        return {k: _int_or_none(data.get(k)) for k in OLLAMA_TIMING_FIELDS}

    @staticmethod
    def _content(data: Any, what: str) -> str:
        if not isinstance(data, dict):
            raise BackendProtocolError(f"{what} is not a JSON object")
        _check_reported(data)
        message = data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content", ""), str):
            raise BackendProtocolError(f"{what} has no message content")
        return str(message.get("content", ""))

    def _result(self, final: dict[str, Any], text: str, model: str, *, streamed: bool) -> ChatResult:
        """The result a reply's last (or only) object describes."""
        what = "the stream's last line" if streamed else "the reply"
        reason = _text_field(final, "done_reason", what)
        served = _text_field(final, "model", what)
        return ChatResult(text, model, self.name, streamed, reason, self._timings(final), served_model=served)

    def _reply(self, payload: dict[str, Any], model: str) -> ChatResult:
        """One reply answered whole."""
        data = self._post("/api/chat", payload, model)
        return self._result(data, self._content(data, "the reply"), model, streamed=False)

    def _streamed(self, payload: dict[str, Any], model: str, on_delta: DeltaCallback | None) -> ChatResult:
        """One reply as NDJSON chunks, each content delta passed to ``on_delta``, up to ``done``."""
        parts: list[str] = []
        final: dict[str, Any] | None = None
        for line in self._stream("/api/chat", payload, model):
            if not line.strip():
                continue
            chunk = _json(line, "a stream line")
            delta = self._content(chunk, "a stream line")
            if delta:
                parts.append(delta)
                if on_delta is not None:
                    on_delta(delta)
            if chunk.get("done") is True:
                final = chunk
                break
        if final is None:
            raise BackendProtocolError("the stream ended before the model said it was done")
        return self._result(final, "".join(parts), model, streamed=True)


class OpenAIBackend(ChatBackend):
    """OpenAI-compatible chat completions (``POST /v1/chat/completions``), SSE when streaming."""

    name = "openai"

    def __init__(
        self,
        endpoint: str = DEFAULT_OPENAI_ENDPOINT,
        *,
        api_key: str | None = None,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        read_timeout: float = READ_TIMEOUT_S,
    ) -> None:
        if api_key and not all("!" <= char <= "~" for char in api_key):
            raise RequestError(
                f"the API key ({API_KEY_ENV}) must be printable ASCII without spaces; its value is not shown",
                field="api_key",
            )
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        super().__init__(
            endpoint, connect_timeout=connect_timeout, read_timeout=read_timeout, headers=headers
        )

    @staticmethod
    def _usage(data: Any) -> dict[str, int | None]:
        usage = data.get("usage") if isinstance(data, dict) else None
        if not isinstance(usage, dict):
            return {}
        return {k: _int_or_none(usage.get(k)) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}

    def _payload(
        self, messages: Sequence[ChatMessage], model: str, max_output_tokens: int, stream: bool
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "max_tokens": max_output_tokens,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "model": model,
            "stream": stream,
        }
        if stream:
            payload["stream_options"] = {"include_usage": True}
        return payload

    def _reply(self, payload: dict[str, Any], model: str) -> ChatResult:
        """One completion answered whole."""
        data = self._post("/v1/chat/completions", payload, model)
        choice = self._choice(data, "the reply")
        message = choice.get("message")
        if not isinstance(message, dict) or "content" not in message:
            raise BackendProtocolError("the reply has no message content")
        text = (
            _text_field(message, "content", "the reply's message") or ""
        )  # null: no text (a refusal, the limit spent)
        reason = _text_field(choice, "finish_reason", "the reply's choice")
        served = _text_field(data, "model", "the reply")
        return ChatResult(text, model, self.name, False, reason, {}, self._usage(data), served_model=served)

    def _streamed(self, payload: dict[str, Any], model: str, on_delta: DeltaCallback | None) -> ChatResult:
        """One completion as server-sent events, each delta passed to ``on_delta``, up to ``[DONE]``."""
        parts: list[str] = []
        finish: str | None = None
        usage: dict[str, int | None] = {}
        served: str | None = None
        done = False
        for line in self._stream("/v1/chat/completions", payload, model):
            if not line.startswith(b"data:"):
                continue  # blank separators, comments (":"), event names
            body = line[5:].strip()
            if body == b"[DONE]":
                done = True
                break
            chunk = _stream_event(body)
            usage = self._usage(chunk) or usage
            served = _text_field(chunk, "model", "a stream event") or served
            finish = _take_deltas(chunk, parts, on_delta) or finish
        if not done:
            raise BackendProtocolError("the stream ended without [DONE]")
        return ChatResult("".join(parts), model, self.name, True, finish, {}, usage, served_model=served)

    @staticmethod
    def _choice(data: Any, what: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise BackendProtocolError(f"{what} is not a JSON object")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise BackendProtocolError(f"{what} has no choices")
        return choices[0]


def _stream_event(body: bytes) -> dict[str, Any]:
    """One server-sent event's JSON object; an error event is the backend's error."""
    chunk = _json(body, "a stream event")
    if not isinstance(chunk, dict):
        raise BackendProtocolError("a stream event is not a JSON object")
    _check_reported(chunk)
    return chunk


def _take_deltas(chunk: dict[str, Any], parts: list[str], on_delta: DeltaCallback | None) -> str | None:
    """Append each choice's content delta to ``parts`` (and pass it to ``on_delta``); the last finish
    reason the event gives, if any."""
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        raise BackendProtocolError("a stream event has no choices list")
    finish: str | None = None
    for choice in choices:
        if not isinstance(choice, dict):
            raise BackendProtocolError("a stream choice is not an object")
        content = _delta_content(choice)
        if content:
            parts.append(content)
            if on_delta is not None:
                on_delta(content)
        finish = _text_field(choice, "finish_reason", "a stream choice") or finish
    return finish


def _delta_content(choice: dict[str, Any]) -> str | None:
    """A stream choice's content delta. Its ``delta`` may be absent or null (nothing new), else it is an
    object whose ``content`` is a string or null (a role or tool-call delta)."""
    delta = choice.get("delta")
    if delta is None:
        return None
    if not isinstance(delta, dict):
        raise BackendProtocolError("a stream choice's delta is not an object")
    return _text_field(delta, "content", "a stream delta")


def make_backend(kind: str, endpoint: str | None = None, **options: Any) -> OllamaBackend | OpenAIBackend:
    """``ollama`` or ``openai`` (OpenAI-compatible), at ``endpoint`` or the local default; ``openai`` sends the
    key in :data:`API_KEY_ENV` when it is set and no ``api_key`` is given."""
    if kind == "ollama":
        return OllamaBackend(endpoint or DEFAULT_OLLAMA_ENDPOINT, **options)
    if kind == "openai":
        options.setdefault("api_key", os.environ.get(API_KEY_ENV) or None)
        return OpenAIBackend(endpoint or DEFAULT_OPENAI_ENDPOINT, **options)
    raise UnknownNameError(f"unknown backend {kind!r}; known: {', '.join(BACKENDS)}", field="backend")
