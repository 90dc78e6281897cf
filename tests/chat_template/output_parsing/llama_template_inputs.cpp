// Template-specific inputs of llama.cpp's handlers (see llama_template_inputs.hpp).
#include "llama_template_inputs.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::output_parsing {
namespace {

// "2024-07-26T00:00:00" -> "Jul 26 2024 00:00:00 GMT".
std::string gmt_datetime(const std::string& iso) {
    static const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (iso.size() < 19 || iso[4] != '-' || iso[7] != '-' || iso[10] != 'T')
        throw ValueError("not an ISO time: " + iso);
    const int month = std::stoi(iso.substr(5, 2));
    if (month < 1 || month > 12) throw ValueError("not an ISO time: " + iso);
    return std::string(months[month - 1]) + " " + iso.substr(8, 2) + " " + iso.substr(0, 4) + " " +
           iso.substr(11, 8) + " GMT";
}

}  // namespace

TemplateInputs llama_template_inputs(const std::string& name, const Json& tools,
                                     const std::string& now) {
    TemplateInputs out;
    if (name == "fireworks-ai-llama-3-firefunction-v2.jinja") {
        out.tools_in_template = false;
        out.chat_template_kwargs = {{"datetime", gmt_datetime(now)},
                                    {"functions", tools.empty() ? std::string() : tools.dump(2)}};
    }
    return out;
}

}  // namespace cmfpipe::output_parsing
