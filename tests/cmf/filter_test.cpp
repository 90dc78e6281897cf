// filter_extensions shares what it does not hide; shows_same says exactly when two records show
// a capability set the same thing (the pipeline then hands both messages one filtered record).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cmfpipe/cmf.hpp"
#include "cmfpipe/cmf/filter.hpp"

using namespace cmfpipe;
using namespace cmfpipe::cmf;

namespace {

std::shared_ptr<const SubjectExtension> subject(const std::string& id) {
    SubjectExtension s{id, SubjectType::user};
    s.roles = {"dev"};
    return std::make_shared<const SubjectExtension>(std::move(s));
}

// Every slot the filter looks at set, from shared pieces, so that variants differ in one thing.
struct Pieces {
    std::shared_ptr<const RequestExtension> request =
        std::make_shared<const RequestExtension>(RequestExtension{"prod", "r1", {}, {}, {}});
    std::shared_ptr<const HttpExtension> http =
        std::make_shared<const HttpExtension>(HttpExtension{{{"X-Id", "1"}}});
    std::shared_ptr<const AgentExtension> agent =
        std::make_shared<const AgentExtension>(AgentExtension{});
    std::shared_ptr<const DelegationExtension> delegation =
        std::make_shared<const DelegationExtension>(DelegationExtension{Json{{"by", "bob"}}});
    std::shared_ptr<const SubjectExtension> alice = subject("alice");
    std::shared_ptr<const ObjectProfiles> objects = std::make_shared<const ObjectProfiles>(
        ObjectProfiles{{"tool", ObjectSecurityProfile{"host", {}, {}, {}}}});
    std::shared_ptr<const DataPolicies> data = std::make_shared<const DataPolicies>();
    CustomPtr custom = std::make_shared<const Json>(Json{{"k", "v"}});

    SecurityExtension security() const {
        SecurityExtension s;
        s.labels = {"INTERNAL"};
        s.classification = "confidential";
        s.subject = alice;
        s.objects = objects;
        s.data = data;
        return s;
    }
    Extensions record() const {
        Extensions e;
        e.request = request;
        e.agent = agent;
        e.http = http;
        e.delegation = delegation;
        e.custom = custom;
        e.security = std::make_shared<const SecurityExtension>(security());
        return e;
    }
};

// The base record and variants that each differ from it in one thing (a new record each).
std::vector<std::pair<std::string, ExtensionsPtr>> variants(const Pieces& p) {
    std::vector<std::pair<std::string, ExtensionsPtr>> out;
    auto add = [&](std::string name, Extensions e) {
        out.emplace_back(std::move(name), std::make_shared<const Extensions>(std::move(e)));
    };
    auto with_security = [&](auto change) {
        Extensions e = p.record();
        SecurityExtension s = p.security();
        change(s);
        e.security = std::make_shared<const SecurityExtension>(std::move(s));
        return e;
    };
    add("base", p.record());
    add("same pointers, new records", p.record());
    add("a label added", with_security([](SecurityExtension& s) { s.labels.insert("SEEN"); }));
    add("another classification",
        with_security([](SecurityExtension& s) { s.classification = "public"; }));
    add("another subject", with_security([](SecurityExtension& s) { s.subject = subject("eve"); }));
    add("no objects", with_security([](SecurityExtension& s) { s.objects = nullptr; }));
    add("no data", with_security([](SecurityExtension& s) { s.data = nullptr; }));
    Extensions e = p.record();
    e.security = nullptr;
    add("no security", e);
    e = p.record();
    e.http = std::make_shared<const HttpExtension>(HttpExtension{{{"X-Id", "2"}}});
    add("other headers", e);
    e = p.record();
    e.agent = nullptr;
    add("no agent", e);
    e = p.record();
    e.delegation = nullptr;
    add("no delegation", e);
    e = p.record();
    e.custom = std::make_shared<const Json>(Json{{"k", "w"}});
    add("other custom", e);
    e = p.record();
    e.request = nullptr;
    add("no request", e);
    add("empty", Extensions{});
    return out;
}

std::vector<std::pair<std::string, CapabilitySet>> capability_sets() {
    std::vector<std::pair<std::string, CapabilitySet>> out{{"none", {}},
                                                           {"all", CapabilitySet::all()}};
    for (int i = 0; i < capability_count; ++i) {
        const auto c = static_cast<Capability>(i);
        out.emplace_back(std::string(to_string(c)), CapabilitySet{c});
    }
    return out;
}

}  // namespace

