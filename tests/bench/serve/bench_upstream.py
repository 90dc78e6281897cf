#!/usr/bin/env python3
"""The upstream serve_bench.sh measures against: an OpenAI chat completions endpoint on
127.0.0.1 that answers every POST with "echo: " + the last user text, over kept-alive HTTP/1.1.

    bench_upstream.py

Prints "listening on PORT" once it accepts. One asyncio loop, no thread a request: it spends
about a third of the CPU a request that tests/serve/mock_upstream.py (http.server, a thread a
connection) does, so that on 2 shared cores the rates of (b) and (d) measure the proxies more
than the stand-in behind them. It speaks only what wrk and the proxies send (Content-Length
bodies); the serve tests keep the full mock.
"""
import asyncio
import json


def answer_for(body):
    text = ""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else ""
            break
    answer = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
              "model": body.get("model"), "system_fingerprint": "fp_mock",
              "choices": [{"index": 0,
                           "message": {"role": "assistant", "content": "echo: " + text},
                           "logprobs": None, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}}
    data = json.dumps(answer).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % len(data)) + data


class Connection(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""

    def data_received(self, data):
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            length = 0
            for line in self.buffer[:end].split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4:end + 4 + length]
            self.buffer = self.buffer[end + 4 + length:]
            try:
                reply = answer_for(json.loads(body or b"{}"))
            except ValueError:
                reply = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
            self.transport.write(reply)


async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Connection, "127.0.0.1", 0, backlog=256)
    print("listening on %d" % server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
