// YAML text -> Json from yaml-cpp's parser events (see yaml_to_json.hpp). yaml-cpp's node tree
// is not built: the Json is filled as the events come, and the positions with it.
#include "yaml_to_json.hpp"

#include <exception>
#include <istream>
#include <streambuf>
#include <utility>
#include <vector>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include "cmfpipe/limits.hpp"
#include "yaml_scalar.hpp"

namespace cmfpipe::yaml {
namespace {

// Where a mark (yaml-cpp counts from 0) is in the file: only the first line of the text is
// shifted by the column where the text starts.
std::pair<int, int> line_and_column(const YAML::Mark& mark, const Origin& origin) {
    return {origin.line + mark.line,
            mark.line == 0 ? origin.column + mark.column : mark.column + 1};
}

// The text read in place: an istringstream would copy it.
class TextBuffer : public std::streambuf {
  public:
    explicit TextBuffer(std::string_view text) {
        // The get area is only read (putting back a character that is there moves the pointer).
        char* begin = const_cast<char*>(text.data());
        setg(begin, begin, begin + text.size());
    }
};

// A collection being filled.
struct Frame {
    Json* value;
    bool is_map;
    bool expecting_key = true;   // maps: the next event is a key
    std::string key;             // maps: the key of the value being read
    std::size_t next_index = 0;  // sequences
    std::string pointer;         // when positions are kept
    YAML::anchor_t anchor = YAML::NullAnchor;
};

// What an anchor names, for its aliases.
struct Anchored {
    enum class Kind { none, null, scalar, collection } kind = Kind::none;
    YAML::Mark mark;
    std::string tag, text;  // scalars
    std::string path;       // collections: JSON pointer of the node in the Json being built
    std::size_t depth = 0;  // collections open around the node
    std::size_t log_begin = 0, log_end = 0;  // its nodes in the log, in document order
    bool complete = false;
};

// A node inside an anchored collection, kept so that an alias can count, check and locate the
// nodes of the copy it stands for without walking the Json.
struct Logged {
    YAML::Mark mark;
    std::size_t depth;  // collections open around it
    bool collection;
    std::string pointer;  // when positions are kept
};

// Aliases are expanded into copies, so a few lines ("billion laughs") can stand for billions of
// values, and `&a [*a]` for an endless one: the nodes and the depth of every copy are counted
// against the limits policy before the copy is made. A refusal is held until the parser has read
// the whole text, so that a syntax error anywhere is what the caller hears first.
class JsonBuilder final : public YAML::EventHandler {
  public:
    JsonBuilder(const Origin& origin, const PositionSink& record)
        : origin_(origin), record_(record), limits_(input_limits()) {}

    Json take() {
        if (failure_) std::rethrow_exception(failure_);
        return std::move(root_);
    }
    bool empty_root() const { return empty_root_; }

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        guarded([&] {
            if (expecting_key()) refuse_key(mark);
            if (frames_.empty()) empty_root_ = true;
            visit(mark, false, pointer_of_next());
            new_slot() = nullptr;
            if (anchor != YAML::NullAnchor) {
                Anchored& a = anchored(anchor);
                a.kind = Anchored::Kind::null;
                a.mark = mark;
            }
        });
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override {
        guarded([&] {
            if (anchor != YAML::NullAnchor) {
                Anchored& a = anchored(anchor);
                a.kind = Anchored::Kind::scalar;
                a.mark = mark;
                a.tag = tag;
                a.text = value;
            }
            if (expecting_key()) return read_key(value, mark);
            put_scalar(tag, value, mark);
        });
    }

    void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override {
        guarded([&] {
            const Anchored& a = anchored(anchor);
            if (expecting_key()) {
                if (a.kind != Anchored::Kind::scalar) refuse_key(a.mark);
                return read_key(a.text, a.mark);
            }
            switch (a.kind) {
                case Anchored::Kind::scalar:
                    return put_scalar(a.tag, a.text, a.mark);
                case Anchored::Kind::collection:
                    return a.complete ? copy_collection(a) : endless_copy(a);
                default:
                    visit(a.mark, false, pointer_of_next());
                    new_slot() = nullptr;
            }
        });
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        guarded([&] { open_collection(mark, anchor, false); });
    }
    void OnSequenceEnd() override {
        guarded([&] { close_collection(); });
    }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        guarded([&] { open_collection(mark, anchor, true); });
    }
    void OnMapEnd() override {
        guarded([&] { close_collection(); });
    }