TEST_CASE("filter_extensions shares the record when the capabilities hide nothing it carries",
          "[cmf][filter]") {
    const Pieces p;
    const auto all = std::make_shared<const Extensions>(p.record());
    CHECK(filter_extensions(all, CapabilitySet::all()) == all);

    // Only request and custom: nothing for any capability to hide.
    Extensions open;
    open.request = p.request;
    open.custom = p.custom;
    const auto visible = std::make_shared<const Extensions>(std::move(open));
    CHECK(filter_extensions(visible, {}) == visible);

    const auto hidden = filter_extensions(all, {Capability::read_headers});
    REQUIRE(hidden != all);
    CHECK(hidden->http == p.http);  // what is shown stays shared
    CHECK(hidden->request == p.request);
    CHECK(hidden->custom == p.custom);
    CHECK(hidden->agent == nullptr);
    CHECK(hidden->delegation == nullptr);
    REQUIRE(hidden->security);
    CHECK(hidden->security->labels.empty());
    CHECK(hidden->security->classification == "confidential");
    CHECK(hidden->security->subject == nullptr);
    CHECK(hidden->security->objects == nullptr);
    CHECK(hidden->security->data == nullptr);
}

TEST_CASE("shows_same: what a capability set cannot see does not tell records apart",
          "[cmf][filter]") {
    const Pieces p;
    const auto v = variants(p);
    auto record = [&](const std::string& name) -> const Extensions& {
        for (const auto& [n, e] : v)
            if (n == name) return *e;
        FAIL("no variant " << name);
        throw;
    };
    const Extensions& base = record("base");
    CHECK(shows_same(base, base, {}));
    CHECK(shows_same(base, record("same pointers, new records"), CapabilitySet::all()));

    CHECK(shows_same(base, record("a label added"), {Capability::read_subject}));
    CHECK_FALSE(shows_same(base, record("a label added"), {Capability::read_labels}));
    CHECK_FALSE(shows_same(base, record("a label added"), {Capability::append_labels}));
    CHECK(shows_same(base, record("another subject"), {Capability::read_labels}));
    CHECK_FALSE(shows_same(base, record("another subject"), {Capability::read_claims}));
    CHECK(shows_same(base, record("other headers"), {Capability::read_agent}));
    CHECK_FALSE(shows_same(base, record("other headers"), {Capability::write_headers}));
    CHECK(shows_same(base, record("no objects"), {Capability::read_data}));
    CHECK_FALSE(shows_same(base, record("no objects"), {Capability::read_objects}));
    CHECK(shows_same(base, record("no data"), {Capability::read_objects}));
    CHECK_FALSE(shows_same(base, record("no data"), {Capability::read_data}));
    CHECK(shows_same(base, record("no agent"), {}));
    CHECK_FALSE(shows_same(base, record("no agent"), {Capability::read_agent}));
    CHECK(shows_same(base, record("no delegation"), {}));
    CHECK_FALSE(shows_same(base, record("no delegation"), {Capability::read_delegation}));
    // Shown to everyone: always tell records apart.
    CHECK_FALSE(shows_same(base, record("another classification"), {}));
    CHECK_FALSE(shows_same(base, record("no security"), {}));
    CHECK_FALSE(shows_same(base, record("other custom"), {}));
    CHECK_FALSE(shows_same(base, record("no request"), {}));
}

TEST_CASE("shows_same never pairs records whose filtered views differ", "[cmf][filter]") {
    // Every pair of variants under every single capability, none and all: when shows_same says
    // yes, the two filtered records are equal by value. Both answers must occur.
    const Pieces p;
    const auto v = variants(p);
    int same = 0, different = 0;
    for (const auto& [caps_name, caps] : capability_sets()) {
        for (const auto& [a_name, a] : v) {
            for (const auto& [b_name, b] : v) {
                if (!shows_same(*a, *b, caps)) {
                    ++different;
                    continue;
                }
                ++same;
                INFO(caps_name << ": " << a_name << " / " << b_name);
                CHECK(*filter_extensions(a, caps) == *filter_extensions(b, caps));
            }
        }
    }
    CHECK(same == 1098);
    CHECK(different == 2038);
}
