#!/usr/bin/env python3
"""The table of docs/chat-template.md that says what the template analysis derives for each
template of the corpus, made from `cmfpipe analyze-template` (the current build's analysis).

  scripts/analysis_table.py           rewrites the table between its two marker comments
  scripts/analysis_table.py --check   changes nothing; exits 1 (with a diff) when the doc's
                                      table is not what the build derives, 77 without a corpus

Options: --cmfpipe PATH (default $CMFPIPE_BUILD_DIR/bin/cmfpipe, else build/bin/cmfpipe),
--corpus DIR (default $CMFPIPE_CORPUS, else ../shared/corpus), --doc FILE.
Every template is analysed with bos_token <s> and eos_token </s> (several raise without them),
as tests/chat_template/analysis_test.cpp's table does; firefunction v2 gets its `functions` and
`datetime` variables.
"""
import argparse
import difflib
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN = "<!-- analysis-table:begin (made by scripts/analysis_table.py; do not edit) -->"
END = "<!-- analysis-table:end -->"
SKIP = 77  # ctest's SKIP_RETURN_CODE

EXTRA_VARIABLES = {
    "fireworks-ai-llama-3-firefunction-v2": {"functions": "[]", "datetime": "Jul 26 2024"},
}


def code(marker, in_table=True):
    """A marker as a code span (newlines shown as \\n; in a table cell "|" escaped)."""
    if not marker:
        return ""
    text = marker.replace("\n", "\\n")
    if in_table:
        text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def pair(start, end):
    return " ".join(m for m in (code(start), code(end)) if m)


def reasoning_cell(r):
    if r["mode"] == "none":
        return "none"
    p = r["prefill"]
    prefill = "/".join((p["default"], p["enable_thinking_true"], p["enable_thinking_false"]))
    markers = pair(r["start"], r["end"]) if r["start"] else "delimiter, end " + code(r["end"])
    cell = f"{r['mode']} {markers} ({prefill})"
    if r["start_is_template_artifact"]:
        cell += ", start is template text"
    return cell


def content_cell(c):
    return c["mode"] if c["mode"] == "plain" else f"{c['mode']} {pair(c['start'], c['end'])}"


def format_cell(t):
    cell = t["format"]
    if t["format"] != "json_native":
        return cell
    j = t["json"]
    fields = []
    if j["function_name_is_key"]:
        fields.append("name as key" + (" of " + code(j["name_field"]) if j["name_field"] else ""))
    else:
        fields.append(code(j["name_field"]) + "/" + code(j["arguments_field"]))
    if j["id_field"]:
        fields.append("id " + code(j["id_field"]))
    if j["calls_in_array"]:
        fields.append("array")
    if j["python_dicts"]:
        fields.append("Python quotes")
    return cell + " " + ", ".join(fields)


def name_cell(t):
    f = t["function"]
    parts = [pair(f["name_prefix"], f["name_suffix"])] if f["name_prefix"] or f["name_suffix"] else []
    if f["close"]:
        parts.append("close " + code(f["close"]))
    return ", ".join(parts)


def arguments_cell(t):
    a = t["arguments"]
    parts = []
    if a["start"] or a["end"]:
        parts.append("in " + pair(a["start"], a["end"]))
    if a["name_prefix"] or a["name_suffix"]:
        parts.append("name " + pair(a["name_prefix"], a["name_suffix"]))
    if a["value_prefix"] or a["value_suffix"]:
        parts.append("value " + pair(a["value_prefix"], a["value_suffix"]))
    if a["separator"]:
        parts.append("between " + code(a["separator"]))
    return ", ".join(parts)


def call_id_cell(t):
    i = t["call_id"]
    if i["position"] == "none":
        return ""
    markers = pair(i["prefix"], i["suffix"])
    return i["position"] + (" " + markers if markers else "")


def row(name, a):
    t = a["tools"]
    tools = t["format"] != "none"
    cells = [
        name,
        reasoning_cell(a["reasoning"]),
        content_cell(a["content"]),
        code(a["content"]["turn_end"]),
        format_cell(t),
        pair(t["section"]["start"], t["section"]["end"]) if tools else "",
        pair(t["per_call"]["start"], t["per_call"]["end"]) if tools else "",
        name_cell(t) if tools else "",
        arguments_cell(t) if tools else "",
        ("yes" if t["parallel_calls"] else "no") if tools else "",
        call_id_cell(t) if tools else "",
    ]
    return "| " + " | ".join(cells) + " |"


