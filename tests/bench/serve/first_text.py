#!/usr/bin/env python3
"""The client side of stream_bench.sh's latency part: when the first text of a streamed answer
arrives, straight from the upstream and through cmfpipe serve, side by side.

    first_text.py DIRECT_URL THROUGH_URL MODEL REPEATS

Sends REPEATS streamed chat completions for MODEL (bench_upstream.py's paced-KIND-N-MS) to each
URL in turn (direct, through, direct, ...) over one kept-alive connection each, reads each answer
whole, and prints a line a request: "direct MS" or "through MS", the milliseconds from sending the
request to the first chunk that carries content text. For a paced-email model it then checks the
client's bytes of every answer through cmfpipe: the address never arrives, whole or in pieces
(none of its characters runs, "jo", "e.k@exam", "ple.com", are in them), and the text is the
upstream's with the address redacted; it prints "check ok" or "check FAILED: why" (and exits 1).
"""
import http.client
import json
import sys
import time
import urllib.parse


def ask(connection, path, model):
    """(ms to the first content text, the content joined, the raw bytes of the body)."""
    body = json.dumps({"model": model, "stream": True,
                       "messages": [{"role": "user", "content": "go"}]})
    start = time.perf_counter()
    connection.request("POST", path, body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    if response.status != 200:
        raise SystemExit("first_text: %s answered %d: %s" % (path, response.status,
                                                             response.read()[:300]))
    first, content, raw = None, "", b""
    while True:
        line = response.readline()
        if not line:
            break
        raw += line
        if not line.startswith(b"data: ") or line.strip() == b"data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        for choice in chunk.get("choices", []):
            text = (choice.get("delta") or {}).get("content") or ""
            if text and first is None:
                first = (time.perf_counter() - start) * 1000
            content += text
    response.read()  # the answer is over: the connection is ready for the next request
    return first, content, raw


def main():
    direct, through, model, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    connections = {}
    for name, url in (("direct", direct), ("through", through)):
        parts = urllib.parse.urlsplit(url)
        connections[name] = (http.client.HTTPConnection(parts.hostname, parts.port, timeout=60),
                             parts.path)
    answers = {"direct": [], "through": []}
    for _ in range(repeats):
        for name in ("direct", "through"):
            connection, path = connections[name]
            first, content, raw = ask(connection, path, model)
            answers[name].append((content, raw))
            print("%s %.1f" % (name, first if first is not None else float("nan")), flush=True)
    if model.startswith("paced-email-"):
        direct_text = answers["direct"][0][0]
        expected = direct_text.replace("joe.k@example.com", "[REDACTED:EMAIL]")
        for content, raw in answers["through"]:
            pieces = [p for p in (b"joe", b"jo\"", b"e.k@exam", b"ple.com", b"example")
                      if p in raw]
            if pieces:
                print("check FAILED: the client's bytes hold %s" % b", ".join(pieces).decode())
                sys.exit(1)
            if content != expected:
                print("check FAILED: the client read %r, not %r" % (content[:80], expected[:80]))
                sys.exit(1)
        print("check ok: %d answers through cmfpipe hold no piece of the address, each the "
              "upstream's text with it redacted" % len(answers["through"]))


if __name__ == "__main__":
    main()
