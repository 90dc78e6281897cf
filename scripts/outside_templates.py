#!/usr/bin/env python3
"""Round trips on chat templates from anywhere (issue 28): how well `cmfpipe parse-output --from
chat_template` reads back what a template nobody here has seen renders.

For each TEMPLATE_DIR/*.jinja and each shape (one call; two parallel calls; reasoning + text + one
call), the reference renderer (../shared/tools/jinja-oracle, Python Jinja2, its chat-template
environment, now 2024-07-26T00:00:00) renders the prompt (the user's question, add_generation_prompt)
and the whole conversation (with the assistant's turn, enable_thinking true unless --thinking says
otherwise). The turn is what the
conversation renders after what it shares with the prompt; the real CLI parses it back, given the
template, the tools and the shared part as --prompt. A run passes when it gives back exactly the
parts the template rendered: the reasoning and the text (each stripped of surrounding whitespace)
where the turn holds them, else none, and the calls (name and arguments) whose names it holds, in
order. A template that raises on a render is "refused" (its own limit, not the parser's), one whose
turn holds none of the parts (it renders no calls, say) is "empty"; both are left out of the totals.

Prints one row a run and the totals per shape; --json writes every run (turn, prefill, expected,
parsed) for a closer look. Exit code 0 whatever the results, 2 for a wrong command line, 77 when
the oracle (or Python Jinja2) or the CLI is missing.

Usage: scripts/outside_templates.py TEMPLATE_DIR [--skip-in DIR] [--template NAME] [--shape NAME]
           [--var KEY=JSON]... [--thinking true|false|unset] [--stream STEP] [--cmfpipe PATH]
           [--oracle PATH] [--json FILE] [--failures-only]
  --skip-in DIR   leave out templates whose file name is also in DIR (e.g. the corpus's templates)
  --var KEY=JSON  one more template variable, for templates that read one (both sides get it)
  --thinking X    enable_thinking for both sides: true (default), false, or unset (not passed)
  --stream STEP   also parse every STEP-th prefix of a passing turn with partial=true: it must show
                  only what the whole parse has (its reasoning and text starts, its first calls)
"""
import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "chat_template"))
from oracle_env import CORPUS_NOW as NOW, chat_template_env  # noqa: E402

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                        "days": {"type": "integer"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "get_time", "description": "The time in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
]
# Mistral's templates ask for ids of nine alphanumerics.
WEATHER = {"id": "abc123XYZ", "name": "get_weather", "arguments": {"city": "Paris", "days": 2}}
TIME = {"id": "def456UVW", "name": "get_time", "arguments": {"city": "Tokyo"}}
QUESTION = "What is the weather in Paris?"
REASONING = "The user wants Paris's weather, so I call the tool."
TEXT = "Let me look that up."

# The shapes of the corpus round-trip table (tests/chat_template/round_trip_cases.cpp).
SHAPES = {
    "one_call": (QUESTION, None, "", [WEATHER]),
    "two_calls": ("What are the weather in Paris and the time in Tokyo?", None, "", [WEATHER, TIME]),
    "reasoning_text_call": (QUESTION, REASONING, TEXT, [WEATHER]),
}


def hf_assistant(reasoning, text, calls):
    """The assistant's message as transformers' apply_chat_template gives it to a template."""
    message = {"role": "assistant", "content": text}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    if calls:
        message["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": c["arguments"]}}
                                 for c in calls]
    return message


