#!/usr/bin/env python3
"""The upstream the serve benchmarks measure against: an OpenAI chat completions endpoint on
127.0.0.1 over kept-alive HTTP/1.1.

    bench_upstream.py [DELTA_CHARS]

A request whose model is "deltas-N" is answered with a streamed turn (text/event-stream) of N
chat.completion.chunk text deltas of DELTA_CHARS characters of prose each (default 200), then
the finish chunk and "data: [DONE]" (stream_bench.sh); "paced-KIND-N-MS" with a turn whose events
are written one every MS milliseconds (the role chunk at once): KIND prose (N deltas of prose as
above), words (N deltas of one word each, " word" as models send them), email (an e-mail address
split over three deltas, "Please write to jo" "e.k@exam" "ple.com today, ", then N prose deltas);
every other request with "echo: " + the last user text (serve_bench.sh), a request to a path
ending in /messages in Anthropic's Messages shape (profile_request.sh --route messages).

Prints "listening on PORT" once it accepts. One asyncio loop, no thread a request: it spends
about a third of the CPU a request that tests/serve/mock_upstream.py (http.server, a thread a
connection) does, so that on 2 shared cores the rates of (b) and (d) measure the proxies more
than the stand-in behind them. A stream is made once per N and written at once, with its
Content-Length, so it goes as fast as the proxy reads: what is measured is the proxy's cost per
event, not this script's. It speaks only what wrk and the proxies send (Content-Length bodies);
the serve tests keep the full mock.
"""
import asyncio
import json
import sys

DELTA_CHARS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
# Prose without digits, quotes or backslashes (it goes into the JSON as it is) and without
# personal data: the processors pass it unchanged.
WORDS = ("the proxy reads each event of the stream once and hands it on the processors see a "
         "window of the text not yet sent and a little of what was sent before it so that "
         "nothing grows with the length of the turn while every span is still seen whole ")
HEAD = ('data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1718000000,'
        '"model":"bench","system_fingerprint":"fp_bench","choices":[{"index":0,"delta":')
TAIL = ',"logprobs":null,"finish_reason":%s}]}\n\n'
streams = {}


def delta_text(i):
    start = (i * 37) % len(WORDS)
    return (WORDS * (DELTA_CHARS // len(WORDS) + 2))[start:start + DELTA_CHARS]


def stream_of(n):
    if n not in streams:
        parts = [HEAD + '{"role":"assistant","content":""}' + TAIL % "null"]
        for i in range(n):
            parts.append(HEAD + '{"content":"' + delta_text(i) + '"}' + TAIL % "null")
        parts.append(HEAD + "{}" + TAIL % '"stop"')
        parts.append("data: [DONE]\n\n")
        data = "".join(parts).encode()
        streams[n] = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(data)) + data
    return streams[n]


def paced_events(kind, n):
    """The events of a paced turn, each a bytes object (paced-KIND-N-MS)."""
    if kind == "prose":
        texts = [delta_text(i) for i in range(n)]
    elif kind == "words":
        words = WORDS.split()
        texts = [words[0].capitalize()] + [" " + words[i % len(words)] for i in range(1, n)]
    else:  # email
        texts = ["Please write to jo", "e.k@exam", "ple.com today, "] + \
            [delta_text(i) for i in range(n)]
    events = [HEAD + '{"role":"assistant","content":""}' + TAIL % "null"]
    events += [HEAD + '{"content":"' + t + '"}' + TAIL % "null" for t in texts]
    events += [HEAD + "{}" + TAIL % '"stop"', "data: [DONE]\n\n"]
    return [e.encode() for e in events]


def paced(model):
    """(head, events, seconds between them) for a paced-KIND-N-MS model, else None."""
    parts = model.split("-")
    if len(parts) != 4 or parts[0] != "paced" or parts[1] not in ("prose", "words", "email") \
            or not parts[2].isdigit() or not parts[3].isdigit():
        return None
    events = paced_events(parts[1], int(parts[2]))
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Content-Length: %d\r\n\r\n" % sum(len(e) for e in events))
    return head, events, int(parts[3]) / 1000.0


def json_answer(answer):
    data = json.dumps(answer).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % len(data)) + data


def last_user_text(body):
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else ""
    return ""


def anthropic_answer_for(body):
    text = last_user_text(body)
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"),
              "content": [{"type": "text", "text": "echo: " + text}], "stop_reason": "end_turn",
              "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 3}}
    return json_answer(answer)


def answer_for(body):
    model = str(body.get("model", ""))
    if model.startswith("deltas-") and model[7:].isdigit():
        return stream_of(int(model[7:]))
    text = last_user_text(body)
    answer = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
              "model": body.get("model"), "system_fingerprint": "fp_mock",
              "choices": [{"index": 0,
                           "message": {"role": "assistant", "content": "echo: " + text},
                           "logprobs": None, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}}
    return json_answer(answer)


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
            self.request_line = self.buffer[:end].split(b"\r\n")[0]
            body = self.buffer[end + 4:end + 4 + length]
            self.buffer = self.buffer[end + 4 + length:]
            try:
                request = json.loads(body or b"{}")
                pacing = paced(str(request.get("model", "")))
                target = self.request_line.split(b" ")[1] if self.request_line else b""
                reply = None if pacing else (anthropic_answer_for(request)
                                             if target.endswith(b"/messages")
                                             else answer_for(request))
            except ValueError:
                pacing, reply = None, b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
            if pacing:
                asyncio.ensure_future(self.write_paced(*pacing))
            else:
                self.transport.write(reply)

    async def write_paced(self, head, events, interval):
        self.transport.write(head + events[0])
        for event in events[1:]:
            await asyncio.sleep(interval)
            if self.transport.is_closing():
                return
            self.transport.write(event)


async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Connection, "127.0.0.1", 0, backlog=256)
    print("listening on %d" % server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