HEADER = [
    "| template | reasoning (prefill default/true/false) | content | turn end | tool format "
    "| section | per call | function name, close | arguments | parallel | call id |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
]


def analyse(cmfpipe, template):
    command = [str(cmfpipe), "analyze-template", str(template),
               "--bos-token", "<s>", "--eos-token", "</s>"]
    for key, value in EXTRA_VARIABLES.get(template.stem, {}).items():
        command += ["--var", f"{key}={json.dumps(value)}"]
    done = subprocess.run(command, capture_output=True, text=True, encoding="utf-8")
    if done.returncode != 0:
        sys.exit(f"analysis_table: {' '.join(command)} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def notes(name, analysis, template):
    """The analysis's notes on a template, a list item each: their first line as code (markers
    are not HTML), the template's path as its file name (the table must not depend on where the
    corpus is)."""
    out = []
    for note in analysis["notes"]:
        first = note.split("\n")[0].replace(str(template), template.name)
        out.append(f"- {name}: {code(first, in_table=False)}")
    return out


def table(cmfpipe, corpus):
    templates = sorted((corpus / "chat-templates" / "templates").glob("*.jinja"))
    analyses = [(t, analyse(cmfpipe, t)) for t in templates]
    lines = [BEGIN, *HEADER]
    lines += [row(t.stem, a) for t, a in analyses]
    # A family table row's note is "family FAMILY: NOTE" (plugins/chat_template/families.json).
    families = {}
    for t, a in analyses:
        for note in a["notes"]:
            if note.startswith("family ") and ": " in note:
                family = note[len("family "):note.index(": ")]
                families.setdefault(family, []).append(t.stem)
    served = "; ".join(f"{f} for {len(names)} templates: {', '.join(names)}"
                       for f, names in sorted(families.items()))
    lines += ["", f"Family table rows applied: {len(families)}" +
              (f" ({served})." if served else ".")]
    lines += ["", "The analysis's notes (family rows applied, steps a template narrowed):", ""]
    for t, a in analyses:
        lines += notes(t.stem, a, t)
    lines.append(END)
    return "\n".join(lines)


def main():
    build = pathlib.Path(os.environ.get("CMFPIPE_BUILD_DIR", ROOT / "build"))
    corpus = pathlib.Path(os.environ.get("CMFPIPE_CORPUS") or ROOT.parent / "shared" / "corpus")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--cmfpipe", type=pathlib.Path, default=build / "bin" / "cmfpipe")
    parser.add_argument("--corpus", type=pathlib.Path, default=corpus)
    parser.add_argument("--doc", type=pathlib.Path, default=ROOT / "docs" / "chat-template.md")
    args = parser.parse_args()

    if not (args.corpus / "chat-templates" / "templates").is_dir():
        print(f"analysis_table: SKIPPED: no corpus at {args.corpus}", file=sys.stderr)
        return SKIP
    if not args.cmfpipe.is_file():
        sys.exit(f"analysis_table: no cmfpipe at {args.cmfpipe} (build it, or give --cmfpipe)")
    doc = args.doc.read_text(encoding="utf-8")
    begin, end = doc.find(BEGIN), doc.find(END)
    if begin < 0 or end < begin:
        sys.exit(f"analysis_table: {args.doc} has no {BEGIN} ... {END}")
    current = doc[begin:end + len(END)]
    derived = table(args.cmfpipe, args.corpus)
    if args.check:
        if current == derived:
            print(f"analysis_table: {args.doc.name}'s table is what the build derives")
            return 0
        diff = difflib.unified_diff(current.splitlines(), derived.splitlines(),
                                    "in the doc", "derived", lineterm="")
        print("\n".join(diff))
        print(f"analysis_table: {args.doc} is stale: run scripts/analysis_table.py",
              file=sys.stderr)
        return 1
    args.doc.write_text(doc[:begin] + derived + doc[end + len(END):], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