def shared_length(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def render_turn(template, shape, extra, thinking):
    """(prefill, turn, note) for a shape: the turn is what the conversation adds to the prompt.

    Two corrections, each noted: a template that writes the user's last turn differently when it
    is the last message (Mistral's system prompt goes there) shares less than the question with
    the conversation, so the turn starts after what both write from the question on; and a cut
    inside a `<...>` marker (the prompt's `<think>` against the turn's `<tool_call>`) moves back
    to the marker's start, as a model writes whole tokens."""
    question, reasoning, text, calls = SHAPES[shape]
    base = {"bos_token": "", "eos_token": "", "tools": TOOLS, **extra}
    if thinking != "unset":
        base["enable_thinking"] = thinking == "true"
    user = {"role": "user", "content": question}
    prompt = template.render(**base, messages=[user], add_generation_prompt=True)
    whole = template.render(**base, messages=[user, hf_assistant(reasoning, text, calls)],
                            add_generation_prompt=False)
    shared, note = shared_length(prompt, whole), ""
    asked_in_prompt, asked_in_whole = prompt.rfind(question), whole.find(question, shared)
    if asked_in_prompt >= shared and asked_in_whole >= 0:
        both = shared_length(prompt[asked_in_prompt:], whole[asked_in_whole:])
        note = "the prompt writes the last user turn differently; turn anchored at the question"
        return prompt[:asked_in_prompt + both], whole[asked_in_whole + both:], note
    if whole.rfind("<", 0, shared) > whole.rfind(">", 0, shared):
        shared, note = whole.rfind("<", 0, shared), "the cut fell inside a marker; moved to its start"
    return whole[:shared], whole[shared:], note


def expected_parts(shape, turn):
    """The parts of the shape's message the turn holds: what a faithful parse gives back."""
    _, reasoning, text, calls = SHAPES[shape]
    return {"reasoning": reasoning if reasoning and reasoning in turn else "",
            "text": text if text and text in turn else "",
            "calls": [{"name": c["name"], "arguments": c["arguments"]}
                      for c in calls if c["name"] in turn]}


def parse_back(args, extra, scratch, template_path, prefill, turn, partial=False):
    """The CLI's reading of the turn as parts, or an error message."""
    prompt_file, turn_file = os.path.join(scratch, "prompt.txt"), os.path.join(scratch, "turn.txt")
    for path, content in ((prompt_file, prefill), (turn_file, turn)):
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(content)
    command = [args.cmfpipe, "parse-output", "--from", "chat_template", "--template", template_path,
               "--prompt", prompt_file, "--option", "tools=" + json.dumps(TOOLS),
               "--option", 'bos_token=""', "--option", 'eos_token=""',
               "--option", "now=" + json.dumps(NOW)]
    if args.thinking != "unset":
        command += ["--option", "enable_thinking=" + args.thinking]
    if partial:
        command += ["--option", "partial=true"]
    if extra:
        command += ["--option", "chat_template_kwargs=" + json.dumps(extra)]
    result = subprocess.run(command + [turn_file], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        return None, (result.stderr.strip() or f"exit code {result.returncode}").splitlines()[0]
    parts = {"reasoning": "", "text": "", "calls": []}
    for message in json.loads(result.stdout):
        for part in message.get("content") or []:
            kind = part.get("content_type")
            if kind == "thinking":
                parts["reasoning"] += part.get("text", "")
            elif kind == "text":
                parts["text"] += part.get("text", "")
            elif kind == "tool_call":
                call = part["content"]
                parts["calls"].append({"name": call["name"], "arguments": call["arguments"]})
    parts["reasoning"], parts["text"] = parts["reasoning"].strip(), parts["text"].strip()
    return parts, None


def stream_inconsistency(parse, prefill, turn, whole, step):
    """"" when every prefix of the turn (each `step` bytes) parsed as a stream shows only what
    the whole parse has (reasoning and text its starts, calls its first ones); else where not."""
    for n in range(step, len(turn), step):
        shown, error = parse(prefill, turn[:n], partial=True)
        if error:
            return f"stream, the first {n} bytes: {error}"
        if not (whole["reasoning"].startswith(shown["reasoning"])
                and whole["text"].startswith(shown["text"])
                and shown["calls"] == whole["calls"][:len(shown["calls"])]):
            return f"stream, the first {n} bytes show {words(shown)}"
    return ""


def words(parts):
    """A short description of parts: `reasoning text get_weather{...}`, or what differs."""
    out = []
    for key, needle in (("reasoning", REASONING), ("text", TEXT)):
        if parts[key]:
            out.append(key if parts[key] == needle else f"{key}={json.dumps(parts[key][:40])}")
    out += [c["name"] + json.dumps(c["arguments"], separators=(",", ":")) for c in parts["calls"]]
    return " ".join(out) or "(nothing)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("template_dir")
    ap.add_argument("--skip-in", action="append", default=[])
    ap.add_argument("--template", action="append", default=[])
    ap.add_argument("--shape", action="append", default=[], choices=list(SHAPES))
    ap.add_argument("--var", action="append", default=[])
    ap.add_argument("--thinking", choices=["true", "false", "unset"], default="true")
    ap.add_argument("--stream", type=int, default=0, metavar="STEP")
    ap.add_argument("--cmfpipe", default=os.path.join(ROOT, "build/bin/cmfpipe"))
    ap.add_argument("--oracle", default=os.path.join(
        os.environ.get("CMFPIPE_SHARED", os.path.join(os.path.dirname(ROOT), "shared")),
        "tools/jinja-oracle"))
    ap.add_argument("--json")
    ap.add_argument("--failures-only", action="store_true")
    args = ap.parse_args()

    env = chat_template_env(args.oracle, NOW)
    if env is None:
        print(f"the oracle cannot run here ({args.oracle}, Python Jinja2)", file=sys.stderr)
        return 77
    if not os.access(args.cmfpipe, os.X_OK):
        print(f"no CLI at {args.cmfpipe} (build the cmfpipe target)", file=sys.stderr)
        return 77
    extra = {}
    for var in args.var:
        key, _, value = var.partition("=")
        try:
            extra[key] = json.loads(value)
        except json.JSONDecodeError:
            ap.error(f"--var {var}: the value is not JSON")
    skip = {name for folder in args.skip_in for name in os.listdir(folder)}
    names = sorted(f for f in os.listdir(args.template_dir)
                   if f.endswith(".jinja") and f not in skip
                   and (not args.template or f in args.template or f[:-6] in args.template))
    shapes = args.shape or list(SHAPES)

    records = []
    width = max([len(n) - 6 for n in names] + [8])
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            path = os.path.join(args.template_dir, name)
            record = {"template": name}
            try:
                template = env.from_string(open(path, encoding="utf-8").read())
            except Exception as e:  # a template Python Jinja2 cannot compile refuses every shape
                template, compile_error = None, f"{type(e).__name__}: {e}"
            for shape in shapes:
                record = {"template": name, "shape": shape}
                try:
                    if template is None:
                        raise RuntimeError(compile_error)
                    record["prefill"], record["turn"], record["note"] = render_turn(
                        template, shape, extra, args.thinking)
                except Exception as e:  # the template's own refusal is a result, as in the oracle
                    record.update(status="refused", reason=f"{type(e).__name__}: {e}"[:200])
                    records.append(record)
                    continue
                record["expected"] = expected_parts(shape, record["turn"])
                parse = functools.partial(parse_back, args, extra, scratch, path)
                parsed, error = parse(record["prefill"], record["turn"])
                record["parsed"] = parsed
                if error:
                    record.update(status="failed", reason="parse-output: " + error[:200])
                elif not any(record["expected"].values()):
                    record.update(status="empty", reason="the turn holds none of the parts")
                elif parsed == record["expected"]:
                    why = args.stream and stream_inconsistency(
                        parse, record["prefill"], record["turn"], parsed, args.stream)
                    record.update(status="failed" if why else "passed", reason=why or "")
                else:
                    record.update(status="failed", reason="parsed " + words(parsed))
                records.append(record)

    print(f"{'template':<{width}}  {'shape':<19}  {'result':<7}  rendered -> what differs")
    for r in records:
        if args.failures_only and r["status"] == "passed":
            continue
        rendered = words(r["expected"]) if "expected" in r else ""
        print(f"{r['template'][:-6]:<{width}}  {r['shape']:<19}  {r['status']:<7}  "
              f"{rendered}{' -> ' if r['reason'] else ''}{r['reason']}"
              f"{' [' + r['note'] + ']' if r.get('note') else ''}")
    print()
    total_passed = total_ran = 0
    for shape in shapes:
        runs = [r for r in records if r["shape"] == shape]
        ran = [r for r in runs if r["status"] in ("passed", "failed")]
        passed = sum(r["status"] == "passed" for r in ran)
        total_passed, total_ran = total_passed + passed, total_ran + len(ran)
        refused = sum(r["status"] == "refused" for r in runs)
        print(f"{shape:<19}  {passed} of {len(ran)} passed "
              f"({refused} refused, {len(runs) - len(ran) - refused} empty)")
    print(f"{'all shapes':<19}  {total_passed} of {total_ran} passed, "
          f"{len(names)} templates in {args.template_dir}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(records, f, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
