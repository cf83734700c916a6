"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol (plain and streamed), checks
each request the way a strict server would, and answers from a script: a test's stand-in for vLLM or Ollama."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

Reply = str | dict | Callable[[dict], str]  # text, {"status": 429} / {"sleep": 3, "text": ...}, or f(request)


@dataclass
class ChatServer:
    replies: list[Reply]
    api_key: str | None = None
    requests: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def images_in(self, request: dict) -> list[np.ndarray]:
        images = []
        for message in request["messages"]:
            if isinstance(message["content"], list):
                for part in message["content"]:
                    if part["type"] == "image_url":
                        data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
                        images.append(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR))
        return images

    def _validate(self, body: dict) -> str | None:
        if not isinstance(body.get("model"), str):
            return "model must be a string"
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "messages must be a non-empty list"
        for message in messages:
            if message.get("role") not in ("system", "user", "assistant"):
                return f"bad role {message.get('role')!r}"
            content = message.get("content")
            if isinstance(content, str):
                continue
            if not isinstance(content, list):
                return "content must be a string or a list of parts"
            for part in content:
                if part.get("type") == "text" and isinstance(part.get("text"), str):
                    continue
                if part.get("type") == "image_url":
                    url = part.get("image_url", {}).get("url", "")
                    if not url.startswith("data:image/png;base64,"):
                        return "images must be PNG data URLs"
                    data = base64.b64decode(url.split(",", 1)[1], validate=True)
                    if cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) is None:
                        return "image data is not a PNG"
                    continue
                return f"bad content part {part!r:.80}"
        return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    self._send(401, {"error": {"message": "Incorrect API key provided",
                                               "type": "invalid_request_error"}})
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                problem = server._validate(body)
                if problem:
                    server.problems.append(problem)
                    self._send(400, {"error": {"message": problem}})
                    return
                server.requests.append(body)
                reply = server.replies.pop(0) if server.replies else "Thought: no script left\nAction: finished()"
                if isinstance(reply, dict):
                    if "status" in reply:
                        self._send(reply["status"], {"error": {"message": "scripted"}}, {"Retry-After": "0"})
                        return
                    time.sleep(reply.get("sleep", 0))
                    reply = reply.get("text", "")
                text = reply(body) if callable(reply) else reply
                if body.get("stream"):
                    self._stream(body["model"], text)
                else:
                    self._send(200, {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()),
                                     "model": body["model"], "choices": [
                                         {"index": 0, "message": {"role": "assistant", "content": text},
                                          "finish_reason": "stop"}],
                                     "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

            def _stream(self, model: str, text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = [text[i:i + 7] for i in range(0, len(text), 7)] or [""]
                for index, piece in enumerate(pieces + [None]):
                    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": int(time.time()),
                             "model": model, "choices": [{"index": 0, "delta": {} if piece is None else
                                                          ({"role": "assistant", "content": piece} if index == 0
                                                           else {"content": piece}),
                                                          "finish_reason": "stop" if piece is None else None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        return Handler
