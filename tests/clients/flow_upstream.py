#!/usr/bin/env python3
"""tests/serve/mock_upstream.py with the answers the client flows need, and nothing else changed.

    flow_upstream.py RECORD_FILE

A request whose "model" starts with "flow-" is answered here (and recorded in RECORD_FILE as the
mock records every request); any other request goes to the mock unchanged. The models:
  flow-echo      answers "echo: " + the last user text
  flow-delete    says "Deleting now." and calls delete_user {"id": 7} (which the clients'
                 pipeline refuses)
  flow-delete-only  the same call with no text before it (a stop before any byte is sent)
  flow-tool      calls lookup_user {"email": "ada@example.com"}; once the conversation holds the
                 tool's result, answers "done: " + that result
  flow-parallel  calls get_weather and get_time at once ({"city": "Paris"}); then "done: " + the
                 results joined with " | "
  flow-json      answers the JSON text {"city": "Paris", "contact": "ada@example.com"}
  flow-logprobs  (Chat Completions) answers LOGPROB_TEXT, streamed one token a chunk, each chunk with
                 the logprobs entry of its token (with "logprobs": true)
  flow-thinking  (Anthropic) a signed thinking block that names ada@example.com and a call of
                 get_weather; then "done: " + the result
Each speaks the route's format: Chat Completions, Anthropic Messages or Responses, streamed
("stream": true) or not, in the same event shapes as the mock, with the provider's headers: its
request id (OpenAI x-request-id, Anthropic request-id), a rate limit and a processing time.
"""
import io
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
import mock_upstream  # noqa: E402

EMAIL = "ada@example.com"
THINKING = "The user " + EMAIL + " asks for the weather: call get_weather."
SIGNATURE = "sig-flow-thinking-1"
CALLS = {
    "flow-tool": [("lookup_user", {"email": EMAIL})],
    "flow-parallel": [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris"})],
    "flow-thinking": [("get_weather", {"city": "Paris"})],
    "flow-delete": [("delete_user", {"id": 7})],
}
CALL_IDS = {"lookup_user": "lookup_1", "get_weather": "weather_1", "get_time": "time_1",
            "delete_user": "delete_1"}


def texts(content):
    """The text of a content value: a string, or the text parts of a list."""
    if isinstance(content, str):
        return [content]
    found = []
    for part in content or []:
        if isinstance(part, dict):
            if part.get("type") in ("text", "input_text", "output_text"):
                found.append(part.get("text", ""))
            elif part.get("type") == "tool_result":
                found += texts(part.get("content"))
    return found


def tool_results(body, path):
    """The tool results the conversation ends with (the answers to the last calls)."""
    if path.endswith("/responses"):
        items = body.get("input") if isinstance(body.get("input"), list) else []
        return [" ".join(texts(item.get("output")))
                for item in items if item.get("type") == "function_call_output"]
    messages = body.get("messages", [])
    if path.endswith("/messages"):
        last = messages[-1] if messages else {}
        content = last.get("content") if isinstance(last.get("content"), list) else []
        return [" ".join(texts(part.get("content")))
                for part in content if part.get("type") == "tool_result"]
    results = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.insert(0, " ".join(texts(message.get("content"))))
    return results


# Its tokens: the streamed chunks of flow-logprobs, one logprobs entry each.
LOGPROB_TOKENS = ["The", " answer", " is", " plain", ",", " write", " to", " ada", "@", "example",
                  ".", "com", " or", " not", " at", " all", "."]
LOGPROB_TEXT = "".join(LOGPROB_TOKENS)


def logprob_entry(token, rank):
    return {"token": token, "logprob": -0.25 * rank, "bytes": list(token.encode()),
            "top_logprobs": []}


def last_user_text(body, path):
    if path.endswith("/responses"):
        given = body.get("input")
        if isinstance(given, str):
            return given
        for item in reversed(given or []):
            if item.get("role") == "user":
                return " ".join(texts(item.get("content")))
        return ""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            return " ".join(texts(message.get("content")))
    return ""


def answer_of(body, path):
    """(thinking, text, calls) of a flow model's answer to this request."""
    model = body.get("model")
    if model == "flow-echo":
        return None, "echo: " + last_user_text(body, path), []
    if model == "flow-delete":
        return None, "Deleting now.", CALLS[model]
    if model == "flow-delete-only":
        return None, None, CALLS["flow-delete"]
    results = tool_results(body, path)
    if model == "flow-logprobs":
        return None, LOGPROB_TEXT, []
    if model == "flow-json":
        return None, json.dumps({"city": "Paris", "contact": EMAIL}), []
    if results:
        return None, "done: " + " | ".join(results), []
    thinking = THINKING if model == "flow-thinking" else None
    return thinking, None, CALLS.get(model, [])


# Chat Completions

def chat_answer(body, thinking, text, calls):
    message = {"role": "assistant", "content": text, "refusal": None}
    if calls:
        message["tool_calls"] = [{"id": "call_" + CALL_IDS[name], "type": "function",
                                  "function": {"name": name, "arguments": json.dumps(args)}}
                                 for name, args in calls]
    return {"id": "chatcmpl-flow", "object": "chat.completion", "created": 1700000000,
            "model": body.get("model"), "system_fingerprint": "fp_flow",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}


def chat_events(body, thinking, text, calls):
    def chunk(delta, finish=None):
        return {"id": "chatcmpl-flow", "object": "chat.completion.chunk", "created": 1700000000,
                "model": body.get("model"), "system_fingerprint": "fp_flow",
                "choices": [{"index": 0, "delta": delta, "logprobs": None,
                             "finish_reason": finish}]}
    events = [chunk({"role": "assistant", "content": ""})]
    if body.get("model") == "flow-logprobs" and body.get("logprobs"):
        for rank, token in enumerate(LOGPROB_TOKENS):
            events.append(chunk({"content": token}))
            events[-1]["choices"][0]["logprobs"] = {"content": [logprob_entry(token, rank)],
                                                    "refusal": None}
    elif text:
        events += [chunk({"content": piece}) for piece in mock_upstream.pieces(text)]
    for index, (name, args) in enumerate(calls):
        arguments = json.dumps(args)
        events.append(chunk({"tool_calls": [{"index": index, "id": "call_" + CALL_IDS[name],
                                             "type": "function",
                                             "function": {"name": name, "arguments": ""}}]}))
        for piece in mock_upstream.pieces(arguments, 6):
            events.append(chunk({"tool_calls": [{"index": index,
                                                 "function": {"arguments": piece}}]}))
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    usage = chunk({})
    usage["choices"] = []
    usage["usage"] = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    if body.get("stream_options", {}).get("include_usage"):
        events.append(usage)
    return [("", event) for event in events] + [("", "[DONE]")]


# Anthropic Messages

def messages_answer(body, thinking, text, calls):
    content = []
    if thinking:
        content.append({"type": "thinking", "thinking": thinking, "signature": SIGNATURE})
    if text is not None:
        content.append({"type": "text", "text": text})
    for name, args in calls:
        content.append({"type": "tool_use", "id": "toolu_" + CALL_IDS[name], "name": name,
                        "input": args})
    return {"id": "msg_flow", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": content, "stop_reason": "tool_use" if calls else "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 11, "output_tokens": 7}}


