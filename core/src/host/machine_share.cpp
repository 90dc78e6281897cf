// host/machine_share.hpp: the cores and memory this process may use.
#include "machine_share.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

namespace cmfpipe::host {
namespace {

// The kernel's files are small (mountinfo a few KB on a busy host); more than this is not one.
constexpr std::size_t max_file_bytes = 1 << 20;

std::optional<std::string> read_small_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text(max_file_bytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_file_bytes) return std::nullopt;
    return text;
}

std::vector<std::string_view> split(std::string_view text, char by) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const std::size_t end = text.find(by, start);
        parts.push_back(text.substr(start, end - start));
        if (end == std::string_view::npos) return parts;
        start = end + 1;
    }
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    return text;
}

std::optional<std::int64_t> whole_number(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// One cgroup hierarchy that holds a controller: where it is mounted, the cgroup of this process
// in it, and whether it is v2.
struct Hierarchy {
    std::string mount_point, mount_root, cgroup;
    bool v2 = false;
};

// mountinfo: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE
// SUPER_OPTIONS". A v1 hierarchy is found by its controller among the super options, v2 by its
// type.
std::optional<Hierarchy> find_hierarchy(std::string_view mountinfo, std::string_view controller,
                                        bool v2) {
    for (std::string_view line : split(mountinfo, '\n')) {
        const std::size_t dash = line.find(" - ");
        if (dash == std::string_view::npos) continue;
        const auto head = split(line.substr(0, dash), ' ');
        const auto tail = split(line.substr(dash + 3), ' ');
        if (head.size() < 5 || tail.size() < 3) continue;
        if (v2 ? tail[0] != "cgroup2" : tail[0] != "cgroup") continue;
        if (!v2) {
            const auto options = split(tail[2], ',');
            if (std::find(options.begin(), options.end(), controller) == options.end()) continue;
        }
        return Hierarchy{std::string(head[4]), std::string(head[3]), {}, v2};
    }
    return std::nullopt;
}

// /proc/self/cgroup: "ID:CONTROLLERS:PATH"; v2's line is "0::PATH".
std::optional<std::string> cgroup_path(std::string_view cgroups, std::string_view controller,
                                       bool v2) {
    for (std::string_view line : split(cgroups, '\n')) {
        const auto fields = split(line, ':');
        if (fields.size() < 3) continue;
        const bool match = v2 ? fields[0] == "0" && fields[1].empty() : [&] {
            const auto names = split(fields[1], ',');
            return std::find(names.begin(), names.end(), controller) != names.end();
        }();
        // The path may hold ':' itself: it is the rest of the line.
        if (match) return std::string(line.substr(fields[0].size() + fields[1].size() + 2));
    }
    return std::nullopt;
}

// The two files that say where this process's cgroups are, read once.
struct CgroupPlaces {
    std::string root;  // the prefix of every path read
    std::optional<std::string> mountinfo, cgroups;
};

// The folders of the process's cgroup and of each cgroup above it, up to the mount point (the
// highest one this mount namespace sees), leaf first.
std::vector<std::string> cgroup_folders(const CgroupPlaces& places, std::string_view controller,
                                        bool v2) {
    if (!places.mountinfo || !places.cgroups) return {};
    const std::string& root = places.root;
    auto hierarchy = find_hierarchy(*places.mountinfo, controller, v2);
    auto path = cgroup_path(*places.cgroups, controller, v2);
    if (!hierarchy || !path) return {};
    // Inside a container the mount's root is the container's cgroup, and the path is given from
    // the host's root: what is below the mount's root is the part to follow.
    std::string below = *path;
    if (hierarchy->mount_root != "/" && below.rfind(hierarchy->mount_root, 0) == 0)
        below = below.substr(hierarchy->mount_root.size());
    if (below.find("/..") != std::string::npos) return {};  // not a path the kernel writes
    std::vector<std::string> folders;
    while (true) {
        while (below.size() > 1 && below.back() == '/') below.pop_back();
        folders.push_back(root + hierarchy->mount_point + (below == "/" ? "" : below));
        if (below.empty() || below == "/") return folders;
        const std::size_t slash = below.rfind('/');
        below = slash == 0 || slash == std::string::npos ? "/" : below.substr(0, slash);
    }
}

std::optional<std::int64_t> number_in(const std::string& file) {
    const auto text = read_small_file(file);
    if (!text) return std::nullopt;
    return whole_number(trimmed(*text));
}

// The CPU quota in cores (quota / period), the smallest of the cgroup's and its ancestors'.
std::optional<double> cpu_quota(const CgroupPlaces& places) {
    std::optional<double> cores;
    const auto narrow = [&cores](std::int64_t quota, std::int64_t period) {
        if (quota <= 0 || period <= 0) return;
        const double share = double(quota) / double(period);
        cores = cores ? std::min(*cores, share) : share;
    };
    for (const std::string& folder : cgroup_folders(places, "cpu", true)) {
        const auto text = read_small_file(folder + "/cpu.max");  // "QUOTA PERIOD", "max PERIOD"
        if (!text) continue;
        const auto fields = split(trimmed(*text), ' ');
        if (fields.size() != 2 || fields[0] == "max") continue;
        const auto quota = whole_number(fields[0]), period = whole_number(fields[1]);
        if (quota && period) narrow(*quota, *period);
    }
    for (const std::string& folder : cgroup_folders(places, "cpu", false)) {
        const auto quota = number_in(folder + "/cpu.cfs_quota_us");  // -1: none
        const auto period = number_in(folder + "/cpu.cfs_period_us");
        if (quota && period) narrow(*quota, *period);
    }
    return cores;
}

// The memory limit in bytes, the smallest of the cgroup's and its ancestors'.
std::optional<std::size_t> memory_limit(const CgroupPlaces& places) {
    std::optional<std::size_t> limit;
    const auto narrow = [&limit](std::optional<std::int64_t> bytes) {
        if (!bytes || *bytes <= 0) return;
        limit = limit ? std::min(*limit, std::size_t(*bytes)) : std::size_t(*bytes);
    };
    for (const std::string& folder : cgroup_folders(places, "memory", true))
        narrow(number_in(folder + "/memory.max"));  // "max": none (not a number)
    for (const std::string& folder : cgroup_folders(places, "memory", false))
        narrow(number_in(folder + "/memory.limit_in_bytes"));  // none: a page-rounded 2^63-1
    return limit;
}

std::string two_places(double value) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(2);
    out << value;
    return out.str();
}

}  // namespace

