#!/usr/bin/env python3
"""An OpenAI-like upstream whose event streams are framed in every way the SSE standard allows, or
are hostile, for sse_hostile_upstream_test.cpp.

    sse_hostile_upstream.py RECORD_FILE

Prints "listening on PORT" once it accepts. POST /v1/chat/completions and /v1/messages; the answer
is always "echo: " + the last user text, streamed with "stream": true (chat.completion.chunk
events, or Anthropic's message_start ... message_stop, a few characters a delta, the same ids and
bytes each time), as JSON otherwise. The model picks the stream's framing:
  lf, cr, crlf          lines ended by "\\n", a lone "\\r", or "\\r\\n"; every line end its own write,
                        and a "\\r\\n" cut between two writes (Anthropic: lf only, an event a
                        write)
  comment-lines-N       N bytes of ": keep-alive" comment lines, then the answer (lines: "\\n")
  comment-line-N        one comment line of N bytes, then the answer
  endless-line          two events of the answer, then "data: {" and "x" bytes with no line end
  empty-data-lines      two events of the answer, then "data:\\n" lines with no blank line
  huge-event-name       two events of the answer, then "event: " and "e" bytes with no line end
  bad-event             two events of the answer, then one whose data is not JSON, then comments
  cut                   the answer's first events, then the connection closed with no last chunk
  bad-chunk             the answer's first events, then a chunk whose size is not hexadecimal
The hostile ones write until the proxy closes the connection (at most 200 MB). A hostile model,
"cut" or "bad-chunk" may end with "@N": N events of the answer come first (2 when not said; OpenAI's first
event is the role, Anthropic's first two message_start and content_block_start, none of them
part of the answer's content).
Each request is recorded as one JSON line {"model", "path", "port"} (port: the proxy's end of the
connection, so a test can tell whether a connection was used again); a stream the proxy closed
as {"model", "path", "port", "closed_after": BYTES_WRITTEN}; a "cut" one as {..., "cut": true}.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FLOOD_CAP = 200 << 20
PIECE = 64 << 10


def last_user_text(body):
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return message["content"]
    return ""


def chunks(text):
    """The chat.completion.chunk payloads of the answer: a role, the text 4 characters a delta, a
    finish; then [DONE]."""
    def chunk(delta, finish=None):
        return json.dumps({"id": "chatcmpl-sse", "object": "chat.completion.chunk",
                           "created": 1718000000, "model": "sse",
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": text[i:i + 4]}) for i in range(0, len(text), 4)]
    out.append(chunk({}, "stop"))
    out.append("[DONE]")
    return out


def anthropic_events(text):
    """Anthropic's stream of the answer, as (event name, payload) pairs."""
    message = {"id": "msg_sse", "type": "message", "role": "assistant", "model": "sse",
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 5, "output_tokens": 1}}
    out = [("message_start", {"type": "message_start", "message": message}),
           ("content_block_start", {"type": "content_block_start", "index": 0,
                                    "content_block": {"type": "text", "text": ""}})]
    out += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": text[i:i + 4]}})
            for i in range(0, len(text), 4)]
    out.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    out.append(("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                  "usage": {"output_tokens": 3}}))
    out.append(("message_stop", {"type": "message_stop"}))
    return [b"event: %s\ndata: %s\n\n" % (name.encode(), json.dumps(payload).encode())
            for name, payload in out]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # each write its own segment: the proxy reads them apart

    def log_message(self, *args):
        pass

    def record(self, entry):
        with self.server.record_lock:
            self.server.record.write(json.dumps(entry) + "\n")
            self.server.record.flush()

    def write_chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        model = body.get("model", "")
        port = self.client_address[1]
        self.written = 0
        self.record({"model": model, "path": self.path, "port": port})
        text = "echo: " + last_user_text(body)
        anthropic = self.path.endswith("/messages")
        if body.get("stream") is not True:
            answer = json.dumps({
                "id": "chatcmpl-sse", "object": "chat.completion", "created": 1718000000,
                "model": "sse", "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": text}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        payloads = chunks(text)
        # Each event of the answer, whole, for the hostile models and "cut".
        events = (anthropic_events(text) if anthropic else
                  [b"data: " + payload.encode() + b"\n\n" for payload in payloads])
        base, _, first = model.partition("@")
        first = int(first) if first else 2
        try:
            if base in ("cut", "bad-chunk"):
                for event in events[:first]:
                    self.write_chunk(event)
                if base == "bad-chunk":
                    self.wfile.write(b"zz\r\ndata: {}\n\n\r\n")
                    self.wfile.flush()
                self.record({"model": model, "path": self.path, "port": port, "cut": True})
                self.close_connection = True
                return
            if anthropic and model == "lf":
                for event in events:
                    self.write_chunk(event)
            elif model in ("lf", "cr", "crlf"):
                self.framed(payloads, {"lf": b"\n", "cr": b"\r", "crlf": b"\r\n"}[model])
            elif model.startswith("comment-lines-"):
                self.comment_lines(int(model[len("comment-lines-"):]))
                self.framed(payloads, b"\n")
            elif model.startswith("comment-line-"):
                self.write_chunk(b":")
                self.flood(b"c", int(model[len("comment-line-"):]) - 1)
                self.write_chunk(b"\n")
                self.framed(payloads, b"\n")
            elif base in HOSTILE:
                for event in events[:first]:
                    self.write_chunk(event)
                start, piece = HOSTILE[base]
                self.write_chunk(start)
                self.flood(piece, FLOOD_CAP)
                self.record({"model": model, "path": self.path, "port": port,
                             "closed_after": None})
                self.close_connection = True
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self.record({"model": model, "path": self.path, "port": port,
                         "closed_after": self.written})

    def framed(self, payloads, line_end):
        """Each line, then its line end, in writes of their own; "\\r\\n" cut into two writes."""
        for payload in payloads:
            for line in (b"data: " + payload.encode(), b""):
                self.write_chunk(line)
                for byte in line_end:
                    self.write_chunk(bytes([byte]))
                    time.sleep(0.001)

    def comment_lines(self, size):
        line = b": keep-alive\n"
        piece = line * (PIECE // len(line))
        for _ in range(size // len(piece)):
            self.write_chunk(piece)
        self.write_chunk(line * ((size % len(piece)) // len(line)))

    def flood(self, unit, size):
        """`size` bytes of `unit` repeated, in 64 KiB chunks; self.written counts them."""
        self.written = 0
        piece = unit * (PIECE // len(unit))
        while self.written < size:
            data = piece[:min(len(piece), size - self.written)]
            self.write_chunk(data)
            self.written += len(data)


HOSTILE = {
    "endless-line": (b"data: {", b"x"),
    "empty-data-lines": (b"", b"data:\n"),
    "huge-event-name": (b"event: ", b"e"),
    "bad-event": (b"data: {not json\n\n", b": keep-alive\n"),
}


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.record = open(sys.argv[1], "a")
    server.record_lock = threading.Lock()
    print("listening on %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