  private:
    template <class F>
    void guarded(F&& handle) {
        if (failure_) return;  // the rest of the text is only checked for syntax
        try {
            handle();
        } catch (...) {
            failure_ = std::current_exception();
        }
    }

    [[noreturn]] void refuse_key(const YAML::Mark& mark) const {
        throw ConfigError("mapping keys must be plain strings", location_of(mark, origin_));
    }

    bool expecting_key() const {
        return !frames_.empty() && frames_.back().is_map && frames_.back().expecting_key;
    }

    void read_key(const std::string& key, const YAML::Mark& mark) {
        Frame& frame = frames_.back();
        if (frame.value->contains(key))
            throw ConfigError("duplicate key '" + key + "'", location_of(mark, origin_));
        frame.key = key;
        frame.expecting_key = false;
    }

    Anchored& anchored(YAML::anchor_t anchor) {
        if (anchor >= anchors_.size()) anchors_.resize(anchor + 1);
        return anchors_[anchor];
    }

    // The JSON pointer of the value that comes next, when positions are kept.
    std::string pointer_of_next() const {
        if (!record_ || frames_.empty()) return {};
        const Frame& frame = frames_.back();
        if (frame.is_map) return child_pointer(frame.pointer, frame.key);
        return frame.pointer + '/' + std::to_string(frame.next_index);
    }

    // The same, built from the open collections whether positions are kept or not (for anchors).
    std::string path_of_next() const {
        std::string path;
        for (std::size_t i = 0; i < frames_.size(); ++i) {
            const Frame& frame = frames_[i];
            const bool innermost = i + 1 == frames_.size();
            if (frame.is_map) {
                path = child_pointer(path, frame.key);
            } else {
                path += '/';
                path += std::to_string(innermost ? frame.next_index : frame.next_index - 1);
            }
        }
        return path;
    }

    // A scalar (read, or named by an alias) as the value that comes next.
    void put_scalar(const std::string& tag, const std::string& text, const YAML::Mark& mark) {
        visit(mark, false, pointer_of_next());
        Json resolved = resolve_scalar(tag, text, mark, origin_);
        new_slot() = std::move(resolved);
    }

    // Where the value that comes next goes.
    Json& new_slot() {
        if (frames_.empty()) return root_;
        Frame& frame = frames_.back();
        if (frame.is_map) {
            frame.expecting_key = true;
            return (*frame.value)[frame.key];
        }
        ++frame.next_index;
        frame.value->push_back(nullptr);
        return frame.value->back();
    }

    // One node made, `depth` collections inside the root: counted, located, checked, and logged
    // when an anchored collection is open.
    void visit_at(const YAML::Mark& mark, bool collection, std::size_t depth, std::string pointer) {
        check(mark, collection, depth);
        if (record_ && mark.line >= 0) {
            // location_of without its copy of the file name.
            const auto [line, column] = line_and_column(mark, origin_);
            record_(pointer, line, column);
        }
        if (open_anchored_ > 0) log_.push_back({mark, depth, collection, std::move(pointer)});
    }
    void visit(const YAML::Mark& mark, bool collection, std::string pointer) {
        visit_at(mark, collection, frames_.size(), std::move(pointer));
    }

    void check(const YAML::Mark& mark, bool collection, std::size_t depth) {
        if (++nodes_ > limits_.max_yaml_nodes)
            throw LimitExceeded(
                "YAML expands to more than " + std::to_string(limits_.max_yaml_nodes) +
                    " nodes (max_yaml_nodes; aliases count each time they are used)",
                location_of(mark, origin_));
        if (collection && depth + 1 > limits_.max_depth)
            throw LimitExceeded("YAML nested deeper than " + std::to_string(limits_.max_depth) +
                                    " levels (max_depth)",
                                location_of(mark, origin_));
    }

