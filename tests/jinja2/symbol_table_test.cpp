// A template's symbol table (plugins/jinja2/symbol_table.hpp): slots are handed out in order of
// first use, a name keeps its slot, and lookups stay right as the table grows past its first
// capacity and names share hash buckets.
#include <catch2/catch.hpp>

#include <string>

#include "symbol_table.hpp"

using namespace cmfpipe::jinja2;

TEST_CASE("jinja2 symbol table: slots in order of first use, found again after growth") {
    SymbolTable t;
    CHECK(t.slot_of("messages") == -1);
    CHECK(t.add("messages") == 0);
    CHECK(t.add("tools") == 1);
    CHECK(t.add("messages") == 0);
    CHECK(t.size() == 2);
    // past the first capacity (16 buckets, half full), names that differ only in late bytes
    for (int i = 0; i < 300; ++i)
        CHECK(t.add("add_generation_prompt_" + std::to_string(i)) == i + 2);
    CHECK(t.size() == 302);
    for (int i = 0; i < 300; ++i)
        CHECK(t.slot_of("add_generation_prompt_" + std::to_string(i)) == i + 2);
    CHECK(t.slot_of("messages") == 0);
    CHECK(t[1] == "tools");
    CHECK(t[301] == "add_generation_prompt_299");
    CHECK(t.slot_of("add_generation_prompt_300") == -1);
    CHECK(t.slot_of("") == -1);
    CHECK(t.add("") == 302);
    CHECK(t.slot_of("") == 302);
}
