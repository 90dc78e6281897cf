// The "jinja2" renderer kind. Options (per call, over the factory's config):
//   profile        "prompty" (default) | "chat-template"
//   now            ISO datetime strftime_now sees (default: the current local time)
//   template_name  name used in error messages
//   templates      {name: source} for include / import / extends (never the filesystem)
//   limits         sandbox limit overrides (see limits.hpp)
//   mutable_containers  true: the chat-template profile's lists and dicts accept append,
//                  update, ... (default false: SecurityError, as transformers)
#include <cstdio>
#include <ctime>

#include "cache.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"
#include "evaluator.hpp"
#include "template_error.hpp"

namespace cmfpipe::jinja2 {
namespace {

Profile parse_profile(const Json& v) {
    if (!v.is_string()) throw ValueError("jinja2 option 'profile' must be a string");
    const auto& s = v.get_ref<const std::string&>();
    if (s == "prompty") return Profile::Prompty;
    if (s == "chat-template") return Profile::ChatTemplate;
    throw ValueError("unknown jinja2 profile '" + s + "' (expected 'prompty' or 'chat-template')");
}

bool parse_mutable_containers(const Json& v) {
    if (!v.is_boolean()) throw ValueError("jinja2 option 'mutable_containers' must be a boolean");
    return v.get<bool>();
}

// The common spellings, YYYY-MM-DD and YYYY-MM-DD[T ]hh:mm:ss, read digit by digit: `now` is
// read on every render, and sscanf costs more than some renders. Anything else goes to sscanf,
// which reads these the same way.
bool plain_iso_datetime(std::string_view s, int& Y, int& M, int& D, int& h, int& m, int& sec) {
    if (s.size() != 10 && s.size() != 19) return false;
    auto digits = [&](std::size_t at, std::size_t count, int& out) {
        out = 0;
        for (std::size_t i = at; i < at + count; ++i) {
            if (s[i] < '0' || s[i] > '9') return false;
            out = out * 10 + (s[i] - '0');
        }
        return true;
    };
    if (!digits(0, 4, Y) || s[4] != '-' || !digits(5, 2, M) || s[7] != '-' || !digits(8, 2, D))
        return false;
    if (s.size() == 10) return true;
    return (s[10] == 'T' || s[10] == ' ') && digits(11, 2, h) && s[13] == ':' && digits(14, 2, m) &&
           s[16] == ':' && digits(17, 2, sec);
}

std::tm parse_now(const Json& v) {
    std::tm t{};
    if (!v.is_string()) throw ValueError("jinja2 option 'now' must be an ISO datetime string");
    const auto& s = v.get_ref<const std::string&>();
    int Y = 0, M = 0, D = 0, h = 0, m = 0, sec = 0, n = 0;
    if (!plain_iso_datetime(s, Y, M, D, h, m, sec)) {
        h = m = sec = 0;  // as if the fast path had not looked
        int fields = std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &Y, &M, &D, &n);
        if (fields != 3)
            throw ValueError("jinja2 option 'now': '" + s + "' is not an ISO datetime");
        if (static_cast<std::size_t>(n) < s.size() &&
            (s[static_cast<std::size_t>(n)] == 'T' || s[static_cast<std::size_t>(n)] == ' ')) {
            if (std::sscanf(s.c_str() + n + 1, "%2d:%2d:%2d", &h, &m, &sec) < 2)
                throw ValueError("jinja2 option 'now': '" + s + "' is not an ISO datetime");
        }
    }
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
        throw ValueError("jinja2 option 'now': '" + s + "' is out of range");
    t.tm_year = Y - 1900;
    t.tm_mon = M - 1;
    t.tm_mday = D;
    t.tm_hour = h;
    t.tm_min = m;
    t.tm_sec = sec;
    std::time_t flat = timegm(&t);  // normalises and fills tm_wday / tm_yday
    gmtime_r(&flat, &t);
    return t;
}

class JinjaRenderer final : public Renderer {
  public:
    explicit JinjaRenderer(const Json& config)
        : config_(config.is_object() ? config : Json::object()) {
        if (config_.contains("profile")) default_profile_ = parse_profile(config_["profile"]);
        if (config_.contains("mutable_containers"))
            default_mutable_containers_ = parse_mutable_containers(config_["mutable_containers"]);
        default_limits_ = Limits::from_json(config_.value("limits", Json()));
        cache_ = std::make_unique<TemplateCache>(config_.value("cache_size", 256));
    }

