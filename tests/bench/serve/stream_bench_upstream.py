#!/usr/bin/env python3
"""The upstream stream_bench.sh measures against: an OpenAI chat completions endpoint on 127.0.0.1
that answers every POST with a streamed turn (text/event-stream) of N chat.completion.chunk text
deltas, N taken from the request's model name ("deltas-N"), each delta CHARS characters of prose
(default 200), then the finish chunk and "data: [DONE]".

    stream_bench_upstream.py [CHARS]

Prints "listening on PORT" once it accepts. The whole answer is made once per N and written at
once, with its Content-Length, so the upstream streams as fast as the proxy reads: what the bench
measures is the proxy's cost per event, not this script's.
"""
import asyncio
import json
import sys

CHARS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
# Prose without digits, quotes or backslashes (it goes into the JSON as it is) and without
# personal data: the processors pass it unchanged.
WORDS = ("the proxy reads each event of the stream once and hands it on the processors see a "
         "window of the text not yet sent and a little of what was sent before it so that "
         "nothing grows with the length of the turn while every span is still seen whole ")
HEAD = ('data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1718000000,'
        '"model":"bench","system_fingerprint":"fp_bench","choices":[{"index":0,"delta":')
TAIL = ',"logprobs":null,"finish_reason":%s}]}\n\n'
bodies = {}


def delta_text(i):
    start = (i * 37) % len(WORDS)
    text = (WORDS * (CHARS // len(WORDS) + 2))[start:start + CHARS]
    return text


def body_for(n):
    if n not in bodies:
        parts = [HEAD + '{"role":"assistant","content":""}' + TAIL % "null"]
        for i in range(n):
            parts.append(HEAD + '{"content":"' + delta_text(i) + '"}' + TAIL % "null")
        parts.append(HEAD + "{}" + TAIL % '"stop"')
        parts.append("data: [DONE]\n\n")
        data = "".join(parts).encode()
        bodies[n] = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(data)) + data
    return bodies[n]


def answer_for(body):
    model = str(body.get("model", ""))
    if not model.startswith("deltas-") or not model[7:].isdigit():
        message = b'{"error": {"message": "model must be deltas-N"}}'
        return (b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % len(message)) + message
    return body_for(int(model[7:]))


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
    server = await loop.create_server(Connection, "127.0.0.1", 0, backlog=64)
    print("listening on %d" % server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
