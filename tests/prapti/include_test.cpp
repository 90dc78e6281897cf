// %include and %include.code: relative paths, the root folder, symlinks, cycles, depth, errors.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cmfpipe/limits.hpp"
#include "prapti_fixture.hpp"
#include "support/scratch.hpp"

using namespace prapti_test;
using cmfpipe::testing::Scratch;
namespace fs = std::filesystem;

namespace {

// The document `doc.md` of `scratch` (written with `text`), parsed with its file given.
Json options_for(const Scratch& scratch, const std::string& doc, Json roots = Json::array()) {
    return {{"template_name", (scratch.dir / doc).string()},
            {"file", (scratch.dir / doc).string()},
            {"allowed_roots", roots}};
}

}  // namespace

TEST_CASE("include: the file's text in place of the line, its settings read where they are") {
    Scratch s;
    fs::create_directories(s.dir / "parts");
    s.write("parts/intro.md", "Intro line\n% temperature = 0.5\n### @assistant:\nstill text\n");
    const std::string doc = "### @user:\nBefore\n%include \"parts/intro.md\"\nAfter\n";
    s.write("doc.md", doc);
    Json out = document(doc, options_for(s, "doc.md"));
    CHECK(out == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": ""},
        {"role": "user", "send": true, "at": "1:6",
         "text": "Before\nIntro line\n### @assistant:\nstill text\nAfter",
         "configuration": ["2:3 temperature = 0.5"]}])"));
    // The setting names the included file.
    auto messages = parse(doc, [&] {
        Json o = options_for(s, "doc.md");
        o["document"] = true;
        return o;
    }());
    CHECK(messages[1].custom()->at("prapti").at("configuration")[0].at("file") ==
          (s.dir / "parts/intro.md").string());
}

TEST_CASE("include: paths are relative to the including file, and includes nest") {
    Scratch s;
    fs::create_directories(s.dir / "a/b");
    s.write("a/one.md", "one\n%include \"b/two.md\"\n");
    s.write("a/b/two.md", "two\n%include \"../three.md\"");  // no final newline
    s.write("a/three.md", "three");
    const std::string doc = "### @user:\n%include \"a/one.md\"\nend";
    CHECK(conversation(doc, options_for(s, "doc.md")) ==
          Json::parse(R"([{"role": "user", "text": "one\ntwo\nthree\nend"}])"));
}

TEST_CASE("include.code: the file as it is, fenced with its extension as the language") {
    Scratch s;
    s.write("tool.py", "% not a setting\nprint('hi')\n");
    s.write("README", "```sh\nmake\n```\n");
    s.write("notes.md", "<!-- kept -->\n### @user:\n");
    const std::string doc =
        "### @user:\n%include.code \"tool.py\"\n%include.code \"README\"\n"
        "%include.code \"notes.md\"";
    CHECK(conversation(doc, options_for(s, "doc.md")) == Json::parse(R"([{"role": "user",
        "text": "```py\n% not a setting\nprint('hi')\n```\n````\n```sh\nmake\n```\n````\n```md\n<!-- kept -->\n### @user:\n```"}])"));
}

