// A render reserves its output by the template's last output size (Template::last_output_size):
// renders of changing size stay exact, and a short render after a long one does not hand its
// caller the long one's capacity.
#include <catch2/catch.hpp>

#include <string>

#include "cmfpipe/json.hpp"
#include "evaluator.hpp"
#include "template.hpp"

using namespace cmfpipe::jinja2;
using cmfpipe::Json;

namespace {
std::string render(const std::shared_ptr<const Template>& tpl, const Json& vars) {
    RenderSettings settings;
    Evaluator ev(settings);
    return ev.render(tpl, vars);
}
}  // namespace

TEST_CASE("jinja2 output reserve: exact renders of changing size, no long capacity kept") {
    CompileOptions options;
    options.profile = Profile::ChatTemplate;
    auto tpl = compile("{% for i in range(n) %}{{ word }}{% endfor %}", options);
    CHECK(tpl->last_output_size.load() == 0);

    std::string small = render(tpl, Json{{"n", 3}, {"word", "ab"}});
    CHECK(small == "ababab");
    CHECK(tpl->last_output_size.load() == 6);

    std::string big = render(tpl, Json{{"n", 20000}, {"word", "hello"}});
    CHECK(big.size() == 100000);
    CHECK(big.substr(0, 10) == "hellohello");
    CHECK(tpl->last_output_size.load() == 100000);

    std::string after = render(tpl, Json{{"n", 2}, {"word", "xyz"}});
    CHECK(after == "xyzxyz");
    CHECK(after.capacity() <= 2 * after.size() + 4096);
    CHECK(tpl->last_output_size.load() == 6);
}
