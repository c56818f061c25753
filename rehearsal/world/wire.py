"""HTTP/1.1 and RFC 6455 websockets on asyncio streams: the one transport of every server here.

The Juju API takes a websocket upgrade and a plain ``POST`` (a charm upload) on the same
port, which the ``websockets`` library cannot serve (it reads no request bodies), and the
Kubernetes API streams watches (chunked) and exec websockets with a subprotocol. Only what
those clients send is handled: ``Content-Length`` bodies (and chunked ones), keep-alive,
text and binary frames (fragmented too), ping/pong, close. Extensions offered by a client
(``permessage-deflate``) are declined by not naming them, as RFC 6455 section 9.1 allows.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import logging
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

log = logging.getLogger(__name__)

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 section 1.3
MAX_BODY = 256 * 1024 * 1024
MAX_FRAME = 128 * 1024 * 1024

REASONS = {
    101: "Switching Protocols",
    200: "OK",
    201: "Created",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    410: "Gone",
    415: "Unsupported Media Type",
    422: "Unprocessable Entity",
    500: "Internal Server Error",
    501: "Not Implemented",
    503: "Service Unavailable",
}


class Disconnect(Exception):
    """The peer went away (or sent a close frame)."""


@dataclass
class Request:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes = b""
    path: str = ""
    query: dict[str, list[str]] = field(default_factory=dict)

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else default

    def json(self) -> Any:
        return json.loads(self.body or b"null")

    @property
    def wants_websocket(self) -> bool:
        return "websocket" in self.headers.get("upgrade", "").lower()


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    # A streamed body (a watch): chunks written with chunked encoding as they come.
    stream: AsyncIterator[bytes] | None = None
    close: bool = False


def json_response(status: int, value: Any, headers: Mapping[str, str] | None = None) -> Response:
    body = json.dumps(value).encode()
    return Response(status, body, {"Content-Type": "application/json", **(headers or {})})


Handler = Callable[[Request, "Connection"], Awaitable["Response | None"]]


class Connection:
    """One client connection: requests in, responses out, or a websocket after an upgrade."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def read_request(self) -> Request | None:
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        except asyncio.LimitOverrunError:
            return None
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, _version = lines[0].split(" ", 2)
        except ValueError:
            return None
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
        body = b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self._read_chunked()
        elif "content-length" in headers:
            size = int(headers["content-length"])
            if size > MAX_BODY:
                return None
            body = await self.reader.readexactly(size)
        parts = urlsplit(target)
        return Request(method, target, headers, body, parts.path, parse_qs(parts.query))

    async def _read_chunked(self) -> bytes:
        body = bytearray()
        while True:
            size_line = await self.reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")
                return bytes(body)
            body += await self.reader.readexactly(size)
            await self.reader.readexactly(2)

    async def send(self, response: Response) -> None:
        headers = dict(response.headers)
        status_line = f"HTTP/1.1 {response.status} {REASONS.get(response.status, 'Status')}"
        if response.stream is not None:
            headers["Transfer-Encoding"] = "chunked"
        else:
            headers["Content-Length"] = str(len(response.body))
        if response.close:
            headers["Connection"] = "close"
        head = status_line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(head.encode("latin-1") + b"\r\n")
        if response.stream is None:
            self.writer.write(response.body)
            await self.writer.drain()
            return
        await self.writer.drain()
        try:
            async for chunk in response.stream:
                if chunk:
                    self.writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    await self.writer.drain()
        finally:
            with contextlib.suppress(ConnectionError, RuntimeError):
                self.writer.write(b"0\r\n\r\n")
                await self.writer.drain()

    async def accept_websocket(
        self, request: Request, subprotocols: tuple[str, ...] = ()
    ) -> WebSocket:
        """Answer the upgrade (101), choosing the first of ``subprotocols`` the client
        offered; an exec without one the server speaks is refused by the caller."""
        key = request.headers.get("sec-websocket-key", "")
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        headers = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": accept}
        offered = [p.strip() for p in request.headers.get("sec-websocket-protocol", "").split(",")]
        chosen = next((p for p in subprotocols if p in offered), None)
        if chosen:
            headers["Sec-WebSocket-Protocol"] = chosen
        head = "HTTP/1.1 101 Switching Protocols\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in headers.items()
        )
        self.writer.write(head.encode() + b"\r\n")
        await self.writer.drain()
        return WebSocket(self.reader, self.writer, chosen)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class WebSocket:
    """The server end of one websocket: whole messages in, frames out (never masked)."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, subprotocol: str | None
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.subprotocol = subprotocol
        self.closed = False
        self._send_lock = asyncio.Lock()

    async def _frame(self) -> tuple[bool, int, bytes]:
        try:
            first, second = await self.reader.readexactly(2)
            size = second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", await self.reader.readexactly(8))
            if size > MAX_FRAME:
                raise Disconnect(f"frame of {size} bytes")
            mask = await self.reader.readexactly(4) if second & 0x80 else b""
            data = await self.reader.readexactly(size)
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as error:
            raise Disconnect(str(error)) from None
        if mask:
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        return bool(first & 0x80), first & 0x0F, data

    async def receive(self) -> tuple[int, bytes]:
        """The next text or binary message (opcode, payload); Disconnect when it closes."""
        parts: list[bytes] = []
        opcode = None
        while True:
            fin, op, data = await self._frame()
            if op == OP_PING:
                await self._send(OP_PONG, data)
                continue
            if op == OP_PONG:
                continue
            if op == OP_CLOSE:
                with contextlib.suppress(Exception):
                    await self._send(OP_CLOSE, data[:2])
                self.closed = True
                raise Disconnect("close frame")
            if op != OP_CONT:
                opcode, parts = op, []
            parts.append(data)
            if fin and opcode is not None:
                return opcode, b"".join(parts)

    async def receive_text(self) -> str:
        _, data = await self.receive()
        return data.decode("utf-8")

    async def _send(self, opcode: int, data: bytes) -> None:
        size = len(data)
        if size < 126:
            head = struct.pack("!BB", 0x80 | opcode, size)
        elif size < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 126, size)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 127, size)
        async with self._send_lock:
            if self.writer.is_closing():
                raise Disconnect("writer closed")
            self.writer.write(head + data)
            try:
                await self.writer.drain()
            except (ConnectionError, OSError) as error:
                raise Disconnect(str(error)) from None

    async def send_text(self, text: str) -> None:
        await self._send(OP_TEXT, text.encode("utf-8"))

    async def send_binary(self, data: bytes) -> None:
        await self._send(OP_BINARY, data)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Disconnect, Exception):
            await self._send(OP_CLOSE, struct.pack("!H", code) + reason.encode()[:120])
        with contextlib.suppress(Exception):
            self.writer.close()

    def abort(self) -> None:
        """Drop the TCP connection without a close frame (a controller going down)."""
        self.closed = True
        with contextlib.suppress(Exception):
            transport = self.writer.transport
            transport.abort()


async def serve(
    handler: Handler,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    ssl: Any = None,
    connections: set[Connection] | None = None,
) -> asyncio.Server:
    """An HTTP server calling ``handler(request, connection)`` per request; a handler that
    took the connection over (a websocket) returns None, and the connection ends with it."""

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Connection(reader, writer)
        if connections is not None:
            connections.add(conn)
        try:
            while True:
                request = await conn.read_request()
                if request is None:
                    return
                response = await handler(request, conn)
                if response is None:
                    return
                await conn.send(response)
                if response.close or request.headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, OSError, asyncio.IncompleteReadError, Disconnect):
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("handler failed")
        finally:
            if connections is not None:
                connections.discard(conn)
            conn.close()

    return await asyncio.start_server(on_client, host, port, ssl=ssl, limit=1 << 20)


class Listener:
    """A server a node can take down (connections refused, live ones dropped) and bring
    back on the same port."""

    def __init__(self, handler: Handler, *, ssl: Any = None, port: int = 0) -> None:
        self.handler = handler
        self.ssl = ssl
        self.port = port
        self.server: asyncio.Server | None = None
        self.connections: set[Connection] = set()

    async def open(self) -> int:
        if self.server is not None:
            return self.port
        self.server = await serve(
            self.handler, port=self.port, ssl=self.ssl, connections=self.connections
        )
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    def open_soon(self, delay: float) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(max(0.0, delay), lambda: asyncio.ensure_future(self.open()))

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
        for conn in list(self.connections):
            with contextlib.suppress(Exception):
                conn.writer.transport.abort()
        self.connections.clear()