def messages_events(body, thinking, text, calls):
    events = [("message_start", {"type": "message_start", "message": {
        "id": "msg_flow", "type": "message", "role": "assistant", "model": body.get("model"),
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 11, "output_tokens": 1}}})]

    def block(index, start, deltas):
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": start}))
        events.extend(("content_block_delta", {"type": "content_block_delta", "index": index,
                                               "delta": delta}) for delta in deltas)
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    index = 0
    if thinking:
        block(index, {"type": "thinking", "thinking": "", "signature": ""},
              [{"type": "thinking_delta", "thinking": piece}
               for piece in mock_upstream.pieces(thinking, 8)] +
              [{"type": "signature_delta", "signature": SIGNATURE}])
        index += 1
    if text is not None:
        block(index, {"type": "text", "text": ""},
              [{"type": "text_delta", "text": piece} for piece in mock_upstream.pieces(text)])
        index += 1
    for name, args in calls:
        block(index, {"type": "tool_use", "id": "toolu_" + CALL_IDS[name], "name": name,
                      "input": {}},
              [{"type": "input_json_delta", "partial_json": piece}
               for piece in mock_upstream.pieces(json.dumps(args), 6)])
        index += 1
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": "tool_use" if calls else "end_turn",
                                               "stop_sequence": None},
                                     "usage": {"output_tokens": 7}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


# Responses

def responses_items(thinking, text, calls):
    items = []
    if text is not None:
        items.append({"id": "msg_flow", "type": "message", "status": "completed",
                      "role": "assistant",
                      "content": [{"type": "output_text", "text": text, "annotations": [],
                                   "logprobs": []}]})
    for name, args in calls:
        items.append({"id": "fc_" + CALL_IDS[name], "type": "function_call",
                      "status": "completed", "call_id": "call_" + CALL_IDS[name], "name": name,
                      "arguments": json.dumps(args)})
    return items


