"""The mock upstream's answers that carry a provider's own header fields (mock_upstream.py routes
the models below here), for the tests of what reaches the client (serve_headers_test.cpp,
serve_stream_stop_test.cpp).

Every answer carries PROVIDER_FIELDS (rate limits, request ids, versions, a field sent twice) and
HOP_FIELDS (hop-by-hop ones, one named by Connection, and those the proxy rewrites). Models:
  headers       the usual answer ("echo: " + the last user text), plain or streamed
  rate-limited  429 with retry-after and an error body in the provider's shape
  tool-first    a call of delete_user before any text (streamed: nothing of the answer before it)
  cut-early     (streamed) the stream's first event, then the connection closes
"""
import json

PROVIDER_FIELDS = [
    ("x-request-id", "req_upstream_1"),
    ("request-id", "req_anthropic_1"),
    ("openai-version", "2020-10-01"),
    ("openai-processing-ms", "42"),
    ("x-ratelimit-limit-requests", "500"),
    ("x-ratelimit-remaining-tokens", "29000"),
    ("anthropic-ratelimit-requests-remaining", "49"),
    ("x-provider-note", "one"),
    ("x-provider-note", "two"),
]
HOP_FIELDS = [
    ("Connection", "keep-alive, X-Hop-Named"),
    ("Keep-Alive", "timeout=5"),
    ("X-Hop-Named", "for this connection only"),
    ("Proxy-Authenticate", "Basic realm=upstream"),
    ("Alt-Svc", 'h3=":443"; ma=86400'),
    ("Content-Encoding", "identity"),
    ("x-cmfpipe-request-id", "the-upstream-s-own"),
]


def sse(name, payload):
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return ((("event: %s\n" % name) if name else "") + "data: " + data + "\n\n").encode()


def send_head(handler, status, content_type, extra=()):
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    for name, value in PROVIDER_FIELDS + HOP_FIELDS + list(extra):
        handler.send_header(name, value)


def send_json(handler, status, answer, extra=()):
    data = json.dumps(answer).encode()
    send_head(handler, status, "application/json", extra)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def send_events(handler, events):
    send_head(handler, 200, "text/event-stream", [("Transfer-Encoding", "chunked")])
    handler.end_headers()
    for name, payload in events:
        data = sse(name, payload)
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
    handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()


def answer(handler, body, model, make, events_of, user_text):
    """The answer of a header model. make(body, text, tool): the whole answer; events_of(body,
    text, tool): its events."""
    anthropic = handler.path.endswith("/messages")
    if model == "rate-limited":
        if anthropic:
            error = {"type": "error", "error": {"type": "rate_limit_error",
                                                "message": "Number of requests has exceeded"}}
        else:
            error = {"error": {"message": "Rate limit reached for requests",
                               "type": "requests", "param": None,
                               "code": "rate_limit_exceeded"}}
        return send_json(handler, 429, error, [("retry-after", "7"),
                                               ("x-ratelimit-remaining-requests", "0")])
    if model == "cut-early":
        send_head(handler, 200, "text/event-stream", [("Transfer-Encoding", "chunked")])
        handler.end_headers()
        data = sse(*events_of(body, "never sent", None)[0])
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        handler.wfile.flush()
        handler.close_connection = True
        return None
    text, tool = ("", "delete_user") if model == "tool-first" else ("echo: " + user_text, None)
    if body.get("stream") is True:
        return send_events(handler, events_of(body, text, tool))
    return send_json(handler, 200, make(body, text=text, tool=tool))


MODELS = {"headers", "rate-limited", "tool-first", "cut-early"}