MachineShare machine_share(const std::string& root) {
    MachineShare share;
    share.cores = std::max(1u, std::thread::hardware_concurrency());
    share.cores_from = "the machine's " + std::to_string(share.cores) + " cores";
    if (root.empty()) {
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
            const std::size_t count = std::size_t(CPU_COUNT(&allowed));
            if (count >= 1 && count < share.cores) {
                share.cores = count;
                share.cores_from = "the " + std::to_string(count) +
                                   (count == 1 ? " CPU it may run on" : " CPUs it may run on");
            }
        }
    }
    const CgroupPlaces places{root, read_small_file(root + "/proc/self/mountinfo"),
                              read_small_file(root + "/proc/self/cgroup")};
    share.cpu_quota = cpu_quota(places);
    if (const auto quota = share.cpu_quota) {
        // A pool of fewer threads than the quota's cores would leave some unused; one more than a
        // fraction's whole part is as many as can run at once.
        const std::size_t cores = std::max<std::size_t>(1, std::size_t(*quota + 0.999));
        if (cores < share.cores) {
            share.cores = cores;
            share.cores_from = "the cgroup CPU quota of " + two_places(*quota) + " cores";
        }
    }

    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGE_SIZE);
    share.memory = pages > 0 && page_size > 0 ? std::size_t(pages) * std::size_t(page_size) : 0;
    share.memory_from = "the machine's memory";
    if (const auto limit = memory_limit(places);
        limit && (share.memory == 0 || *limit < share.memory)) {
        share.memory = *limit;
        share.memory_from = "the cgroup memory limit";
    }
    return share;
}

}  // namespace cmfpipe::host