def responses_answer(body, thinking, text, calls, status="completed", items=None):
    return {"id": "resp_flow", "object": "response", "created_at": 1700000000,
            "status": status, "error": None, "incomplete_details": None,
            "instructions": body.get("instructions"), "model": body.get("model"),
            "output": responses_items(thinking, text, calls) if items is None else items,
            "parallel_tool_calls": True, "previous_response_id": None,
            "store": body.get("store", True), "temperature": 1.0, "text": {"format": {
                "type": "text"}}, "tool_choice": "auto", "tools": body.get("tools", []),
            "top_p": 1.0, "truncation": "disabled",
            "usage": {"input_tokens": 11, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": 7, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 18} if items is None else None,
            "metadata": {}}


def responses_events(body, thinking, text, calls):
    events = []

    def event(kind, **fields):
        fields["type"] = kind
        fields["sequence_number"] = len(events)
        events.append((kind, fields))
    event("response.created",
          response=responses_answer(body, thinking, text, calls, "in_progress", []))
    event("response.in_progress",
          response=responses_answer(body, thinking, text, calls, "in_progress", []))
    for index, item in enumerate(responses_items(thinking, text, calls)):
        if item["type"] == "message":
            event("response.output_item.added", output_index=index,
                  item=dict(item, status="in_progress", content=[]))
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            event("response.content_part.added", item_id=item["id"], output_index=index,
                  content_index=0, part=part)
            for piece in mock_upstream.pieces(text):
                event("response.output_text.delta", item_id=item["id"], output_index=index,
                      content_index=0, delta=piece, logprobs=[])
            event("response.output_text.done", item_id=item["id"], output_index=index,
                  content_index=0, text=text, logprobs=[])
            event("response.content_part.done", item_id=item["id"], output_index=index,
                  content_index=0, part=item["content"][0])
        else:
            event("response.output_item.added", output_index=index,
                  item=dict(item, status="in_progress", arguments=""))
            for piece in mock_upstream.pieces(item["arguments"], 6):
                event("response.function_call_arguments.delta", item_id=item["id"],
                      output_index=index, delta=piece)
            event("response.function_call_arguments.done", item_id=item["id"],
                  output_index=index, arguments=item["arguments"])
        event("response.output_item.done", output_index=index, item=item)
    event("response.completed", response=responses_answer(body, thinking, text, calls))
    return events


# The provider's own headers on every flow answer (PROVIDER_HEADERS[kind]).
OPENAI_HEADERS = {"x-request-id": "req_flow_1", "openai-processing-ms": "7",
                  "openai-version": "2020-10-01", "x-ratelimit-remaining-requests": "99"}
PROVIDER_HEADERS = {"chat": OPENAI_HEADERS, "responses": OPENAI_HEADERS,
                    "messages": {"request-id": "req_flow_ant_1",
                                 "anthropic-ratelimit-requests-remaining": "99"}}

FORMATS = {"chat": (chat_answer, chat_events), "messages": (messages_answer, messages_events),
           "responses": (responses_answer, responses_events)}


class FlowHandler(mock_upstream.Handler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        model = body.get("model") if isinstance(body, dict) else None
        if not (isinstance(model, str) and model.startswith("flow-")):
            socket_file = self.rfile  # the mock reads the body it was sent, as it came
            self.rfile = io.BytesIO(raw)
            try:
                return super().do_POST()
            finally:
                self.rfile = socket_file
        line = json.dumps({"method": "POST", "path": self.path,
                           "headers": {k.lower(): v for k, v in self.headers.items()},
                           "body": raw.decode("utf-8", "replace")}) + "\n"
        with self.server.record_lock:
            self.server.record.write(line)
            self.server.record.flush()
        path = self.path.split("?")[0]
        kind = ("responses" if path.endswith("/responses") else
                "messages" if path.endswith("/messages") else "chat")
        make, events_of = FORMATS[kind]
        thinking, text, calls = answer_of(body, path)
        streamed = body.get("stream") is True
        data = b"" if streamed else json.dumps(make(body, thinking, text, calls)).encode()
        self.send_response(200)
        for name, value in PROVIDER_HEADERS[kind].items():
            self.send_header(name, value)
        if not streamed:
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for name, payload in events_of(body, thinking, text, calls):
            data = mock_upstream.sse(name if kind != "chat" else "", payload)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


if __name__ == "__main__":
    mock_upstream.Handler = FlowHandler  # main() builds its server with this handler
    mock_upstream.main()
