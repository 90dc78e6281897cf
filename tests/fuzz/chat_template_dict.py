#!/usr/bin/env python3
"""Writes dicts/chat_template.dict, the dictionary of the chat_template_from_wire fuzz target: the
markers the template analysis derives for the templates it fuzzes (chat_template_templates.txt),
every string of `cmfpipe analyze-template T.jinja`'s reasoning, turn, content and tools parts and
its preserved tokens, then the JSON and call pieces the parser reads.

usage: chat_template_dict.py CMFPIPE CORPUS_DIR   (run again when the list or the analysis changes)
"""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
# The analysis' own words, not markers.
ENUMS = {"tag_based", "none", "plain", "json_native", "tag_with_json", "tag_with_tagged",
         "call_expression", "open", "closed", "always_wrapped", "wrapped_with_reasoning",
         "tools_only", "pre_function_name", "between_function_and_args", "post_args",
         "wraps_function_name", "delimiter"}
PIECES = ['{"name": "', '"arguments": {', '"parameters": ', '"id": "', "[{", "}]", '{"', '":',
          '\\"', '"""', "'", "get_weather", "special_function", "python", '"city"', "=", "(", ")",
          "[", '[{"name": "get_weather", "arguments": ', "{}}]", "<![CDATA[", "]]>", "\n",
          "```json\n", "```"]


def strings(value, out):
    if isinstance(value, str):
        if value.strip() and len(value) <= 64 and value not in ENUMS:
            out.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in ("notes", "prefill"):
                strings(item, out)
    elif isinstance(value, list):
        for item in value:
            strings(item, out)


def entry(text):
    out = ""
    for byte in text.encode("utf-8"):
        char = chr(byte)
        out += "\\" + char if char in '"\\' else char if 32 <= byte < 127 else "\\x%02X" % byte
    return '"' + out + '"'


def main():
    cmfpipe, corpus = sys.argv[1], pathlib.Path(sys.argv[2])
    markers = set()
    for name in (HERE / "chat_template_templates.txt").read_text().split():
        template = corpus / "chat-templates" / "templates" / (name + ".jinja")
        analysis = json.loads(subprocess.run([cmfpipe, "analyze-template", str(template)],
                                             check=True, capture_output=True, text=True).stdout)
        for part in ("reasoning", "turn", "content", "tools", "preserved_tokens"):
            strings(analysis.get(part), markers)
    lines = ["# Written by chat_template_dict.py: the markers the template analysis derives for the",
             "# templates of chat_template_templates.txt, then JSON and call pieces."]
    for text in sorted(markers) + PIECES:
        if entry(text) not in lines:
            lines.append(entry(text))
    (HERE / "dicts" / "chat_template.dict").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
