#!/usr/bin/env python3
"""A stand-in for the OpenAI and Anthropic APIs that serve tests start on 127.0.0.1.

    mock_upstream.py RECORD_FILE [--tls CERT KEY] [--vectors VECTORS_JSON]

Prints "listening on PORT" once it accepts. Every request it receives is appended to RECORD_FILE
as one JSON line {"method", "path", "headers", "body"}. Routes (below /v1, as the providers'):
  POST /chat/completions, /messages, /responses (mock_responses.py)   the answers below
  GET /models, /models/ID     OpenAI's list and model objects; Anthropic's with anthropic-version
  POST /embeddings            a deterministic vector per input (a string, strings or token arrays;
                              encoding_format base64 as the SDKs ask), usage
  POST /messages/count_tokens {"input_tokens": N}, N the characters of the received texts
The request's "model" picks the answer:
  fail-500  500 with an error body        slow     answers after 3 s
  cut       a Content-Length it never fills, then closes
  pii       the assistant says "Mail ada@example.com"
  wrong-shape  a JSON object that is not the provider's answer
  tool      a call of tool delete_user    recorded-N   the response recorded in process
                                          vector N of --vectors (Prompty's vectors.json)
  reasoning (Responses) a reasoning item with a summary and encrypted_content before the echo
  anything else: "echo: " + the last user text
Answers with the provider's header fields (mock_headers.py): headers, rate-limited, tool-first,
cut-early.
Faulty upstreams (the answer is always "echo: " + the last user text, so a client can tell whose
answer it got):
  interim-100 / interim-103   "HTTP/1.1 100 Continue" (or 103 Early Hints) before the answer
  switch-101  "HTTP/1.1 101 Switching Protocols" and nothing else, then closes
  extra-bytes the answer, then in the same write a second whole answer nobody asked for
  long-body   a Content-Length one byte short of the body it writes (one byte left over)
  close-delimited  the answer without Content-Length, ended by closing the connection
  redirect-302  302 Found with a Location and no Content-Type
With "stream": true the same answers come as the provider's Server-Sent Events (chunked), the
text a few characters an event, the tool call's arguments in fragments; besides:
  cut       a few events, then the connection closes mid-stream
  stall     two events, then 5 s of silence
  byte-drip the first event one byte a second (never an event whole within a second)
  drip      one event every 0.2 s for 10 s; a client that goes away is recorded as
            {"path", "client_gone_after": EVENTS_SENT}
"""
import base64
import hashlib
import json
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from mock_responses import last_input_text, pieces, responses_answer, responses_events
import mock_headers


def last_user_text(body):
    if "messages" not in body:
        return last_input_text(body)
    for message in reversed(body.get("messages", [])):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        for part in content or []:
            if part.get("type") == "text":
                return part.get("text", "")
    return ""


def openai_answer(body, text=None, tool=None):
    message = {"role": "assistant", "content": text}
    if tool:
        message["tool_calls"] = [{"id": "call_1", "type": "function",
                                  "function": {"name": tool, "arguments": "{\"id\": 7}"}}]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
            "model": body.get("model"), "system_fingerprint": "fp_mock",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if tool else "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}}


def anthropic_answer(body, text=None, tool=None):
    content = [{"type": "text", "text": text}] if text is not None else []
    if tool:
        content.append({"type": "tool_use", "id": "toolu_1", "name": tool, "input": {"id": 7}})
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": content, "stop_reason": "tool_use" if tool else "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 3}}


def openai_events(body, text, tool=None):
    """The chat.completion.chunk payloads of an answer, as OpenAI streams them."""
    def chunk(delta, finish=None):
        return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
                "model": body.get("model"), "system_fingerprint": "fp_mock",
                "choices": [{"index": 0, "delta": delta, "logprobs": None,
                             "finish_reason": finish}]}
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in pieces(text)]
    if tool:
        events.append(chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                             "function": {"name": tool, "arguments": ""}}]}))
        for fragment in ["{\"id\"", ": 7}"]:
            events.append(chunk({"tool_calls": [{"index": 0,
                                                 "function": {"arguments": fragment}}]}))
    events.append(chunk({}, "tool_calls" if tool else "stop"))
    return [("", event) for event in events] + [("", "[DONE]")]


