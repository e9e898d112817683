"""A minimal asyncio websocket client (RFC 6455 text frames) for tests and bench/live.py.

Enough to talk to our own server over loopback: handshake with an Origin and
a session cookie, masked text frames out, text frames in (ping answered,
close honoured). No extensions, no fragmentation of what we send.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import struct


class HandshakeRefused(ConnectionError):
    """The server answered the upgrade with something other than 101 (e.g. 403)."""


class WSClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.closed = False
        self.close_code: int | None = None

    @classmethod
    async def connect(
        cls,
        host: str,
        port: int,
        path: str,
        *,
        origin: str | None = None,
        cookie: str | None = None,
        timeout: float = 10.0,
    ) -> WSClient:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if origin:
            lines.append(f"Origin: {origin}")
        if cookie:
            lines.append(f"Cookie: {cookie}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status + b" ":
            writer.close()
            raise HandshakeRefused(status.decode(errors="replace"))
        return cls(reader, writer)

    async def send(self, text: str) -> None:
        payload = text.encode()
        header = bytearray([0x81])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header.append(0x80 | 126)
            header += struct.pack("!H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.writer.write(bytes(header) + mask + masked)
        await self.writer.drain()

    async def _frame(self) -> tuple[int, bytes, bool]:
        b1, b2 = await self.reader.readexactly(2)
        fin, opcode, n = b1 & 0x80, b1 & 0x0F, b2 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
        mask = await self.reader.readexactly(4) if b2 & 0x80 else None
        data = await self.reader.readexactly(n)
        if mask:
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        return opcode, data, bool(fin)

    async def recv(self) -> str:
        """The next text message (continuations joined); raises ConnectionError when closed."""
        parts: list[bytes] = []
        while True:
            opcode, data, fin = await self._frame()
            if opcode == 0x8:
                self.closed = True
                self.close_code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None
                # Answer the close, as a browser does: the server then ends the connection
                # cleanly instead of resetting it after its close timeout.
                with contextlib.suppress(ConnectionError, RuntimeError):
                    self.writer.write(
                        bytes([0x88, 0x82]) + b"\0\0\0\0" + data[:2]
                        if len(data) >= 2
                        else b"\x88\x80\0\0\0\0"
                    )
                raise ConnectionError("closed by the server")
            if opcode == 0x9:  # ping -> pong
                self.writer.write(bytes([0x8A, 0x80 | len(data)]) + b"\0\0\0\0" + data)
                continue
            if opcode in (0x1, 0x2, 0x0):
                parts.append(data)
                if fin:
                    return b"".join(parts).decode()

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.writer.write(bytes([0x88, 0x82]) + b"\0\0\0\0" + struct.pack("!H", 1000))
                await self.writer.drain()
            except (ConnectionError, RuntimeError):
                pass
        self.writer.close()


def http(
    port: int,
    method: str,
    path: str,
    cookies: dict[str, str],
    data: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], str]:
    """A blocking HTTP request to 127.0.0.1:port; returns (status, lower-cased headers, body)."""
    import http.client
    from urllib.parse import urlencode

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    body = urlencode(data) if data is not None else None
    head = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()), **(headers or {})}
    if body is not None:
        head["Content-Type"] = "application/x-www-form-urlencoded"
    conn.request(method, path, body=body, headers=head)
    response = conn.getresponse()
    text = response.read().decode()
    out_headers = {k.lower(): v for k, v in response.getheaders()}
    for key, value in response.getheaders():
        if key.lower() == "set-cookie" and value.startswith("csrftoken="):
            cookies["csrftoken"] = value.split(";", 1)[0].split("=", 1)[1]
    conn.close()
    return response.status, out_headers, text
