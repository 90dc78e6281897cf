"""The mock upstream's Chat Completions answer whose tool calls carry arguments that are not a
JSON object (mock_upstream.py routes model "bad-arguments" here), for
serve_answer_arguments_test.cpp: what the client gets of them has passed the llm_output
processors.

Three calls of "lookup", arguments as the model wrote them: JSON cut before its end and text that
is no JSON, both naming ada@example.com, and a cut JSON with nothing to redact. Plain: one
chat.completion. Streamed ("stream": true): a role chunk, each call as a first fragment and its
arguments in pieces of 5 characters (the address split over fragments), the finish chunk, [DONE].
Payloads are written compact (separators "," and ":"), so a test can spell the events it expects.
"""
import json

MODEL = "bad-arguments"
CALLS = [("call_0", '{"email": "ada@example.com"'),
         ("call_1", "not json ada@example.com"),
         ("call_2", '{"a": 1,')]


def compact(payload):
    return payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))


def chunk(body, delta, finish=None):
    return {"id": "chatcmpl-bad", "object": "chat.completion.chunk", "created": 1700000000,
            "model": body.get("model"), "choices": [{"index": 0, "delta": delta,
                                                     "logprobs": None, "finish_reason": finish}]}


def events(body):
    out = [chunk(body, {"role": "assistant", "content": None})]
    for index, (call_id, arguments) in enumerate(CALLS):
        out.append(chunk(body, {"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                                "function": {"name": "lookup",
                                                             "arguments": ""}}]}))
        for at in range(0, len(arguments), 5):
            out.append(chunk(body, {"tool_calls": [{"index": index, "function": {
                "arguments": arguments[at:at + 5]}}]}))
    out.append(chunk(body, {}, "tool_calls"))
    return out + ["[DONE]"]


def completion(body):
    calls = [{"id": call_id, "type": "function",
              "function": {"name": "lookup", "arguments": arguments}}
             for call_id, arguments in CALLS]
    return {"id": "chatcmpl-bad", "object": "chat.completion", "created": 1700000000,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None,
                                                 "tool_calls": calls},
                         "logprobs": None, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 30, "total_tokens": 35}}


def answer(handler, body):
    if body.get("stream") is True:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for payload in events(body):
            data = ("data: " + compact(payload) + "\n\n").encode()
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
        return
    data = compact(completion(body)).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
