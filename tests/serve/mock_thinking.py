"""Anthropic extended thinking as mock_upstream.py answers it for the model "thinking".

The answer holds a signed thinking block whose text names a person's e-mail address, a
redacted_thinking block and a text block naming the same address, plain or streamed as Anthropic
streams them (the thinking in thinking_delta events, its signature last in a signature_delta).
The signature is the provider's seal: a proxy that edits the thinking breaks the next turn.
"""
import json

from mock_responses import pieces

THINKING = "The user is ada@example.com; look her up first."
SIGNATURE = "EqQBCkYIBxgCKkBmockSignature0123456789=="
REDACTED_DATA = "EmwKAhgBmockRedactedThinking=="
TEXT = "Mail ada@example.com"


def blocks():
    return [{"type": "thinking", "thinking": THINKING, "signature": SIGNATURE},
            {"type": "redacted_thinking", "data": REDACTED_DATA},
            {"type": "text", "text": TEXT}]


def answer_body(body):
    return {"id": "msg_think", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": blocks(), "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 9}}


def events(body):
    """The (event, payload) pairs of the answer, as Anthropic streams them."""
    def delta(index, value):
        return ("content_block_delta", {"type": "content_block_delta", "index": index,
                                        "delta": value})

    def start(index, block):
        return ("content_block_start", {"type": "content_block_start", "index": index,
                                        "content_block": block})

    def stop(index):
        return ("content_block_stop", {"type": "content_block_stop", "index": index})

    out = [("message_start", {"type": "message_start", "message": {
        "id": "msg_think", "type": "message", "role": "assistant", "model": body.get("model"),
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        start(0, {"type": "thinking", "thinking": "", "signature": ""})]
    out += [delta(0, {"type": "thinking_delta", "thinking": p}) for p in pieces(THINKING)]
    out += [delta(0, {"type": "signature_delta", "signature": SIGNATURE}), stop(0),
            start(1, {"type": "redacted_thinking", "data": REDACTED_DATA}), stop(1),
            start(2, {"type": "text", "text": ""})]
    out += [delta(2, {"type": "text_delta", "text": p}) for p in pieces(TEXT)]
    out += [stop(2),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 9}}),
            ("message_stop", {"type": "message_stop"})]
    return out


def answer(handler, body):
    """Writes the answer to `handler` (mock_upstream's request handler): JSON, or chunked SSE."""
    if body.get("stream") is not True:
        return handler.reply(200, answer_body(body))
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for name, payload in events(body):
        data = ("event: %s\ndata: %s\n\n" % (name, json.dumps(payload))).encode()
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
    handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()
    return None
