"""A scripted model for the environments' episodes (no model, no network
beyond loopback): tool-call turns written as pairs, and an
OpenAI-compatible endpoint on 127.0.0.1 that answers each chat completion
with the next scripted turn. The fixture that runs an episode against it is
``run_episode`` (conftest.py)."""

from __future__ import annotations

import json


def calls(*pairs: tuple[str, dict]) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(pairs)
        ],
    }


class FakeModel:
    """A scripted OpenAI-compatible endpoint on 127.0.0.1: each chat
    completion request gets the next scripted assistant message (or what a
    callable makes of the messages sent), then a final text, at most
    ``limit`` requests; it records what it was sent."""

    def __init__(self, turns: list[dict], limit: int = 12):
        import http.server
        import threading

        self.turns = list(turns)
        self.requests: list[dict] = []
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append(body)
                if len(model.requests) > limit:
                    self.send_response(500)
                    self.end_headers()
                    return
                message = model.turns.pop(0) if model.turns else {"role": "assistant", "content": "Done."}
                # A turn may be written from what the model was sent so far.
                if callable(message):
                    message = message(body["messages"])
                reply = json.dumps({
                    "id": f"chatcmpl-{len(model.requests)}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [{
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                    }],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeModel":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"
