"""The OpenAI Responses API as mock_upstream.py answers it: the response object and its stream.

Formats as OpenAI documents them (API reference "Responses" and "Streaming events"): a response
object with output items (message, function_call, reasoning), and when streamed the semantic
events, each with its type and sequence_number, ending with response.completed and no [DONE].
"""

CREATED_AT = 1700000000
REASONING_SUMMARY = "The user wrote to ada@example.com; answer briefly."
ENCRYPTED = "gAAAAABmockEncryptedReasoning0123456789=="


def pieces(text, size=4):
    """`text` a few characters at a time, as models stream it."""
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def last_input_text(body):
    """The text of the last user input: `input` itself when a string, else its last user item."""
    given = body.get("input")
    if isinstance(given, str):
        return given
    for item in reversed(given or []):
        if item.get("role") != "user" or item.get("type", "message") != "message":
            continue
        content = item.get("content")
        if isinstance(content, str):
            return content
        for part in content or []:
            if part.get("type") == "input_text":
                return part.get("text", "")
    return ""


def _message_item(text, status="completed"):
    return {"id": "msg_mock1", "type": "message", "status": status, "role": "assistant",
            "content": [] if text is None else [_text_part(text)]}


def _text_part(text):
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _call_item(tool, arguments, status="completed"):
    return {"id": "fc_mock1", "type": "function_call", "status": status, "arguments": arguments,
            "call_id": "call_1", "name": tool}


def _reasoning_item(summary):
    return {"id": "rs_mock1", "type": "reasoning", "encrypted_content": ENCRYPTED,
            "summary": [{"type": "summary_text", "text": text} for text in summary]}


def _output(body, text, tool):
    output = []
    if body.get("model") == "reasoning":
        output.append(_reasoning_item([REASONING_SUMMARY]))
    if text is not None:
        output.append(_message_item(text))
    if tool:
        output.append(_call_item(tool, "{\"id\": 7}"))
    return output


def responses_answer(body, text=None, tool=None, status="completed", output=None):
    """A whole response object, its fields as the API returns them (the request's echoed)."""
    done = status != "in_progress"
    return {
        "id": "resp_mock1", "object": "response", "created_at": CREATED_AT, "status": status,
        "background": False, "error": None, "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"), "model": body.get("model"),
        "output": _output(body, text, tool) if output is None else output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": body.get("reasoning", {"effort": None, "summary": None}),
        "service_tier": "default", "store": body.get("store", True),
        "temperature": body.get("temperature", 1.0),
        "text": body.get("text", {"format": {"type": "text"}}),
        "tool_choice": body.get("tool_choice", "auto"), "tools": body.get("tools", []),
        "top_p": body.get("top_p", 1.0), "truncation": "disabled",
        "usage": {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 6, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 18} if done else None,
        "user": None, "metadata": body.get("metadata", {}),
    }


def responses_events(body, text, tool=None):
    """The (event, payload) pairs of a streamed response: text deltas of a few characters, the
    call's arguments in fragments, the reasoning summary in deltas."""
    events = []

    def emit(kind, **fields):
        payload = {"type": kind, "sequence_number": len(events)}
        payload.update(fields)
        events.append((kind, payload))

    emit("response.created", response=responses_answer(body, status="in_progress", output=[]))
    emit("response.in_progress", response=responses_answer(body, status="in_progress", output=[]))
    index = 0
    if body.get("model") == "reasoning":
        item = _reasoning_item([REASONING_SUMMARY])
        emit("response.output_item.added", output_index=index,
             item=dict(item, summary=[]))
        where = {"item_id": item["id"], "output_index": index, "summary_index": 0}
        emit("response.reasoning_summary_part.added", part={"type": "summary_text", "text": ""},
             **where)
        for piece in pieces(REASONING_SUMMARY):
            emit("response.reasoning_summary_text.delta", delta=piece, **where)
        emit("response.reasoning_summary_text.done", text=REASONING_SUMMARY, **where)
        emit("response.reasoning_summary_part.done", part=item["summary"][0], **where)
        emit("response.output_item.done", output_index=index, item=item)
        index += 1
    where = {"item_id": "msg_mock1", "output_index": index, "content_index": 0}
    emit("response.output_item.added", output_index=index,
         item=_message_item(None, status="in_progress"))
    emit("response.content_part.added", part=_text_part(""), **where)
    for piece in pieces(text):
        emit("response.output_text.delta", delta=piece, logprobs=[], **where)
    emit("response.output_text.done", text=text, logprobs=[], **where)
    emit("response.content_part.done", part=_text_part(text), **where)
    emit("response.output_item.done", output_index=index, item=_message_item(text))
    if tool:
        index += 1
        arguments = "{\"id\": 7}"
        emit("response.output_item.added", output_index=index,
             item=_call_item(tool, "", status="in_progress"))
        for fragment in ["{\"id\"", ": 7}"]:
            emit("response.function_call_arguments.delta", item_id="fc_mock1",
                 output_index=index, delta=fragment)
        emit("response.function_call_arguments.done", item_id="fc_mock1", output_index=index,
             name=tool, arguments=arguments)
        emit("response.output_item.done", output_index=index, item=_call_item(tool, arguments))
    emit("response.completed", response=responses_answer(body, text, tool))
    return events