TEST_CASE("include: a fence or comment an included file leaves open ends with it") {
    Scratch s;
    s.write("open.md", "```\ncode");
    const std::string doc = "### @user:\n%include \"open.md\"\n% seed = 3\n### @assistant:\nb";
    CHECK(document(doc, options_for(s, "doc.md"))[1] == Json::parse(R"(
        {"role": "user", "send": true, "at": "1:6", "text": "```\ncode",
         "configuration": ["3:3 seed = 3"]})"));
}

TEST_CASE("include: files outside the document's folder need a root the host grants") {
    Scratch s;
    fs::create_directories(s.dir / "docs");
    s.write("README.md", "top");
    const std::string doc = "### @user:\n%include \"../README.md\"";
    const std::string refused =
        "ValueError: " + (s.dir / "docs/doc.md").string() +
        ":2:2: %include \"../README.md\": " + (s.dir / "README.md").string() +
        " is outside the allowed roots (" + (s.dir / "docs").string() +
        "); cmfpipe run --allow-root DIR widens them";
    CHECK(error_of(doc, options_for(s, "docs/doc.md")) == refused);
    CHECK(conversation(doc, options_for(s, "docs/doc.md", {s.dir.string()})) ==
          Json::parse(R"([{"role": "user", "text": "top"}])"));
    // An absolute path is held to the same roots.
    CHECK(error_of("%include \"" + (s.dir / "README.md").string() + "\"",
                   options_for(s, "docs/doc.md"))
              .find("is outside the allowed roots") != std::string::npos);
}

TEST_CASE("include: symlinks are followed before the check") {
    Scratch s;
    fs::create_directories(s.dir / "docs");
    fs::create_directories(s.dir / "real");
    s.write("secret.txt", "secret");
    fs::create_symlink(s.dir / "secret.txt", s.dir / "docs/link.txt");
    CHECK(error_of("%include \"link.txt\"", options_for(s, "docs/doc.md")) ==
          "ValueError: " + (s.dir / "docs/doc.md").string() + ":1:2: %include \"link.txt\": " +
              (s.dir / "secret.txt").string() + " is outside the allowed roots (" +
              (s.dir / "docs").string() + "); cmfpipe run --allow-root DIR widens them");
    // A document reached through a symlink reads below its real folder, not the link's.
    s.write("real/doc.md", "### @user:\n%include \"part.md\"");
    s.write("real/part.md", "real part");
    fs::create_symlink(s.dir / "real/doc.md", s.dir / "docs/alias.md");
    CHECK(conversation("### @user:\n%include \"part.md\"", options_for(s, "docs/alias.md")) ==
          Json::parse(R"([{"role": "user", "text": "real part"}])"));
}

TEST_CASE("include: cycles and nesting depth end in errors that name them") {
    Scratch s;
    s.write("a.md", "%include \"b.md\"");
    s.write("b.md", "%include \"a.md\"");
    CHECK(error_of("### @user:\n%include \"a.md\"", options_for(s, "doc.md")) ==
          "ValueError: " + (s.dir / "b.md").string() +
              ":1:2: %include \"a.md\": an include cycle (" + (s.dir / "doc.md").string() +
              " includes " + (s.dir / "a.md").string() + " includes " + (s.dir / "b.md").string() +
              " includes " + (s.dir / "a.md").string() + ")");
    s.write("self.md", "%include \"self.md\"");
    CHECK(error_of("%include \"self.md\"", options_for(s, "self.md")) ==
          "ValueError: " + (s.dir / "self.md").string() +
              ":1:2: %include \"self.md\": an include cycle (" + (s.dir / "self.md").string() +
              " includes " + (s.dir / "self.md").string() + ")");
    for (int i = 0; i < 20; ++i)
        s.write("n" + std::to_string(i) + ".md", "%include \"n" + std::to_string(i + 1) + ".md\"");
    s.write("n20.md", "deep");
    CHECK(error_of("%include \"n0.md\"", options_for(s, "doc.md")) ==
          "ValueError: " + (s.dir / "n15.md").string() +
              ":1:2: %include \"n16.md\": includes nest deeper than 16 files");
    // The same file twice, not nested, is no cycle.
    s.write("twice.md", "x");
    CHECK(conversation("### @user:\n%include \"twice.md\"\n%include \"twice.md\"",
                       options_for(s, "doc.md")) ==
          Json::parse(R"([{"role": "user", "text": "x\nx"}])"));
}

TEST_CASE("include: missing files, folders, unquoted paths and no document file are errors") {
    Scratch s;
    fs::create_directories(s.dir / "folder");
    const std::string at = "ValueError: " + (s.dir / "doc.md").string() + ":1:2: ";
    CHECK(error_of("%include \"nope.md\"", options_for(s, "doc.md")) ==
          at + "%include \"nope.md\": no such file (" + (s.dir / "nope.md").string() + ")");
    CHECK(error_of("%include \"folder\"", options_for(s, "doc.md")) ==
          at + "%include \"folder\": not a file (" + (s.dir / "folder").string() + ")");
    CHECK(error_of("%include nope.md", options_for(s, "doc.md")) ==
          at + "%include wants one path in double quotes, like %include \"notes.md\"");
    CHECK(error_of("%include.code \"a\" \"b\"", options_for(s, "doc.md")) ==
          at + "%include.code wants one path in double quotes, like %include.code \"notes.md\"");
    CHECK(error_of("x\n% include \"a.md\"") ==
          "ValueError: doc.md:2:3: %include \"a.md\": includes need the document's file, and the "
          "host gave none (prapti parser option 'file')");
    // In a disabled message nothing is read, not even a missing file.
    CHECK(conversation("### //@user:\n%include \"nope.md\"\n### @user:\nq",
                       options_for(s, "doc.md")) ==
          Json::parse(R"([{"role": "user", "text": "q"}])"));
}

TEST_CASE("include: invalid UTF-8 and the size of all included text are bounded") {
    Scratch s;
    s.write("bad.md", "ok\xff");
    CHECK(error_of("%include \"bad.md\"", options_for(s, "doc.md")) ==
          "ValueError: " + (s.dir / "bad.md").string() + ":1:3: invalid UTF-8 byte 0xFF");
    s.write("big.md", std::string(600, 'x'));
    const cmfpipe::InputLimits saved = cmfpipe::input_limits();
    cmfpipe::InputLimits small = saved;
    small.max_input_bytes = 1000;
    cmfpipe::set_input_limits(small);
    const std::string error =
        error_of("%include \"big.md\"\n%include \"big.md\"", options_for(s, "doc.md"));
    cmfpipe::set_input_limits(saved);
    CHECK(error == "LimitExceeded: " + (s.dir / "doc.md").string() +
                       ":2:2: %include \"big.md\" (the included files together): input larger "
                       "than 1000 bytes (max_input_bytes)");
}