    void open_collection(const YAML::Mark& mark, YAML::anchor_t anchor, bool is_map) {
        if (expecting_key()) refuse_key(mark);
        std::string pointer = pointer_of_next();
        if (anchor != YAML::NullAnchor) {
            Anchored& a = anchored(anchor);
            a = Anchored{Anchored::Kind::collection,
                         mark,
                         {},
                         {},
                         path_of_next(),
                         frames_.size(),
                         log_.size(),
                         0,
                         false};
            ++open_anchored_;
        }
        visit(mark, true, pointer);
        Json& slot = new_slot();
        slot = is_map ? Json::object() : Json::array();
        frames_.push_back(Frame{&slot, is_map, true, {}, 0, std::move(pointer), anchor});
    }

    void close_collection() {
        const YAML::anchor_t anchor = frames_.back().anchor;
        frames_.pop_back();
        if (anchor == YAML::NullAnchor) return;
        Anchored& a = anchors_[anchor];
        a.complete = true;
        a.log_end = log_.size();
        --open_anchored_;
    }

    // An alias of a finished collection: each node of the copy counted and located as the
    // original was, then the copy.
    void copy_collection(const Anchored& a) {
        const std::string here = pointer_of_next();
        const std::size_t anchored_pointer = log_[a.log_begin].pointer.size();
        for (std::size_t i = a.log_begin; i < a.log_end; ++i) {
            // log_ may grow (and move) while the copy is logged: take what is needed first.
            const Logged& node = log_[i];
            const YAML::Mark mark = node.mark;
            const bool collection = node.collection;
            const std::size_t depth = frames_.size() + node.depth - a.depth;
            std::string pointer = record_ ? here + node.pointer.substr(anchored_pointer) : "";
            visit_at(mark, collection, depth, std::move(pointer));
        }
        Json copy = root_.at(Json::json_pointer(a.path));
        new_slot() = std::move(copy);
    }

    // An alias inside the collection it names (`&a [1, *a]`) stands for an endless nesting of
    // that collection's nodes up to the alias; counting them reaches a limit, which is thrown.
    [[noreturn]] void endless_copy(const Anchored& a) {
        const std::size_t prefix_end = log_.size();
        const std::size_t step = frames_.size() - a.depth;
        for (std::size_t level = 0;; ++level) {
            for (std::size_t i = a.log_begin; i < prefix_end; ++i)
                check(log_[i].mark, log_[i].collection,
                      frames_.size() + level * step + log_[i].depth - a.depth);
        }
    }

    const Origin& origin_;
    const PositionSink& record_;
    const InputLimits& limits_;
    Json root_;
    bool empty_root_ = false;
    std::vector<Frame> frames_;
    std::vector<Anchored> anchors_;
    std::vector<Logged> log_;
    std::size_t open_anchored_ = 0;
    std::size_t nodes_ = 0;
    std::exception_ptr failure_;
};

}  // namespace

std::string child_pointer(std::string_view parent, std::string_view key) {
    std::string out;
    out.reserve(parent.size() + key.size() + 1);
    out.append(parent);
    out += '/';
    for (char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

SourceLocation location_of(const YAML::Mark& mark, const Origin& origin) {
    if (mark.line < 0) return {origin.source};
    const auto [line, column] = line_and_column(mark, origin);
    return {origin.source, line, column};
}

Json to_json(std::string_view text, const Origin& origin, const PositionSink& record, bool* empty) {
    TextBuffer buffer(text);
    std::istream input(&buffer);
    JsonBuilder builder(origin, record);
    bool any_document = false;
    try {
        YAML::Parser parser(input);
        any_document = parser.HandleNextDocument(builder);
    } catch (const YAML::DeepRecursion& e) {
        throw LimitExceeded("YAML nested deeper than the YAML parser allows (" +
                                std::to_string(e.depth()) + " levels)",
                            location_of(e.mark, origin));
    }
    if (empty) *empty = !any_document || builder.empty_root();
    return builder.take();
}

}  // namespace cmfpipe::yaml
