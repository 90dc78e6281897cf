#!/usr/bin/env python3
"""A stand-in for the OpenAI and Anthropic APIs that serve tests start on 127.0.0.1.

    mock_upstream.py RECORD_FILE [--tls CERT KEY]

Prints "listening on PORT" once it accepts. Every request it receives is appended to RECORD_FILE
as one JSON line {"path", "headers", "body"}. The request's "model" picks the answer:
  fail-500  500 with an error body        slow     answers after 3 s
  cut       a Content-Length it never fills, then closes
  pii       the assistant says "Mail ada@example.com"
  tool      a call of tool delete_user    anything else: "echo: " + the last user text
"""
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def last_user_text(body):
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


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # "cut" writes twice: no 40 ms delayed-ACK stall
    wbufsize = -1  # headers and body leave in one write (flushed after each request)

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        line = json.dumps({"path": self.path,
                           "headers": {k.lower(): v for k, v in self.headers.items()},
                           "body": raw.decode("utf-8", "replace")}) + "\n"
        with self.server.record_lock:  # whole lines, readable before the answer leaves
            self.server.record.write(line)
            self.server.record.flush()
        body = json.loads(raw)
        model = body.get("model", "")
        make = anthropic_answer if self.path.endswith("/messages") else openai_answer
        if model == "fail-500":
            return self.reply(500, {"error": {"message": "upstream broke", "type": "server_error"}})
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
        if model == "pii":
            return self.reply(200, make(body, text="Mail ada@example.com"))
        if model == "tool":
            return self.reply(200, make(body, text="Deleting.", tool="delete_user"))
        return self.reply(200, make(body, text="echo: " + last_user_text(body)))

    def reply(self, status, answer):
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default 5 drops the connects of a burst of clients


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.record = open(sys.argv[1], "a")  # opened once: the benchmark sends thousands a second
    server.record_lock = threading.Lock()
    if len(sys.argv) == 5 and sys.argv[2] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print("listening on %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
