#!/usr/bin/env python3
"""Renders a list of (corpus template, variables) through the reference renderer,
../shared/tools/jinja-oracle (its chat-template environment, --now 2024-07-26T00:00:00): the
prompts and whole conversations of the round-trip cases (round_trip_cases.cpp), which the C++
side builds, variables and all, so that both renderers see the same values.

IN.json:  [{"template": NAME, "variables": {...}}]   (NAME.jinja in the corpus)
OUT.json: [{"text": RENDER} | {"error": "Type: message"}], in IN's order: where the template
          raises, its own exception is the result, as in the oracle.

Each template is compiled once. Exit code 77 when the oracle cannot run here (no Python Jinja2).

Usage: render_turns_with_oracle.py SHARED_DIR IN.json OUT.json
"""
import json, os, sys

from oracle_env import chat_template_env

shared, in_path, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
env = chat_template_env(os.path.join(shared, "tools/jinja-oracle"))
if env is None:
    print("the oracle cannot run here (no Python Jinja2, or no tools/jinja-oracle)", file=sys.stderr)
    sys.exit(77)

templates_dir = os.path.join(shared, "corpus/chat-templates/templates")
compiled = {}
results = []
for item in json.load(open(in_path, encoding="utf-8")):
    name = item["template"]
    if name not in compiled:
        source = open(os.path.join(templates_dir, name + ".jinja"), encoding="utf-8").read()
        compiled[name] = env.from_string(source)
    try:
        results.append({"text": compiled[name].render(**item["variables"])})
    except Exception as e:  # the template's own failure is a result, as in the oracle
        results.append({"error": f"{type(e).__name__}: {e}"})
with open(out_path, "w", encoding="utf-8") as f:
    json.dump(results, f, ensure_ascii=False)