def anthropic_events(body, text, tool=None):
    """The (event, payload) pairs of an answer, as Anthropic streams them."""
    events = [("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"),
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}})]
    events += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": piece}})
               for piece in pieces(text)]
    events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    if tool:
        events.append(("content_block_start", {"type": "content_block_start", "index": 1,
                                               "content_block": {"type": "tool_use",
                                                                 "id": "toolu_1", "name": tool,
                                                                 "input": {}}}))
        for fragment in ["{\"id\"", ": 7}"]:
            events.append(("content_block_delta", {"type": "content_block_delta", "index": 1,
                                                   "delta": {"type": "input_json_delta",
                                                             "partial_json": fragment}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 1}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": "tool_use" if tool else "end_turn",
                                               "stop_sequence": None},
                                     "usage": {"output_tokens": 3}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def sse(name, payload):
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return ((("event: %s\n" % name) if name else "") + "data: " + data + "\n\n").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # "cut" writes twice: no 40 ms delayed-ACK stall
    wbufsize = -1  # headers and body leave in one write (flushed after each request)

    def log_message(self, *args):
        pass

    def received(self):
        """The request's body, recorded with its method, path and headers."""
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        line = json.dumps({"method": self.command, "path": self.path,
                           "headers": {k.lower(): v for k, v in self.headers.items()},
                           "body": raw.decode("utf-8", "replace")}) + "\n"
        with self.server.record_lock:  # whole lines, readable before the answer leaves
            self.server.record.write(line)
            self.server.record.flush()
        return raw

    def do_GET(self):
        self.received()
        path = self.path.split("?")[0]
        anthropic = "anthropic-version" in self.headers
        if path.endswith("/models"):
            return self.reply(200, model_list(anthropic, self.path))
        model_id = path.rsplit("/models/", 1)[-1] if "/models/" in path else None
        found = [m for m in MODELS if m == model_id]
        if found:
            return self.reply(200, model_object(anthropic, found[0]))
        if anthropic:
            return self.reply(404, {"type": "error", "error": {
                "type": "not_found_error", "message": "model: %s" % model_id}})
        return self.reply(404, {"error": {
            "message": "The model '%s' does not exist" % model_id,
            "type": "invalid_request_error", "param": "model", "code": "model_not_found"}})

    def do_POST(self):
        body = json.loads(self.received())
        model = body.get("model", "")
        if self.path.endswith("/embeddings"):
            return self.reply(200, embeddings_answer(body))
        if self.path.endswith("/messages/count_tokens"):
            return self.reply(200, {"input_tokens": sum(len(t) for t in anthropic_texts(body))})
        if model == "thinking" and self.path.endswith("/messages"):
            # Anthropic extended thinking: a signed thinking block, redacted thinking and text, plain
            # or streamed (mock_thinking.py).
            import mock_thinking
            return mock_thinking.answer(self, body)
        make = {"/messages": anthropic_answer,
                "/responses": responses_answer}.get(self.path[self.path.rfind("/"):], openai_answer)
        # The models of mock_headers.py: answers with the provider's own header fields.
        if model in mock_headers.MODELS:
            events_of = anthropic_events if self.path.endswith("/messages") else openai_events
            return mock_headers.answer(self, body, model, make, events_of, last_user_text(body))
        if model == "bad-arguments" and self.path.endswith("/chat/completions"):
            # Tool calls whose arguments are not a JSON object (mock_bad_arguments.py).
            import mock_bad_arguments
            return mock_bad_arguments.answer(self, body)
        if model == "fail-500":
            return self.reply(500, {"error": {"message": "upstream broke", "type": "server_error"}})
        if body.get("stream") is True:
            return self.stream(body, model)
        if model.startswith("recorded-"):
            vector = self.server.vectors[int(model[len("recorded-"):])]["vector"]
            return self.reply(200, vector["input"]["response"])
        if model == "slow":
            time.sleep(3)
        if model == "cut":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"id": "chatcmpl-1", "choi')
            self.wfile.flush()
            self.close_connection = True
            return
        if model in FAULTS:
            return FAULTS[model](self, make(body, text="echo: " + last_user_text(body)))
        if model == "pii":
            return self.reply(200, make(body, text="Mail ada@example.com"))
        if model == "wrong-shape":  # a JSON object, not the provider's answer
            return self.reply(200, {"id": "x", "choices": "none", "content": "none"})
        if model == "tool":
            return self.reply(200, make(body, text="Deleting.", tool="delete_user"))
        return self.reply(200, make(body, text="echo: " + last_user_text(body)))

    def stream(self, body, model):
        events_of = {"/messages": anthropic_events,
                     "/responses": responses_events}.get(self.path[self.path.rfind("/"):],
                                                         openai_events)
        text = {"pii": "Mail ada@example.com please",
                "tool": "Deleting.",
                "drip": "x" * 200}.get(model, "echo: " + last_user_text(body))
        events = events_of(body, text, "delete_user" if model == "tool" else None)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = 0
        if model == "byte-drip":  # one byte a second, forever (until the client goes)
            self.close_connection = True
            try:
                for byte in sse("", events[1][1])[:60]:
                    self.wfile.write(b"1\r\n%c\r\n" % byte)
                    self.wfile.flush()
                    time.sleep(1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        try:
            for name, payload in events:
                if model == "cut" and sent == 3:
                    self.close_connection = True
                    return
                if model == "stall" and sent == 2:
                    time.sleep(5)
                data = sse(name, payload)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                sent += 1
                if model == "drip":
                    time.sleep(0.2)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            with self.server.record_lock:
                self.server.record.write(
                    json.dumps({"path": self.path, "client_gone_after": sent}) + "\n")
                self.server.record.flush()

    def reply(self, status, answer):
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


MODELS = ["gpt-test", "text-embedding-test", "claude-test"]


def model_object(anthropic, model_id):
    if anthropic:
        return {"type": "model", "id": model_id, "display_name": model_id.title(),
                "created_at": "2025-02-19T00:00:00Z"}
    return {"id": model_id, "object": "model", "created": 1700000000, "owned_by": "system"}


def model_list(anthropic, target):
    """The list shapes: OpenAI's {"object": "list", "data"}, Anthropic's paged one (?limit=N)."""
    models = [model_object(anthropic, m) for m in MODELS]
    if not anthropic:
        return {"object": "list", "data": models}
    query = dict(p.split("=", 1) for p in target.partition("?")[2].split("&") if "=" in p)
    page = models[:int(query.get("limit", "20"))]
    return {"data": page, "has_more": len(page) < len(models), "first_id": page[0]["id"],
            "last_id": page[-1]["id"]}


def embeddings_answer(body):
    """One vector per input, made from a hash of it (the same input, the same vector)."""
    given = body["input"]
    inputs = [given] if isinstance(given, str) or (given and isinstance(given[0], int)) else given
    size = body.get("dimensions", 8)
    data = []
    for index, item in enumerate(inputs):
        digest = hashlib.sha256(json.dumps(item).encode()).digest()
        vector = [(digest[i % len(digest)] - 128) / 128 for i in range(size)]
        if body.get("encoding_format") == "base64":
            vector = base64.b64encode(struct.pack("<%df" % size, *vector)).decode()
        data.append({"object": "embedding", "index": index, "embedding": vector})
    tokens = sum(len(item) // 4 + 1 if isinstance(item, str) else len(item) for item in inputs)
    return {"object": "list", "data": data, "model": body.get("model"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def anthropic_texts(body):
    """Every text of a Messages body: system, text blocks, tool inputs and results."""
    def of(content):
        if isinstance(content, str):
            return [content]
        texts = []
        for block in content or []:
            if "text" in block:
                texts.append(block["text"])
            if "input" in block:
                texts.append(json.dumps(block["input"]))
            if "content" in block:
                texts += of(block["content"])
        return texts
    texts = of(body.get("system"))
    for message in body.get("messages", []):
        texts += of(message.get("content"))
    return texts


def raw_answer(answer, length_delta=0, length=True):
    data = json.dumps(answer).encode()
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    if length:
        head += b"Content-Length: %d\r\n" % (len(data) + length_delta)
    return head + b"\r\n" + data


def write_raw(handler, data, close=False):
    handler.wfile.write(data)
    handler.wfile.flush()
    handler.close_connection = close


def extra_answer(answer):
    extra = json.loads(json.dumps(answer))
    for key in ("choices", "content"):
        for item in extra.get(key, []):
            if "message" in item:
                item["message"]["content"] = "extra: " + str(item["message"]["content"])
            elif "text" in item:
                item["text"] = "extra: " + item["text"]
    return extra


FAULTS = {
    "interim-100": lambda h, a: write_raw(h, b"HTTP/1.1 100 Continue\r\n\r\n" + raw_answer(a)),
    "interim-103": lambda h, a: write_raw(
        h, b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" +
        raw_answer(a)),
    "switch-101": lambda h, a: write_raw(
        h, b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade"
        b"\r\n\r\n", close=True),
    "extra-bytes": lambda h, a: write_raw(h, raw_answer(a) + raw_answer(extra_answer(a))),
    "long-body": lambda h, a: write_raw(h, raw_answer(a, length_delta=-1)),
    "close-delimited": lambda h, a: write_raw(h, raw_answer(a, length=False), close=True),
    "redirect-302": lambda h, a: write_raw(
        h, b"HTTP/1.1 302 Found\r\nLocation: https://elsewhere.example/v1\r\n"
        b"Content-Length: 0\r\n\r\n"),
}


class Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default 5 drops the connects of a burst of clients


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.record = open(sys.argv[1], "a")  # opened once: the benchmark sends thousands a second
    server.record_lock = threading.Lock()
    server.vectors = []
    args = sys.argv[2:]
    while args:
        if args[0] == "--tls" and len(args) >= 3:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(args[1], args[2])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            args = args[3:]
        elif args[0] == "--vectors" and len(args) >= 2:
            with open(args[1]) as vectors:
                server.vectors = json.load(vectors)["vectors"]
            args = args[2:]
        else:
            sys.exit("mock_upstream.py: unknown arguments %r" % args)
    print("listening on %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