    std::string render(std::string_view text, const Json& inputs,
                       const Json& options) const override {
        const Json& opts = options.is_object() ? options : empty_;
        Profile profile = default_profile_;
        if (auto it = opts.find("profile"); it != opts.end()) profile = parse_profile(*it);
        CompileOptions copt;  // its name is the template's name for every error below
        if (auto it = opts.find("template_name"); it != opts.end() && it->is_string())
            copt.name = it->get_ref<const std::string&>();
        const std::string& name = copt.name;

        RenderSettings settings;
        settings.limits = default_limits_;
        if (auto it = opts.find("limits"); it != opts.end()) {
            Limits::from_json(*it);  // rejects a bad override with its own message, before merging
            Json merged = default_limits_.to_json();
            for (const auto& [k, v] : it->items())
                merged[k == "max_loop_iterations" ? "max_iterations" : k] = v;
            settings.limits = Limits::from_json(merged);
        }
        if (auto it = opts.find("now"); it != opts.end() && !it->is_null()) {
            settings.now = parse_now(*it);
        } else {
            settings.now_from_clock = true;  // read by the first strftime_now, if any
        }
        settings.mutable_containers = default_mutable_containers_;
        if (auto it = opts.find("mutable_containers"); it != opts.end())
            settings.mutable_containers = parse_mutable_containers(*it);
        if (!inputs.is_object() && !inputs.is_null())
            throw ValueError("jinja2 inputs must be a JSON object", {name});

        copt.profile = profile;
        copt.max_nesting_depth = settings.limits.max_nesting_depth;

        const Json* templates = nullptr;
        if (auto it = opts.find("templates"); it != opts.end()) {
            if (!it->is_object())
                throw ValueError("jinja2 option 'templates' must be an object of name -> source");
            templates = &*it;
        }
        const std::size_t max_bytes = settings.limits.max_template_bytes;
        auto check_size = [&](std::string_view src, const std::string& n) {
            if (src.size() > max_bytes)
                throw LimitExceeded("template of " + std::to_string(src.size()) +
                                        " bytes exceeds the limit of " + std::to_string(max_bytes) +
                                        " bytes",
                                    {n});
        };
        check_size(text, name);
        // Without a templates map there is nothing to load: no loader (a std::function this big
        // would cost an allocation on every render).
        if (templates)
            settings.loader =
                [&, templates](const std::string& wanted) -> std::shared_ptr<const Template> {
                auto it = templates->find(wanted);
                if (it == templates->end() || !it->is_string()) return nullptr;
                const auto& src = it->get_ref<const std::string&>();
                check_size(src, wanted);
                CompileOptions sub = copt;
                sub.name = wanted;
                return cache_->get(src, sub);  // a syntax error here propagates as a Failure
            };

        std::shared_ptr<const Template> tpl;
        try {
            tpl = cache_->get(text, copt);
        } catch (const Failure& f) {
            raise_as_cmfpipe_error(f, name, text);
        }
        static const Json no_inputs = Json::object();
        try {
            Evaluator ev(settings);
            return ev.render(tpl, inputs.is_object() ? inputs : no_inputs);
        } catch (const Failure& f) {
            raise_as_cmfpipe_error(f, name, tpl->source);
        }
    }

  private:
    Json config_;
    Profile default_profile_ = Profile::Prompty;
    bool default_mutable_containers_ = false;
    Limits default_limits_;
    std::unique_ptr<TemplateCache> cache_;
    const Json empty_ = Json::object();
};

void register_kinds(Registrar& r) {
    r.add_renderer("jinja2",
                   [](const Json& config) { return std::make_unique<JinjaRenderer>(config); });
}

}  // namespace
}  // namespace cmfpipe::jinja2

CMFPIPE_PLUGIN(jinja2, "1.0.0", cmfpipe::jinja2::register_kinds)
